// The watch hub on the in-memory store: one loop per shard serves every watched game in it, each
// listener gets its own game's events only, a game joins a waiting loop, and the cap holds.
#include "libs/service/watch_hub.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/testing/requests.h"

namespace service {
namespace {

using ::base::HasErrorCode;
using store::testing::Request;

class Recorder final : public WatchHub::Listener {
 public:
  void OnEvents(const std::vector<arbiter::v1::GameEvent>& events) override {
    absl::MutexLock lock(&mu_);
    for (const arbiter::v1::GameEvent& e : events) versions_.push_back(e.version());
  }
  void OnError(const absl::Status& status) override {
    absl::MutexLock lock(&mu_);
    error_ = status;
  }
  // The highest version seen, waiting up to 5 s for it to reach `version`.
  std::int64_t WaitFor(std::int64_t version) {
    absl::MutexLock lock(&mu_);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !versions_.empty() && versions_.back() >= version;
    };
    mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(5));
    return versions_.empty() ? 0 : versions_.back();
  }
  std::vector<std::int64_t> versions() {
    absl::MutexLock lock(&mu_);
    return versions_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::int64_t> versions_ ABSL_GUARDED_BY(mu_);
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

TEST(WatchHub, EveryGameOfEveryShardGetsItsOwnEventsFromOneLoopPerShard) {
  store::MemoryGameStore store({.num_deadline_shards = 4});
  WatchHub hub(&store, 1000, absl::Milliseconds(50));
  constexpr int kGames = 40;  // ten per shard, on average
  std::map<std::string, std::shared_ptr<Recorder>> listeners;
  for (int g = 0; g < kGames; ++g) {
    const std::string game = absl::StrCat("game-", g);
    ASSERT_OK(store.Append(Request(game, 0, "c1")));
    listeners[game] = std::make_shared<Recorder>();
    ASSERT_OK(hub.Add(game, 1, listeners[game]));
  }
  EXPECT_EQ(hub.watched_games(), kGames);
  // Each game moves on by a different number of events.
  for (int g = 0; g < kGames; ++g) {
    const std::string game = absl::StrCat("game-", g);
    ASSERT_OK(store.Append(Request(game, 1, "c2", 1 + g % 3)));
  }
  for (int g = 0; g < kGames; ++g) {
    const std::string game = absl::StrCat("game-", g);
    const std::int64_t head = 2 + g % 3;
    EXPECT_EQ(listeners[game]->WaitFor(head), head) << game;
    std::vector<std::int64_t> want;
    for (std::int64_t v = 2; v <= head; ++v) want.push_back(v);
    EXPECT_EQ(listeners[game]->versions(), want) << game;  // its own, in order, once
  }
  // A game joining while its shard's loop waits is served from the next wait on.
  ASSERT_OK(store.Append(Request("late", 0, "c1")));
  auto late = std::make_shared<Recorder>();
  ASSERT_OK(hub.Add("late", 1, late));
  ASSERT_OK(store.Append(Request("late", 1, "c2")));
  EXPECT_EQ(late->WaitFor(2), 2);
}

TEST(WatchHub, ListenersLeaveAndTheCapHolds) {
  store::MemoryGameStore store({.num_deadline_shards = 2});
  WatchHub hub(&store, 2, absl::Milliseconds(20));
  for (const char* game : {"a", "b", "c"}) ASSERT_OK(store.Append(Request(game, 0, "c1")));
  auto a = std::make_shared<Recorder>();
  auto b = std::make_shared<Recorder>();
  ASSERT_OK(hub.Add("a", 1, a));
  ASSERT_OK(hub.Add("b", 1, b));
  ASSERT_OK(hub.Add("a", 1, std::make_shared<Recorder>()));  // a second watcher of a: no new game
  EXPECT_THAT(hub.Add("c", 1, std::make_shared<Recorder>()), HasErrorCode("ERR_TOO_MANY_WATCHES"));
  hub.Remove("b", b.get());
  // b's loop drops it at its next turn, which makes room.
  for (int i = 0; i < 100 && hub.watched_games() > 1; ++i) absl::SleepFor(absl::Milliseconds(10));
  EXPECT_EQ(hub.watched_games(), 1);
  ASSERT_OK(hub.Add("c", 1, std::make_shared<Recorder>()));
  ASSERT_OK(store.Append(Request("b", 1, "c2")));
  ASSERT_OK(store.Append(Request("a", 1, "c2")));
  EXPECT_EQ(a->WaitFor(2), 2);
  EXPECT_TRUE(b->versions().empty());
}

}  // namespace
}  // namespace service
