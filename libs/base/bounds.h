// The ranges every duration and count that arrives from outside (a platform, an arbiter, a
// player, a board relay) must lie in, in one place. They are generous for real chess (the longest
// over-the-board sessions last hours, not days; no game reaches thousands of moves) and keep every
// sum the clock and the rulings make far from the int64 limits: a default time (6.7) of INT64_MAX
// would wrap the default deadline into the past and end the game at once.
//
//   RETURN_IF_ERROR(base::CheckDurationMs("regulations.default_time_ms", r.default_time_ms()));
//   RETURN_IF_ERROR(base::CheckCount("regulations.max_draw_offers", r.max_draw_offers()));
//
// A value outside its range is INVALID_ARGUMENT with ERR_OUT_OF_BOUNDS (libs/base/errors.json).
#ifndef ARBITER_LIBS_BASE_BOUNDS_H_
#define ARBITER_LIBS_BASE_BOUNDS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"

namespace base {

// A duration (default time, clock setting, adjustment, extra time, penalty, delay): at most seven
// days either way.
inline constexpr std::int64_t kMaxDurationMs = 7LL * 24 * 3'600'000;
// A count (move numbers, moves made, draw offers, plies): at most ten thousand.
inline constexpr std::int64_t kMaxCount = 10'000;
// An instant in milliseconds since the Unix epoch (a scheduled start, a session): before the year
// 2200.
inline constexpr std::int64_t kMaxInstantMs = 7'258'118'400'000;

// `value` in [min, max], else ERR_OUT_OF_BOUNDS naming `field`.
inline absl::Status CheckRange(absl::string_view field, std::int64_t value, std::int64_t min,
                               std::int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return Error(kErrOutOfBounds,
               absl::StrCat(field, " must be in [", min, ", ", max, "], got ", value));
}
// A duration that may not be negative: [0, kMaxDurationMs].
inline absl::Status CheckDurationMs(absl::string_view field, std::int64_t ms) {
  return CheckRange(field, ms, 0, kMaxDurationMs);
}
// A signed duration (an adjustment): [-kMaxDurationMs, kMaxDurationMs].
inline absl::Status CheckDeltaMs(absl::string_view field, std::int64_t ms) {
  return CheckRange(field, ms, -kMaxDurationMs, kMaxDurationMs);
}
// A count: [0, kMaxCount].
inline absl::Status CheckCount(absl::string_view field, std::int64_t n) {
  return CheckRange(field, n, 0, kMaxCount);
}
// An instant: [0, kMaxInstantMs].
inline absl::Status CheckInstantMs(absl::string_view field, std::int64_t ms) {
  return CheckRange(field, ms, 0, kMaxInstantMs);
}

}  // namespace base

#endif  // ARBITER_LIBS_BASE_BOUNDS_H_
