// The game store: the stable error codes of this layer, each with its canonical status (issue
// 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every code of
// every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_STORE_ERRORS_H_
#define ARBITER_LIBS_STORE_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"

namespace store {

using base::kErrBadArgument;  // this layer answers it too

// the command id was used before for another request
inline constexpr base::ErrorSpec kErrCommandIdReused{"ERR_COMMAND_ID_REUSED",
                                                     absl::StatusCode::kFailedPrecondition};
// a recorded event that does not apply: a damaged log
inline constexpr base::ErrorSpec kErrCorruptLog{"ERR_CORRUPT_LOG", absl::StatusCode::kInternal};
// a game (or clock) with this id exists already
inline constexpr base::ErrorSpec kErrGameExists{"ERR_GAME_EXISTS",
                                                absl::StatusCode::kAlreadyExists};
// no game with this id
inline constexpr base::ErrorSpec kErrGameNotFound{"ERR_GAME_NOT_FOUND",
                                                  absl::StatusCode::kNotFound};
// the store answered something it cannot read
inline constexpr base::ErrorSpec kErrStoreInternal{"ERR_STORE_INTERNAL",
                                                   absl::StatusCode::kInternal};
// the store did not answer; the command may or may not have applied: retry it with the same command
// id
inline constexpr base::ErrorSpec kErrStoreUnavailable{"ERR_STORE_UNAVAILABLE",
                                                      absl::StatusCode::kUnavailable};
// the game moved on since the expected version: read it again and decide again
inline constexpr base::ErrorSpec kErrVersionConflict{"ERR_VERSION_CONFLICT",
                                                     absl::StatusCode::kAborted};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_ERRORS_H_
