// `arbiterctl game simulate` with the electronic board's events: the board's reports
// ("board"), "j'adoube" ("jadoube") and the touch-move claim ("claim", "kind": "touch_move"),
// through the same rulings as the server (Article 4, B5, 7.4a).
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_simulate_testing.h"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;

// The boards of 1.e4 as the board reports them: the pawn lifted, then on e4.
constexpr char kStart[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
constexpr char kNoG1[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R";
constexpr char kNoE2[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR";
constexpr char kE4[] = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
constexpr char kE4NoE7[] = "rnbqkbnr/pppp1ppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";

std::string Board(int at, const char* placement, const std::string& extra = "") {
  return "{\"at_ms\": " + std::to_string(at) + ", \"type\": \"board\", \"placement\": \"" +
         placement + "\"" + extra + "}";
}

std::string Scenario(const std::string& time_control, const std::string& events) {
  return "{\"edition\": \"fide2001\", \"time_control\": \"" + time_control +
         "\", \"events\": [{\"at_ms\": 0, \"type\": \"start\"}, " + events + "]}";
}

// A move on the board is the game's move (4.7), clock and all.
TEST(GameSimulateBoardTest, BoardMovesAreMoves) {
  Json out = Simulate(
      Scenario("G/90", Board(1000, kNoE2) + ", " + Board(2000, kE4) + ", " +
                           R"({"at_ms": 3000, "type": "move", "by": "black", "move": "e5"})"));
  EXPECT_EQ(out["events"][1], Ok());
  EXPECT_EQ(out["events"][2], Ok());
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
  EXPECT_EQ(out["white_ms"], 5'400'000 - 2'000);
}

// Standard play (2001 4.3a, the arbiter acts himself): the knight touched, the pawn move on the
// board is not made and a "move" e4 is refused; Nf3 is.
TEST(GameSimulateBoardTest, StandardTouchMoveEnforced) {
  Json out =
      Simulate(Scenario("G/90", Board(1000, kNoG1) + ", " + Board(1500, kStart) + ", " +
                                    R"({"at_ms": 2000, "type": "move", "by": "white", "move": "e4"},
                     {"at_ms": 3000, "type": "move", "by": "white", "move": "Nf3"})"));
  EXPECT_EQ(out["events"][3], Refused("ERR_TOUCH_MOVE_OWED"));
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
}

// 4.2: "j'adoube" first, then the knight adjusted: the pawn move is free. Announced by the
// player not to move: refused.
TEST(GameSimulateBoardTest, JAdoube) {
  Json out = Simulate(
      Scenario("G/90", R"({"at_ms": 500, "type": "jadoube", "by": "black"},
                 {"at_ms": 600, "type": "jadoube", "by": "white"}, )" +
                           Board(1000, kNoG1) + ", " + Board(1500, kStart) + ", " +
                           R"({"at_ms": 2000, "type": "move", "by": "white", "move": "e4"})"));
  EXPECT_EQ(out["events"][1], Refused("ERR_NOT_YOUR_TURN"));
  EXPECT_EQ(out["events"][2], Ok());
  EXPECT_EQ(out["events"][5], Ok());
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

// B5a (2001 rapid): no ruling without a claim; Black's claim is correct and stops the clocks.
TEST(GameSimulateBoardTest, RapidClaimAfterTheMove) {
  Json out = Simulate(Scenario(
      "G/25", Board(1000, kNoG1) + ", " + Board(1500, kStart) + ", " + Board(2000, kNoE2) + ", " +
                  Board(2500, kE4) + ", " +
                  R"({"at_ms": 3000, "type": "claim", "by": "black", "kind": "touch_move"})"));
  EXPECT_EQ(out["events"][4], Ok());  // the move stands until claimed
  EXPECT_EQ(out["events"][5], (Json{{"ok", true}, {"ruling", "correct"}}));
  EXPECT_EQ(out["paused"], true);
}

// B5b / 4.6 (2001 blitz): Black lifted his pawn e7 first: the claim is refused.
TEST(GameSimulateBoardTest, BlitzClaimLostOnceTheClaimantTouched) {
  Json out = Simulate(Scenario(
      "G/5", Board(1000, kNoG1) + ", " + Board(1500, kStart) + ", " + Board(2000, kNoE2) + ", " +
                 Board(2500, kE4) + ", " + Board(2800, kE4NoE7) + ", " +
                 R"({"at_ms": 3000, "type": "claim", "by": "black", "kind": "touch_move"})"));
  EXPECT_EQ(out["events"][6], Refused("ERR_CLAIM_RIGHT_LOST"));
  EXPECT_FALSE(out.contains("paused"));
}

// 7.4a: the bishop f1 to f3 with the clock pressed: the clocks stop for the arbiter.
TEST(GameSimulateBoardTest, IllegalMoveStood) {
  Json out = Simulate(Scenario("G/90", Board(1000, "rnbqkbnr/pppppppp/8/8/8/5B2/PPPPPPPP/RNBQK1NR",
                                             R"(, "pressed": true)")));
  EXPECT_EQ(out["events"][1], Ok());
  EXPECT_EQ(out["paused"], true);
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
}

TEST(GameSimulateBoardTest, MalformedBoardEvents) {
  Json out = Simulate(Scenario("G/90", Board(1000, "rnbqkbnr/8")));
  EXPECT_EQ(out["events"][1], Refused("ERR_BAD_ARGUMENT"));
  out = Simulate(Scenario("G/90", R"({"at_ms": 1000, "type": "board"})"));
  ASSERT_TRUE(out.contains("error"));
  EXPECT_EQ(out["error"]["code"], "ERR_BAD_EVENT");
}

}  // namespace
}  // namespace arbiterctl
