#include "libs/laws/edition.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"

namespace laws {
namespace {

using ::base::HasErrorCode;
using ::base::HasStatusCode;

constexpr std::int64_t kMinute = 60'000;

TEST(EditionTest, NamesRoundTrip) {
  for (Edition e : kAllEditions) {
    absl::StatusOr<Edition> parsed = ParseEdition(EditionName(e));
    ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, e);
    EXPECT_EQ(Rules(e).edition, e);
  }
  EXPECT_THAT(ParseEdition("fide2018"), HasErrorCode("ERR_BAD_EDITION"));
  EXPECT_THAT(ParseEdition("FIDE2001"), HasStatusCode(absl::StatusCode::kInvalidArgument));
}

// B1 "zwischen 15 und 60 Minuten", C1 "weniger als 15 Minuten" (2001 and 1997).
TEST(EditionTest, AppendixB1C1Boundaries) {
  for (Edition e : {Edition::kFide1997, Edition::kFide2001, Edition::kFide2005}) {
    EXPECT_EQ(CategoryForCountedTime(e, 15 * kMinute - 1), SpeedCategory::kBlitz);
    EXPECT_EQ(CategoryForCountedTime(e, 14 * kMinute + 59'000), SpeedCategory::kBlitz);  // 14:59
    EXPECT_EQ(CategoryForCountedTime(e, 15 * kMinute), SpeedCategory::kRapid);           // 15:00
    EXPECT_EQ(CategoryForCountedTime(e, 60 * kMinute), SpeedCategory::kRapid);
    EXPECT_EQ(CategoryForCountedTime(e, 60 * kMinute + 1), SpeedCategory::kStandard);
  }
}

// 2023: blitz <= 10 min, rapid > 10 and < 60 min.
TEST(EditionTest, Fide2023Boundaries) {
  EXPECT_EQ(CategoryForCountedTime(Edition::kFide2023, 10 * kMinute), SpeedCategory::kBlitz);
  EXPECT_EQ(CategoryForCountedTime(Edition::kFide2023, 10 * kMinute + 1), SpeedCategory::kRapid);
  EXPECT_EQ(CategoryForCountedTime(Edition::kFide2023, 60 * kMinute - 1), SpeedCategory::kRapid);
  EXPECT_EQ(CategoryForCountedTime(Edition::kFide2023, 60 * kMinute), SpeedCategory::kStandard);
}

TEST(EditionTest, BothFlags2001ContinuesButDrawsInTheQuickplayFinish) {
  BothFlagsRuling before = RuleBothFlagsFallen(Edition::kFide2001, SpeedCategory::kStandard, false);
  EXPECT_EQ(before, (BothFlagsRuling{BothFlagsOutcome::kContinue, "6.12"}));
  BothFlagsRuling last = RuleBothFlagsFallen(Edition::kFide2001, SpeedCategory::kStandard, true);
  EXPECT_EQ(last, (BothFlagsRuling{BothFlagsOutcome::kDraw, "10.3"}));
}

TEST(EditionTest, BothFlags2005) {
  EXPECT_EQ(RuleBothFlagsFallen(Edition::kFide2005, SpeedCategory::kStandard, false),
            (BothFlagsRuling{BothFlagsOutcome::kContinue, "6.12a"}));
  EXPECT_EQ(RuleBothFlagsFallen(Edition::kFide2005, SpeedCategory::kStandard, true),
            (BothFlagsRuling{BothFlagsOutcome::kDraw, "6.12b"}));
}

TEST(EditionTest, BothFlagsRapidAndBlitzDrawUnderB8InAnyPeriod) {
  for (Edition e : {Edition::kFide1997, Edition::kFide2001, Edition::kFide2005}) {
    for (SpeedCategory c : {SpeedCategory::kRapid, SpeedCategory::kBlitz}) {
      for (bool final_period : {false, true}) {
        BothFlagsRuling r = RuleBothFlagsFallen(e, c, final_period);
        EXPECT_EQ(r.outcome, BothFlagsOutcome::kDraw);
        EXPECT_THAT(std::string(r.article), ::testing::StartsWith("B8"));
      }
    }
  }
  // 2023 has no B8: as 2005, the game continues before the final period.
  EXPECT_EQ(RuleBothFlagsFallen(Edition::kFide2023, SpeedCategory::kBlitz, false).outcome,
            BothFlagsOutcome::kContinue);
  EXPECT_EQ(RuleBothFlagsFallen(Edition::kFide2023, SpeedCategory::kBlitz, true).outcome,
            BothFlagsOutcome::kDraw);
}

TEST(EditionTest, DefaultTime) {
  EXPECT_EQ(DefaultTimeMs(Edition::kFide2001, std::nullopt), 60 * kMinute);  // 6.7: one hour
  EXPECT_EQ(DefaultTimeMs(Edition::kFide2005, std::nullopt), 60 * kMinute);
  EXPECT_EQ(DefaultTimeMs(Edition::kFide2023, std::nullopt), 0);  // regulations silent
  EXPECT_EQ(DefaultTimeMs(Edition::kFide2023, 15 * kMinute), 15 * kMinute);
  EXPECT_EQ(DefaultTimeMs(Edition::kFide2001, 30 * kMinute), 30 * kMinute);
}

// Item 7: B1/C1 "alle Züge innerhalb einer festgesetzten Zeit". A repeating control has no fixed
// time for all moves: neither rapid nor blitz, in every edition.
TEST(EditionTest, RepeatingControlsAreStandard) {
  for (Edition e : kAllEditions) {
    EXPECT_EQ(CategoryForControl(e, 5 * kMinute, /*repeating=*/true), SpeedCategory::kStandard);
    EXPECT_EQ(CategoryForControl(e, 5 * kMinute, /*repeating=*/false), SpeedCategory::kBlitz);
  }
}

// Item 1: a counted flag is not a win. 6.10 "Die Partie ist jedoch remis, wenn ... es dem Gegner
// nicht möglich ist, den König des Spielers ... matt zu setzen"; 1997 C4 "Um zu gewinnen, muss ein
// Spieler das Potential zum Mattsetzen haben" (blitz only).
TEST(EditionTest, WhatACountedFlagDecides) {
  struct Case {
    Edition edition;
    SpeedCategory category;
    FlagResultRule rule;
  };
  for (const Case& c : {Case{Edition::kFide2001, SpeedCategory::kStandard, {false, "6.10"}},
                        Case{Edition::kFide2001, SpeedCategory::kBlitz, {false, "6.10"}},
                        Case{Edition::kFide2005, SpeedCategory::kRapid, {false, "6.10"}},
                        Case{Edition::kFide1997, SpeedCategory::kBlitz, {true, "C4 (1997)"}},
                        Case{Edition::kFide1997, SpeedCategory::kRapid, {false, "6.10 (as 2001)"}},
                        Case{Edition::kFide2023, SpeedCategory::kBlitz, {false, "6.9 (2023)"}}}) {
    EXPECT_EQ(FlagResultFor(c.edition, c.category), c.rule)
        << EditionName(c.edition) << " " << SpeedCategoryName(c.category);
  }
}

}  // namespace
}  // namespace laws
