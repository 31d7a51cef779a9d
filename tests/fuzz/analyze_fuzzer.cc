// Fuzz target: the JSON lines of `arbiterctl analyze` (tools/arbiterctl/analyze.h), read as the
// command reads stdin: RunJsonLines answers every non-blank line with AnalyzeLine. Every answer
// must be one line of JSON.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/json_lines_fuzz.h"
#include "tools/arbiterctl/analyze.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::FuzzJsonLines(data, size, arbiterctl::AnalyzeLine);
}
