// Touch-move by article (4.2-4.6, B5 per edition): each case gives the position, the pieces
// touched in order and the moves owed.
#include "libs/arbitration/touch_move.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/chess/testing/fen.h"

namespace arbitration {
namespace {

using ::base::HasErrorCode;
using chess::Color;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

using chess::testing::Fen;

Touch T(absl::string_view square, char piece, bool adjusting = false) {
  return {*chess::ParseSquare(square), chess::PieceFromFenChar(piece), adjusting};
}

laws::Ruleset Rules(laws::Edition edition, laws::SpeedCategory speed) {
  laws::Ruleset r;
  r.edition = edition;
  r.speed = speed;
  return r;
}

// After 1.e4 e5 2.Nf3 Nc6 3.Bb5 a6: White to move; Bb5 attacked by a6, Nc6 capturable by Bb5.
constexpr char kRuyLopez[] = "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4";
// White can castle on both sides; Ra1, Rh1, Ke1.
constexpr char kCastles[] = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

// Touching `touches` in `p` obliges, under `article`, exactly the moves `allowed` (UCI).
void ExpectObliged(const chess::Position& p, absl::Span<const Touch> touches,
                   absl::string_view article, const std::vector<std::string>& allowed) {
  const Obligation o = ObligationOf(p, touches);
  EXPECT_EQ(o.article, article);
  EXPECT_EQ(o.AllowedUci(), allowed);
}

TEST(Article4_3a, TheFirstTouchedOwnPieceThatCanMoveMustMove) {
  const chess::Position p = Fen("startpos");
  Obligation o = ObligationOf(p, {T("g1", 'N')});
  EXPECT_EQ(o.kind, Obligation::Kind::kOwed);
  EXPECT_EQ(o.article, "4.3a");
  EXPECT_THAT(o.AllowedUci(), ElementsAre("g1f3", "g1h3"));
  // The bishop c1 cannot move: the next touched piece (the pawn e2) is owed.
  o = ObligationOf(p, {T("c1", 'B'), T("e2", 'P'), T("g1", 'N')});
  EXPECT_THAT(o.AllowedUci(), ElementsAre("e2e3", "e2e4"));
  EXPECT_FALSE(o.Allows(*chess::ParseUci(p, "g1f3")));
  EXPECT_TRUE(o.Allows(*chess::ParseUci(p, "e2e4")));
}

TEST(Article4_3b, TheFirstTouchedEnemyPieceThatCanBeCapturedMustBeCaptured) {
  const chess::Position p = Fen(kRuyLopez);
  Obligation o = ObligationOf(p, {T("c6", 'n')});
  EXPECT_EQ(o.article, "4.3b");
  EXPECT_THAT(o.AllowedUci(), ElementsAre("b5c6"));
  // The pawn h7 cannot be captured: the next one, the pawn e5 (by the knight only).
  o = ObligationOf(p, {T("h7", 'p'), T("e5", 'p')});
  EXPECT_THAT(o.AllowedUci(), ElementsAre("f3e5"));
}

TEST(Article4_3c, BothColoursTouchedCaptureWithTheTouchedPiece) {
  const chess::Position p = Fen(kRuyLopez);
  // Bishop and knight c6: Bxc6 (the capture order on the board does not matter).
  ExpectObliged(p, {T("c6", 'n'), T("b5", 'B')}, "4.3c", {"b5c6"});
  // The knight f3 cannot take the knight c6: the first touched piece that can be moved or
  // captured (the knight f3 moves).
  ExpectObliged(p, {T("f3", 'N'), T("c6", 'n')}, "4.3c", {"f3d4", "f3e5", "f3g1", "f3g5", "f3h4"});
}

TEST(Article4_4a, KingThenRookMustCastleOnThatSide) {
  const chess::Position p = Fen(kCastles);
  ExpectObliged(p, {T("e1", 'K'), T("h1", 'R')}, "4.4a", {"e1g1"});
  Obligation o = ObligationOf(p, {T("e1", 'K'), T("a1", 'R')});
  EXPECT_THAT(o.AllowedUci(), ElementsAre("e1c1"));
  // The king alone: any king move, castling included (4.3a).
  o = ObligationOf(p, {T("e1", 'K')});
  EXPECT_EQ(o.article, "4.3a");
  EXPECT_THAT(o.AllowedUci(), ::testing::Contains("e1g1"));
}

TEST(Article4_4b, RookThenKingMayNotCastleWithThatRook) {
  const chess::Position p = Fen(kCastles);
  Obligation o = ObligationOf(p, {T("h1", 'R'), T("e1", 'K')});
  EXPECT_EQ(o.article, "4.4b");
  EXPECT_FALSE(o.Allows(*chess::ParseUci(p, "e1g1")));
  EXPECT_TRUE(o.Allows(*chess::ParseUci(p, "h1f1")));
}

TEST(Article4_4c, CastlingIllegalOnThatSideAnotherKingMove) {
  // The bishop b4... a black rook on f8 attacks f1: kingside castling is illegal; queenside not.
  const chess::Position p = Fen("r4rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
  Obligation o = ObligationOf(p, {T("e1", 'K'), T("h1", 'R')});
  EXPECT_EQ(o.article, "4.4c");
  EXPECT_FALSE(o.Allows(*chess::ParseUci(p, "h1f1")));
  EXPECT_TRUE(o.Allows(*chess::ParseUci(p, "e1c1")));  // castling on the other side
  EXPECT_TRUE(o.Allows(*chess::ParseUci(p, "e1d2")));
}

TEST(Article4_5, NoTouchedPieceCanMoveAnyMove) {
  const chess::Position p = Fen("startpos");
  Obligation o = ObligationOf(p, {T("c1", 'B'), T("d1", 'Q')});
  EXPECT_EQ(o.kind, Obligation::Kind::kFree);
  EXPECT_EQ(o.article, "4.5");
  EXPECT_TRUE(o.Allows(*chess::ParseUci(p, "g1f3")));
  // An enemy piece nothing can capture.
  o = ObligationOf(p, {T("e7", 'p')});
  EXPECT_EQ(o.kind, Obligation::Kind::kFree);
}

TEST(Article4_2, AdjustedPiecesOweNothing) {
  const chess::Position p = Fen("startpos");
  Obligation o = ObligationOf(p, {T("g1", 'N', /*adjusting=*/true)});
  EXPECT_EQ(o.kind, Obligation::Kind::kNone);
  o = ObligationOf(p, {T("g1", 'N', true), T("e2", 'P')});
  EXPECT_THAT(o.AllowedUci(), ElementsAre("e2e3", "e2e4"));
}

TEST(Article4_3, EnPassantCapturesTheTouchedPawn) {
  // 1.e4 a6 2.e5 d5: the pawn d5 can be taken en passant.
  const chess::Position p = Fen("rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
  Obligation o = ObligationOf(p, {T("d5", 'p')});
  EXPECT_EQ(o.article, "4.3b");
  EXPECT_THAT(o.AllowedUci(), ElementsAre("e5d6"));
}

TEST(Editions, WhoRulesOnArticle4) {
  using laws::Edition;
  using laws::SpeedCategory;
  // 2001 B5a: in rapid and blitz only at a player's request; in standard play himself.
  EXPECT_FALSE(
      TouchMoveRulesOf(Rules(Edition::kFide2001, SpeedCategory::kStandard)).on_request_only);
  EXPECT_TRUE(TouchMoveRulesOf(Rules(Edition::kFide2001, SpeedCategory::kRapid)).on_request_only);
  EXPECT_EQ(TouchMoveRulesOf(Rules(Edition::kFide2001, SpeedCategory::kBlitz)).ruling_article,
            "B5a");
  // 1997 B5 (Article 4 or 10 only on request).
  EXPECT_EQ(TouchMoveRulesOf(Rules(Edition::kFide1997, SpeedCategory::kBlitz)).ruling_article,
            "B5");
  // 2023: 4.8 loses the claim; the arbiter acts himself.
  const TouchMoveRules r2023 = TouchMoveRulesOf(Rules(Edition::kFide2023, SpeedCategory::kRapid));
  EXPECT_FALSE(r2023.on_request_only);
  EXPECT_EQ(r2023.claim_lost_article, "4.8");
  EXPECT_EQ(r2023.illegal_article, "7.5.1");
  EXPECT_EQ(r2023.Article("4.3a"), "4.3.1");
  EXPECT_EQ(r2023.Article("4.4c"), "4.4.3");
  EXPECT_EQ(r2023.Article("4.5"), "4.5");
  EXPECT_EQ(TouchMoveRulesOf(Rules(Edition::kFide2001, SpeedCategory::kRapid)).Article("4.4b"),
            "4.4b");
}

// The log of a turn: White touched these pieces, then played `move`.
TouchLog WhiteTurn(const chess::Position& before, const std::vector<Touch>& touches,
                   absl::string_view move) {
  TouchLog log;
  for (const Touch& t : touches) {
    v1::ArbitrationEvent e;
    e.mutable_piece_touched()->set_side(v1::COLOR_WHITE);
    e.mutable_piece_touched()->set_square(SquareText(t.square));
    e.mutable_piece_touched()->set_piece(PieceText(t.piece));
    EXPECT_OK(log.Apply(e, Color::kWhite));
  }
  if (!move.empty()) log.OnMove(before, *chess::ParseUci(before, move));
  return log;
}

TEST(B5a, TheOpponentsClaimAfterTheMoveIsRuledFromTheTouches) {
  const laws::Ruleset rapid = Rules(laws::Edition::kFide2001, laws::SpeedCategory::kRapid);
  const chess::Position before = Fen("startpos");
  chess::Position after = before;
  after.PlayUnchecked(*chess::ParseUci(before, "e2e4"));
  // White touched the knight g1 and played e4: a violation of 4.3a; the clocks stop.
  TouchLog log = WhiteTurn(before, {T("g1", 'N')}, "e2e4");
  absl::StatusOr<std::vector<v1::ArbitrationEvent>> events =
      TouchMoveClaim(log, after, rapid, Color::kBlack);
  ASSERT_OK(events.status());
  ASSERT_EQ(events->size(), 2u);
  const v1::TouchMoveRuled& r = (*events)[0].touch_move_ruled();
  EXPECT_TRUE(r.violation());
  EXPECT_EQ(r.offender(), v1::COLOR_WHITE);
  EXPECT_EQ(r.claimant(), v1::COLOR_BLACK);
  EXPECT_EQ(r.article(), "4.3a");
  EXPECT_EQ(r.move_uci(), "e2e4");
  EXPECT_THAT(r.owed_uci(), ElementsAre("g1f3", "g1h3"));
  EXPECT_TRUE((*events)[1].has_paused());
  // White touched the knight and moved it: no violation.
  log = WhiteTurn(before, {T("g1", 'N')}, "g1f3");
  chess::Position after_nf3 = before;
  after_nf3.PlayUnchecked(*chess::ParseUci(before, "g1f3"));
  events = TouchMoveClaim(log, after_nf3, rapid, Color::kBlack);
  ASSERT_OK(events.status());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_FALSE((*events)[0].touch_move_ruled().violation());
}

TEST(Article4_6, TheClaimIsLostOnceTheClaimantTouchedAPiece) {
  for (laws::Edition edition :
       {laws::Edition::kFide1997, laws::Edition::kFide2001, laws::Edition::kFide2023}) {
    const laws::Ruleset blitz = Rules(edition, laws::SpeedCategory::kBlitz);
    const chess::Position before = Fen("startpos");
    chess::Position after = before;
    after.PlayUnchecked(*chess::ParseUci(before, "e2e4"));
    TouchLog log = WhiteTurn(before, {T("g1", 'N')}, "e2e4");
    // Black lifts his pawn e7 before claiming.
    v1::ArbitrationEvent touch;
    touch.mutable_piece_touched()->set_side(v1::COLOR_BLACK);
    touch.mutable_piece_touched()->set_square("e7");
    touch.mutable_piece_touched()->set_piece("p");
    ASSERT_OK(log.Apply(touch, Color::kBlack));
    EXPECT_THAT(TouchMoveClaim(log, after, blitz, Color::kBlack),
                HasErrorCode("ERR_CLAIM_RIGHT_LOST"))
        << laws::EditionName(edition);
  }
}

TEST(B5a, AClaimWhileTheOffenderIsToMoveMakesTheMoveOwed) {
  const laws::Ruleset rapid = Rules(laws::Edition::kFide2001, laws::SpeedCategory::kRapid);
  const chess::Position p = Fen("startpos");
  TouchLog log = WhiteTurn(p, {T("g1", 'N')}, "");
  absl::StatusOr<std::vector<v1::ArbitrationEvent>> events =
      TouchMoveClaim(log, p, rapid, Color::kBlack);
  ASSERT_OK(events.status());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_TRUE((*events)[0].touch_move_ruled().owed());
  EXPECT_FALSE((*events)[0].touch_move_ruled().violation());
  // Applied, the ruling is enforced: another move is refused in rapid too.
  ASSERT_OK(log.Apply((*events)[0], Color::kWhite));
  EXPECT_THAT(CheckTouchMove(log, p, rapid, *chess::ParseUci(p, "e2e4")),
              HasErrorCode("ERR_TOUCH_MOVE_OWED"));
  EXPECT_OK(CheckTouchMove(log, p, rapid, *chess::ParseUci(p, "g1f3")));
}

TEST(B5a, WithoutAClaimTheArbiterDoesNotRuleInRapid) {
  const chess::Position p = Fen("startpos");
  TouchLog log = WhiteTurn(p, {T("g1", 'N')}, "");
  const chess::Move e4 = *chess::ParseUci(p, "e2e4");
  EXPECT_OK(
      CheckTouchMove(log, p, Rules(laws::Edition::kFide2001, laws::SpeedCategory::kRapid), e4));
  // Standard play: the arbiter acts himself.
  EXPECT_THAT(
      CheckTouchMove(log, p, Rules(laws::Edition::kFide2001, laws::SpeedCategory::kStandard), e4),
      HasErrorCode("ERR_TOUCH_MOVE_OWED"));
  EXPECT_THAT(log.touches(), ::testing::SizeIs(1));
  TouchLog empty;
  EXPECT_THAT(empty.touches(), IsEmpty());
}

}  // namespace
}  // namespace arbitration
