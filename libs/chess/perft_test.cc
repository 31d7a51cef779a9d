// Cross-checks the move generator (Article 3) against the published perft counts.
#include "libs/chess/perft.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "libs/chess/fen.h"

namespace chess {
namespace {

struct PerftCase {
  std::string fen;
  int depth;
  std::uint64_t nodes;
};

std::vector<PerftCase> LoadCases(const std::string& path) {
  std::vector<PerftCase> cases;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> parts = absl::StrSplit(line, ';');
    std::string fen(absl::StripAsciiWhitespace(parts[0]));
    for (size_t i = 1; i < parts.size(); ++i) {
      std::vector<std::string> kv = absl::StrSplit(absl::StripAsciiWhitespace(parts[i]), '=');
      PerftCase c{fen, 0, 0};
      EXPECT_TRUE(absl::SimpleAtoi(kv[0], &c.depth));
      EXPECT_TRUE(absl::SimpleAtoi(kv[1], &c.nodes));
      cases.push_back(c);
    }
  }
  return cases;
}

void RunFile(const std::string& name) {
  std::string path = "libs/chess/testdata/" + name;
  std::vector<PerftCase> cases = LoadCases(path);
  ASSERT_FALSE(cases.empty());
  for (const PerftCase& c : cases) {
    absl::StatusOr<Position> pos = ParseFen(c.fen);
    ASSERT_TRUE(pos.ok()) << c.fen << ": " << pos.status();
    EXPECT_EQ(Perft(*pos, c.depth), c.nodes) << c.fen << " depth " << c.depth;
  }
}

TEST(PerftTest, StandardPositions) { RunFile("perft.txt"); }

TEST(PerftTest, DivideSumsToPerft) {
  Position pos = *ParseFen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
  std::uint64_t sum = 0;
  for (const auto& [move, nodes] : PerftDivide(pos, 3)) sum += nodes;
  EXPECT_EQ(sum, 97862u);
}

// Runs only when asked: bazel test //libs/chess:perft_deep_test (see BUILD).
TEST(PerftTest, DeepPositions) {
  if (std::getenv("ARBITER_PERFT_DEEP") == nullptr) GTEST_SKIP() << "set ARBITER_PERFT_DEEP=1";
  RunFile("perft_deep.txt");
}

}  // namespace
}  // namespace chess
