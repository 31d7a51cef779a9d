// The attack tables against attacks found by walking the rays (3.2-3.6), and the built-in magic
// multipliers against the search that found them.
#include "libs/chess/bitboard.h"

#include <random>

#include "gtest/gtest.h"

namespace chess {
namespace {

TEST(BitboardTest, SlidingAttacksMatchRayWalkingForRandomOccupancies) {
  std::mt19937_64 rng(2001);
  for (int sq = 0; sq < 64; ++sq) {
    Square s = static_cast<Square>(sq);
    for (int i = 0; i < 2000; ++i) {
      Bitboard occ = rng() & rng();
      ASSERT_EQ(RookAttacks(s, occ), internal::ReferenceSlidingAttacks(true, s, occ)) << sq;
      ASSERT_EQ(BishopAttacks(s, occ), internal::ReferenceSlidingAttacks(false, s, occ)) << sq;
    }
  }
}

TEST(BitboardTest, BuiltInMagicsAreTheOnesTheSearchFinds) {
  std::array<Bitboard, 64> rook = internal::FindMagics(true);
  std::array<Bitboard, 64> bishop = internal::FindMagics(false);
  for (int sq = 0; sq < 64; ++sq) {
    EXPECT_EQ(internal::tables.rook[sq].magic, rook[sq]) << sq;
    EXPECT_EQ(internal::tables.bishop[sq].magic, bishop[sq]) << sq;
  }
}

TEST(BitboardTest, BetweenAndLine) {
  EXPECT_EQ(Between(kA1, kD4), SquareBB(kB2) | SquareBB(kC3));
  EXPECT_EQ(Between(kA1, kB3), kEmpty);
  EXPECT_EQ(Line(kA1, kC3) & SquareBB(kH8), SquareBB(kH8));
  EXPECT_TRUE(Aligned(kE1, kE4, kE8));
  EXPECT_EQ(PopCount(KnightAttacks(kA1)), 2);
  EXPECT_EQ(PawnAttacks(Color::kWhite, kE4), SquareBB(kD5) | SquareBB(kF5));
}

}  // namespace
}  // namespace chess
