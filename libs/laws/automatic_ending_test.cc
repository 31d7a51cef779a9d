// Endings by the position alone, per edition.
#include "libs/laws/automatic_ending.h"

#include "gtest/gtest.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"

namespace laws {
namespace {

chess::Game GameFrom(const char* fen) { return chess::Game(*chess::ParseFen(fen)); }

TEST(EndingOf, KingsOnlyIsDeadIn1997Too) {  // 5.2b via B2
  chess::Game g = GameFrom("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
  for (Edition e : laws::kAllEditions) {
    std::optional<AutomaticEnding> end = EndingOf(g, e);
    ASSERT_TRUE(end.has_value()) << laws::EditionName(e);
    EXPECT_EQ(end->outcome.termination, Termination::kDeadPosition);
  }
}

TEST(EndingOf, LockedPawnsAreDeadWithoutSearch) {  // 5.2b, 9.6
  chess::Game g = GameFrom("8/2k5/8/p1p1p1p1/P1P1P1P1/8/4K3/8 w - - 0 1");
  std::optional<AutomaticEnding> end = EndingOf(g, Edition::kFide2001);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->outcome.result, Result::kDraw);
  EXPECT_NE(end->proof.find("locked"), std::string::npos) << end->proof;
}

TEST(EndingOf, FivefoldOnlyIn2023) {  // 2023 9.6.1
  chess::Game g(chess::Position::Initial());
  for (int i = 0; i < 4; ++i) {
    for (const char* m : {"Nf3", "Nf6", "Ng1", "Ng8"}) {
      ASSERT_TRUE(g.Play(*chess::ParseSan(g.position(), m)).ok());
    }
  }
  EXPECT_FALSE(EndingOf(g, Edition::kFide2001).has_value());
  ASSERT_TRUE(EndingOf(g, Edition::kFide2023).has_value());
  EXPECT_EQ(EndingOf(g, Edition::kFide2023)->outcome.termination, Termination::kFivefoldRepetition);
}

TEST(EndingOf, MateAndStalemate) {  // 5.1a, 5.2a
  EXPECT_EQ(
      EndingOf(GameFrom("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"), Edition::kFide2001)->outcome.result,
      Result::kWhiteWins);
  EXPECT_EQ(
      EndingOf(GameFrom("7k/5Q2/8/8/8/8/8/K7 b - - 0 1"), Edition::kFide1997)->outcome.termination,
      Termination::kStalemate);
  EXPECT_FALSE(EndingOf(chess::Game(chess::Position::Initial()), Edition::kFide2023).has_value());
}

}  // namespace
}  // namespace laws
