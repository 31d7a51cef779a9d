// arbiterctl's offline commands: the stable error codes of this layer, each with its canonical
// status (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every
// code of every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_TOOLS_ARBITERCTL_ERRORS_H_
#define ARBITER_TOOLS_ARBITERCTL_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace arbiterctl {

// a simulated event of unknown type or shape
inline constexpr base::ErrorSpec kErrBadEvent{"ERR_BAD_EVENT", absl::StatusCode::kInvalidArgument};
// an input line that is no JSON object of the expected shape
inline constexpr base::ErrorSpec kErrBadJson{"ERR_BAD_JSON", absl::StatusCode::kInvalidArgument};
// a simulation line whose fields are malformed
inline constexpr base::ErrorSpec kErrBadScenario{"ERR_BAD_SCENARIO",
                                                 absl::StatusCode::kInvalidArgument};
// the file cannot be opened
inline constexpr base::ErrorSpec kErrFileNotFound{"ERR_FILE_NOT_FOUND",
                                                  absl::StatusCode::kNotFound};

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_ERRORS_H_
