#include "libs/chess/types.h"

#include "gtest/gtest.h"

namespace chess {
namespace {

TEST(MoveTest, LayoutRoundTrips) {
  Move m(kE7, kE8, Move::kPromotion, PieceType::kQueen);
  EXPECT_EQ(m.from(), kE7);
  EXPECT_EQ(m.to(), kE8);
  EXPECT_EQ(m.kind(), Move::kPromotion);
  EXPECT_EQ(m.promotion(), PieceType::kQueen);
  EXPECT_EQ(Move::FromBits(m.bits()), m);
  EXPECT_EQ(Move(kE1, kG1, Move::kCastling).promotion(), PieceType::kNone);
  EXPECT_TRUE(Move().is_null());
}

TEST(SquareTest, NamesRoundTrip) {
  for (int s = 0; s < 64; ++s) {
    auto parsed = ParseSquare(SquareName(static_cast<Square>(s)));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, s);
  }
  EXPECT_FALSE(ParseSquare("i1").has_value());
  EXPECT_FALSE(ParseSquare("a9").has_value());
  EXPECT_FALSE(ParseSquare("a").has_value());
}

// Appendix E2: national letters. German K D T L S never collide with English K Q R B N.
TEST(PieceLetterTest, EnglishAndGerman) {
  EXPECT_EQ(PieceTypeFromLetter('D'), PieceType::kQueen);
  EXPECT_EQ(PieceTypeFromLetter('T'), PieceType::kRook);
  EXPECT_EQ(PieceTypeFromLetter('L'), PieceType::kBishop);
  EXPECT_EQ(PieceTypeFromLetter('S'), PieceType::kKnight);
  EXPECT_EQ(PieceTypeFromLetter('Q'), PieceType::kQueen);
  EXPECT_EQ(PieceLetter(PieceType::kQueen, Letters::kGerman), 'D');
  EXPECT_EQ(PieceTypeFromLetter('x'), PieceType::kNone);
}

}  // namespace
}  // namespace chess
