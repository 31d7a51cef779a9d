#include "tools/arbiterctl/analysis_cmds.h"

#include <unistd.h>

#include <map>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "nlohmann/json.hpp"

namespace arbiterctl {
namespace {

using nlohmann::json;

json Unwinnable(const std::string& line) { return json::parse(UnwinnableLine(line)); }

// The "line" of a winnable answer replayed with libs/chess ends in checkmate by that side.
void ExpectLineMates(const std::string& fen, const std::string& side, const json& out) {
  ASSERT_EQ(out["verdict"], "winnable") << out.dump();
  ASSERT_TRUE(out["line"].is_array());
  chess::Position pos = *chess::ParseFenOrStartpos(fen);
  for (const json& m : out["line"]) {
    absl::StatusOr<chess::Move> move = chess::ParseUci(pos, m.get<std::string>());
    ASSERT_TRUE(move.ok()) << m;
    pos.PlayUnchecked(*move);
  }
  EXPECT_TRUE(pos.IsCheckmate());
  EXPECT_EQ(chess::ColorName(~pos.side_to_move()), side);
}

TEST(UnwinnableCommand, ContractFields) {
  const std::string fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
  json out = Unwinnable(R"({"fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "side": "white"})");
  ExpectLineMates(fen, "white", out);
  EXPECT_EQ(out["line"], json::array({"a1a8"}));
  EXPECT_TRUE(out.contains("method"));

  json black = Unwinnable(R"({"fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "side": "black"})");
  EXPECT_EQ(black["verdict"], "winnable");  // Black's pawns can promote
  ExpectLineMates(fen, "black", black);
}

// 6.10: the flag fell, but the opponent has a bare king: he cannot mate.
TEST(UnwinnableCommand, UnwinnableHasNoLine) {
  json out = Unwinnable(R"({"fen": "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", "side": "black"})");
  EXPECT_EQ(out["verdict"], "unwinnable");
  EXPECT_FALSE(out.contains("line"));
}

TEST(UnwinnableCommand, AlreadyMatedHasEmptyLine) {
  json out = Unwinnable(
      R"({"fen": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "side": "black"})");
  EXPECT_EQ(out["verdict"], "winnable");
  EXPECT_EQ(out["line"], json::array());
}

TEST(UnwinnableCommand, UndeterminedAtTheNodeLimit) {
  json out = Unwinnable(R"({"fen": "8/7p/8/8/2k5/8/8/N3K3 w - - 0 1", "side": "white",
                           "max_nodes": 10})");
  EXPECT_EQ(out["verdict"], "undetermined");
  EXPECT_FALSE(out.contains("line"));
}

TEST(UnwinnableCommand, MatingPotentialGoal) {
  json out = Unwinnable(
      R"({"fen": "8/8/3k4/8/8/8/2NN4/4K3 w - - 0 1", "side": "white", "goal": "mating_potential"})");
  EXPECT_EQ(out["verdict"], "unwinnable");
}

TEST(UnwinnableCommand, ErrorsForThatLineAlone) {
  EXPECT_EQ(Unwinnable(R"({"fen": "nope", "side": "white"})")["error"]["code"], "ERR_BAD_FEN");
  EXPECT_EQ(Unwinnable(R"({"fen": "startpos", "side": "red"})")["error"]["code"], "ERR_BAD_JSON");
  EXPECT_EQ(Unwinnable(R"({"side": "white"})")["error"]["code"], "ERR_BAD_JSON");
  EXPECT_EQ(Unwinnable("{oops")["error"]["code"], "ERR_BAD_JSON");
  EXPECT_EQ(Unwinnable(R"({"fen": "startpos", "side": "white", "max_nodes": 0})")["error"]["code"],
            "ERR_BAD_LIMITS");
  std::istringstream in(
      "{\"fen\": \"x\", \"side\": \"white\"}\n\n"
      "{\"fen\": \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\", \"side\": \"white\"}\n");
  std::ostringstream out;
  EXPECT_EQ(RunUnwinnable(in, out), 0);
  std::istringstream lines(out.str());
  std::string first, second, third;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  EXPECT_FALSE(std::getline(lines, third));
  EXPECT_EQ(json::parse(first)["error"]["code"], "ERR_BAD_FEN");
  EXPECT_EQ(json::parse(second)["verdict"], "unwinnable");
}

// 5.2b / 9.6.
TEST(DeadCommand, DeadAliveAndErrors) {
  std::ostringstream out, err;
  EXPECT_EQ(RunDead({{"fen", "8/8/1k6/p1p1p1p1/P1P1P1P1/8/8/1K6 w - - 0 1"}}, out, err), 0);
  json dead = json::parse(out.str());
  EXPECT_EQ(dead["dead"], true);
  EXPECT_EQ(dead["verdict"], "dead");
  EXPECT_EQ(dead["white"]["verdict"], "unwinnable");

  std::ostringstream out2;
  EXPECT_EQ(RunDead({{"fen", "startpos"}}, out2, err), 0);
  EXPECT_EQ(json::parse(out2.str())["dead"], false);

  std::ostringstream out3, err3;
  EXPECT_EQ(RunDead({}, out3, err3), 2);
  EXPECT_EQ(json::parse(out3.str())["error"]["code"], "ERR_BAD_ARGUMENT");
  std::ostringstream out4;
  EXPECT_EQ(RunDead({{"fen", "8/8/8/8/8/8/8/8 w - - 0 1"}}, out4, err3), 2);
  EXPECT_EQ(json::parse(out4.str())["error"]["code"], "ERR_BAD_SETUP");
}

TEST(AdviseCommand, WithoutEngine) {
  std::ostringstream out, err;
  EXPECT_EQ(RunAdvise({{"fen", "4k3/8/8/8/8/8/4B3/4K3 w - - 0 1"},
                       {"moves", "Kd2 Kd8 Kc3,Kc8 Bf3"},
                       {"engine", "none"}},
                      out, err),
            0);
  json a = json::parse(out.str());
  EXPECT_EQ(a["label"], "advice for a human ruling (10.2 / Appendix D); not a ruling");
  EXPECT_EQ(a["claimant"], "black");
  EXPECT_EQ(a["opponent_can_mate"]["verdict"], "unwinnable");
  EXPECT_EQ(a["engine_used"], false);
  EXPECT_EQ(a["progress"]["moves_considered"], 3);
}

TEST(AdviseCommand, BadArguments) {
  std::ostringstream out, err;
  EXPECT_EQ(RunAdvise({{"moves", "e4 e4"}, {"engine", "none"}}, out, err), 2);
  EXPECT_EQ(json::parse(out.str())["error"]["code"], "ERR_ILLEGAL_MOVE");
  std::ostringstream out2;
  EXPECT_EQ(RunAdvise({{"depth", "x"}, {"engine", "none"}}, out2, err), 2);
  EXPECT_EQ(json::parse(out2.str())["error"]["code"], "ERR_BAD_ARGUMENT");
}

TEST(AdviseCommand, WithStockfish) {
  if (access("/usr/games/stockfish", X_OK) != 0) GTEST_SKIP() << "stockfish not installed";
  std::ostringstream out, err;
  EXPECT_EQ(RunAdvise({{"fen", "startpos"}, {"moves", "e4 e5 Nf3"}, {"depth", "6"}}, out, err), 0);
  json a = json::parse(out.str());
  EXPECT_EQ(a["engine_used"], true) << a.dump();
  EXPECT_FALSE(a["lines"].empty());
  EXPECT_EQ(a["opponent_can_mate"]["verdict"], "winnable");
}

}  // namespace
}  // namespace arbiterctl
