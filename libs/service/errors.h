// Every server: flags, auth, the policy table: the stable error codes of this layer, each with its
// canonical status (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md
// lists every code of every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_SERVICE_ERRORS_H_
#define ARBITER_LIBS_SERVICE_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace service {

// the keys file cannot be read
inline constexpr base::ErrorSpec kErrBadAuthKeys{"ERR_BAD_AUTH_KEYS",
                                                 absl::StatusCode::kInvalidArgument};
// a server flag is malformed or names no such thing
inline constexpr base::ErrorSpec kErrBadFlag{"ERR_BAD_FLAG", absl::StatusCode::kInvalidArgument};
// a watch resumes from a version beyond the game's
inline constexpr base::ErrorSpec kErrBadVersion{"ERR_BAD_VERSION", absl::StatusCode::kOutOfRange};
// the server cannot listen on its address
inline constexpr base::ErrorSpec kErrBind{"ERR_BIND", absl::StatusCode::kUnavailable};
// the key cannot sign (a public key only)
inline constexpr base::ErrorSpec kErrNoPrivateKey{"ERR_NO_PRIVATE_KEY",
                                                  absl::StatusCode::kFailedPrecondition};
// the token's role, game or colour may not call this
inline constexpr base::ErrorSpec kErrPermissionDenied{"ERR_PERMISSION_DENIED",
                                                      absl::StatusCode::kPermissionDenied};
// the server is shutting down: call another replica
inline constexpr base::ErrorSpec kErrShuttingDown{"ERR_SHUTTING_DOWN",
                                                  absl::StatusCode::kUnavailable};
// no token, or one that is expired, forged or unreadable
inline constexpr base::ErrorSpec kErrUnauthenticated{"ERR_UNAUTHENTICATED",
                                                     absl::StatusCode::kUnauthenticated};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_ERRORS_H_
