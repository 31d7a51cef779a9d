#include "tools/arbiterctl/analyze.h"

#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace arbiterctl {
namespace {

using nlohmann::json;

json Analyze(const std::string& line) { return json::parse(AnalyzeLine(line)); }

TEST(AnalyzeTest, StartPositionFields) {
  json out = Analyze(R"({"fen": "startpos", "moves": []})");
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  EXPECT_EQ(out["legal_uci"].size(), 20u);
  EXPECT_EQ(out["legal_uci"][0], "a2a3");  // sorted by byte order
  EXPECT_EQ(out["legal_san"][0], "Na3");
  for (const char* key : {"check", "checkmate", "stalemate", "insufficient_material",
                          "can_claim_threefold", "can_claim_fifty", "fivefold", "seventyfive"}) {
    ASSERT_TRUE(out.contains(key)) << key;
    EXPECT_EQ(out[key], false) << key;
  }
}

TEST(AnalyzeTest, MixedUciAndSanAndMate) {
  json out = Analyze(R"({"fen": "startpos", "moves": ["f2f3", "e5", "g4", "Qh4#"]})");
  EXPECT_EQ(out["checkmate"], true);
  EXPECT_EQ(out["check"], true);
  EXPECT_TRUE(out["legal_uci"].empty());
}

// 9.2a: the claim with the intended move.
TEST(AnalyzeTest, ThreefoldClaimable) {
  json out = Analyze(R"({"moves": ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]})");
  EXPECT_EQ(out["can_claim_threefold"], true);
  EXPECT_EQ(out["threefold_now"], false);
  EXPECT_EQ(out["threefold_moves"], json::array({"f6g8"}));
}

TEST(AnalyzeTest, ErrorsForThatLineAlone) {
  json bad_fen = Analyze(R"({"fen": "not a fen"})");
  EXPECT_EQ(bad_fen["error"]["code"], "ERR_BAD_FEN");
  json illegal = Analyze(R"({"moves": ["e4", "e4"]})");
  EXPECT_EQ(illegal["error"]["code"], "ERR_ILLEGAL_MOVE");
  EXPECT_EQ(illegal["error"]["move_index"], 1);
  json ambiguous = Analyze(R"({"fen": "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "moves": ["Nd2"]})");
  EXPECT_EQ(ambiguous["error"]["code"], "ERR_AMBIGUOUS_SAN");
  EXPECT_EQ(Analyze("[1,2]")["error"]["code"], "ERR_BAD_JSON");
  EXPECT_EQ(Analyze("{\"moves\": [1]}")["error"]["code"], "ERR_BAD_JSON");
  EXPECT_EQ(Analyze("{oops")["error"]["code"], "ERR_BAD_JSON");

  std::istringstream in("{\"fen\": \"x\"}\n\n{\"moves\": [\"e4\"]}\n");
  std::ostringstream out;
  EXPECT_EQ(RunAnalyze(in, out), 0);
  std::istringstream lines(out.str());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_TRUE(json::parse(first).contains("error"));
  EXPECT_EQ(json::parse(second)["turn"], "black");
}

}  // namespace
}  // namespace arbiterctl
