// The body of the fuzz targets for arbiterctl's JSON-lines commands: the input read as the command
// reads stdin (RunJsonLines answers every non-blank line with `line_fn`); every answer must be one
// line of JSON, whatever the input.
#ifndef ARBITER_TESTS_FUZZ_JSON_LINES_FUZZ_H_
#define ARBITER_TESTS_FUZZ_JSON_LINES_FUZZ_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"
#include "tools/arbiterctl/json_lines.h"

namespace fuzz {

template <typename LineFn>
int FuzzJsonLines(const std::uint8_t* data, std::size_t size, LineFn line_fn) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out;
  arbiterctl::RunJsonLines(in, out, line_fn);
  std::istringstream answers(out.str());
  for (std::string line; std::getline(answers, line);) {
    if (!nlohmann::json::accept(line)) std::abort();
  }
  return 0;
}

}  // namespace fuzz

#endif  // ARBITER_TESTS_FUZZ_JSON_LINES_FUZZ_H_
