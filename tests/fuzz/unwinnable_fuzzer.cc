// Fuzz target: the JSON lines of `arbiterctl unwinnable` (tools/arbiterctl/analysis_cmds.h), one
// UnwinnableLine per non-blank line, as RunJsonLines reads stdin. Every answer must be one line of
// JSON. A line's "max_nodes" (the caller's own budget, up to 1e8) is held to 20,000 here so that
// one input cannot take the whole run.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"
#include "tools/arbiterctl/analysis_cmds.h"
#include "tools/arbiterctl/json_lines.h"

namespace {

std::string Bounded(const std::string& line) {
  nlohmann::json in = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!in.is_object() || !in.contains("max_nodes") || !in["max_nodes"].is_number_integer())
    return line;
  if (in["max_nodes"].get<std::int64_t>() <= 20000) return line;
  in["max_nodes"] = 20000;
  return in.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out;
  arbiterctl::RunJsonLines(in, out, [](const std::string& line) {
    std::string answer = arbiterctl::UnwinnableLine(Bounded(line));
    return answer;
  });
  std::istringstream answers(out.str());
  for (std::string line; std::getline(answers, line);) {
    if (!nlohmann::json::accept(line)) std::abort();
  }
  return 0;
}
