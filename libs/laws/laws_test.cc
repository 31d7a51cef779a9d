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
  EXPECT_TRUE(FlagRuleOf(rapid2023).counts_when_observed);  // A.3 by default
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

// B6 "Das Fallblättchen gilt als gefallen, sobald einer der Spieler mit Recht darauf hingewiesen
// hat"; B7 the claim; B8 "Falls beide Fallblättchen gefallen sind, ist die Partie remis" (1997,
// 2001; 2005 carries 2001's appendices). Standard play: 6.9 in every edition.
TEST(FlagRule, AppendixB6FlagsCountOnlyOnAClaimAndB8DrawsBothDown) {
  const FlagRule rapid2001 = FlagRuleFor(Edition::kFide2001, SpeedCategory::kRapid);
  EXPECT_FALSE(rapid2001.counts_when_observed);
  EXPECT_EQ(rapid2001.article, "B6");
  EXPECT_EQ(rapid2001.claim_article, "B7");
  EXPECT_TRUE(rapid2001.both_down_draws);
  EXPECT_EQ(rapid2001.both_down_article, "B8");
  const FlagRule blitz1997 = FlagRuleFor(Edition::kFide1997, SpeedCategory::kBlitz);
  EXPECT_EQ(blitz1997.article, "B6 (1997)");
  EXPECT_EQ(blitz1997.claim_article, "B7");
  EXPECT_TRUE(blitz1997.both_down_draws);
  EXPECT_EQ(FlagRuleFor(Edition::kFide2005, SpeedCategory::kRapid).both_down_article,
            "B8 (as 2001)");
  for (Edition e : kAllEditions) {
    for (bool supervised : {true, false}) {
      const FlagRule standard = FlagRuleFor(e, SpeedCategory::kStandard, supervised);
      EXPECT_TRUE(standard.counts_when_observed);
      EXPECT_EQ(standard.article, "6.9");
    }
  }
}

// 2023: per the event. A.3 "The Competition Rules shall apply if ... one arbiter supervises at
// most three games" (blitz B.3): a flag counts as in standard play. Otherwise A.4.5 "The flag is
// considered to have fallen when a player has made a valid claim to that effect" (blitz B.4).
TEST(FlagRule, Fide2023FlagsFollowTheEventsSupervision) {
  Ruleset rapid{Edition::kFide2023, SpeedCategory::kRapid, {}};
  EXPECT_TRUE(rapid.regulations.supervised);  // the default: A.3
  EXPECT_TRUE(FlagRuleOf(rapid).counts_when_observed);
  EXPECT_EQ(FlagRuleOf(rapid).article, "A.3 (2023)");
  Ruleset blitz{Edition::kFide2023, SpeedCategory::kBlitz, {}};
  EXPECT_EQ(FlagRuleOf(blitz).article, "B.3 (2023)");
  rapid.regulations.supervised = false;
  EXPECT_FALSE(FlagRuleOf(rapid).counts_when_observed);
  EXPECT_EQ(FlagRuleOf(rapid).article, "A.4.5 (2023)");
  EXPECT_EQ(FlagRuleOf(rapid).claim_article, "A.4.5 (2023)");
  EXPECT_FALSE(FlagRuleOf(rapid).both_down_draws);  // no B8: the first flag decides
  blitz.regulations.supervised = false;
  EXPECT_FALSE(FlagRuleOf(blitz).counts_when_observed);
  EXPECT_EQ(FlagRuleOf(blitz).article, "A.4.5 (2023, B.4)");
  // Before 2023 the event's supervision changes nothing: B6.
  Ruleset rapid2001{Edition::kFide2001, SpeedCategory::kRapid, {}};
  EXPECT_FALSE(FlagRuleOf(rapid2001).counts_when_observed);
  rapid2001.regulations.supervised = false;
  EXPECT_EQ(FlagRuleOf(rapid2001).article, "B6");
}

// 8.1 / 8.4 in standard play; B3 "Die Spieler müssen die Züge nicht aufzeichnen" (rapid, blitz
// through C2); 2023 A.2.
TEST(ScoresheetDuty, OnlyStandardPlayHasTheDuty) {
  for (Edition e : kAllEditions) {
    EXPECT_TRUE(ScoresheetDutyFor(e, SpeedCategory::kStandard).applies);
    EXPECT_FALSE(ScoresheetDutyFor(e, SpeedCategory::kRapid).applies);
    EXPECT_FALSE(ScoresheetDutyFor(e, SpeedCategory::kBlitz).applies);
  }
  EXPECT_EQ(ScoresheetDutyFor(Edition::kFide2001, SpeedCategory::kBlitz).article, "B3");
  EXPECT_EQ(ScoresheetDutyFor(Edition::kFide2023, SpeedCategory::kRapid).article, "A.2 (2023)");
}

}  // namespace
}  // namespace laws
