// Article 3 (moves), 3.9, 5.1-5.2 status, and Position::FromSetup's validation, by position.
#include "libs/chess/position.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/chess/testing/fen.h"

namespace chess {
namespace {

using ::base::HasErrorCode;
using ::testing::HasSubstr;

using testing::Fen;

IllegalMoveReason Why(const std::string& fen, const std::string& uci) {
  Position pos = Fen(fen);
  Square from = *ParseSquare(uci.substr(0, 2));
  Square to = *ParseSquare(uci.substr(2, 2));
  PieceType promo = uci.size() == 5 ? PieceTypeFromLetter(static_cast<char>(uci[4] - 'a' + 'A'))
                                    : PieceType::kNone;
  return pos.Diagnose(pos.MakeMove(from, to, promo));
}

std::vector<SetupProblemKind> Problems(const std::string& fen) {
  absl::StatusOr<chess::Setup> setup = ParseFenSetup(fen);
  EXPECT_TRUE(setup.ok()) << setup.status();
  std::vector<SetupProblemKind> kinds;
  for (const SetupProblem& p : Position::Validate(*setup)) kinds.push_back(p.kind);
  return kinds;
}

bool Has(const std::vector<SetupProblemKind>& v, SetupProblemKind k) {
  return std::find(v.begin(), v.end(), k) != v.end();
}

// 3.8b: castling is prevented out of, through and into check; 3.8a ii after the rook has gone.
TEST(CastlingTest, Article3_8) {
  // Black bishop on b4 attacks e1? No: c5-f2 diagonal. Here the rook on f8 covers f1.
  EXPECT_EQ(Why("4kr2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"),
            IllegalMoveReason::kCastlingThroughCheck);
  EXPECT_EQ(Why("4k1r1/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), IllegalMoveReason::kCastlingIntoCheck);
  EXPECT_EQ(Why("4r1k1/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"),
            IllegalMoveReason::kCastlingOutOfCheck);
  EXPECT_EQ(Why("4k3/8/8/8/8/8/8/4KB1R w K - 0 1", "e1g1"), IllegalMoveReason::kCastlingBlocked);
  EXPECT_EQ(Why("4k3/8/8/8/8/8/8/4K2R w - - 0 1", "e1g1"), IllegalMoveReason::kCastlingRightLost);
  // Queen side: b1 may be attacked, c1 and d1 may not.
  EXPECT_EQ(Why("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1"), IllegalMoveReason::kNone);
  EXPECT_EQ(Why("3rk3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1"),
            IllegalMoveReason::kCastlingThroughCheck);
  // 3.8a ii: after the rook on h1 was captured the right is gone, even if another rook arrives.
  Position pos = Fen("4k3/8/8/8/8/8/6b1/4K2R b K - 0 1");
  ASSERT_OK(pos.Play(pos.MakeMove(kG2, kH1)));
  EXPECT_EQ(pos.castling_rights() & kWhiteKingSide, kNoCastling);
}

// 3.7d: en passant only on the very next move, and not when both pawns leaving the rank exposes
// the king (the rank pin).
TEST(EnPassantTest, Article3_7d) {
  Position pos = Fen("4k3/8/8/8/5p2/8/4P3/4K3 w - - 0 1");
  ASSERT_OK(pos.Play(pos.MakeMove(kE2, kE4)));
  EXPECT_EQ(pos.ep_square(), kE3);
  Move ep = pos.MakeMove(kF4, kE3);
  EXPECT_EQ(ep.kind(), Move::kEnPassant);
  EXPECT_TRUE(pos.IsLegal(ep));
  // A tempo move each and the chance is gone.
  Position later = pos;
  ASSERT_OK(later.Play(later.MakeMove(kE8, kD8)));
  ASSERT_OK(later.Play(later.MakeMove(kE1, kD1)));
  EXPECT_EQ(later.Diagnose(later.MakeMove(kF4, kE3)), IllegalMoveReason::kNothingToCapture);
  // Rank pin: king a5, pawns b5/c5 (c5 just came from c7), rook h5. Capturing exposes the king.
  Position pinned = Fen("7k/8/8/KPp4r/8/8/8/8 w - c6 0 1");
  EXPECT_EQ(pinned.ep_square(), kNoSquare);  // the capture is illegal, so no e.p. square at all
  Position pinned2 = Fen("8/8/8/8/k1pP3R/8/8/7K b - d3 0 1");
  EXPECT_EQ(pinned2.Diagnose(Move(kC4, kD3, Move::kEnPassant)),
            IllegalMoveReason::kNothingToCapture);
}

// 3.7e: promotion to queen, rook, bishop or knight is mandatory; with capture and check.
TEST(PromotionTest, Article3_7e) {
  Position pos = Fen("3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1");
  EXPECT_EQ(pos.Diagnose(pos.MakeMove(kE7, kD8)), IllegalMoveReason::kPromotionRequired);
  Move capture_promote = pos.MakeMove(kE7, kD8, PieceType::kQueen);
  EXPECT_TRUE(pos.IsLegal(capture_promote));
  EXPECT_EQ(ToSan(pos, capture_promote), "exd8=Q+");
  EXPECT_EQ(ToSan(pos, capture_promote, SanStyle::kAppendixE, Letters::kGerman), "exd8D+");
  EXPECT_EQ(ToSan(pos, pos.MakeMove(kE7, kD8, PieceType::kKnight)), "exd8=N");
  int promotions = 0;
  for (Move m : pos.LegalMoves()) promotions += m.is_promotion();
  EXPECT_EQ(promotions, 8);  // e8 and exd8, four pieces each
  EXPECT_EQ(Why("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2e3q"),
            IllegalMoveReason::kPromotionNotAllowed);
}

// 3.9: no move may leave the own king in check; pins restrict movement to the pin line.
TEST(KingSafetyTest, Article3_9) {
  EXPECT_EQ(Why("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "e2c3"),
            IllegalMoveReason::kLeavesKingInCheck);
  EXPECT_EQ(Why("4k3/4r3/8/8/8/8/8/4K3 w - - 0 1", "e1e2"), IllegalMoveReason::kLeavesKingInCheck);
  EXPECT_EQ(Why("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1b2"), IllegalMoveReason::kNotHowThePieceMoves);
  EXPECT_EQ(Why("4k3/8/8/8/8/8/8/RN2K3 w - - 0 1", "a1c1"), IllegalMoveReason::kBlocked);
  EXPECT_EQ(Why("4k3/8/8/8/8/8/8/RN2K3 w - - 0 1", "a1b1"), IllegalMoveReason::kOwnPieceOnTarget);
  EXPECT_EQ(Why("4k3/8/8/8/8/8/8/RN2K3 w - - 0 1", "e8e7"), IllegalMoveReason::kNotYourPiece);
  EXPECT_EQ(Why("4k3/8/8/8/8/8/8/RN2K3 w - - 0 1", "d4d5"), IllegalMoveReason::kNoPiece);
  EXPECT_EQ(Why("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2d3"), IllegalMoveReason::kNothingToCapture);
  // A pinned piece still gives check (3.8a i, 3.8b): the black king may not step next to it.
  EXPECT_EQ(Why("4r3/8/8/8/8/2k5/4B3/4K3 b - - 0 1", "c3d3"),
            IllegalMoveReason::kLeavesKingInCheck);
  EXPECT_EQ(Why("4r3/8/8/8/8/2k5/4B3/4K3 b - - 0 1", "c3c2"), IllegalMoveReason::kNone);
}

TEST(CheckedPlayTest, IllegalMoveChangesNothing) {
  Position pos = Position::Initial();
  Position before = pos;
  absl::Status st = pos.Play(Move(kE2, kE5));
  EXPECT_THAT(st, HasErrorCode("ERR_ILLEGAL_MOVE"));
  EXPECT_EQ(IllegalReasonOf(st), IllegalMoveReason::kNotHowThePieceMoves);
  EXPECT_EQ(pos, before);
}

// 5.1a checkmate, 5.2a stalemate.
TEST(StatusTest, MateAndStalemate) {
  Position mate = Fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
  EXPECT_TRUE(mate.IsCheckmate());
  EXPECT_FALSE(mate.IsStalemate());
  EXPECT_EQ(mate.Diagnose(mate.MakeMove(kE2, kE4)), IllegalMoveReason::kNoLegalMoves);
  Position stalemate = Fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
  EXPECT_TRUE(stalemate.IsStalemate());
  EXPECT_FALSE(stalemate.IsCheckmate());
}

// 5.2b / 9.6 by material alone: never a false positive.
TEST(StatusTest, InsufficientMaterial) {
  EXPECT_TRUE(Fen("8/8/4k3/8/8/3K4/8/8 w - - 0 1").IsInsufficientMaterial());
  EXPECT_TRUE(Fen("8/8/4k3/8/8/3K4/8/6N1 w - - 0 1").IsInsufficientMaterial());
  EXPECT_TRUE(Fen("8/8/4k3/8/8/3K4/8/5B2 w - - 0 1").IsInsufficientMaterial());
  // Bishops all on light squares, both sides: dead.
  EXPECT_TRUE(Fen("8/8/4k3/1b6/8/3K4/8/5B2 w - - 0 1").IsInsufficientMaterial());
  EXPECT_TRUE(Fen("8/8/4k3/1b6/8/3K4/8/3B1B2 w - - 0 1").IsInsufficientMaterial());
  // Opposite-coloured bishops: mate is possible.
  EXPECT_FALSE(Fen("8/8/4k3/2b5/8/3K4/8/5B2 w - - 0 1").IsInsufficientMaterial());
  // K+N v K+N, K+B v K+N, K+N+N v K: mates exist (with help), not dead by material.
  EXPECT_FALSE(Fen("8/8/4k3/2n5/8/3K4/8/6N1 w - - 0 1").IsInsufficientMaterial());
  EXPECT_FALSE(Fen("8/8/4k3/2n5/8/3K4/8/5B2 w - - 0 1").IsInsufficientMaterial());
  EXPECT_FALSE(Fen("8/8/4k3/8/8/3K4/8/5NN1 w - - 0 1").IsInsufficientMaterial());
  EXPECT_FALSE(Fen("8/8/4k3/8/8/3K4/7P/8 w - - 0 1").IsInsufficientMaterial());
}

TEST(SetupTest, ReportsEveryProblemAtOnce) {
  auto p = Problems("8/8/8/8/8/8/8/8 w - - 0 1");
  EXPECT_EQ(std::count(p.begin(), p.end(), SetupProblemKind::kNoKing), 2);
  p = Problems("kk6/8/8/8/8/8/8/P3K3 w KQ e6 0 1");
  EXPECT_TRUE(Has(p, SetupProblemKind::kTooManyKings));
  EXPECT_TRUE(Has(p, SetupProblemKind::kPawnOnBackRank));
  EXPECT_TRUE(Has(p, SetupProblemKind::kBadCastlingRights));
  EXPECT_TRUE(Has(p, SetupProblemKind::kBadEnPassant));
  EXPECT_TRUE(
      Has(Problems("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1"), SetupProblemKind::kTooManyPawns));
  EXPECT_TRUE(Has(Problems("QQQQk3/8/8/8/8/8/PPPPPPP1/4K3 b - - 0 1"),
                  SetupProblemKind::kTooManyPromotedPieces));
  EXPECT_TRUE(Has(Problems("4k3/8/8/8/8/8/8/4K2q b - - 0 1"), SetupProblemKind::kOppositeCheck));
  // Triple check and a double check by two knights cannot arise from one move.
  EXPECT_TRUE(
      Has(Problems("4k3/2N5/5N2/8/8/8/8/4K3 b - - 0 1"), SetupProblemKind::kImpossibleCheck));
  EXPECT_TRUE(
      Has(Problems("4r2k/8/8/8/8/3n4/8/r3K3 w - - 0 1"), SetupProblemKind::kImpossibleCheck));
  // A double check by rook and knight (a discovered check) is possible.
  EXPECT_FALSE(
      Has(Problems("4k3/8/5N2/8/8/8/8/4RK2 b - - 0 1"), SetupProblemKind::kImpossibleCheck));
  // After e2-e4 the check must come from the pawn or through e2.
  EXPECT_TRUE(
      Has(Problems("R7/8/8/8/4P3/8/8/k5K1 b - e3 0 1"), SetupProblemKind::kImpossibleCheck));
  absl::StatusOr<chess::Setup> setup = ParseFenSetup("kk6/8/8/8/8/8/8/P3K3 w - - 0 1");
  ASSERT_OK(setup);
  absl::StatusOr<Position> pos = Position::FromSetup(*setup);
  EXPECT_THAT(pos, HasErrorCode("ERR_BAD_SETUP"));
  EXPECT_THAT(std::string(pos.status().message()), HasSubstr("ERR_SETUP_TOO_MANY_KINGS"));
  EXPECT_THAT(std::string(pos.status().message()), HasSubstr("ERR_SETUP_PAWN_ON_BACK_RANK"));
}

// 9.2: an en passant square that no capture can use does not change the position's identity.
TEST(RepetitionKeyTest, UncapturableEnPassantIsIgnored) {
  Position with = Fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
  Position without = Fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
  EXPECT_EQ(with.key(), without.key());
  EXPECT_EQ(ToFen(with), ToFen(without));
  Position capturable = Fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
  Position not_capturable = Fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
  EXPECT_NE(capturable.key(), not_capturable.key());
  // Castling rights are part of the identity.
  EXPECT_NE(Fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").key(),
            Fen("4k3/8/8/8/8/8/8/4K2R w - - 0 1").key());
}

}  // namespace
}  // namespace chess
