// The firehose's feed reader on the memory store, with a stream that the test reads: resumed
// subscriptions get every event exactly once while games are appended to, a subscriber that does
// not read is cut off with ERR_WATCH_TOO_SLOW (and its memory stays bounded), and a position the
// feed no longer keeps ends the stream with ERR_FEED_POSITION_EXPIRED.
#include "services/arbitration/firehose.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/authority.h"
#include "libs/service/grpc_status.h"
#include "libs/store/forwarding_store.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/testing/requests.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;

// A stream the test reads: at most `max_backlog` updates queued (0: no cap).
class TestStream final : public service::StreamWriter<v1::GamesUpdate> {
 public:
  explicit TestStream(size_t max_backlog = 0) : max_backlog_(max_backlog) {}

  bool Write(v1::GamesUpdate message) override {
    absl::MutexLock lock(&mu_);
    if (finished_ || (max_backlog_ > 0 && queue_.size() >= max_backlog_)) return false;
    queue_.push_back(std::move(message));
    return true;
  }
  void Finish(grpc::Status status) override {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    finished_ = true;
    status_ = std::move(status);
  }
  size_t backlog() override {
    absl::MutexLock lock(&mu_);
    return queue_.size();
  }
  void OnDone(std::function<void()> fn) override {
    absl::MutexLock lock(&mu_);
    on_done_ = std::move(fn);
  }
  grpc::ServerContext* context() override { return nullptr; }
  void Keep(std::shared_ptr<void>) override {}

  // Takes what is queued, waiting up to `timeout` until `done` holds of everything taken so far.
  template <typename Done>
  std::vector<v1::GamesUpdate> TakeUntil(Done done, absl::Duration timeout = absl::Seconds(10)) {
    std::vector<v1::GamesUpdate> out;
    const absl::Time end = absl::Now() + timeout;
    while (absl::Now() < end) {
      {
        absl::MutexLock lock(&mu_);
        while (!queue_.empty()) {
          out.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
      if (done(out)) break;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return out;
  }
  // The status the stream ended with, waiting up to `timeout`; nullopt if it did not end.
  std::optional<grpc::Status> Ended(absl::Duration timeout = absl::Seconds(10)) {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&finished_), timeout);
    if (!finished_) return std::nullopt;
    return status_;
  }
  // The client leaves.
  void Leave() {
    std::function<void()> fn;
    {
      absl::MutexLock lock(&mu_);
      finished_ = true;
      fn = std::move(on_done_);
    }
    if (fn) fn();
  }

 private:
  const size_t max_backlog_;
  absl::Mutex mu_;
  std::deque<v1::GamesUpdate> queue_ ABSL_GUARDED_BY(mu_);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  std::function<void()> on_done_ ABSL_GUARDED_BY(mu_);
};

// The memory store, noting what the firehose reads of the games' logs.
class ReadsNotingStore final : public store::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ReadEvents(absl::string_view game_id,
                                                                 std::int64_t from_version,
                                                                 std::int64_t to_version) override {
    absl::MutexLock lock(&mu_);
    ranges_.push_back({std::string(game_id), from_version, to_version});
    ++one_game_reads_;
    return ForwardingStore::ReadEvents(game_id, from_version, to_version);
  }
  std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> ReadEventsOfGames(
      const std::vector<store::EventRange>& ranges) override {
    absl::MutexLock lock(&mu_);
    ranges_.insert(ranges_.end(), ranges.begin(), ranges.end());
    return ForwardingStore::ReadEventsOfGames(ranges);
  }

  // Every range read (by either call), and how many were read one game a call.
  std::vector<store::EventRange> ranges() {
    absl::MutexLock lock(&mu_);
    return ranges_;
  }
  int one_game_reads() {
    absl::MutexLock lock(&mu_);
    return one_game_reads_;
  }

 private:
  absl::Mutex mu_;
  std::vector<store::EventRange> ranges_ ABSL_GUARDED_BY(mu_);
  int one_game_reads_ ABSL_GUARDED_BY(mu_) = 0;
};

class FirehoseTest : public ::testing::Test {
 protected:
  explicit FirehoseTest(std::int64_t feed_retention = store::kFeedRetention)
      : store_({.num_deadline_shards = 4, .feed_retention = feed_retention}),
        reads_(&store_),
        workers_(4),
        firehose_(&reads_, &workers_, [] { return absl::ToUnixMillis(absl::Now()); }) {}

  // Appends to `game` (created at its first append) one event: its creation, then offers.
  void Append(const std::string& game) {
    std::int64_t& version = versions_[game];
    v1::ArbitrationEvent event;
    event.set_at_ms(absl::ToUnixMillis(absl::Now()));
    if (version == 0) {
      event.mutable_created()->set_event("Test");
    } else {
      event.mutable_draw_offered();
    }
    store::AppendRequest req;
    req.game_id = game;
    req.expected_version = version;
    req.command_id = absl::StrCat("c", version);
    req.events.push_back(arbitration::ToStoreEvent(event, event.at_ms()));
    req.snapshot = store::testing::PositionSnapshot("startpos");
    ASSERT_TRUE(store_.Append(req).ok());
    ++version;
  }

  std::shared_ptr<TestStream> Subscribe(const std::string& position = "", size_t max_backlog = 0) {
    auto stream = std::make_shared<TestStream>(max_backlog);
    absl::Status st =
        firehose_.Subscribe(service::Principal{.role = service::Role::kPlatform},
                            arbitration::Viewer{}, /*insecure=*/false, position, stream);
    EXPECT_TRUE(st.ok()) << st;
    return stream;
  }

  store::MemoryGameStore store_;
  ReadsNotingStore reads_;
  base::WorkerPool workers_;
  Firehose firehose_;
  std::map<std::string, std::int64_t> versions_;
};

// (game, version) of every event.
std::vector<std::pair<std::string, std::int64_t>> Events(const std::vector<v1::GamesUpdate>& us) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const v1::GamesUpdate& u : us) {
    for (const v1::GameUpdate& e : u.events()) out.emplace_back(u.game_id(), e.version());
  }
  return out;
}

TEST_F(FirehoseTest, ResumedSubscriptionsGetEveryEventOnceWhileGamesAreAppendedTo) {
  constexpr int kGames = 12;
  constexpr int kEvents = 15;
  std::shared_ptr<TestStream> first = Subscribe();
  std::thread writer([&] {
    for (int e = 0; e < kEvents; ++e) {
      for (int g = 0; g < kGames; ++g) Append(absl::StrCat("g", g));
    }
  });
  // The client leaves after some updates, and comes back from the last position it got.
  std::vector<v1::GamesUpdate> got =
      first->TakeUntil([](const auto& u) { return Events(u).size() >= 40; });
  first->Leave();
  ASSERT_FALSE(got.empty());
  std::shared_ptr<TestStream> second = Subscribe(got.back().position());
  writer.join();
  std::vector<v1::GamesUpdate> rest = second->TakeUntil([&](const auto& u) {
    return Events(got).size() + Events(u).size() >= static_cast<size_t>(kGames * kEvents);
  });
  absl::SleepFor(absl::Milliseconds(200));  // anything repeated would come now
  for (v1::GamesUpdate& u : second->TakeUntil([](const auto&) { return true; })) {
    rest.push_back(std::move(u));
  }
  std::map<std::string, std::vector<std::int64_t>> seen;
  for (const auto& [game, version] : Events(got)) seen[game].push_back(version);
  for (const auto& [game, version] : Events(rest)) seen[game].push_back(version);
  ASSERT_EQ(seen.size(), static_cast<size_t>(kGames));
  std::vector<std::int64_t> all;
  for (int v = 1; v <= kEvents; ++v) all.push_back(v);
  for (const auto& [game, versions] : seen) EXPECT_EQ(versions, all) << game;
  EXPECT_EQ(firehose_.subscribers(), 1);  // the first left
}

// A game the reader meets for the first time with a long log: it reads the game's first event
// (who may see it) and the versions the entry names, not the whole log, and the entries' games
// together (ReadEventsOfGames), not one read per game.
TEST_F(FirehoseTest, AGameFirstMetIsReadOnlyAsFarAsItsEntryAndItsFirstEvent) {
  for (int i = 0; i < 40; ++i) Append("long");
  Append("other");
  std::shared_ptr<TestStream> stream = Subscribe();
  Append("long");   // version 41
  Append("other");  // version 2
  std::vector<v1::GamesUpdate> got = stream->TakeUntil(
      [](const std::vector<v1::GamesUpdate>& us) { return Events(us).size() >= 2; });
  using Event = std::pair<std::string, std::int64_t>;
  EXPECT_THAT(Events(got), ::testing::UnorderedElementsAre(Event{"long", 41}, Event{"other", 2}));
  EXPECT_EQ(reads_.one_game_reads(), 0);
  for (const store::EventRange& r : reads_.ranges()) {
    // The first event alone, or versions the feed's entries named (the reader's batch may begin
    // with entries from before the subscription): never the log from its start.
    EXPECT_TRUE(r.from_version > 1 || r.to_version == 1) << r.game_id << " " << r.to_version;
    EXPECT_LE(r.to_version, versions_[r.game_id]) << r.game_id;
  }
}

TEST_F(FirehoseTest, ASubscriberThatDoesNotReadIsCutOffWithAPreciseCode) {
  std::shared_ptr<TestStream> slow = Subscribe("", /*max_backlog=*/5);
  for (int g = 0; g < 20; ++g) Append(absl::StrCat("g", g));
  std::optional<grpc::Status> ended = slow->Ended();
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(service::ErrorInfoOf(*ended).code(), "ERR_WATCH_TOO_SLOW");
  EXPECT_LE(slow->backlog(), 5u);
}

class ShortFeedTest : public FirehoseTest {
 protected:
  ShortFeedTest() : FirehoseTest(/*feed_retention=*/3) {}
};

TEST_F(ShortFeedTest, APositionTheFeedNoLongerKeepsEndsTheStreamPrecisely) {
  std::shared_ptr<TestStream> first = Subscribe();
  std::vector<v1::GamesUpdate> start = first->TakeUntil([](const auto& u) { return !u.empty(); });
  ASSERT_FALSE(start.empty());
  first->Leave();
  for (int e = 0; e < 10; ++e) Append("g1");  // one shard: 10 entries, 3 kept
  std::shared_ptr<TestStream> late = Subscribe(start.front().position());
  std::optional<grpc::Status> ended = late->Ended();
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->error_code(), grpc::StatusCode::OUT_OF_RANGE);
  EXPECT_EQ(service::ErrorInfoOf(*ended).code(), "ERR_FEED_POSITION_EXPIRED");
}

}  // namespace
}  // namespace arbitration_service
