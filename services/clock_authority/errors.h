// The clock-authority service: the stable error codes of this layer, each with its canonical status
// (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every code of
// every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_SERVICES_CLOCK_AUTHORITY_ERRORS_H_
#define ARBITER_SERVICES_CLOCK_AUTHORITY_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace clock_authority_service {

// this replica watches as many clocks as it may
inline constexpr base::ErrorSpec kErrTooManyWatches{"ERR_TOO_MANY_WATCHES",
                                                    absl::StatusCode::kResourceExhausted};
// the watcher read too slowly and fell behind
inline constexpr base::ErrorSpec kErrWatchTooSlow{"ERR_WATCH_TOO_SLOW",
                                                  absl::StatusCode::kResourceExhausted};

}  // namespace clock_authority_service

#endif  // ARBITER_SERVICES_CLOCK_AUTHORITY_ERRORS_H_
