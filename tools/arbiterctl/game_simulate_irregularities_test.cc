// `arbiterctl game simulate` with irregularities (Article 7, C3), a player who stops the clocks
// (6.13b, d) and the arbiter's powers (12, 13.4), through the same rulings as the server.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_simulate_testing.h"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;

// 7.4a / 7.4b (2001 standard): two illegal moves of White's give Black 2 minutes each, the
// third loses; 4.3 makes the king of the attempted move play.
TEST(GameSimulateIrregularitiesTest, IllegalMoves2001Standard) {
  Json out = Simulate(Scenario("fide2001", "G/90", Opening({"e4", "e5"}) + R"(
      {"at_ms": 3000, "type": "report_illegal", "by": "white", "from": "e1", "to": "e3"},
      {"at_ms": 3000, "type": "report_illegal", "by": "arbiter", "from": "e1", "to": "e3"},
      {"at_ms": 4000, "type": "move", "by": "white", "move": "Nf3"},
      {"at_ms": 4000, "type": "move", "by": "white", "move": "Ke2"},
      {"at_ms": 5000, "type": "move", "by": "black", "move": "Nc6"},
      {"at_ms": 6000, "type": "report_illegal", "from": "e2", "to": "e5"},
      {"at_ms": 7000, "type": "report_illegal", "from": "d1", "to": "d8"})"));
  EXPECT_EQ(out["events"][3], Refused("ERR_BAD_ARGUMENT"));  // only the arbiter
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["events"][5], Refused("ERR_TOUCH_MOVE_OWED"));
  EXPECT_EQ(out["events"][6], Ok());
  EXPECT_EQ(out["result"], "0-1");
  EXPECT_EQ(out["termination"], "illegal_moves");
  EXPECT_EQ(out["illegal_moves"], (Json{{"white", 3}, {"black", 0}}));
  // Black: 90 minutes, 2 s of his own, 2 + 2 minutes.
  EXPECT_EQ(out["black_ms"], 5'400'000 - 2'000 + 240'000);
}

// C3 (2001 blitz): the completed illegal move claimed by the opponent before he moves.
TEST(GameSimulateIrregularitiesTest, BlitzClaimWins) {
  Json out = Simulate(Scenario("fide2001", "G/5", Opening({"e4", "e5"}) + R"(
      {"at_ms": 3000, "type": "complete_illegal", "by": "white", "from": "e1", "to": "e3"},
      {"at_ms": 4000, "type": "claim", "by": "black", "kind": "illegal_move"})"));
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["events"][4], (Json{{"ok", true}, {"ruling", "correct"}}));
  EXPECT_EQ(out["result"], "0-1");
  EXPECT_EQ(out["termination"], "illegal_moves");
}

// C3: the opponent moves instead; the illegal move stands and the game goes on from it.
TEST(GameSimulateIrregularitiesTest, BlitzIllegalMoveStands) {
  Json out = Simulate(Scenario("fide2001", "G/5", Opening({"e4", "e5"}) + R"(
      {"at_ms": 3000, "type": "complete_illegal", "by": "white", "from": "e1", "to": "e3"},
      {"at_ms": 4000, "type": "move", "by": "black", "move": "Nc6"},
      {"at_ms": 5000, "type": "claim", "by": "black", "kind": "illegal_move"},
      {"at_ms": 5000, "type": "move", "by": "white", "move": "Kd3"})"));
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["events"][5], Refused("ERR_NO_ILLEGAL_MOVE_TO_CLAIM"));
  EXPECT_EQ(out["events"][6], Ok());
  EXPECT_EQ(out["status"], "ongoing");
  EXPECT_EQ(out["fen"], "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/3K4/PPPP1PPP/RNBQ1BNR b kq - 3 3");
}

// C3 only in blitz under 1997-2005; 7.1a in rapid only before three moves each (B4).
TEST(GameSimulateIrregularitiesTest, EditionsAndSpeeds) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "180+2", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "complete_illegal", "by": "white", "from": "e1", "to": "e3"}]})");
  EXPECT_EQ(out["events"][1], Refused("ERR_ILLEGAL_MOVE_NOT_COMPLETE"));
  Json rapid =
      Simulate(Scenario("fide2001", "G/30", Opening({"e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"}) + R"(
      {"at_ms": 7000, "type": "irregularity", "article": "7.1a", "reason": "a bishop on b1"},
      {"at_ms": 7000, "type": "irregularity", "article": "7.2", "reason": "colours",
       "replay": true})"));
  EXPECT_EQ(rapid["events"][7], Refused("ERR_IRREGULARITY_TOO_LATE"));
  EXPECT_EQ(rapid["events"][8], Ok());
  EXPECT_EQ(rapid["result"], "annulled");
}

// 6.13b/d and 13.4: a stop without a valid reason costs the offender a minute (13.4c); 12.8.
TEST(GameSimulateIrregularitiesTest, StopClocksAndPowers) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "300", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 10000, "type": "stop_clocks", "by": "white", "reason": "noise"},
      {"at_ms": 20000, "type": "rule_stop", "penalty": "13.4c", "penalty_ms": 60000,
       "reason": "no valid reason"},
      {"at_ms": 20000, "type": "resume"},
      {"at_ms": 21000, "type": "power", "power": "warning", "side": "black", "reason": "talk"},
      {"at_ms": 22000, "type": "power", "power": "both_refuse", "reason": "12.8"}]})");
  for (int i = 1; i < 6; ++i) EXPECT_EQ(out["events"][i], Ok()) << i;
  EXPECT_EQ(out["white_ms"], 300'000 - 10'000 - 60'000 - 2'000);
  EXPECT_EQ(out["result"], "0-0");
}

// 2023 rapid: the regulations set the time for a first illegal move (7.5.5, A.4.2).
TEST(GameSimulateIrregularitiesTest, RegulationsSetTheIllegalMoveTime2023) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "900+10",
      "illegal_move_extra_ms": 60000, "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 0, "type": "report_illegal", "from": "e1", "to": "e2"}]})");
  EXPECT_EQ(out["events"][1], Ok());
  EXPECT_EQ(out["black_ms"], 900'000 + 60'000);
  EXPECT_EQ(out["illegal_moves"], (Json{{"white", 1}, {"black", 0}}));
}

TEST(GameSimulateIrregularitiesTest, MalformedIrregularEvents) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "300", "events": [
      {"at_ms": 0, "type": "power", "power": "banish", "reason": "x"}]})");
  EXPECT_EQ(ErrorCode(out), "ERR_BAD_EVENT");
}

// 7.4a with a player's claim: the board's illegal move (the bishop f1-f3, the clock pressed) is
// claimed by Black and awaits the arbiter, who upholds it (7.4b: Black +2 minutes); a claim of a
// move the server validated is refused and changes nothing.
TEST(GameSimulateIrregularitiesTest, APlayersClaimAwaitsTheArbitersRuling) {
  Json out = Simulate(R"({"edition": "fide2001", "time_control": "G/90", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "board", "placement": "rnbqkbnr/pppppppp/8/8/8/5B2/PPPPPPPP/RNBQK1NR",
       "pressed": true},
      {"at_ms": 2000, "type": "claim", "by": "black", "kind": "illegal_move", "from": "f1",
       "to": "f3"},
      {"at_ms": 3000, "type": "ruling", "by": "arbiter", "decision": "uphold"},
      {"at_ms": 4000, "type": "resume", "by": "arbiter"},
      {"at_ms": 5000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 6000, "type": "claim", "by": "black", "kind": "illegal_move", "from": "e2",
       "to": "e4"}]})");
  EXPECT_EQ(out["events"][2], (Json{{"ok", true}, {"ruling", "pending"}}));
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["events"][6], Refused("ERR_MOVE_WAS_VALIDATED"));
  EXPECT_EQ(out["status"], "ongoing");
  EXPECT_EQ(out["illegal_moves"], (Json{{"white", 1}, {"black", 0}}));
  EXPECT_EQ(out["black_ms"], 5'400'000 + 120'000 - 1'000);
}

}  // namespace
}  // namespace arbiterctl
