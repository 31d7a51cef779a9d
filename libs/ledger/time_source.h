// The clock authority's time base: every event time, deadline and flag is in milliseconds since
// the Unix epoch on ONE clock shared by all replicas, the store's (Redis TIME for the Redis store),
// so replicas agree on when a flag fell and a restarted replica reads the same state (see
// services/clock_authority/README.md, "Time").
//
// Asking Redis for the time on every operation would cost a round trip each; StoreTime instead
// measures the offset between the store's clock and this process's monotonic clock (the sample
// with the shortest round trip of a few, midpoint-corrected) and re-measures it periodically.
// Reading it costs nothing; its error against the store's clock is at most half the round trip of
// the kept sample plus 0.5 ms (Redis TIME is read in whole ms), and it never goes backwards.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<StoreTime> time, StoreTime::Create(&store));
//   time->StartResync(absl::Seconds(1));
//   std::int64_t now = time->NowMs();
#ifndef ARBITER_LIBS_LEDGER_TIME_SOURCE_H_
#define ARBITER_LIBS_LEDGER_TIME_SOURCE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "libs/store/store_clock.h"

namespace ledger {

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  // Microseconds since the Unix epoch on the authority's time base; never decreases.
  virtual std::int64_t NowMicros() = 0;
  std::int64_t NowMs() { return NowMicros() / 1000; }
};

// Time set by a test: exact instants.
class FakeTime final : public TimeSource {
 public:
  explicit FakeTime(std::int64_t now_ms = 0) : now_us_(now_ms * 1000) {}
  std::int64_t NowMicros() override { return now_us_.load(); }
  void SetMs(std::int64_t now_ms) { now_us_.store(now_ms * 1000); }
  void AdvanceMs(std::int64_t ms) { now_us_.fetch_add(ms * 1000); }

 private:
  std::atomic<std::int64_t> now_us_;
};

// The store's clock, read through a measured offset from the monotonic clock.
class StoreTime final : public TimeSource {
 public:
  // Measures the offset (`samples` round trips); UNAVAILABLE if the store does not answer.
  static absl::StatusOr<std::unique_ptr<StoreTime>> Create(store::StoreClock* store,
                                                           int samples = 5);
  ~StoreTime() override;

  std::int64_t NowMicros() override;
  // Measures again; the offset moves to the new estimate (reads stay monotonic).
  absl::Status Resync();
  // Resyncs every `interval` on a background thread until destruction.
  void StartResync(absl::Duration interval);

  // The error bound of the current estimate, in microseconds.
  std::int64_t uncertainty_us() const { return uncertainty_us_.load(); }
  // store time - monotonic time, in microseconds.
  std::int64_t offset_us() const { return offset_us_.load(); }

 private:
  StoreTime(store::StoreClock* store, int samples) : store_(store), samples_(samples) {}

  store::StoreClock* const store_;
  const int samples_;
  std::atomic<std::int64_t> offset_us_{0};
  std::atomic<std::int64_t> uncertainty_us_{0};
  std::atomic<std::int64_t> last_us_{0};
  absl::Notification stop_;
  std::thread resync_;
};

// The store's time once measured (Connect): a TimeSource the authority can hold before the store
// has answered. Nothing reads it before: the service refuses calls and no background work runs
// until Connect succeeds (libs/service/module.h); it would read 0.
class MeasuredLater final : public TimeSource {
 public:
  std::int64_t NowMicros() override {
    StoreTime* t = time_.load(std::memory_order_acquire);
    return t == nullptr ? 0 : t->NowMicros();
  }
  // Once; later calls are ignored.
  void Set(std::unique_ptr<StoreTime> time) {
    if (owned_ != nullptr) return;
    owned_ = std::move(time);
    time_.store(owned_.get(), std::memory_order_release);
  }
  StoreTime* get() const { return time_.load(std::memory_order_acquire); }

 private:
  std::unique_ptr<StoreTime> owned_;
  std::atomic<StoreTime*> time_{nullptr};
};

}  // namespace ledger

#endif  // ARBITER_LIBS_LEDGER_TIME_SOURCE_H_
