// The clock authority: the stable error codes of this layer, each with its canonical status (issue
// 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every code of
// every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_ERRORS_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/store/errors.h"

namespace clock_authority {

using base::kErrBadArgument;  // this layer answers it too
using store::kErrCorruptLog;  // this layer answers it too

// no clock with this id
inline constexpr base::ErrorSpec kErrClockNotFound{"ERR_CLOCK_NOT_FOUND",
                                                   absl::StatusCode::kNotFound};
// the mover's flag has fallen and counts (6.9): the press is refused
inline constexpr base::ErrorSpec kErrFlagFallen{"ERR_FLAG_FALLEN",
                                                absl::StatusCode::kFailedPrecondition};
// the clock's game is decided
inline constexpr base::ErrorSpec kErrGameDecided{"ERR_GAME_DECIDED",
                                                 absl::StatusCode::kFailedPrecondition};

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_ERRORS_H_
