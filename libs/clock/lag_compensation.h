// Lag compensation for online play, optional per game. Over-the-board clocks have no lag; a server
// measuring a move's time from its own receipt charges the mover for network delay. This model
// gives part of the reported lag back, bounded so that a player cannot fake lag for free.
//
// The model is Lichess's per-move compensation (scalachess LagTracker, see
// https://github.com/lichess-org/lila/issues/12097), in integer milliseconds:
//   comp  = min(lag, quota)                      the time given back for this move
//   quota = min(quota + quota_gain - comp, quota_max)   after every move
// starting from `initial_quota`. Lichess's constants, for a control whose estimated game length is
// base + 40 x increment seconds (base: the
// first period's time; increment: that of move 1): quota_gain = min(1000 ms, 10 ms x (seconds x 2/5
// + 15)), initial_quota = 3 x quota_gain, quota_max = 7 x quota_gain. Lichess further caps
// quota_gain by the client's measured frame lag + 40 ms; that input is not modelled here (pass your
// own params).
//
//   LagParams params = LichessLagParams(tc);
//   LagQuota quota(params);
//   std::int64_t comp = quota.OnMove(params, /*lag_ms=*/350);  // <= 350; quota += gain - comp
//
// The Clock applies comp at the press (see Clock::Press): the mover's move is deemed to have ended
// comp ms earlier; the opponent's clock still starts at the press.
#ifndef ARBITER_LIBS_CLOCK_LAG_COMPENSATION_H_
#define ARBITER_LIBS_CLOCK_LAG_COMPENSATION_H_

#include <cstdint>

#include "absl/status/status.h"
#include "libs/clock/time_control.h"

namespace chessclock {

struct LagParams {
  std::int64_t quota_gain_ms = 0;
  std::int64_t initial_quota_ms = 0;
  std::int64_t quota_max_ms = 0;
  friend bool operator==(const LagParams&, const LagParams&) = default;
};

// Lichess's constants for a time control (see above).
LagParams LichessLagParams(const TimeControl& tc);
// All three non-negative and initial <= max; INVALID_ARGUMENT ERR_BAD_LAG_PARAMS otherwise.
absl::Status ValidateLagParams(const LagParams& params);

// One player's quota. A small value type.
class LagQuota {
 public:
  LagQuota() = default;
  explicit LagQuota(const LagParams& params) : quota_ms_(params.initial_quota_ms) {}
  // A quota as a snapshot recorded it (Clock::Restore).
  static LagQuota WithQuota(std::int64_t quota_ms) {
    LagQuota q;
    q.quota_ms_ = quota_ms;
    return q;
  }

  // The compensation for a move with reported lag `lag_ms` (negative counts as 0), updating the
  // quota. Never more than the lag or the quota.
  std::int64_t OnMove(const LagParams& params, std::int64_t lag_ms);

  std::int64_t quota_ms() const { return quota_ms_; }

 private:
  std::int64_t quota_ms_ = 0;
};

}  // namespace chessclock

#endif  // ARBITER_LIBS_CLOCK_LAG_COMPENSATION_H_
