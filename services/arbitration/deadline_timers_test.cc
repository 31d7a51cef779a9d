// Issue 15: the deadline timers retry a check that failed because the store is down a bounded
// number of times, backing off (before: every retry_after, forever).
#include "services/arbitration/deadline_timers.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"
#include "libs/base/status_matchers.h"
#include "libs/store/memory_game_store.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;

// A store whose appends fail UNAVAILABLE while `down` (the store gone).
class DownStore final : public store::GameStore {
 public:
  explicit DownStore(store::GameStore* inner) : inner_(inner) {}
  std::atomic<bool> down{false};
  std::atomic<int> appends{0};
  absl::StatusOr<store::AppendResult> Append(const store::AppendRequest& r) override {
    ++appends;
    if (down) return absl::UnavailableError("the store is down");
    return inner_->Append(r);
  }
  absl::StatusOr<std::optional<store::AppendResult>> LookupCommand(absl::string_view g,
                                                                   absl::string_view c) override {
    return inner_->LookupCommand(g, c);
  }
  absl::StatusOr<v1::GameSnapshot> ReadSnapshot(absl::string_view g) override {
    return inner_->ReadSnapshot(g);
  }
  absl::StatusOr<std::vector<v1::GameEvent>> ReadEvents(absl::string_view g, std::int64_t from,
                                                        std::int64_t to) override {
    return inner_->ReadEvents(g, from, to);
  }
  absl::StatusOr<std::vector<v1::GameEvent>> WaitForEvents(absl::string_view g, std::int64_t after,
                                                           absl::Duration timeout,
                                                           int max) override {
    return inner_->WaitForEvents(g, after, timeout, max);
  }
  absl::StatusOr<std::vector<store::GameEvents>> WaitForAnyEvents(
      const std::vector<store::WatchPosition>& games, absl::Duration timeout, int max) override {
    return inner_->WaitForAnyEvents(games, timeout, max);
  }
  int NumDeadlineShards() const override { return inner_->NumDeadlineShards(); }
  absl::StatusOr<std::optional<store::Deadline>> GetDeadline(absl::string_view g) override {
    return inner_->GetDeadline(g);
  }
  absl::StatusOr<std::vector<store::Deadline>> ClaimDueDeadlines(int shard, std::int64_t now,
                                                                 std::int64_t lease, int max,
                                                                 absl::string_view owner) override {
    return inner_->ClaimDueDeadlines(shard, now, lease, max, owner);
  }
  absl::StatusOr<std::vector<store::DueEntry>> PeekDeadlines(int shard, std::int64_t until,
                                                             int max) override {
    return inner_->PeekDeadlines(shard, until, max);
  }
  absl::StatusOr<std::int64_t> CountDeadlines(int shard) override {
    return inner_->CountDeadlines(shard);
  }
  absl::StatusOr<bool> ReleaseDeadline(absl::string_view g, absl::string_view owner,
                                       std::int64_t at) override {
    return inner_->ReleaseDeadline(g, owner, at);
  }
  absl::StatusOr<std::int64_t> NowMs() override { return inner_->NowMs(); }

 private:
  store::GameStore* const inner_;
};

constexpr std::int64_t kT0 = 1'700'000'000'000;

TEST(DeadlineTimers, AFailingCheckIsRetriedABoundedNumberOfTimes) {
  std::atomic<std::int64_t> now{kT0};
  store::MemoryGameStore memory({.num_deadline_shards = 4, .now_ms = [&] { return now.load(); }});
  DownStore store(&memory);
  arbitration::LocalAnalyst analyst;
  arbitration::GameAuthority authority(&store, [&] { return now.load(); }, analyst, {.owner = "a"});
  std::atomic<int> errors{0};
  DeadlineTimers timers(&authority,
                        {.owner = "a",
                         .sweep_interval = absl::Hours(1),
                         .sweep_grace = absl::Hours(1),  // only the local timer here
                         .retry_after = absl::Milliseconds(10),
                         .max_retry_after = absl::Milliseconds(40),
                         .max_retries = 3},
                        {.on_error = [&](const absl::Status&) { ++errors; }});
  authority.AddObserver(&timers);
  v1::CreateGameRequest create;
  create.set_game_id("g1");
  create.set_white_id("w");
  create.set_black_id("b");
  create.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  create.set_time_control("60");
  v1::Actor platform;
  platform.set_subject("platform");
  platform.set_role("platform");
  ASSERT_OK(authority.Create("g1", create, platform, {}).status());
  arbitration::Command start;
  start.kind = arbitration::CommandKind::kStart;
  start.actor = platform;
  ASSERT_OK(authority.Execute("g1", start, {}).status());
  EXPECT_EQ(timers.tracked(), 1u);
  store.down = true;
  const int before = store.appends.load();
  timers.Start();
  // White's minute runs out; the authority's time then moves on, in steps, while the timers try:
  // the first check and 3 retries (after 10, 20, 40 ms), then no more however long it goes on.
  now = kT0 + 60'001;
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  while (store.appends.load() - before < 4 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(4));
    now += 5;
  }
  for (int i = 0; i < 300; ++i) {  // 15 s of the authority's time, about 1.5 s of real time
    absl::SleepFor(absl::Milliseconds(5));
    now += 50;
  }
  timers.Stop();
  EXPECT_EQ(store.appends.load() - before, 4);
  EXPECT_EQ(errors.load(), 4);
  EXPECT_EQ(timers.tracked(), 0u);
  // The entry is still in the index, for the sweep once the store is back.
  absl::StatusOr<std::optional<store::Deadline>> entry = memory.GetDeadline("g1");
  ASSERT_OK(entry.status());
  EXPECT_TRUE(entry->has_value());
}

}  // namespace
}  // namespace arbitration_service
