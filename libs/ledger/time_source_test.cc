// The time base: the store's clock read through a measured offset, monotonic, failing when the
// store does not answer.
#include "libs/ledger/time_source.h"

#include <atomic>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/redis_game_store.h"

namespace ledger {
namespace {

// A memory store whose clock reads `ms` (a test moves it), and the time base over it.
struct StoreClock {
  explicit StoreClock(std::int64_t start_ms) : ms(start_ms) {}
  std::unique_ptr<StoreTime> Time() {
    absl::StatusOr<std::unique_ptr<StoreTime>> time = StoreTime::Create(&store);
    EXPECT_OK(time);
    return time.ok() ? *std::move(time) : nullptr;
  }
  std::atomic<std::int64_t> ms;
  store::MemoryGameStore store{{.now_ms = [this] { return ms.load(); }}};
};

TEST(StoreTime, ReadsTheStoresClockNotTheServers) {
  // A store whose clock is 1'000 s after the epoch, whatever this machine's wall clock says.
  StoreClock clock(1'000'000);
  const std::unique_ptr<StoreTime> time = clock.Time();
  ASSERT_NE(time, nullptr);
  const std::int64_t now = time->NowMs();
  EXPECT_GE(now, 1'000'000);
  EXPECT_LE(now, 1'000'050);  // a few ms of test at most
  EXPECT_LE(time->uncertainty_us(), 50'000);
  absl::SleepFor(absl::Milliseconds(20));
  // It runs on the monotonic clock between samples.
  EXPECT_GE(time->NowMs(), now + 19);
}

TEST(StoreTime, NeverGoesBackwardsWhenTheEstimateMoves) {
  StoreClock clock(5'000'000);
  const std::unique_ptr<StoreTime> time = clock.Time();
  ASSERT_NE(time, nullptr);
  const std::int64_t before = time->NowMicros();
  clock.ms = 4'000'000;  // the store's clock stepped back a thousand seconds
  ASSERT_OK(time->Resync());
  EXPECT_GE(time->NowMicros(), before);
  clock.ms = 9'000'000;  // and forward
  ASSERT_OK(time->Resync());
  EXPECT_GE(time->NowMs(), 9'000'000);
}

TEST(StoreTime, FailsWhenTheStoreDoesNotAnswer) {
  store::RedisGameStoreOptions options;
  options.connection.port = 1;  // nothing listens there
  options.connection.connect_timeout = absl::Milliseconds(100);
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> redis =
      store::RedisGameStore::Create(options);
  ASSERT_OK(redis);
  EXPECT_THAT(StoreTime::Create(redis->get(), 2), base::HasErrorCode(store::kErrStoreUnavailable));
}

}  // namespace
}  // namespace ledger
