// `arbiterctl game simulate` on the Laws as the German texts have them: 7.4b without 2023's
// exception, a forbidden draw offer that never costs its move (9.1a), 10.2b in rapid, an offer
// that survives the opponent's claims (9.1a), 2023 9.4 and Guidelines III.2.2, and the points of
// the result (11.1, 13.4e/f).
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_simulate_testing.h"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;

// 9.1a: White's offer with 1.e4 comes before the regulations' move 2: the move is made (Black's
// clock runs), the offer is refused under its own code; with 2.Nf3 one offer is allowed, the
// next (with 3.Bc4) is beyond the limit of one: again the move stands.
TEST(GameSimulateLawsTest, AForbiddenOfferNeverCostsTheMove) {
  Json out = Simulate(R"json({"edition": "fide2023", "time_control": "5400+30",
      "no_draw_offers_before_move": 2, "max_draw_offers": 1, "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4", "offer_draw": true},
      {"at_ms": 2000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 3000, "type": "move", "by": "white", "move": "Nf3", "offer_draw": true},
      {"at_ms": 4000, "type": "move", "by": "black", "move": "Nc6"},
      {"at_ms": 5000, "type": "move", "by": "white", "move": "Bc4(=)"}]})json");
  const Json refused = {{"ok", true}, {"offer", "ERR_DRAW_OFFER_REFUSED"}};
  EXPECT_EQ(out["events"][1], refused);
  EXPECT_EQ(out["events"][2], Ok());
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["events"][4], Ok());  // Black's move rejects the offer (9.1a)
  EXPECT_EQ(out["events"][5], refused);
  EXPECT_EQ(out["fen"], "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3");
  EXPECT_TRUE(out["draw_offer"].is_null());
  EXPECT_EQ(out["white_ms"], 5'400'000 - 3'000 + 3 * 30'000);
}

// Without a limit in the regulations there is none: the Laws set none.
TEST(GameSimulateLawsTest, NoLimitWithoutTheRegulations) {
  std::string events = R"({"at_ms": 0, "type": "start"})";
  for (int i = 0; i < 4; ++i) {
    const int at = 1000 + 2000 * i;
    events += R"(, {"at_ms": )" + std::to_string(at) +
              R"(, "type": "move", "by": "white", "move": ")" + (i % 2 ? "Ng1" : "Nf3") +
              R"(", "offer_draw": true}, {"at_ms": )" + std::to_string(at + 1000) +
              R"(, "type": "move", "by": "black", "move": ")" + (i % 2 ? "Ng8" : "Nf6") + R"("})";
  }
  events +=
      R"(, {"at_ms": 9000, "type": "move", "by": "white", "move": "Nf3", "offer_draw": true})";
  Json out =
      Simulate(R"({"edition": "fide2001", "time_control": "G/90", "events": [)" + events + "]}");
  for (size_t i = 0; i < out["events"].size(); ++i) EXPECT_EQ(out["events"][i], Ok()) << i;
  EXPECT_EQ(out["draw_offer"], "white");  // the fifth offer stands
}

// 7.4b (2001): the third illegal move loses even against a bare king ("erklärt der
// Schiedsrichter die Partie für ihn für verloren"); 2023 7.5.5 draws (its exception).
TEST(GameSimulateLawsTest, ThirdIllegalMoveLosesAgainstABareKing2001) {
  const std::string events = R"(, "start_fen": "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "report_illegal", "from": "a1", "to": "b2"},
      {"at_ms": 2000, "type": "move", "by": "white", "move": "Ra2"},
      {"at_ms": 3000, "type": "move", "by": "black", "move": "Kd7"},
      {"at_ms": 4000, "type": "report_illegal", "from": "e1", "to": "e3"},
      {"at_ms": 5000, "type": "move", "by": "white", "move": "Ke2"},
      {"at_ms": 6000, "type": "move", "by": "black", "move": "Kd6"},
      {"at_ms": 7000, "type": "report_illegal", "from": "e2", "to": "e4"}]})";
  Json fide2001 = Simulate(R"({"edition": "fide2001", "time_control": "G/90")" + events);
  for (int i = 1; i < 7; ++i) EXPECT_EQ(fide2001["events"][i], Ok()) << i;
  EXPECT_EQ(fide2001["result"], "0-1");
  EXPECT_EQ(fide2001["termination"], "illegal_moves");
  EXPECT_EQ(fide2001["white_points"], 0.0);
  EXPECT_EQ(fide2001["black_points"], 1.0);
  // 2023: the second illegal move already ends it, drawn: Black cannot mate.
  Json fide2023 = Simulate(R"({"edition": "fide2023", "time_control": "5400")" + events);
  EXPECT_EQ(fide2023["result"], "1/2-1/2");
  EXPECT_EQ(fide2023["white_points"], 0.5);
}

// 10.2b in rapid (2001 G/30): after the postponed claim White's flag falls and Black claims it
// (B7): the game waits for the arbiter, who fixes the result.
TEST(GameSimulateLawsTest, RapidTimeClaimAfterPostponementWaitsForTheArbiter) {
  const std::string head = R"({"edition": "fide2001", "time_control": "G/30", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1690000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 1691000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 1692000, "type": "claim", "by": "white", "kind": "quickplay"},
      {"at_ms": 1700000, "type": "ruling", "by": "arbiter", "decision": "postpone"},
      {"at_ms": 1900000, "type": "claim", "by": "black", "kind": "time"})";
  Json waiting = Simulate(head + "]}");
  EXPECT_EQ(waiting["events"][3], Claim("pending"));
  EXPECT_EQ(waiting["events"][5], Claim("correct"));
  EXPECT_EQ(waiting["status"], "awaiting_ruling");
  EXPECT_EQ(waiting["result"], "*");
  Json ruled = Simulate(
      head + R"(, {"at_ms": 1910000, "type": "ruling", "by": "arbiter", "decision": "draw"}]})");
  EXPECT_EQ(ruled["events"][6], Ok());
  EXPECT_EQ(ruled["result"], "1/2-1/2");
  EXPECT_EQ(ruled["termination"], "quickplay_finish_claim");
}

// 9.1a: Black's incorrect threefold claim does not erase White's pending offer; he accepts it.
TEST(GameSimulateLawsTest, PendingOfferSurvivesAnIncorrectClaim) {
  Json out = Simulate(R"({"edition": "fide2001", "time_control": "G/90", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4", "offer_draw": true},
      {"at_ms": 2000, "type": "claim", "by": "black", "kind": "threefold"},
      {"at_ms": 3000, "type": "accept_draw", "by": "black"}]})");
  EXPECT_EQ(out["events"][2], Claim("incorrect"));
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["result"], "1/2-1/2");
  EXPECT_EQ(out["termination"], "agreement");
}

// 2023 Guidelines III.2.2: no quickplay-finish claim in a game with increment.
TEST(GameSimulateLawsTest, NoQuickplayClaimWithIncrement2023) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "5400+30", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 5350000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 5351000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 5352000, "type": "claim", "by": "white", "kind": "quickplay"}]})");
  EXPECT_EQ(out["events"][3], Refused("ERR_CLAIM_NOT_ALLOWED"));
  EXPECT_EQ(out["status"], "ongoing");
}

// 2023 9.4: Black touches his knight f6 on the board (4.3), then claims the threefold
// repetition with Ng8: the right is lost on this move. Under 2001 the same claim is correct.
TEST(GameSimulateLawsTest, TouchCostsTheDrawClaim2023) {
  const std::string events = Opening({"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"}) + R"(
      {"at_ms": 8000, "type": "board", "placement": "rnbqkb1r/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"},
      {"at_ms": 8500, "type": "board", "placement": "rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR"},
      {"at_ms": 9000, "type": "claim", "by": "black", "kind": "threefold", "move": "Ng8"})";
  Json fide2023 = Simulate(Scenario("fide2023", "5400", events));
  EXPECT_EQ(fide2023["events"][10], Refused("ERR_CLAIM_RIGHT_LOST"));
  EXPECT_EQ(fide2023["status"], "ongoing");
  Json fide2001 = Simulate(Scenario("fide2001", "G/90", events));
  EXPECT_EQ(fide2001["events"][10], Claim("correct"));
  EXPECT_EQ(fide2001["result"], "1/2-1/2");
}

// 11.1 with 13.4e: the points go with the result; absent while the game is on.
TEST(GameSimulateLawsTest, PointsOfTheResult) {
  const std::string head = R"({"edition": "fide2001", "time_control": "G/90", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "power", "power": "reduce_points", "side": "white", "points": 0.5,
       "reason": "13.4e"})";
  Json ongoing = Simulate(head + "]}");
  EXPECT_FALSE(ongoing.contains("white_points"));
  Json ended = Simulate(head + R"(, {"at_ms": 2000, "type": "resign", "by": "black"}]})");
  EXPECT_EQ(ended["result"], "1-0");
  EXPECT_EQ(ended["white_points"], 0.5);
  EXPECT_EQ(ended["black_points"], 0.0);
}

// 7.3 with the displacer named (Black, White on move); 7.5 resumed from the last known position.
TEST(GameSimulateLawsTest, DisplacedPiecesAndTheLastKnownPosition) {
  Json out = Simulate(Scenario("fide2001", "G/90", Opening({"e4", "e5"}) + R"(
      {"at_ms": 3000, "type": "irregularity", "article": "7.3", "side": "black", "reason": "sleeve"},
      {"at_ms": 4000, "type": "irregularity", "article": "7.5", "position_unknown": true,
       "reason": "pieces found displaced"},
      {"at_ms": 5000, "type": "irregularity", "article": "7.5", "position_unknown": true, "ply": 1,
       "reason": "pieces found displaced"})"));
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["events"][4], Refused("ERR_BAD_ARGUMENT"));  // the last known ply is named
  EXPECT_EQ(out["events"][5], Ok());
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

}  // namespace
}  // namespace arbiterctl
