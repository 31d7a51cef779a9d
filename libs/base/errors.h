// What any layer may answer: the stable error codes of this layer, each with its canonical status
// (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every code of
// every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_BASE_ERRORS_H_
#define ARBITER_LIBS_BASE_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace base {

// a field is missing, malformed or out of range
inline constexpr base::ErrorSpec kErrBadArgument{"ERR_BAD_ARGUMENT",
                                                 absl::StatusCode::kInvalidArgument};
// the caller cancelled the work
inline constexpr base::ErrorSpec kErrCancelled{"ERR_CANCELLED", absl::StatusCode::kCancelled};
// the deadline passed before the work finished
inline constexpr base::ErrorSpec kErrDeadlineExceeded{"ERR_DEADLINE_EXCEEDED",
                                                      absl::StatusCode::kDeadlineExceeded};
// a failure inside the server (a bug); nothing was changed
inline constexpr base::ErrorSpec kErrInternal{"ERR_INTERNAL", absl::StatusCode::kInternal};
// a request holds more items or bytes than the server allows
inline constexpr base::ErrorSpec kErrTooLarge{"ERR_TOO_LARGE", absl::StatusCode::kInvalidArgument};

}  // namespace base

#endif  // ARBITER_LIBS_BASE_ERRORS_H_
