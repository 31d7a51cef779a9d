#include "tools/arbiterctl/game_simulate.h"

#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_simulate_testing.h"
#include "tools/arbiterctl/json_lines.h"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

constexpr std::int64_t k90Min = 5'400'000;

// --- The contract's shape

TEST(GameSimulateTest, ContractFieldsInOrder) {
  const std::string out =
      SimulateGameLine(R"({"edition": "fide2023", "time_control": "300+2", "events": []})");
  EXPECT_EQ(
      out,
      R"({"status":"ongoing","result":"*","termination":null,"events":[],)"
      R"("white_ms":300000,"black_ms":300000,)"
      R"("fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","draw_offer":null})");
}

TEST(GameSimulateTest, MalformedLines) {
  EXPECT_EQ(ErrorCode(Simulate("not json")), "ERR_BAD_JSON");
  EXPECT_EQ(ErrorCode(Simulate("[1, 2]")), "ERR_BAD_SCENARIO");
  EXPECT_EQ(ErrorCode(Simulate(R"({"time_control": "300", "events": []})")), "ERR_BAD_SCENARIO");
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide2023", "events": []})")), "ERR_BAD_SCENARIO");
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide2023", "time_control": "300"})")),
            "ERR_BAD_SCENARIO");
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide1999", "time_control": "300", "events": []})")),
            "ERR_BAD_EDITION");
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide2023", "time_control": "soon", "events": []})")),
            "ERR_BAD_TIME_CONTROL");
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide2023", "time_control": "300",
      "start_fen": "8/8/8/8 w - - 0 1", "events": []})")),
            "ERR_BAD_FEN");
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide2023", "time_control": "300", "events": [],
      "colour": "white"})")),
            "ERR_BAD_SCENARIO");
  // An event that cannot be read spoils the line: a script's typo must not pass as a refusal.
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "300",
      "events": [{"at_ms": 0, "type": "begin"}]})");
  EXPECT_EQ(ErrorCode(out), "ERR_BAD_EVENT");
  EXPECT_THAT(out["error"]["message"].get<std::string>(), HasSubstr("events[0]"));
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide2023", "time_control": "300",
      "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 5, "type": "move", "by": "green",
                  "move": "e4"}]})")),
            "ERR_BAD_EVENT");
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide2023", "time_control": "300",
      "events": [{"at_ms": 0, "type": "claim", "by": "white", "kind": "repetition"}]})")),
            "ERR_BAD_EVENT");
}

TEST(GameSimulateTest, OneLineOutPerLineIn) {
  std::istringstream in(R"({"edition": "fide2023", "time_control": "300+2", "events": []})"
                        "\n\n"
                        "oops\n"
                        R"({"edition": "fide2023", "time_control": "300+2", "events": []})"
                        "\n");
  std::ostringstream out;
  EXPECT_EQ(RunJsonLines(in, out, SimulateGameLine), 0);
  std::istringstream lines(out.str());
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) ++n;
  EXPECT_EQ(n, 3);
  EXPECT_THAT(out.str(), HasSubstr(R"({"error":{"code":"ERR_BAD_JSON")"));
}

// --- How games end

// 5.1a, and 5.1: moves after the end are refused. The clocks stop at the mating move (6.8a).
TEST(GameSimulateTest, CheckmateThenMovesRefused) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "180+2", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "f3"},
      {"at_ms": 3000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 4000, "type": "move", "by": "white", "move": "g2g4"},
      {"at_ms": 8000, "type": "move", "by": "black", "move": "Dh4"},
      {"at_ms": 9000, "type": "move", "by": "white", "move": "a3"},
      {"at_ms": 9500, "type": "resign", "by": "white"}], "query_ms": 60000})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "0-1");
  EXPECT_EQ(out["termination"], "checkmate");
  EXPECT_EQ(out["events"], Json::array({Ok(), Ok(), Ok(), Ok(), Ok(), Refused("ERR_GAME_OVER"),
                                        Refused("ERR_GAME_OVER")}));
  EXPECT_EQ(out["white_ms"], 180'000 - 1'000 + 2'000 - 1'000 + 2'000);
  // Black: 2 s and 4 s used, one increment; the mating move is not followed by a press.
  EXPECT_EQ(out["black_ms"], 180'000 - 2'000 + 2'000 - 4'000);
  EXPECT_EQ(out["fen"], "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
  EXPECT_TRUE(out["draw_offer"].is_null());
}

// 5.2a.
TEST(GameSimulateTest, Stalemate) {
  Json out = Simulate(R"({"edition": "fide2005", "time_control": "5400+30",
      "start_fen": "7k/8/8/8/8/8/5Q2/K7 w - - 0 1", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "Qf7"}]})");
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "1/2-1/2");
  EXPECT_EQ(out["termination"], "stalemate");
  EXPECT_EQ(out["fen"], "7k/5Q2/8/8/8/8/8/K7 b - - 1 1");
}

// 5.1b.
TEST(GameSimulateTest, Resignation) {
  Json out = Simulate(R"({"edition": "fide2001", "time_control": "40/90, 30", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 5000, "type": "resign", "by": "black"}], "query_ms": 100000})");
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "1-0");
  EXPECT_EQ(out["termination"], "resignation");
  EXPECT_EQ(out["events"], Json::array({Ok(), Ok(), Ok()}));
  EXPECT_EQ(out["white_ms"], k90Min - 1'000);
  EXPECT_EQ(out["black_ms"], k90Min - 4'000);  // frozen at the resignation
}

// 9.1 / 5.2c: an offer with a move stands until the opponent answers; then agreement.
TEST(GameSimulateTest, DrawOfferPendingThenAgreement) {
  const std::string head = R"({"edition": "fide2023", "time_control": "5400+30", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4", "offer_draw": true})";
  Json pending = Simulate(head + "]}");
  EXPECT_EQ(pending["status"], "ongoing");
  EXPECT_EQ(pending["draw_offer"], "white");
  // Only the opponent accepts.
  Json out = Simulate(head + R"(,
      {"at_ms": 2000, "type": "accept_draw", "by": "white"},
      {"at_ms": 3000, "type": "accept_draw", "by": "black"}]})");
  EXPECT_EQ(out["events"][2]["ok"], false);
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "1/2-1/2");
  EXPECT_EQ(out["termination"], "agreement");
  EXPECT_TRUE(out["draw_offer"].is_null());
  // 9.1: declined, the offer is gone and play goes on.
  Json declined = Simulate(head + R"(,
      {"at_ms": 2000, "type": "decline_draw", "by": "black"}]})");
  EXPECT_EQ(declined["events"][2], Ok());
  EXPECT_EQ(declined["status"], "ongoing");
  EXPECT_TRUE(declined["draw_offer"].is_null());
}

// 9.2a: Black declares the move that makes the initial position stand the third time.
TEST(GameSimulateTest, ThreefoldClaimCorrect) {
  Json out = Simulate(Scenario("fide2001", "40/5400:1800",
                               Opening({"Nf3", "Nf6", "Ng1", "Ng8", "Sf3", "Sf6", "Sg1"}) + R"(
      {"at_ms": 9000, "type": "claim", "by": "black", "kind": "threefold", "move": "Ng8"})",
                               R"(, "query_ms": 20000)"));
  EXPECT_EQ(out["events"][8], Claim("correct"));
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "1/2-1/2");
  EXPECT_EQ(out["termination"], "threefold_repetition");
  EXPECT_EQ(out["black_ms"], k90Min - 5'000);  // stopped at the claim
}

// An incorrect claim by White after 1. Nf3 Nf6, with Ng1 as the intended move: the clocks as
// 9.5b (2001, 2005) and 9.5.2 (2023) adjust them.
struct IncorrectClaim {
  const char* rule;
  const char* edition;
  const char* time_control;
  std::int64_t white_moves_at, black_moves_at, claim_at;
  const char* kind;
  std::int64_t query_ms;  // -1: none
  std::int64_t white_ms, black_ms;
};

const IncorrectClaim kIncorrectClaims[] = {
    // The claimant with more than two minutes loses half his time, at most three minutes; the
    // opponent gets three.
    {"9.5b (2001), more than two minutes", "fide2001", "40/5400:1800", 10000, 20000, 30000,
     "threefold", 30000, k90Min - 20'000 - 180'000, k90Min - 10'000 + 180'000},
    // Between one and two minutes the claimant's time is set to one minute.
    {"9.5b (2001), between one and two minutes", "fide2001", "40/5400:1800", 5310000, 5311000,
     5311000, "fifty", -1, 60'000, k90Min - 1'000 + 180'000},
    // Under one minute the claimant's time is unchanged.
    {"9.5b, under one minute", "fide2005", "40/5400:1800", 5350000, 5351000, 5351000, "threefold",
     -1, 50'000, k90Min - 1'000 + 180'000},
    // The opponent gets two minutes; the claimant's time is unchanged.
    {"9.5.2 (2023)", "fide2023", "5400+30", 10000, 20000, 30000, "threefold", 30000,
     k90Min - 10'000 + 30'000 - 10'000 + 30'000, k90Min - 10'000 + 30'000 + 120'000},
};

std::string Scenario(const IncorrectClaim& c) {
  const std::string start = R"({"at_ms": 0, "type": "start"})";
  const std::string nf3 = absl::StrCat(R"({"at_ms": )", c.white_moves_at,
                                       R"(, "type": "move", "by": "white", "move": "Nf3"})");
  const std::string nf6 = absl::StrCat(R"({"at_ms": )", c.black_moves_at,
                                       R"(, "type": "move", "by": "black", "move": "Nf6"})");
  const std::string claim =
      absl::StrCat(R"({"at_ms": )", c.claim_at, R"(, "type": "claim", "by": "white", "kind": ")",
                   c.kind, R"(", "move": "Ng1"})");
  const std::string query = c.query_ms < 0 ? "" : absl::StrCat(R"(, "query_ms": )", c.query_ms);
  return absl::StrCat(R"({"edition": ")", c.edition, R"(", "time_control": ")", c.time_control,
                      R"(", "events": [)", start, ", ", nf3, ", ", nf6, ", ", claim, "]", query,
                      "}");
}

TEST(GameSimulateTest, IncorrectClaimsAdjustTheClocks) {
  for (const IncorrectClaim& c : kIncorrectClaims) {
    Json out = Simulate(Scenario(c));
    EXPECT_EQ(out["events"][3], Claim("incorrect")) << c.rule;
    EXPECT_EQ(out["white_ms"], c.white_ms) << c.rule;
    EXPECT_EQ(out["black_ms"], c.black_ms) << c.rule;
  }
}

// 9.5b (2001): the intended move is then played (9.5b), and the claim stands as a draw offer
// (9.1c).
TEST(GameSimulateTest, IncorrectClaimPlaysTheIntendedMoveAndOffersADraw) {
  Json out = Simulate(Scenario(kIncorrectClaims[0]));
  EXPECT_EQ(out["status"], "ongoing");
  EXPECT_EQ(out["result"], "*");
  EXPECT_TRUE(out["termination"].is_null());
  EXPECT_EQ(out["fen"], "rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 3 2");
  EXPECT_EQ(out["draw_offer"], "white");
}

// 9.2: only the player on move claims.
TEST(GameSimulateTest, ClaimOutOfTurnRefused) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "5400+30", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "claim", "by": "black", "kind": "threefold"}]})");
  EXPECT_EQ(out["events"][1], Refused("ERR_NOT_YOUR_TURN"));
  EXPECT_EQ(out["status"], "ongoing");
  EXPECT_TRUE(out["draw_offer"].is_null());
}

// 9.1 (an offer is "valid until accepted, declined, rejected by the opponent's move"):
// Black's move rejects White's pending offer, and Black's own offer with it then stands.
// DISABLED: the rulings refuse the whole move with ERR_DRAW_OFFER_PENDING (rulings.cc,
// CheckOfferAllowed runs before the move rejects the pending offer), so the move is not played.
TEST(GameSimulateTest, MoveWithOfferRejectsThePendingOffer) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "5400+30", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4", "offer_draw": true},
      {"at_ms": 2000, "type": "move", "by": "black", "move": "e5", "offer_draw": true}]})");
  EXPECT_EQ(out["events"][2], Ok());
  EXPECT_EQ(out["draw_offer"], "black");
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
}

// 10.2: under two minutes in the last period, the clocks stop and the arbiter rules.
const char kQuickplayHead[] = R"({"edition": "fide2001", "time_control": "5400", "events": [
    {"at_ms": 0, "type": "start"},
    {"at_ms": 5300000, "type": "move", "by": "white", "move": "e4"},
    {"at_ms": 5310000, "type": "move", "by": "black", "move": "e5"},
    {"at_ms": 5320000, "type": "claim", "by": "white", "kind": "quickplay"})";

TEST(GameSimulateTest, QuickplayPendingThenDraw) {
  Json pending = Simulate(std::string(kQuickplayHead) + R"(], "query_ms": 5400000})");
  EXPECT_EQ(pending["events"][3], Claim("pending"));
  EXPECT_EQ(pending["status"], "awaiting_ruling");
  EXPECT_EQ(pending["white_ms"], 90'000);  // the clocks stopped at the claim
  EXPECT_EQ(pending["black_ms"], k90Min - 10'000);
  // While the arbiter decides, play waits.
  Json waiting = Simulate(std::string(kQuickplayHead) + R"(,
      {"at_ms": 5321000, "type": "move", "by": "white", "move": "Nf3"}]})");
  EXPECT_EQ(waiting["events"][4], Refused("ERR_AWAITING_RULING"));

  Json out = Simulate(std::string(kQuickplayHead) + R"(,
      {"at_ms": 5330000, "type": "ruling", "by": "arbiter", "decision": "draw"}]})");
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "1/2-1/2");
  EXPECT_EQ(out["termination"], "quickplay_finish_claim");
}

// 10.2c: rejected, the opponent gets two minutes and play goes on.
TEST(GameSimulateTest, QuickplayRejected) {
  Json out = Simulate(std::string(kQuickplayHead) + R"(,
      {"at_ms": 5330000, "type": "ruling", "by": "arbiter", "decision": "reject"}],
      "query_ms": 5340000})");
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["status"], "ongoing");
  EXPECT_EQ(out["black_ms"], k90Min - 10'000 + 120'000);
  EXPECT_EQ(out["white_ms"], 90'000 - 10'000);  // White's clock runs again from the ruling
}

// 10.2b: postponed with two extra minutes for the opponent; after White's flag falls the
// arbiter fixes the result.
TEST(GameSimulateTest, QuickplayPostponedThenFlag) {
  Json out = Simulate(std::string(kQuickplayHead) + R"(,
      {"at_ms": 5330000, "type": "ruling", "by": "arbiter", "decision": "postpone",
       "add_time": true}], "query_ms": 5500000})");
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["status"], "awaiting_ruling");
  EXPECT_EQ(out["white_ms"], 0);
  EXPECT_EQ(out["black_ms"], k90Min - 10'000 + 120'000);
  Json drawn = Simulate(std::string(kQuickplayHead) + R"(,
      {"at_ms": 5330000, "type": "ruling", "by": "arbiter", "decision": "postpone"},
      {"at_ms": 5500000, "type": "ruling", "by": "arbiter", "decision": "draw"}]})");
  EXPECT_EQ(drawn["events"][5], Ok());
  EXPECT_EQ(drawn["result"], "1/2-1/2");
}

// 10.2: a player may not rule; an arbiter's ruling without a claim is refused.
TEST(GameSimulateTest, RulingsOnlyByTheArbiterOnAClaim) {
  Json out = Simulate(std::string(kQuickplayHead) + R"(,
      {"at_ms": 5330000, "type": "ruling", "by": "white", "decision": "draw"}]})");
  EXPECT_EQ(out["events"][4], Refused("ERR_BAD_ARGUMENT"));
  EXPECT_EQ(out["status"], "awaiting_ruling");
  Json none = Simulate(R"({"edition": "fide2001", "time_control": "5400", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 10, "type": "ruling", "by": "arbiter", "decision": "draw"}]})");
  EXPECT_EQ(none["events"][1], Refused("ERR_NO_PENDING_CLAIM"));
}

// Appendix D (no arbiter present): the claim ends the game; the result waits for an arbiter.
TEST(GameSimulateTest, QuickplayWithoutArbiter) {
  Json out = Simulate(R"({"edition": "fide2001", "time_control": "5400",
      "arbiter_present": false, "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 5300000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 5310000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 5320000, "type": "claim", "by": "white", "kind": "quickplay",
       "ground": "cannot_win"}], "query_ms": 5500000})");
  EXPECT_EQ(out["events"][3], Claim("pending"));
  EXPECT_EQ(out["status"], "awaiting_ruling");
  EXPECT_EQ(out["white_ms"], 90'000);
}

// 6.9: the flag falls by itself; the opponent can mate, so the game is lost.
TEST(GameSimulateTest, FlagWithMatingMaterial) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "5400", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4"}], "query_ms": 6000000})");
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "1-0");
  EXPECT_EQ(out["termination"], "time_forfeit");
  EXPECT_EQ(out["white_ms"], k90Min - 1'000);
  EXPECT_EQ(out["black_ms"], 0);
  // A move after the fall is refused: the game ended at the instant the flag fell.
  Json late = Simulate(R"({"edition": "fide2023", "time_control": "5400", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 5500000, "type": "move", "by": "black", "move": "e5"}]})");
  EXPECT_EQ(late["events"][2], Refused("ERR_GAME_OVER"));
  EXPECT_EQ(late["termination"], "time_forfeit");
}

// 6.9 / 6.10: White has K+Q against the lone king. White's flag falls: Black cannot mate by any
// series of legal moves, so the game is drawn. Black's flag falls: White wins.
TEST(GameSimulateTest, FlagWithoutMatingMaterial) {
  Json drawn = Simulate(R"({"edition": "fide2005", "time_control": "5400",
      "start_fen": "8/8/8/8/8/5k2/8/KQ6 w - - 0 1", "events": [
      {"at_ms": 0, "type": "start"}], "query_ms": 5400001})");
  EXPECT_EQ(drawn["status"], "ended");
  EXPECT_EQ(drawn["result"], "1/2-1/2");
  EXPECT_EQ(drawn["termination"], "timeout_vs_insufficient");
  EXPECT_EQ(drawn["white_ms"], 0);

  Json won = Simulate(R"({"edition": "fide2005", "time_control": "5400",
      "start_fen": "8/8/8/8/8/5k2/8/KQ6 w - - 0 1", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "Qb2"}], "query_ms": 5500000})");
  EXPECT_EQ(won["result"], "1-0");
  EXPECT_EQ(won["termination"], "time_forfeit");
}

// 5.2b: a capture that leaves no mating material ends the game at once.
TEST(GameSimulateTest, DeadPositionAfterACapture) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "5400",
      "start_fen": "8/8/4k3/8/3n4/8/8/B3K3 w - - 0 1", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "Bxd4"}], "query_ms": 9000000})");
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "1/2-1/2");
  EXPECT_EQ(out["termination"], "dead_position");
  EXPECT_EQ(out["white_ms"], k90Min - 1'000);
  EXPECT_EQ(out["black_ms"], k90Min);  // no flag falls after the end (5.2b, 6.8a)
}

// B6 / B7 (rapid, 2001): the fallen flag counts only when the opponent claims it.
TEST(GameSimulateTest, RapidFlagCountsOnlyOnClaim) {
  Json unclaimed = Simulate(R"({"edition": "fide2001", "time_control": "1500", "events": [
      {"at_ms": 0, "type": "start"}], "query_ms": 1600000})");
  EXPECT_EQ(unclaimed["status"], "ongoing");
  EXPECT_EQ(unclaimed["white_ms"], 0);
  Json claimed = Simulate(R"({"edition": "fide2001", "time_control": "1500", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "claim", "by": "black", "kind": "time"},
      {"at_ms": 1600000, "type": "claim", "by": "black", "kind": "time"}]})");
  EXPECT_EQ(claimed["events"][1], Claim("incorrect"));  // the flag is still up
  EXPECT_EQ(claimed["events"][2], Claim("correct"));
  EXPECT_EQ(claimed["result"], "0-1");
  EXPECT_EQ(claimed["termination"], "time_forfeit");
}

// B6, B8 (rapid, 2001): both flags down and unclaimed, play goes on; a claim that finds both down
// is drawn. "1500" (25 min): White's flag falls at 1'500 s, he moves at 1'501 s; Black's falls at
// 3'001 s; moves after both are played; Black's claim at 3'200 s finds both down.
TEST(GameSimulateTest, AppendixB6BothFlagsDownPlayGoesOnUntilAClaim) {
  const std::string events = R"({"edition": "fide2001", "time_control": "1500", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1501000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 3100000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 3101000, "type": "move", "by": "white", "move": "Nf3"}%s],
      "query_ms": 3200000})";
  auto run = [&events](const std::string& more) {
    return Simulate(absl::StrReplaceAll(events, {{"%s", more}}));
  };
  Json unclaimed = run("");
  EXPECT_EQ(unclaimed["status"], "ongoing") << unclaimed.dump();
  EXPECT_EQ(unclaimed["events"][3], Ok());
  EXPECT_EQ(unclaimed["flags"], Json::parse(R"([
      {"side": "white", "at_ms": 1500000, "counts": false, "article": "B6"},
      {"side": "black", "at_ms": 3001000, "counts": false, "article": "B6"}])"));
  Json claimed = run(R"(, {"at_ms": 3200000, "type": "claim", "by": "black", "kind": "time"})");
  EXPECT_EQ(claimed["events"][4], Claim("incorrect"));
  EXPECT_EQ(claimed["result"], "1/2-1/2");
  EXPECT_EQ(claimed["termination"], "both_flags");
}

// 2023 rapid flags per the event: "supervised" true (the default, A.3) counts the flag at once;
// false (A.4.5) only on the opponent's valid claim.
TEST(GameSimulateTest, Fide2023FlagFollowsTheEventsSupervision) {
  Json supervised = Simulate(R"({"edition": "fide2023", "time_control": "900", "events": [
      {"at_ms": 0, "type": "start"}], "query_ms": 1000000})");
  EXPECT_EQ(supervised["status"], "ended");
  EXPECT_EQ(supervised["termination"], "time_forfeit");
  EXPECT_EQ(supervised["flags"][0]["article"], "A.3 (2023)");
  EXPECT_EQ(supervised["flags"][0]["counts"], true);
  Json unsupervised = Simulate(R"({"edition": "fide2023", "time_control": "900",
      "supervised": false, "events": [{"at_ms": 0, "type": "start"}], "query_ms": 1000000})");
  EXPECT_EQ(unsupervised["status"], "ongoing");
  EXPECT_EQ(unsupervised["flags"][0]["article"], "A.4.5 (2023)");
  EXPECT_EQ(unsupervised["flags"][0]["counts"], false);
  Json claimed = Simulate(R"({"edition": "fide2023", "time_control": "900",
      "supervised": false, "events": [{"at_ms": 0, "type": "start"},
      {"at_ms": 1000000, "type": "claim", "by": "black", "kind": "time"}]})");
  EXPECT_EQ(claimed["events"][1], Claim("correct"));
  EXPECT_EQ(claimed["result"], "0-1");
  EXPECT_EQ(ErrorCode(Simulate(R"({"edition": "fide2023", "time_control": "900",
      "supervised": 1, "events": []})")),
            "ERR_BAD_SCENARIO");
}

// 6.7: a player absent after the default time loses; both absent, both lose.
TEST(GameSimulateTest, DefaultWithAnAbsentPlayer) {
  Json out = Simulate(R"({"edition": "fide2001", "time_control": "5400",
      "default_time_ms": 900000, "events": [
      {"at_ms": 0, "type": "start", "absent": ["black"]},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4"}], "query_ms": 900001})");
  EXPECT_EQ(out["status"], "ended");
  EXPECT_EQ(out["result"], "1-0");
  EXPECT_EQ(out["termination"], "default");

  // Arriving in time, Black plays on; his clock ran from White's move (6.6).
  Json arrived = Simulate(R"({"edition": "fide2001", "time_control": "5400",
      "default_time_ms": 900000, "events": [
      {"at_ms": 0, "type": "start", "absent": ["black"]},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 600000, "type": "arrive", "by": "black"}], "query_ms": 900001})");
  EXPECT_EQ(arrived["events"], Json::array({Ok(), Ok(), Ok()}));
  EXPECT_EQ(arrived["status"], "ongoing");
  EXPECT_EQ(arrived["black_ms"], k90Min - (900'001 - 1'000));

  Json both = Simulate(R"({"edition": "fide2001", "time_control": "5400",
      "default_time_ms": 900000, "events": [
      {"at_ms": 0, "type": "start", "absent": ["white", "black"]}], "query_ms": 1000000})");
  EXPECT_EQ(both["result"], "0-0");
  EXPECT_EQ(both["termination"], "default");
}

// Refused events change nothing; an event earlier than the one before it is refused.
TEST(GameSimulateTest, RefusalsChangeNothing) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "5400+30", "events": [
      {"at_ms": 0, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 0, "type": "start"},
      {"at_ms": 1000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e5"},
      {"at_ms": 2000, "type": "move", "by": "white", "move": "Ke2"},
      {"at_ms": 1500, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 4000, "type": "move", "move": "e4"},
      {"at_ms": 5000, "type": "move", "by": "white", "move": "e4"}], "query_ms": 5000})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["events"][0], Refused("ERR_GAME_NOT_STARTED"));
  EXPECT_EQ(out["events"][1], Ok());
  EXPECT_EQ(out["events"][2], Refused("ERR_NOT_YOUR_TURN"));
  EXPECT_EQ(out["events"][3], Refused("ERR_ILLEGAL_MOVE"));
  EXPECT_EQ(out["events"][4], Refused("ERR_ILLEGAL_MOVE"));
  EXPECT_EQ(out["events"][5], Refused("ERR_BAD_ARGUMENT"));
  EXPECT_EQ(out["events"][6], Refused("ERR_BAD_ARGUMENT"));  // no player given
  EXPECT_EQ(out["events"][7], Ok());
  EXPECT_EQ(out["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
  EXPECT_EQ(out["white_ms"], k90Min - 5'000 + 30'000);
}

// The regulations: no offers before move N; 12.5 the limit per player.
TEST(GameSimulateTest, DrawOfferRegulations) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "5400+30",
      "no_draw_offers_before_move": 2, "max_draw_offers": 1, "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 500, "type": "offer_draw", "by": "white"},
      {"at_ms": 1000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 2000, "type": "move", "by": "black", "move": "e5"},
      {"at_ms": 3000, "type": "move", "by": "white", "move": "Nf3", "offer_draw": true},
      {"at_ms": 4000, "type": "decline_draw", "by": "black"},
      {"at_ms": 5000, "type": "offer_draw", "by": "white"}]})");
  EXPECT_EQ(out["events"][1], Refused("ERR_DRAW_OFFER_TOO_EARLY"));
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["events"][5], Ok());
  EXPECT_EQ(out["events"][6], Refused("ERR_TOO_MANY_DRAW_OFFERS"));
  EXPECT_TRUE(out["draw_offer"].is_null());
}

// 6.13a: the arbiter stops the clocks (a reason is required, only he may); no flag falls and no
// move is made until he restarts them.
TEST(GameSimulateTest, TheArbiterPausesAndResumes) {
  const std::string head = R"({"edition": "fide2023", "time_control": "300", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 10000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 20000, "type": "pause", "by": "white", "reason": "mine"},
      {"at_ms": 20000, "type": "pause", "by": "arbiter"},
      {"at_ms": 20000, "type": "pause", "by": "arbiter", "reason": "fire alarm"},
      {"at_ms": 900000, "type": "move", "by": "black", "move": "e5"})";
  Json paused = Simulate(head + R"(], "query_ms": 1000000})");
  EXPECT_EQ(paused["events"][2], Refused("ERR_BAD_ARGUMENT"));
  EXPECT_EQ(paused["events"][3], Refused("ERR_BAD_ARGUMENT"));
  EXPECT_EQ(paused["events"][4], Ok());
  EXPECT_EQ(paused["events"][5], Refused("ERR_GAME_PAUSED"));
  EXPECT_EQ(paused["status"], "ongoing");
  EXPECT_EQ(paused["paused"], true);
  EXPECT_EQ(paused["black_ms"], 290'000);  // no flag at 5 minutes: the clocks stand

  Json resumed = Simulate(head + R"(,
      {"at_ms": 1000000, "type": "resume", "by": "arbiter"},
      {"at_ms": 1004000, "type": "move", "by": "black", "move": "e5"}], "query_ms": 1005000})");
  EXPECT_EQ(resumed["events"][6], Ok());
  EXPECT_EQ(resumed["events"][7], Ok());
  EXPECT_FALSE(resumed.contains("paused"));
  EXPECT_EQ(resumed["black_ms"], 286'000);
  EXPECT_EQ(resumed["white_ms"], 289'000);
}

// The arbiter adds time (13.4b: to the offender's opponent) while the clocks are paused.
TEST(GameSimulateTest, TheArbiterAdjustsAClock) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "300", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 10000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 20000, "type": "pause", "by": "arbiter", "reason": "Black's phone rang"},
      {"at_ms": 30000, "type": "adjust", "by": "white", "side": "white", "delta_ms": 60000,
       "reason": "mine"},
      {"at_ms": 30000, "type": "adjust", "by": "arbiter", "side": "white", "delta_ms": 120000,
       "article": "13.4b", "reason": "Black's phone rang"},
      {"at_ms": 30000, "type": "adjust", "by": "arbiter", "side": "black", "delta_ms": 60000,
       "article": "13.4c", "reason": "wrong sign"}], "query_ms": 40000})");
  EXPECT_EQ(out["events"][3], Refused("ERR_BAD_ARGUMENT"));
  EXPECT_EQ(out["events"][4], Ok());
  EXPECT_EQ(out["events"][5], Refused("ERR_BAD_ADJUSTMENT"));
  EXPECT_EQ(out["white_ms"], 290'000 + 120'000);
  EXPECT_EQ(out["black_ms"], 290'000);
}

// 6.14: the arbiter sets both clocks.
TEST(GameSimulateTest, TheArbiterSetsTheClocks) {
  Json out = Simulate(R"({"edition": "fide2023", "time_control": "300", "events": [
      {"at_ms": 0, "type": "start"},
      {"at_ms": 10000, "type": "move", "by": "white", "move": "e4"},
      {"at_ms": 20000, "type": "set_clocks", "by": "black", "white_ms": 1, "black_ms": 1,
       "reason": "mine"},
      {"at_ms": 20000, "type": "set_clocks", "by": "arbiter", "white_ms": 200000,
       "black_ms": 100000, "reason": "clock replaced", "article": "6.11"}], "query_ms": 30000})");
  EXPECT_EQ(out["events"][2], Refused("ERR_BAD_ARGUMENT"));
  EXPECT_EQ(out["events"][3], Ok());
  EXPECT_EQ(out["white_ms"], 200'000);
  EXPECT_EQ(out["black_ms"], 90'000);
}

}  // namespace
}  // namespace arbiterctl
