// The JSON-lines loop of arbiterctl's offline simulations (`clock simulate`, `game simulate`):
// one object a line in, one line out, a malformed line answered with {"error": {...}} alone; and
// the reading of one line and the error object of `analyze` and `unwinnable`.
#ifndef ARBITER_TOOLS_ARBITERCTL_JSON_LINES_H_
#define ARBITER_TOOLS_ARBITERCTL_JSON_LINES_H_

#include <functional>
#include <istream>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace arbiterctl {

// The line for `result`: the object, or {"error": {"code": "ERR_...", "message": "..."}}. Input
// text can reach messages: invalid UTF-8 is replaced rather than thrown on.
std::string JsonLineOf(const absl::StatusOr<nlohmann::ordered_json>& result);

// Answers every non-blank line of `in` with `answer(line)` on `out`; returns 0.
int RunJsonLines(std::istream& in, std::ostream& out,
                 const std::function<std::string(const std::string&)>& answer);

// {"error": {"code": "ERR_...", "message": "..."}} for `status`.
nlohmann::json ErrorJson(const absl::Status& status);

// The JSON object on one input line: ERR_TOO_LARGE for a line over 1 MiB, ERR_BAD_JSON for one
// that is not one JSON object.
absl::StatusOr<nlohmann::json> ParseObjectLine(const std::string& line);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_JSON_LINES_H_
