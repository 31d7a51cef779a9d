#include "tools/arbiterctl/json_lines.h"

#include "absl/strings/ascii.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "tools/arbiterctl/errors.h"

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

nlohmann::json ErrorJson(const absl::Status& status) {
  return nlohmann::json{
      {"error", {{"code", base::ErrorCode(status)}, {"message", std::string(status.message())}}}};
}

absl::StatusOr<nlohmann::json> ParseObjectLine(const std::string& line) {
  constexpr size_t kMaxLineBytes = 1 << 20;
  if (line.size() > kMaxLineBytes) {
    return base::Error(base::kErrTooLarge, "input line longer than 1 MiB");
  }
  nlohmann::json in = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (in.is_discarded() || !in.is_object()) {
    return base::Error(arbiterctl::kErrBadJson, "each line must be one JSON object");
  }
  return in;
}

}  // namespace arbiterctl
