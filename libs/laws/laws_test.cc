// The Laws' vocabulary: outcomes, points (11.1) and the ruleset's edition differences.
#include "gtest/gtest.h"
#include "libs/laws/outcome.h"
#include "libs/laws/ruleset.h"

namespace laws {
namespace {

TEST(Outcome, NamesAreTheContractsNames) {
  EXPECT_EQ(ResultText(Result::kDoubleForfeit), "0-0");
  EXPECT_EQ(TerminationName(Termination::kTimeoutVsInsufficient), "timeout_vs_insufficient");
  EXPECT_EQ(TerminationName(Termination::kQuickplayFinishClaim), "quickplay_finish_claim");
  Outcome o = Outcome::Win(chess::Color::kBlack, Termination::kCheckmate, "5.1a");
  EXPECT_EQ(o.result, Result::kBlackWins);
  EXPECT_EQ(o.winner(), chess::Color::kBlack);
}

TEST(Points, Article11And3For1) {  // 11.1 and an event's own points
  EXPECT_EQ(Score(Result::kDraw, {}), std::make_pair(0.5, 0.5));
  EXPECT_EQ(Score(Result::kWhiteWins, {3, 1, 0}), std::make_pair(3.0, 0.0));
  EXPECT_EQ(Score(Result::kDoubleForfeit, {}), std::make_pair(0.0, 0.0));
}

TEST(Ruleset, FlagsQuickplayAndMatingPotentialPerEdition) {
  Ruleset blitz1997{Edition::kFide1997, SpeedCategory::kBlitz, {}};
  EXPECT_EQ(WinOnTimeOf(blitz1997).test, WinOnTimeTest::kMatingPotential);  // 1997 C4
  EXPECT_FALSE(FlagRuleOf(blitz1997).counts_when_observed);                 // B6
  EXPECT_EQ(QuickplayRuleOf(blitz1997).claim, QuickplayClaim::kNotApplicable);
  Ruleset rapid2023{Edition::kFide2023, SpeedCategory::kRapid, {}};
  EXPECT_TRUE(FlagRuleOf(rapid2023).counts_when_observed);
  EXPECT_TRUE(AutomaticRepetitionDraws(rapid2023));
  EXPECT_EQ(DefaultTimeMs(rapid2023), 0);
  Ruleset standard2001{Edition::kFide2001, SpeedCategory::kStandard, {}};
  standard2001.regulations.arbiter_present = false;
  EXPECT_EQ(QuickplayRuleOf(standard2001).claim, QuickplayClaim::kAppendixD);
  EXPECT_EQ(DefaultTimeMs(standard2001), 3'600'000);
  EXPECT_EQ(MaxDrawOffers(standard2001), kDefaultMaxDrawOffers);
}

}  // namespace
}  // namespace laws
