// `arbiterctl game simulate` with Appendix A's events (adjourned games): "sessions", "seal",
// "adjourn", "resume_adjourned", "envelope_lost", through the same rulings as the server. The
// sealed move is sealed with a key made for the run: it is in no output until opened.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_simulate_testing.h"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// Session 1 from 1 ms to one hour, session 2 the next day; 1. e4 e5 and White seals 2. Nf3.
constexpr char kHead[] = R"({"edition": "fide2001", "time_control": "G/120",
    "sessions": [{"start_ms": 1, "end_ms": 3600000},
                 {"start_ms": 86400000, "end_ms": 100800000, "place": "Hall B"}],
    "events": [
      {"at_ms": 1, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 2000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 3600000, "type": "seal", "by": "white", "move": "Nf3"},
      {"at_ms": 3601000, "type": "adjourn", "by": "arbiter"})";

// kHead's events, `more` events, then the scenario's other fields (`tail`: `, "query_ms": 5`).
std::string Scenario(const std::string& more, const std::string& tail = "") {
  return std::string(kHead) + more + "]" + tail + "}";
}

TEST(GameSimulateAdjournmentTest, SealedAndAdjournedTheMoveIsInNoOutput) {  // A1, A2
  const std::string line = SimulateGameLine(Scenario(""));
  EXPECT_THAT(line, Not(HasSubstr("Nf3")));
  EXPECT_THAT(line, Not(HasSubstr("g1f3")));
  const Json out = ParseOutputLine(line);
  EXPECT_EQ(out["status"], "adjourned");
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["move_sealed"], true);
  EXPECT_EQ(out["envelope"]["sealer"], "white");
  EXPECT_EQ(out["envelope"]["move_number"], 2);
  EXPECT_EQ(out["envelope"]["resume_at_ms"], 86400000);
  // White's clock ran from 2 s to the adjournment: 2 h - 1 s - 3,599 s.
  EXPECT_EQ(out["white_ms"], 7'200'000 - 1000 + 1 - 3'599'000);
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
}

TEST(GameSimulateAdjournmentTest, ResumedTheEnvelopeIsOpened) {  // A5, A9a, A13
  const Json out = ParseOutputLine(SimulateGameLine(Scenario(R"(,
      {"at_ms": 86399999, "type": "resume_adjourned", "by": "arbiter"},
      {"at_ms": 86400000, "type": "resume_adjourned", "by": "arbiter"},
      {"at_ms": 86460000, "type": "move", "by": "black", "move": "Nc6"})")));
  EXPECT_EQ(out["events"][5], Refused("ERR_SESSION_NOT_STARTED"));
  EXPECT_EQ(out["events"][6], Ok());
  EXPECT_EQ(out["events"][7], Ok());
  EXPECT_EQ(out["status"], "ongoing");
  EXPECT_EQ(out.contains("move_sealed"), false);
  EXPECT_EQ(out["fen"], "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
  // Black's clock ran only in the sessions: 1 s in the first, 60 s in the second.
  EXPECT_EQ(out["black_ms"], 7'200'000 - 1000 - 60'000);
}

TEST(GameSimulateAdjournmentTest, TheReplierAbsentTheEnvelopeWaitsForHim) {  // A7, A9b
  const Json out = ParseOutputLine(SimulateGameLine(Scenario(R"(,
      {"at_ms": 86400000, "type": "resume_adjourned", "by": "arbiter", "absent": ["black"]},
      {"at_ms": 86401000, "type": "move", "by": "black", "move": "Nc6"},
      {"at_ms": 87000000, "type": "arrive", "by": "black"})")));
  EXPECT_EQ(out["events"][5], Ok());
  EXPECT_EQ(out["events"][6], Refused("ERR_SEALED_MOVE_UNOPENED"));
  EXPECT_EQ(out["events"][7], Ok());
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
  EXPECT_EQ(out["black_ms"], 7'200'000 - 1000 - 600'000);  // his clock ran from the start
}

TEST(GameSimulateAdjournmentTest, TheAbsentReplierLosesAnHourAfterTheSessionsStart) {  // A10
  const Json out = ParseOutputLine(SimulateGameLine(Scenario(R"(,
      {"at_ms": 86400000, "type": "resume_adjourned", "by": "arbiter", "absent": ["black"]})",
                                                             R"(, "query_ms": 90000001)")));
  EXPECT_EQ(out["result"], "1-0");
  EXPECT_EQ(out["termination"], "default");
}

TEST(GameSimulateAdjournmentTest, BothAbsentAnOrdinarySealedMoveBothLose) {  // A10
  const Json out = ParseOutputLine(SimulateGameLine(Scenario(R"(,
      {"at_ms": 86400000, "type": "resume_adjourned", "by": "arbiter",
       "absent": ["white", "black"]})",
                                                             R"(, "query_ms": 90000001)")));
  EXPECT_EQ(out["result"], "0-0");
  EXPECT_EQ(out["termination"], "default");
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
}

TEST(GameSimulateAdjournmentTest, BothAbsentTheSealedMateWins) {  // A10a: the default opens it
  const Json out = ParseOutputLine(SimulateGameLine(R"({"edition": "fide2001",
      "time_control": "G/120",
      "start_fen": "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
      "sessions": [{"start_ms": 1, "end_ms": 3600000},
                   {"start_ms": 86400000, "end_ms": 100800000}],
      "events": [
        {"at_ms": 1, "type": "start"},
        {"at_ms": 3600000, "type": "seal", "by": "white", "move": "Qxf7#"},
        {"at_ms": 3601000, "type": "adjourn", "by": "arbiter"},
        {"at_ms": 86400000, "type": "resume_adjourned", "by": "arbiter",
         "absent": ["white", "black"]}],
      "query_ms": 90000001})"));
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["result"], "1-0");
  EXPECT_EQ(out["termination"], "checkmate");
}

TEST(GameSimulateAdjournmentTest, TheEnvelopeLostAndTheGameVoid) {  // A11b
  const Json out = ParseOutputLine(SimulateGameLine(Scenario(R"(,
      {"at_ms": 4000000, "type": "envelope_lost", "by": "arbiter", "position_unknown": true,
       "reason": "the envelope burnt"})")));
  EXPECT_EQ(out["events"][5], Ok());
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "annulled");
}

TEST(GameSimulateAdjournmentTest, WhoSealsAndWhen) {  // A1, A2g
  const Json out = ParseOutputLine(SimulateGameLine(R"({"edition": "fide2001",
      "time_control": "G/120", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "seal", "by": "arbiter", "move": "e4"},
      {"at_ms": 1000, "type": "seal", "by": "black", "move": "e5"},
      {"at_ms": 1000, "type": "seal", "by": "white", "move": "e4"},
      {"at_ms": 1000, "type": "resume_adjourned", "by": "white"}]})"));
  EXPECT_EQ(out["events"][1], Refused("ERR_BAD_ARGUMENT"));
  EXPECT_EQ(out["events"][2], Refused("ERR_NOT_YOUR_TURN"));
  EXPECT_EQ(out["events"][3], Refused("ERR_NO_SESSION"));  // no session to resume in
  EXPECT_EQ(out["events"][4], Refused("ERR_BAD_ARGUMENT"));
}

}  // namespace
}  // namespace arbiterctl
