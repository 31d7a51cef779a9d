// The rulings by article and edition: each case gives the position, the clock times and the
// expected ruling.
#include "libs/arbitration/rulings.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"

namespace arbitration::testing {
namespace {

// A game driven through Decide, as the service and `game simulate` drive it.
class Table : public GameTable {
 public:
  using GameTable::GameTable;
  absl::Status Claim(Color side, v1::ClaimKind kind, std::int64_t at_ms, std::string move = "") {
    return Do({.kind = CommandKind::kClaim, .side = side, .move = move, .claim = kind}, at_ms);
  }
  absl::Status Rule(v1::RulingDecision decision, std::int64_t at_ms, bool add_time = false) {
    return Do({.kind = CommandKind::kRule, .decision = decision, .add_time = add_time}, at_ms);
  }
};

const std::vector<std::string> kKnightDance = {"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"};

// --- Article 5 ---------------------------------------------------------------------------------

TEST(Article5, CheckmateWinsAndStopsTheClockAtTheMove) {  // 5.1a, 6.8a
  Table t;
  ASSERT_OK(t.Start());
  t.Play({"f3", "e5", "g4"}, 1000);
  ASSERT_OK(t.Move(kB, "Dh4", 10'000));  // German letters (Appendix E)
  EXPECT_EQ(t.game().status(), GameStatus::kEnded);
  ExpectEnded(t, Result::kBlackWins, Termination::kCheckmate, "5.1a");
  // The clock stopped at the mating move: Black's time does not run afterwards.
  EXPECT_EQ(t.ms(kB, 10'000), t.ms(kB, 5'000'000));
  EXPECT_THAT(t.Move(kW, "a3", 11'000), HasErrorCode("ERR_GAME_OVER"));
}

TEST(Article5, StalemateDraws) {  // 5.2a
  Table t({.fen = "7k/8/6Q1/8/8/8/8/K7 w - - 0 1"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "Qf7", 1000));
  EXPECT_EQ(t.result(), Result::kDraw);
  EXPECT_EQ(t.termination(), Termination::kStalemate);
}

TEST(Article5, DeadPositionByMaterialAfterACapture) {  // 5.2b, 9.6
  Table t({.fen = "4k3/8/8/8/8/8/3nb3/4K3 w - - 0 1"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "Kxe2", 1000));
  ExpectEnded(t, Result::kDraw, Termination::kDeadPosition, "5.2b");
  EXPECT_FALSE(t.game().proof().empty());
}

TEST(Article5, DeadPositionBySearchAfterAPawnMove) {  // 5.2b: locked pawns, proved by analysis
  Table u({.fen = "8/2k5/8/p1p1p1p1/P1P1P3/6P1/4K3/8 w - - 0 1"});
  ASSERT_OK(u.Start());
  ASSERT_OK(u.Move(kW, "g4", 1000));
  EXPECT_EQ(u.termination(), Termination::kDeadPosition);
  EXPECT_THAT(u.game().proof(), ::testing::HasSubstr("locked"));
}

TEST(Article5, NoGameFromAPositionAlreadyOver) {
  v1::CreateGameRequest req;
  req.set_white_id("w");
  req.set_black_id("b");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2001);
  req.set_time_control("G/90");
  req.set_start_fen("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1");  // K+N v K: dead (5.2b)
  EXPECT_THAT(NewGame(req, 0, v1::Actor()).status(), HasErrorCode("ERR_BAD_START_POSITION"));
  req.set_start_fen("");
  req.set_time_control("forty moves");
  EXPECT_THAT(NewGame(req, 0, v1::Actor()).status(), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  req.set_time_control("G/90");
  req.mutable_ruleset()->set_edition(v1::EDITION_UNSPECIFIED);
  EXPECT_THAT(NewGame(req, 0, v1::Actor()).status(), HasErrorCode("ERR_BAD_EDITION"));
}

TEST(Article5, ResignationAnytime) {  // 5.1b
  Table t;
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Do({.kind = CommandKind::kResign, .side = kB}, 500));  // not on move: allowed
  ExpectEnded(t, Result::kWhiteWins, Termination::kResignation, "5.1b");
}

TEST(Article5, MovesBeforeTheStartAreRefused) {  // 6.5
  Table t;
  EXPECT_THAT(t.Move(kW, "e4", 0), HasErrorCode("ERR_GAME_NOT_STARTED"));
  ASSERT_OK(t.Start());
  EXPECT_THAT(t.Move(kB, "e5", 10), HasErrorCode("ERR_NOT_YOUR_TURN"));
  EXPECT_THAT(t.Move(kW, "e5", 10), HasErrorCode("ERR_ILLEGAL_MOVE"));
  EXPECT_EQ(t.game().version(), 2);  // refused commands changed nothing
}

TEST(Edition2023, FivefoldRepetitionEndsTheGame) {  // 2023 9.6.1
  Table t({.edition = v1::EDITION_FIDE_2023});
  ASSERT_OK(t.Start());
  std::int64_t at = t.Play(kKnightDance, 1000);  // the initial position: 3rd time after Ng8
  at = t.Play({"Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"}, at);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  ASSERT_OK(t.Move(kB, "Ng8", at));  // the fifth time
  EXPECT_EQ(t.termination(), Termination::kFivefoldRepetition);
  EXPECT_EQ(t.article(), "9.6.1");
}

TEST(Edition2001, FivefoldDoesNotEndTheGame) {
  Table t({.edition = v1::EDITION_FIDE_2001});
  ASSERT_OK(t.Start());
  std::int64_t at = t.Play(kKnightDance, 1000);
  t.Play({"Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"}, at);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
}

// --- Article 9: offers and claims ---------------------------------------------------------------

TEST(Article9, OfferWithAMoveAcceptedIsADraw) {  // 9.1, 5.2c
  Table t;
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 1000, /*offer=*/true));
  EXPECT_EQ(t.game().draw_offer(), kW);
  EXPECT_THAT(t.Do({.kind = CommandKind::kAcceptDraw, .side = kW}, 1500),
              HasErrorCode("ERR_NO_DRAW_OFFER"));
  ASSERT_OK(t.Do({.kind = CommandKind::kAcceptDraw, .side = kB}, 2000));
  EXPECT_EQ(t.result(), Result::kDraw);
  EXPECT_EQ(t.termination(), Termination::kAgreement);
}

TEST(Article9, TheOpponentsMoveRejectsTheOffer) {  // 9.1
  Table t;
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 1000, true));
  ASSERT_OK(t.Move(kB, "e5", 2000));
  EXPECT_FALSE(t.game().draw_offer().has_value());
  EXPECT_THAT(t.Do({.kind = CommandKind::kAcceptDraw, .side = kB}, 2500),
              HasErrorCode("ERR_NO_DRAW_OFFER"));
}

// 9.1a: an offer at another time "ist zwar gültig"; one the regulations forbid costs the offer,
// never the move it came with (4.7, 6.8a): the move is made, the clock pressed, the offer refused
// and recorded for the arbiter (12.5, 12.6, 13.4) under its own code.
TEST(Article9, DeclinedOfferAndRegulations) {  // 9.1a, 12.5, the regulations
  Table t({.no_offers_before = 2, .max_offers = 1});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 1000, true));  // move 1: before the regulations' move 2
  EXPECT_EQ(t.game().standing_plies(), 1);
  EXPECT_EQ(t.game().to_move(), kB);
  EXPECT_FALSE(t.game().draw_offer().has_value());
  const v1::ArbitrationEvent& refused = t.game().event(t.game().version() - 1);
  ASSERT_TRUE(refused.has_draw_offer_refused());
  EXPECT_EQ(refused.draw_offer_refused().code(), "ERR_DRAW_OFFER_REFUSED");
  EXPECT_EQ(refused.draw_offer_refused().regulation(), "no_draw_offers_before_move");
  EXPECT_EQ(refused.draw_offer_refused().side(), v1::COLOR_WHITE);
  EXPECT_EQ(t.game().draw_offers_made(kW), 0);
  ASSERT_OK(t.Move(kB, "e5", 2000));
  ASSERT_OK(t.Move(kW, "Nf3", 3000, true));  // White's second move: allowed
  EXPECT_EQ(t.game().draw_offer(), kW);
  ASSERT_OK(t.Do({.kind = CommandKind::kDeclineDraw, .side = kB}, 3500));
  ASSERT_OK(t.Move(kB, "Nc6", 4000));
  // Without a move the offer is refused whole (it changes nothing).
  EXPECT_THAT(t.Do({.kind = CommandKind::kOfferDraw, .side = kW}, 4500),
              HasErrorCode("ERR_TOO_MANY_DRAW_OFFERS"));
  // With a move beyond the limit: the move is made, White's clock stops, Black's runs.
  const std::int64_t white = t.ms(kW, 5000);
  ASSERT_OK(t.Move(kW, "Bc4", 5000, true));
  EXPECT_EQ(t.game().to_move(), kB);
  EXPECT_EQ(t.ms(kW, 9000), white);
  EXPECT_FALSE(t.game().draw_offer().has_value());
  const v1::ArbitrationEvent& beyond = t.game().event(t.game().version() - 1);
  ASSERT_TRUE(beyond.has_draw_offer_refused());
  EXPECT_EQ(beyond.draw_offer_refused().regulation(), "max_draw_offers");
  // The record replays.
  absl::StatusOr<GameState> replayed = GameState::Replay(t.game().events());
  ASSERT_OK(replayed.status());
  EXPECT_EQ(chess::ToFen(replayed->position()), chess::ToFen(t.game().position()));
}

// The Laws set no limit on offers: without one in the regulations a fourth (and tenth) offer
// stands like the first.
TEST(Article9, NoLimitOnOffersUnlessTheRegulationsSetOne) {  // 9.1a, 12.5
  Table t;
  ASSERT_OK(t.Start());
  std::int64_t at = 1000;
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(t.Move(kW, i % 2 == 0 ? "Nf3" : "Ng1", at, /*offer=*/true));
    EXPECT_EQ(t.game().draw_offer(), kW) << i;
    ASSERT_OK(t.Move(kB, i % 2 == 0 ? "Nf6" : "Ng8", at + 500));
    at += 1000;
  }
  EXPECT_EQ(t.game().draw_offers_made(kW), 5);
  ASSERT_OK(t.Do({.kind = CommandKind::kOfferDraw, .side = kW}, at));
  EXPECT_EQ(t.game().draw_offer(), kW);
}

// 9.1a: the offer stands "bis es der Gegner annimmt, mündlich ablehnt, ablehnt durch Berühren
// einer Figur ... oder die Partie auf andere Weise beendet wird". Black's incorrect 9.2 claim
// (without an intended move) is none of these: he may still accept White's offer.
TEST(Article9, PendingOfferSurvivesTheOpponentsIncorrectClaim) {  // 9.1a, 9.5b
  Table t;
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 1000, /*offer=*/true));
  ASSERT_OK(t.Claim(kB, v1::CLAIM_KIND_THREEFOLD, 2000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(t.game().draw_offer(), kW);
  ASSERT_OK(t.Do({.kind = CommandKind::kAcceptDraw, .side = kB}, 3000));
  ExpectEnded(t, Result::kDraw, Termination::kAgreement, "9.1");
}

// The same for a 10.2 claim awaiting the arbiter: the claimant accepts the offer he received.
TEST(Article9, PendingOfferSurvivesTheOpponentsQuickplayClaim) {  // 9.1a, 10.2
  Table t({.time_control = "G/90"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 5'290'000));
  ASSERT_OK(t.Move(kB, "e5", 5'291'000, /*offer=*/true));
  ASSERT_OK(t.Claim(kW, v1::CLAIM_KIND_QUICKPLAY, 5'292'000));
  EXPECT_EQ(t.game().status(), GameStatus::kAwaitingRuling);
  EXPECT_EQ(t.game().draw_offer(), kB);
  ASSERT_OK(t.Do({.kind = CommandKind::kAcceptDraw, .side = kW}, 5'293'000));
  ExpectEnded(t, Result::kDraw, Termination::kAgreement, "9.1");
}

TEST(Article9, CorrectThreefoldClaimWithTheIntendedMove) {  // 9.2a
  Table t;
  ASSERT_OK(t.Start());
  std::int64_t at = t.Play(kKnightDance, 1000);  // Black to play Ng8: the third time
  ASSERT_OK(t.Claim(kB, v1::CLAIM_KIND_THREEFOLD, at, "Ng8"));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  ExpectEnded(t, Result::kDraw, Termination::kThreefoldRepetition, "9.2a");
}

TEST(Article9, OnlyThePlayerOnMoveClaims) {  // 9.2
  Table t;
  ASSERT_OK(t.Start());
  std::int64_t at = t.Play(kKnightDance, 1000);
  EXPECT_THAT(t.Claim(kW, v1::CLAIM_KIND_THREEFOLD, at), HasErrorCode("ERR_NOT_YOUR_TURN"));
}

TEST(Article9, IncorrectClaim2001PenaltyAndTheMoveIsPlayed) {  // 9.5b (2001)
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "G/90"});
  ASSERT_OK(t.Start());
  t.Play({"e4", "e5"}, 1000);  // White used 1 s, Black 1 s; White on move at 3 s
  const std::int64_t white_before = t.ms(kW, 3000);
  const std::int64_t black_before = t.ms(kB, 3000);
  ASSERT_OK(t.Claim(kW, v1::CLAIM_KIND_THREEFOLD, 3000, "Nf3"));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  // Opponent +3 min; the claimant (more than 2 min) loses half, at most 3 min.
  EXPECT_EQ(t.ms(kB, 3000), black_before + 180'000);
  EXPECT_EQ(t.ms(kW, 3000), white_before - 180'000);
  // The declared move was played; 9.1c: the claim stands as an offer.
  EXPECT_EQ(t.game().to_move(), kB);
  EXPECT_EQ(t.game().draw_offer(), kW);
}

TEST(Article9, IncorrectClaimPenaltyBands2001) {  // 9.5b: 1-2 min set to 1 min; under 1 kept
  laws::Ruleset r2001{.edition = laws::Edition::kFide2001};
  EXPECT_EQ(laws::IncorrectClaimPenalty(r2001, 300'000).claimant_after_ms, 150'000);
  EXPECT_EQ(laws::IncorrectClaimPenalty(r2001, 600'000).claimant_after_ms, 420'000);
  EXPECT_EQ(laws::IncorrectClaimPenalty(r2001, 120'000).claimant_after_ms, 60'000);
  EXPECT_EQ(laws::IncorrectClaimPenalty(r2001, 90'000).claimant_after_ms, 60'000);
  EXPECT_EQ(laws::IncorrectClaimPenalty(r2001, 60'000).claimant_after_ms, 60'000);
  EXPECT_EQ(laws::IncorrectClaimPenalty(r2001, 45'000).claimant_after_ms, 45'000);
  EXPECT_EQ(laws::IncorrectClaimPenalty(r2001, 45'000).opponent_add_ms, 180'000);
}

TEST(Article9, IncorrectClaim2023OpponentGetsTwoMinutes) {  // 2023 9.5.2
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "G/90"});
  ASSERT_OK(t.Start());
  const std::int64_t white_before = t.ms(kW, 1000);
  ASSERT_OK(t.Claim(kW, v1::CLAIM_KIND_FIFTY, 1000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(t.ms(kB, 1000), 5'400'000 + 120'000);
  EXPECT_EQ(t.ms(kW, 1000), white_before);
  EXPECT_EQ(t.game().to_move(), kW);  // no declared move: White still to move, clock running
  EXPECT_EQ(t.ms(kW, 2000), white_before - 1000);
}

TEST(Article9, FiftyMoveClaimCorrect) {  // 9.3b
  Table t({.fen = "4k3/8/8/8/8/8/8/R3K3 w - - 100 80"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Claim(kW, v1::CLAIM_KIND_FIFTY, 1000));
  EXPECT_EQ(t.termination(), Termination::kFiftyMoves);
  EXPECT_EQ(t.article(), "9.3b");
}

// --- Article 10 / Appendix D: quickplay finish ---------------------------------------------------

// G/90 under 2001: after 1. e4 (White 110 s left) e5, White claims in the last two minutes (10.2).
void ClaimInTheLastTwoMinutes(Table& t) {
  ASSERT_OK(t.Move(kW, "e4", 5'290'000));
  ASSERT_OK(t.Move(kB, "e5", 5'291'000));
  ASSERT_OK(t.Claim(kW, v1::CLAIM_KIND_QUICKPLAY, 5'292'000));
}

TEST(Article10, QuickplayClaimWithArbiterPostponeThenFlag) {  // 10.2b
  Table t({.time_control = "G/90"});
  ASSERT_OK(t.Start());
  EXPECT_THAT(t.Claim(kW, v1::CLAIM_KIND_QUICKPLAY, 1000), HasErrorCode("ERR_CLAIM_NOT_ALLOWED"));
  ClaimInTheLastTwoMinutes(t);
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_PENDING);
  EXPECT_EQ(t.game().status(), GameStatus::kAwaitingRuling);
  EXPECT_THAT(t.Move(kW, "Nf3", 5'293'000), HasErrorCode("ERR_AWAITING_RULING"));
  const std::int64_t black = t.ms(kB, 5'300'000);
  ASSERT_OK(t.Rule(v1::RULING_DECISION_POSTPONE, 5'300'000, /*add_time=*/true));
  EXPECT_EQ(t.ms(kB, 5'300'000), black + 120'000);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  // White's flag falls later: the arbiter fixes the result.
  t.SettleTo(6'000'000);
  EXPECT_EQ(t.game().status(), GameStatus::kAwaitingRuling);
  ASSERT_OK(t.Rule(v1::RULING_DECISION_DRAW, 6'000'000));
  EXPECT_EQ(t.termination(), Termination::kQuickplayFinishClaim);
}

// 2001 G/30 (rapid): White claims under 10.2 with 110 s left and the arbiter postpones.
void ClaimAndPostpone(Table& t) {
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 1'690'000));
  ASSERT_OK(t.Move(kB, "e5", 1'691'000));
  ASSERT_OK(t.Claim(kW, v1::CLAIM_KIND_QUICKPLAY, 1'692'000));
  ASSERT_OK(t.Rule(v1::RULING_DECISION_POSTPONE, 1'700'000));
}

// 10.2b "Nachdem ein Fallblättchen gefallen ist, setzt der Schiedsrichter das letztendlich gültige
// Resultat fest", in rapid too: 2001 G/30, White claims with 110 s left, the arbiter postpones;
// White's flag falls and Black claims it (B7): the game waits for the arbiter, who rules a draw.
TEST(Article10, RapidTimeClaimAfterPostponementWaitsForTheArbiter) {  // 10.2b, B7
  Table t({.time_control = "G/30"});
  ClaimAndPostpone(t);
  t.SettleTo(1'900'000);  // White's flag is down (recorded, B6)
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  ASSERT_OK(t.Claim(kB, v1::CLAIM_KIND_TIME, 1'900'000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(t.game().status(), GameStatus::kAwaitingRuling);
  EXPECT_EQ(t.result(), Result::kOngoing);
  EXPECT_THAT(t.Rule(v1::RULING_DECISION_POSTPONE, 1'910'000), HasErrorCode("ERR_BAD_RULING"));
  ASSERT_OK(t.Rule(v1::RULING_DECISION_DRAW, 1'910'000));
  ExpectEnded(t, Result::kDraw, Termination::kQuickplayFinishClaim, "10.2b");
}

// The arbiter may also find for the claimant's opponent: B7's win, his ruling.
TEST(Article10, RapidTimeClaimAfterPostponementArbiterRejects) {  // 10.2b, B7
  Table t({.time_control = "G/30"});
  ClaimAndPostpone(t);
  ASSERT_OK(t.Claim(kB, v1::CLAIM_KIND_TIME, 1'900'000));
  EXPECT_EQ(t.game().status(), GameStatus::kAwaitingRuling);
  ASSERT_OK(t.Rule(v1::RULING_DECISION_REJECT, 1'910'000));
  ExpectEnded(t, Result::kBlackWins, Termination::kTimeForfeit, "B7");
}

// 2023 Guidelines III.2.2: the quickplay finish only in games without increment: 5400+30 has
// none to claim; 5400 (no increment) keeps it.
TEST(Edition2023, NoQuickplayClaimWithIncrement) {  // 2023 III.2.2
  Table inc({.edition = v1::EDITION_FIDE_2023, .time_control = "5400+30"});
  ASSERT_OK(inc.Start());
  ASSERT_OK(inc.Move(kW, "e4", 5'350'000));  // 80 s left after the increment
  ASSERT_OK(inc.Move(kB, "e5", 5'351'000));
  ASSERT_LT(inc.ms(kW, 5'352'000), 120'000);
  EXPECT_THAT(inc.Claim(kW, v1::CLAIM_KIND_QUICKPLAY, 5'352'000),
              HasErrorCode("ERR_CLAIM_NOT_ALLOWED"));
  EXPECT_EQ(inc.game().status(), GameStatus::kOngoing);
  EXPECT_FALSE(inc.game().pending_claim().has_value());
  Table plain({.edition = v1::EDITION_FIDE_2023, .time_control = "5400"});
  ASSERT_OK(plain.Start());
  ASSERT_OK(plain.Move(kW, "e4", 5'290'000));
  ASSERT_OK(plain.Move(kB, "e5", 5'291'000));
  ASSERT_OK(plain.Claim(kW, v1::CLAIM_KIND_QUICKPLAY, 5'292'000));
  EXPECT_EQ(plain.ruling(), v1::CLAIM_RULING_PENDING);
}

TEST(Article10, QuickplayRejectedGivesTheOpponentTwoMinutes) {  // 10.2c
  Table t({.time_control = "G/90"});
  ASSERT_OK(t.Start());
  ClaimInTheLastTwoMinutes(t);
  const std::int64_t black = t.ms(kB, 5'292'000);
  ASSERT_OK(t.Rule(v1::RULING_DECISION_REJECT, 5'310'000));
  EXPECT_EQ(t.ms(kB, 5'310'000), black + 120'000);
  EXPECT_EQ(t.game().to_move(), kW);
  EXPECT_EQ(t.ms(kW, 5'311'000), t.ms(kW, 5'310'000) - 1000);  // White's clock runs again
}

TEST(Article10, QuickplayDrawRuling) {  // 10.2a
  Table t({.time_control = "G/90"});
  ASSERT_OK(t.Start());
  ClaimInTheLastTwoMinutes(t);
  ASSERT_OK(t.Rule(v1::RULING_DECISION_DRAW, 5'310'000));
  EXPECT_EQ(t.result(), Result::kDraw);
  EXPECT_EQ(t.article(), "10.2a");
}

TEST(AppendixC, NoQuickplayClaimInBlitz) {  // 2001 C4
  Table t({.time_control = "G/5"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 200'000));
  ASSERT_OK(t.Move(kB, "e5", 201'000));
  EXPECT_THAT(t.Claim(kW, v1::CLAIM_KIND_QUICKPLAY, 202'000),
              HasErrorCode("ERR_CLAIM_NOT_ALLOWED"));
}

TEST(AppendixD, ClaimWithoutArbiterEndsTheGameAndAwaitsTheDecision) {  // D1
  Table t({.time_control = "G/20", .arbiter_present = false});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 1'150'000));  // White 50 s left
  // D1 asks no turn: White claims with Black on move.
  ASSERT_OK(t.Claim(kW, v1::CLAIM_KIND_QUICKPLAY, 1'151'000));
  EXPECT_EQ(t.game().status(), GameStatus::kAwaitingRuling);
  EXPECT_FALSE(t.game().pending_claim()->final_fen().empty());
  EXPECT_THAT(t.Rule(v1::RULING_DECISION_POSTPONE, 1'200'000), HasErrorCode("ERR_BAD_RULING"));
  ASSERT_OK(t.Rule(v1::RULING_DECISION_REJECT, 1'200'000));
  EXPECT_EQ(t.result(), Result::kBlackWins);
  EXPECT_EQ(t.article(), "D1");
}

// --- Article 6: flags and defaults --------------------------------------------------------------

TEST(Article6, FlagLosesWhenTheOpponentCanMate) {  // 6.9, 6.10
  Table t({.time_control = "G/90"});
  ASSERT_OK(t.Start());
  t.SettleTo(5'399'999);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  t.SettleTo(6'000'000);
  ExpectEnded(t, Result::kBlackWins, Termination::kTimeForfeit, "6.10");
  EXPECT_EQ(*t.game().ended_at_ms(), 5'400'000);  // at the instant it fell, not when noticed
}

TEST(Article6, FlagDrawsWhenTheOpponentCannotMate) {  // 6.10
  Table t({.time_control = "G/90", .fen = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"});
  ASSERT_OK(t.Start());
  t.SettleTo(6'000'000);
  EXPECT_EQ(t.result(), Result::kDraw);
  EXPECT_EQ(t.termination(), Termination::kTimeoutVsInsufficient);
}

TEST(Article6, AMoveAfterTheFlagIsRefusedAndTheFlagRecorded) {  // 6.9
  Table t({.time_control = "G/90"});
  ASSERT_OK(t.Start());
  EXPECT_THAT(t.Move(kW, "e4", 5'500'000), HasErrorCode("ERR_GAME_OVER"));
  EXPECT_EQ(t.termination(), Termination::kTimeForfeit);
  EXPECT_EQ(t.game().flags().size(), 1u);
}

TEST(Article6, MateBeforeTheFlagStands) {  // 5.1: the move ended the game first
  Table t({.time_control = "G/1", .fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "Ra8", 59'999));
  EXPECT_EQ(t.termination(), Termination::kCheckmate);
  t.SettleTo(200'000);
  EXPECT_EQ(t.termination(), Termination::kCheckmate);
}

// G/15 under 2001 (rapid): White plays e4 at 1 s, then Black's flag falls (at 901 s) and by
// 1'000 s it is recorded.
void LetBlacksRapidFlagFall(Table& t) {
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 1000));
  t.SettleTo(1'000'000);
}

TEST(AppendixB, RapidFlagCountsOnlyOnAClaim) {  // B6, B7 (2001)
  Table t({.time_control = "G/15"});
  LetBlacksRapidFlagFall(t);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_EQ(t.game().flags().size(), 1u);
  ASSERT_OK(t.Move(kB, "e5", 1'000'000));  // play goes on
  // White points out the flag (B7): his own is up.
  ASSERT_OK(t.Claim(kW, v1::CLAIM_KIND_TIME, 1'001'000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(t.result(), Result::kWhiteWins);
  EXPECT_EQ(t.article(), "B7");
}

TEST(AppendixB, BothFlagsDownIsADrawOnlyOnAClaim) {  // B6, B8
  Table t({.time_control = "G/15"});
  LetBlacksRapidFlagFall(t);
  ASSERT_OK(t.Move(kB, "e5", 1'000'000));  // Black's flag down; White's runs out at 1'899'000
  t.SettleTo(2'000'000);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);  // B6: nobody has claimed
  ASSERT_OK(t.Claim(kB, v1::CLAIM_KIND_TIME, 2'000'000));
  ExpectEnded(t, Result::kDraw, Termination::kBothFlags, "B8");
}

TEST(AppendixB, TimeClaimWithoutAFallenFlagIsIncorrect) {  // B7
  Table t({.time_control = "G/15"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Claim(kB, v1::CLAIM_KIND_TIME, 1000));
  EXPECT_EQ(t.ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
}

TEST(Edition2023, RapidFlagCountsAtOnce) {  // 2023: the arbiter calls the flag
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "G/15"});
  ASSERT_OK(t.Start());
  t.SettleTo(1'000'000);
  EXPECT_EQ(t.termination(), Termination::kTimeForfeit);
}

TEST(Article6, DefaultFromTheScheduledStart) {  // 6.7
  // Scheduled at 10:00 (0), started 10:20 with Black absent: defaulted after 11:00:00.
  Table t({.scheduled_start_ms = 1});
  ASSERT_OK(t.Start(1'200'000, {kB}));
  ASSERT_OK(t.Move(kW, "e4", 1'300'000));
  t.SettleTo(3'600'001);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  t.SettleTo(3'600'002);
  ExpectEnded(t, Result::kWhiteWins, Termination::kDefault, "6.7");
}

TEST(Article6, BothAbsentBothLose) {  // 6.7
  Table t;
  ASSERT_OK(t.Start(0, {kW, kB}));
  t.SettleTo(4'000'000);
  EXPECT_EQ(t.result(), Result::kDoubleForfeit);
}

TEST(Article6, ArrivalInTimeAndTheClockRanMeanwhile) {  // 6.6
  Table t;
  ASSERT_OK(t.Start(0, {kW}));
  ASSERT_OK(t.Do({.kind = CommandKind::kArrive, .side = kW}, 600'000));
  EXPECT_EQ(t.ms(kW, 600'000), 5'400'000 - 600'000);
  t.SettleTo(4'000'000);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
}

TEST(Edition2023, DefaultTimeZeroUnlessTheRegulationsSay) {  // 2023 6.7.1
  Table t({.edition = v1::EDITION_FIDE_2023});
  ASSERT_OK(t.Start(0, {kB}));
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  t.SettleTo(1);
  EXPECT_EQ(t.termination(), Termination::kDefault);
}

// --- Article 8 / 11: results
// ----------------------------------------------------------------------

TEST(Article8, BothConfirmAndTheArbiterMaySetAResult) {  // 8.7
  Table t;
  ASSERT_OK(t.Start());
  EXPECT_THAT(t.Do({.kind = CommandKind::kConfirm, .side = kW}, 10),
              HasErrorCode("ERR_GAME_NOT_OVER"));
  ASSERT_OK(t.Do({.kind = CommandKind::kResign, .side = kW}, 100));
  ASSERT_OK(t.Do({.kind = CommandKind::kConfirm, .side = kW}, 200));
  EXPECT_THAT(t.Do({.kind = CommandKind::kConfirm, .side = kW}, 300),
              HasErrorCode("ERR_ALREADY_CONFIRMED"));
  ASSERT_OK(t.Do({.kind = CommandKind::kConfirm, .side = kB}, 300));
  EXPECT_THAT(t.Do({.kind = CommandKind::kSetResult,
                    .outcome = laws::Outcome::Draw(Termination::kArbiterDecision, "")},
                   400),
              HasErrorCode("ERR_BAD_ARGUMENT"));
  ASSERT_OK(t.Do({.kind = CommandKind::kSetResult,
                  .outcome = laws::Outcome::Draw(Termination::kArbiterDecision, "8.7"),
                  .reason = "the scoresheets show a draw was agreed"},
                 400));
  EXPECT_EQ(t.result(), Result::kDraw);
}

// --- Article 6.13: the arbiter interrupts the game
// ----------------------------------------------------------

// 6.13a: the arbiter stops the clocks with a reason; while they stand no move or claim is made
// and no flag falls, however long the interruption; he restarts them and each side goes on with
// the time it had. Resignation and draw offers need no clock.
TEST(Article6_13, TheArbiterStopsAndRestartsTheClocks) {
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "G/5"});  // 5 minutes each
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 10'000));
  EXPECT_THAT(t.Do({.kind = CommandKind::kPause}, 20'000), HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_THAT(t.Do({.kind = CommandKind::kResume, .reason = "too early"}, 20'000),
              HasErrorCode("ERR_GAME_NOT_PAUSED"));
  ASSERT_OK(t.Do({.kind = CommandKind::kPause, .reason = "power cut in hall B"}, 20'000));
  EXPECT_TRUE(t.game().paused());
  EXPECT_THAT(t.Do({.kind = CommandKind::kPause, .reason = "again"}, 21'000),
              HasErrorCode("ERR_GAME_PAUSED"));
  const std::int64_t black_left = t.ms(kB, 20'000);
  EXPECT_EQ(black_left, 300'000 - 10'000);
  // An hour later Black's flag would have fallen long ago: it has not, nothing runs.
  t.SettleTo(3'620'000);
  EXPECT_EQ(t.game().status(), GameStatus::kOngoing);
  EXPECT_EQ(t.ms(kB, 3'620'000), black_left);
  EXPECT_FALSE(NextDeadline(t.game()).has_value());
  EXPECT_THAT(t.Move(kB, "e5", 3'620'000), HasErrorCode("ERR_GAME_PAUSED"));
  EXPECT_THAT(t.Claim(kB, v1::CLAIM_KIND_THREEFOLD, 3'620'000), HasErrorCode("ERR_GAME_PAUSED"));
  ASSERT_OK(t.Do({.kind = CommandKind::kOfferDraw, .side = kB}, 3'620'000));
  ASSERT_OK(t.Do({.kind = CommandKind::kResume, .reason = "power back"}, 3'630'000));
  EXPECT_FALSE(t.game().paused());
  EXPECT_EQ(t.ms(kB, 3'630'000), black_left);
  ASSERT_OK(t.Move(kB, "e5", 3'635'000));
  EXPECT_EQ(t.ms(kB, 3'635'000), black_left - 5'000);
  // The record reads the same when replayed.
  const std::vector<v1::ArbitrationEvent> events = t.game().events();
  absl::StatusOr<GameState> replayed = GameState::Replay(events);
  ASSERT_OK(replayed.status());
  EXPECT_FALSE(replayed->paused());
  EXPECT_EQ(replayed->RemainingMs(kB, 3'635'000), black_left - 5'000);
  // A game over cannot be interrupted.
  ASSERT_OK(t.Do({.kind = CommandKind::kResign, .side = kW}, 3'640'000));
  EXPECT_THAT(t.Do({.kind = CommandKind::kPause, .reason = "late"}, 3'650'000),
              HasErrorCode("ERR_GAME_OVER"));
}

// The arbiter's time adjustments (13.4b, 13.4c, 8.1, 13.5, or his decision after an interruption,
// 6.13): the article fixes the sign where it has one; a deduction must leave time (6.14 sets the
// clock instead); the rulings' own adjustments (9.5b, 10.2) are not made by hand; a game over is
// not adjusted. A flag the adjustment brings forward falls when it is due.
TEST(Article13_4, TheArbiterAddsAndDeductsTime) {
  Table t({.edition = v1::EDITION_FIDE_2023, .time_control = "G/5"});
  auto adjust = [&](Color side, std::int64_t delta, std::string article, std::int64_t at) {
    return t.Do({.kind = CommandKind::kAdjustTime,
                 .side = side,
                 .reason = "the arbiter's ruling",
                 .delta_ms = delta,
                 .article = std::move(article)},
                at);
  };
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 10'000));
  ASSERT_OK(adjust(kW, 120'000, "13.4b", 20'000));  // White gets two minutes
  EXPECT_EQ(t.ms(kW, 20'000), 290'000 + 120'000);
  EXPECT_THAT(adjust(kW, -60'000, "13.4b", 20'000), HasErrorCode("ERR_BAD_ADJUSTMENT"));
  EXPECT_THAT(adjust(kB, 60'000, "13.4c", 20'000), HasErrorCode("ERR_BAD_ADJUSTMENT"));
  EXPECT_THAT(adjust(kB, 60'000, "9.5b", 20'000), HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_THAT(adjust(kB, 60'000, "42", 20'000), HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_THAT(t.Do({.kind = CommandKind::kAdjustTime, .side = kB, .delta_ms = 1000}, 20'000),
              HasErrorCode("ERR_BAD_ARGUMENT"));  // no reason
  EXPECT_THAT(adjust(kB, -1'000'000, "13.4c", 20'000), HasErrorCode("ERR_ADJUST_BELOW_ZERO"));
  // Black, on move, loses 4 minutes of his 4:50 (13.4c): his flag now falls 50 s later.
  ASSERT_OK(adjust(kB, -240'000, "13.4c", 20'000));
  EXPECT_EQ(t.ms(kB, 20'000), 50'000);
  EXPECT_EQ(NextDeadline(t.game()), 70'000);
  t.SettleTo(70'001);
  EXPECT_EQ(t.result(), Result::kWhiteWins);
  EXPECT_THAT(adjust(kW, 1000, "", 80'000), HasErrorCode("ERR_GAME_OVER"));
}

// 6.14: the arbiter sets both clocks, and the move counters when given (here a 40-move control:
// the counter decides when the next period's time comes). 6.11 the same for a replaced clock.
TEST(Article6_14, TheArbiterSetsTheClocks) {
  Table t({.edition = v1::EDITION_FIDE_2001, .time_control = "40/5400:1800"});
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 10'000));
  auto set = [&](std::int64_t w, std::int64_t b, std::int64_t at, std::string article = "",
                 std::string reason = "pieces restored after an illegal move") {
    Command c{.kind = CommandKind::kSetClocks, .reason = std::move(reason)};
    c.article = std::move(article);
    c.clocks.set_white_ms(w);
    c.clocks.set_black_ms(b);
    return t.Do(c, at);
  };
  EXPECT_THAT(set(600'000, 0, 20'000), HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_THAT(set(600'000, 500'000, 20'000, "13.4"), HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_THAT(set(600'000, 500'000, 20'000, "6.14", ""), HasErrorCode("ERR_BAD_ARGUMENT"));
  ASSERT_OK(set(600'000, 500'000, 20'000));
  EXPECT_EQ(t.ms(kW, 20'000), 600'000);
  EXPECT_EQ(t.ms(kB, 25'000), 495'000);  // Black's clock runs on from what was set
  const v1::ArbitrationEvent& e = t.game().event(t.game().version() - 1);
  ASSERT_TRUE(e.has_clocks_set());
  EXPECT_EQ(e.clocks_set().article(), "6.14");
  // The counters: Black has completed 39 moves by the arbiter's count, so his 40th brings the
  // next period's 30 minutes.
  Command counters{.kind = CommandKind::kSetClocks, .reason = "move counter corrected"};
  counters.clocks.set_white_ms(600'000);
  counters.clocks.set_black_ms(500'000);
  counters.clocks.set_black_moves(39);
  ASSERT_OK(t.Do(counters, 30'000));
  ASSERT_OK(t.Move(kB, "e5", 31'000));
  EXPECT_EQ(t.ms(kB, 31'000), 500'000 - 1'000 + 1'800'000);
}

TEST(Log, ReplayGivesTheSameState) {
  Table t({.time_control = "G/15"});
  ASSERT_OK(t.Start());
  t.Play({"e4", "e5", "Nf3"}, 1000);
  ASSERT_OK(t.Claim(kB, v1::CLAIM_KIND_THREEFOLD, 5000, "Nc6"));
  absl::StatusOr<GameState> replayed = GameState::FromSnapshot(t.game().Snapshot());
  ASSERT_OK(replayed.status());
  EXPECT_EQ(replayed->version(), t.game().version());
  EXPECT_EQ(chess::ToFen(replayed->position()), chess::ToFen(t.game().position()));
  EXPECT_EQ(replayed->RemainingMs(kW, 9000), t.game().RemainingMs(kW, 9000));
  EXPECT_EQ(replayed->RemainingMs(kB, 9000), t.game().RemainingMs(kB, 9000));
}

TEST(NextDeadline, IsTheRunningFlagOrTheDefault) {
  Table t({.time_control = "G/15"});
  EXPECT_FALSE(NextDeadline(t.game()).has_value());
  ASSERT_OK(t.Start(0, {kB}));
  EXPECT_EQ(NextDeadline(t.game()), 900'000);  // White's flag before Black's default at 1 h
  ASSERT_OK(t.Move(kW, "e4", 1000));
  EXPECT_EQ(NextDeadline(t.game()), 900'000 + 1000);  // Black's running clock
}

TEST(Article9Again, AMoveWithAnOfferRejectsThePendingOneAndStands) {  // 9.1
  Table t;
  ASSERT_OK(t.Start());
  ASSERT_OK(t.Move(kW, "e4", 1000, true));
  ASSERT_OK(t.Move(kB, "e5(=)", 2000));  // rejects White's offer, makes Black's (E12: "(=)")
  EXPECT_EQ(t.game().draw_offer(), kB);
  ASSERT_OK(t.Do({.kind = CommandKind::kAcceptDraw, .side = kW}, 2500));
  EXPECT_EQ(t.termination(), Termination::kAgreement);
}

TEST(Creation, TimeControlNotations) {
  v1::CreateGameRequest req;
  req.set_white_id("w");
  req.set_black_id("b");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2001);
  req.set_time_control_human("90+30");  // minutes: 90 minutes + 30 s
  absl::StatusOr<v1::ArbitrationEvent> created = NewGame(req, 0, v1::Actor());
  ASSERT_OK(created.status());
  EXPECT_EQ(created->created().time_control(), "5400+30");
  EXPECT_EQ(created->created().ruleset().game_type(), v1::GAME_TYPE_STANDARD);
  req.set_time_control("5400+30");
  EXPECT_THAT(NewGame(req, 0, v1::Actor()).status(), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  req.clear_time_control_human();
  req.set_time_control("G/60 d5");  // no PGN tag expresses a delay
  created = NewGame(req, 0, v1::Actor());
  ASSERT_OK(created.status());
  EXPECT_OK(GameState::Create(*created).status());
}

}  // namespace
}  // namespace arbitration::testing
