// Runs a fuzz target over the files given on the command line (its seed corpus), so that the
// targets build and run with the ordinary toolchain in every `bazel test`; libFuzzer itself runs
// from tests/fuzz/run_fuzzers.sh with clang.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << argv[i] << "\n";
      return 1;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string data = buffer.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    ++files;
  }
  // A gtest-style summary so the CI summary counts this as one test case.
  std::cout << "corpus replay: " << files << " inputs, no crash\n";
  return files > 0 ? 0 : 1;
}
