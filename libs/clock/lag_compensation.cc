#include "libs/clock/lag_compensation.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/clock/errors.h"

namespace chessclock {

LagParams LichessLagParams(const TimeControl& tc) {
  std::int64_t estimate_seconds = 0;
  if (!tc.untimed()) {
    const Bonus& first = tc.BonusOfMove(1);
    const std::int64_t increment = first.kind == BonusKind::kIncrement ? first.ms : 0;
    estimate_seconds = (tc.initial_ms() + 40 * increment) / 1000;
  }
  // Lichess works in centiseconds: min(100, seconds * 2 / 5 + 15).
  const std::int64_t gain_ms = 10 * std::min<std::int64_t>(100, estimate_seconds * 2 / 5 + 15);
  return {gain_ms, 3 * gain_ms, 7 * gain_ms};
}

absl::Status ValidateLagParams(const LagParams& params) {
  if (params.quota_gain_ms < 0 || params.initial_quota_ms < 0 || params.quota_max_ms < 0 ||
      params.initial_quota_ms > params.quota_max_ms) {
    return base::Error(
        chessclock::kErrBadLagParams,
        absl::StrCat(
            "lag parameters must be non-negative with initial quota <= max quota, got gain ",
            params.quota_gain_ms, " ms, initial ", params.initial_quota_ms, " ms, max ",
            params.quota_max_ms, " ms"));
  }
  return absl::OkStatus();
}

std::int64_t LagQuota::OnMove(const LagParams& params, std::int64_t lag_ms) {
  const std::int64_t comp = std::min(std::max<std::int64_t>(lag_ms, 0), quota_ms_);
  quota_ms_ = std::min(quota_ms_ + params.quota_gain_ms - comp, params.quota_max_ms);
  return comp;
}

}  // namespace chessclock
