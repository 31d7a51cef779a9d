// The deadline timers retry a check that failed because the store is down a bounded
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
#include "libs/store/forwarding_store.h"
#include "libs/store/memory_game_store.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;

// A store whose appends fail UNAVAILABLE while `down` (the store gone).
class DownStore final : public store::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  std::atomic<bool> down{false};
  std::atomic<int> appends{0};
  absl::StatusOr<store::AppendResult> Append(const store::AppendRequest& r) override {
    ++appends;
    if (down) return absl::UnavailableError("the store is down");
    return inner()->Append(r);
  }
  void AppendAsync(store::AppendRequest r, AppendCallback done) override { done(Append(r)); }
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
