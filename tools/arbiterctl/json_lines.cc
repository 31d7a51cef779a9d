#include "tools/arbiterctl/json_lines.h"

#include "absl/strings/ascii.h"
#include "libs/base/error.h"

namespace arbiterctl {

std::string JsonLineOf(const absl::StatusOr<nlohmann::ordered_json>& result) {
  constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
  if (result.ok()) return result->dump(-1, ' ', false, kReplace);
  nlohmann::ordered_json error;
  error["error"] = {{"code", base::ErrorCode(result.status())},
                    {"message", std::string(result.status().message())}};
  return error.dump(-1, ' ', false, kReplace);
}

int RunJsonLines(std::istream& in, std::ostream& out,
                 const std::function<std::string(const std::string&)>& answer) {
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    out << answer(line) << "\n";
  }
  out.flush();
  return 0;
}

}  // namespace arbiterctl
