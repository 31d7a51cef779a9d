// The search-analysis service: the stable error codes of this layer, each with its canonical status
// (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every code of
// every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_SERVICES_SEARCH_ANALYSIS_ERRORS_H_
#define ARBITER_SERVICES_SEARCH_ANALYSIS_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace search_analysis {

// the analysis queue is full: retry later
inline constexpr base::ErrorSpec kErrBusy{"ERR_BUSY", absl::StatusCode::kResourceExhausted};

}  // namespace search_analysis

#endif  // ARBITER_SERVICES_SEARCH_ANALYSIS_ERRORS_H_
