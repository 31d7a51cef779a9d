// The JSON-lines loop of arbiterctl's offline simulations (`clock simulate`, `game simulate`):
// one object a line in, one line out, a malformed line answered with {"error": {...}} alone.
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

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_JSON_LINES_H_
