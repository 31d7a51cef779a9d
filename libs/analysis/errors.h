// Searches and the engine: the stable error codes of this layer, each with its canonical status
// (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every code of
// every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_ANALYSIS_ERRORS_H_
#define ARBITER_LIBS_ANALYSIS_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace analysis {

// search or engine limits out of range
inline constexpr base::ErrorSpec kErrBadLimits{"ERR_BAD_LIMITS",
                                               absl::StatusCode::kInvalidArgument};
// no engine (Stockfish) answers on this server
inline constexpr base::ErrorSpec kErrEngineUnavailable{"ERR_ENGINE_UNAVAILABLE",
                                                       absl::StatusCode::kUnavailable};

}  // namespace analysis

#endif  // ARBITER_LIBS_ANALYSIS_ERRORS_H_
