// The chess clock (Article 6): the stable error codes of this layer, each with its canonical status
// (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every code of
// every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_CLOCK_ERRORS_H_
#define ARBITER_LIBS_CLOCK_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace chessclock {

// a deduction would leave no time; set the clock instead (6.14)
inline constexpr base::ErrorSpec kErrAdjustBelowZero{"ERR_ADJUST_BELOW_ZERO",
                                                     absl::StatusCode::kFailedPrecondition};
// the player is present already (6.6)
inline constexpr base::ErrorSpec kErrAlreadyPresent{"ERR_ALREADY_PRESENT",
                                                    absl::StatusCode::kFailedPrecondition};
// an adjustment of the wrong sign or size for its article
inline constexpr base::ErrorSpec kErrBadAdjustment{"ERR_BAD_ADJUSTMENT",
                                                   absl::StatusCode::kInvalidArgument};
// a stored clock state no clock of its control can be in
inline constexpr base::ErrorSpec kErrBadClockState{"ERR_BAD_CLOCK_STATE",
                                                   absl::StatusCode::kInvalidArgument};
// lag-compensation parameters out of range
inline constexpr base::ErrorSpec kErrBadLagParams{"ERR_BAD_LAG_PARAMS",
                                                  absl::StatusCode::kInvalidArgument};
// a move count out of range (6.3, 8.6)
inline constexpr base::ErrorSpec kErrBadMoveCount{"ERR_BAD_MOVE_COUNT",
                                                  absl::StatusCode::kInvalidArgument};
// clock options out of range (default time, delay mode)
inline constexpr base::ErrorSpec kErrBadOptions{"ERR_BAD_OPTIONS",
                                                absl::StatusCode::kInvalidArgument};
// a clock setting out of range (6.11, 6.14)
inline constexpr base::ErrorSpec kErrBadSetting{"ERR_BAD_SETTING",
                                                absl::StatusCode::kInvalidArgument};
// text that is no time control in either notation, or an untimed one where a clock must run
inline constexpr base::ErrorSpec kErrBadTimeControl{"ERR_BAD_TIME_CONTROL",
                                                    absl::StatusCode::kInvalidArgument};
// the clock has started already (6.5)
inline constexpr base::ErrorSpec kErrClockAlreadyStarted{"ERR_CLOCK_ALREADY_STARTED",
                                                         absl::StatusCode::kFailedPrecondition};
// the clock is not paused (6.13)
inline constexpr base::ErrorSpec kErrClockNotPaused{"ERR_CLOCK_NOT_PAUSED",
                                                    absl::StatusCode::kFailedPrecondition};
// the clock has not been started (6.5)
inline constexpr base::ErrorSpec kErrClockNotStarted{"ERR_CLOCK_NOT_STARTED",
                                                     absl::StatusCode::kFailedPrecondition};
// the clock is paused (6.13)
inline constexpr base::ErrorSpec kErrClockPaused{"ERR_CLOCK_PAUSED",
                                                 absl::StatusCode::kFailedPrecondition};
// the time control cannot be written in that notation
inline constexpr base::ErrorSpec kErrNotExpressible{"ERR_NOT_EXPRESSIBLE",
                                                    absl::StatusCode::kInvalidArgument};
// it is the other player's move (or clock)
inline constexpr base::ErrorSpec kErrNotYourTurn{"ERR_NOT_YOUR_TURN",
                                                 absl::StatusCode::kFailedPrecondition};
// no flag has fallen (6.3)
inline constexpr base::ErrorSpec kErrNoFlag{"ERR_NO_FLAG", absl::StatusCode::kFailedPrecondition};
// the player has not arrived (6.6)
inline constexpr base::ErrorSpec kErrPlayerAbsent{"ERR_PLAYER_ABSENT",
                                                  absl::StatusCode::kFailedPrecondition};
// an instant earlier than the last operation
inline constexpr base::ErrorSpec kErrTimeWentBackwards{"ERR_TIME_WENT_BACKWARDS",
                                                       absl::StatusCode::kInvalidArgument};

}  // namespace chessclock

#endif  // ARBITER_LIBS_CLOCK_ERRORS_H_
