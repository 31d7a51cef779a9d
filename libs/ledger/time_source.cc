#include "libs/ledger/time_source.h"

#include <chrono>
#include <limits>

#include "libs/base/status_macros.h"

namespace ledger {
namespace {

std::int64_t MonotonicMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

absl::StatusOr<std::unique_ptr<StoreTime>> StoreTime::Create(store::StoreClock* store,
                                                             int samples) {
  std::unique_ptr<StoreTime> time(new StoreTime(store, samples < 1 ? 1 : samples));
  RETURN_IF_ERROR(time->Resync());
  return time;
}

StoreTime::~StoreTime() {
  stop_.Notify();
  if (resync_.joinable()) resync_.join();
}

absl::Status StoreTime::Resync() {
  std::int64_t best_rtt = std::numeric_limits<std::int64_t>::max();
  std::int64_t best_offset = 0;
  absl::Status last_error;
  for (int i = 0; i < samples_; ++i) {
    const std::int64_t before = MonotonicMicros();
    absl::StatusOr<std::int64_t> store_ms = store_->NowMs();
    const std::int64_t after = MonotonicMicros();
    if (!store_ms.ok()) {
      last_error = store_ms.status();
      continue;
    }
    const std::int64_t rtt = after - before;
    if (rtt < best_rtt) {
      best_rtt = rtt;
      // The store read its clock somewhere in [before, after]; the midpoint is the best guess,
      // and the whole millisecond it returned stands for its middle.
      best_offset = *store_ms * 1000 + 500 - (before + rtt / 2);
    }
  }
  if (best_rtt == std::numeric_limits<std::int64_t>::max()) return last_error;
  offset_us_.store(best_offset);
  uncertainty_us_.store(best_rtt / 2 + 500);
  return absl::OkStatus();
}

std::int64_t StoreTime::NowMicros() {
  const std::int64_t now = MonotonicMicros() + offset_us_.load(std::memory_order_relaxed);
  // Monotonic even when a resync moves the offset back.
  std::int64_t last = last_us_.load(std::memory_order_relaxed);
  while (now > last && !last_us_.compare_exchange_weak(last, now, std::memory_order_relaxed)) {
  }
  return now > last ? now : last;
}

void StoreTime::StartResync(absl::Duration interval) {
  if (resync_.joinable()) return;
  resync_ = std::thread([this, interval] {
    while (!stop_.WaitForNotificationWithTimeout(interval)) (void)Resync();
  });
}

}  // namespace ledger
