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
  EXPECT_EQ(MaxDrawOffers(standard2001), 0);  // no limit: the Laws set none (9.1a, 12.5)
}

TEST(Ruleset, DrawOfferLimitIsTheRegulationsOnly) {  // 9.1a, 12.5
  Ruleset r{Edition::kFide2001, SpeedCategory::kStandard, {}};
  EXPECT_EQ(MaxDrawOffers(r), 0);
  r.regulations.max_draw_offers = 2;
  EXPECT_EQ(MaxDrawOffers(r), 2);
}

TEST(Ruleset, ThirdIllegalMoveLosesWithoutExceptionUnder2001) {  // 7.4b; 2023 7.5.5
  for (Edition e : {Edition::kFide1997, Edition::kFide2001, Edition::kFide2005}) {
    Ruleset r{e, SpeedCategory::kStandard, {}};
    IllegalMovePenalty third = IllegalMovePenaltyOf(r, 3);
    EXPECT_TRUE(third.loses) << EditionName(e);
    EXPECT_FALSE(third.drawn_if_opponent_cannot_mate) << EditionName(e);
    EXPECT_FALSE(IllegalMovePenaltyOf(r, 2).loses) << EditionName(e);
  }
  Ruleset r2023{Edition::kFide2023, SpeedCategory::kStandard, {}};
  IllegalMovePenalty second = IllegalMovePenaltyOf(r2023, 2);
  EXPECT_TRUE(second.loses);
  EXPECT_TRUE(second.drawn_if_opponent_cannot_mate);
}

TEST(Ruleset, TouchLosesTheDrawClaimOnlyIn2023) {  // 9.4 (2001) vs 2023 9.4
  for (Edition e : {Edition::kFide1997, Edition::kFide2001, Edition::kFide2005}) {
    EXPECT_FALSE(DrawClaimRightOf({e, SpeedCategory::kStandard, {}}).lost_on_touch)
        << EditionName(e);
  }
  EXPECT_TRUE(DrawClaimRightOf({Edition::kFide2023, SpeedCategory::kRapid, {}}).lost_on_touch);
}

TEST(Ruleset, QuickplayFinish2023OnlyWithoutIncrement) {  // 2023 Guidelines III.2.2
  absl::StatusOr<chessclock::TimeControl> with = chessclock::ParsePgnTimeControl("5400+30");
  absl::StatusOr<chessclock::TimeControl> without = chessclock::ParsePgnTimeControl("5400");
  ASSERT_TRUE(with.ok() && without.ok());
  Ruleset inc = Ruleset::Make(Edition::kFide2023, *with, {});
  EXPECT_TRUE(inc.increment);
  EXPECT_EQ(QuickplayRuleOf(inc).claim, QuickplayClaim::kNotApplicable);
  EXPECT_EQ(QuickplayRuleOf(Ruleset::Make(Edition::kFide2023, *without, {})).claim,
            QuickplayClaim::kArbiter);
  // 2001's 10.2 knows no such limit.
  EXPECT_EQ(QuickplayRuleOf(Ruleset::Make(Edition::kFide2001, *with, {})).claim,
            QuickplayClaim::kArbiter);
}

}  // namespace
}  // namespace laws
