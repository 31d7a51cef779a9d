// Fuzz target: the JSON lines of `arbiterctl clock simulate` (tools/arbiterctl/clock_simulate.h),
// read as the command reads stdin: RunJsonLines answers every non-blank line with
// SimulateClockLine. Every answer must be one line of JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"
#include "tools/arbiterctl/clock_simulate.h"
#include "tools/arbiterctl/json_lines.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out;
  arbiterctl::RunJsonLines(in, out, arbiterctl::SimulateClockLine);
  std::istringstream answers(out.str());
  for (std::string line; std::getline(answers, line);) {
    if (!nlohmann::json::accept(line)) std::abort();
  }
  return 0;
}
