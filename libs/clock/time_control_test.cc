#include "libs/clock/time_control.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/laws/ruleset.h"

namespace chessclock {
namespace {

using ::base::HasErrorCode;
using ::base::HasStatusCode;
using ::base::IsOk;
using ::testing::HasSubstr;

constexpr std::int64_t kSecond = 1000;
constexpr std::int64_t kMinute = 60 * kSecond;

TimeControl Pgn(absl::string_view tag) {
  absl::StatusOr<TimeControl> tc = ParsePgnTimeControl(tag);
  EXPECT_OK(tc) << tag;
  return tc.ok() ? *tc : TimeControl();
}
TimeControl Human(absl::string_view text) {
  absl::StatusOr<TimeControl> tc = ParseHumanTimeControl(text);
  EXPECT_OK(tc) << text;
  return tc.ok() ? *tc : TimeControl();
}

// A text that does not parse, and a part of the message that says why.
struct BadText {
  const char* text;
  const char* message;
};

// Each text is refused as ERR_BAD_TIME_CONTROL (INVALID_ARGUMENT) with its message.
void ExpectPreciseErrors(absl::StatusOr<TimeControl> (*parse)(absl::string_view),
                         const std::vector<BadText>& cases) {
  for (const BadText& c : cases) {
    absl::StatusOr<TimeControl> tc = parse(c.text);
    EXPECT_THAT(tc, HasErrorCode("ERR_BAD_TIME_CONTROL")) << c.text;
    EXPECT_THAT(tc, HasStatusCode(absl::StatusCode::kInvalidArgument)) << c.text;
    EXPECT_THAT(std::string(tc.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(PgnTimeControlTest, ClassicalWithIncrementFromMoveOne) {
  TimeControl tc = Pgn("40/5400+30:1800+30");
  ASSERT_EQ(tc.period_count(), 2);
  EXPECT_EQ(tc.period(0), (Period{40, 90 * kMinute, {BonusKind::kIncrement, 30 * kSecond}}));
  EXPECT_EQ(tc.period(1),
            (Period{kRestOfGame, 30 * kMinute, {BonusKind::kIncrement, 30 * kSecond}}));
  EXPECT_EQ(tc.initial_ms(), 90 * kMinute);
}

TEST(PgnTimeControlTest, UnitsAreSeconds) {
  TimeControl tc = Pgn("90+30");  // 90 s + 30 s in a PGN tag
  EXPECT_EQ(tc.period(0).time_ms, 90 * kSecond);
  EXPECT_EQ(tc.period(0).bonus.ms, 30 * kSecond);
  EXPECT_EQ(Pgn("300+2").period(0),
            (Period{kRestOfGame, 300 * kSecond, {BonusKind::kIncrement, 2000}}));
  EXPECT_EQ(Pgn(" 300 ").period(0), (Period{kRestOfGame, 300 * kSecond, {}}));
}

// `hourglass` is an hourglass of `ms` (the time a side may use), and `untimed` no time control.
void ExpectHourglassAndUntimed(const TimeControl& hourglass, std::int64_t ms,
                               const TimeControl& untimed) {
  EXPECT_TRUE(hourglass.hourglass());
  EXPECT_EQ(hourglass.initial_ms(), ms);
  EXPECT_TRUE(untimed.untimed());
}

TEST(PgnTimeControlTest, HourglassAndUntimed) {
  ExpectHourglassAndUntimed(Pgn("*60"), 60 * kSecond, Pgn("-"));
}

TEST(PgnTimeControlTest, PreciseErrors) {
  ExpectPreciseErrors(
      ParsePgnTimeControl,
      {
          {"", "empty"},
          {"?", "unknown"},
          {"40/5400:", "field 2 is empty"},
          {"5400:40/1800", "field 1 \"5400\": a field without \"moves/\""},
          {"40/90m", "field 1 \"40/90m\": the time \"90m\" is not a whole number of seconds"},
          {"0/60", "number of moves before '/' must be a positive whole number"},
          {"x/60", "number of moves"},
          {"300+x", "the increment \"x\" is not a whole number of seconds"},
          {"300+", "the increment \"\""},
          {"300.5", "not a whole number of seconds"},
          {"-300", "the time \"-300\" is not a whole number of seconds"},
          {"*", "hourglass"},
          {"*60:60", "hourglass"},
          {"40/60:-", "must stand alone"},
          {"0", "the first period must give some time"},
          {"1:2:3:4:5:6:7:8:9", "at most 8 fields"},
      });
}

TEST(PgnTimeControlTest, RoundTrips) {
  for (const char* tag : {"40/5400+30:1800+30", "300+2", "*60", "-", "40/7200:20/3600:1800",
                          "40/7200:20/3600", "60"}) {
    absl::StatusOr<std::string> printed = FormatPgnTimeControl(Pgn(tag));
    ASSERT_OK(printed);
    EXPECT_EQ(*printed, tag);
  }
}

TEST(PgnTimeControlTest, DelayIsNotExpressible) {
  absl::StatusOr<std::string> printed = FormatPgnTimeControl(Human("G/60 d5"));
  EXPECT_THAT(printed, HasErrorCode("ERR_NOT_EXPRESSIBLE"));
  EXPECT_THAT(FormatPgnTimeControl(Human("G/2.5")), IsOk());  // 150 s
  EXPECT_THAT(FormatPgnTimeControl(Human("G/60+0.5")), HasErrorCode("ERR_NOT_EXPRESSIBLE"));
}

TEST(HumanTimeControlTest, UnitsAreMinutesAndSeconds) {
  TimeControl tc = Human("90+30");  // 90 min + 30 s to an arbiter
  EXPECT_EQ(tc.period(0),
            (Period{kRestOfGame, 90 * kMinute, {BonusKind::kIncrement, 30 * kSecond}}));
}

TEST(HumanTimeControlTest, PeriodsByMoveCount) {
  TimeControl two = Human("40/90, 30");
  ASSERT_EQ(two.period_count(), 2);
  EXPECT_EQ(two.period(0), (Period{40, 90 * kMinute, {}}));
  EXPECT_EQ(two.period(1), (Period{kRestOfGame, 30 * kMinute, {}}));

  TimeControl three = Human("40/120, 20/60, 30");
  ASSERT_EQ(three.period_count(), 3);
  EXPECT_EQ(three.period(1), (Period{20, 60 * kMinute, {}}));
  EXPECT_EQ(three.period(2), (Period{kRestOfGame, 30 * kMinute, {}}));
}

TEST(HumanTimeControlTest, Delays) {
  EXPECT_EQ(Human("G/60 d5").period(0),
            (Period{kRestOfGame, 60 * kMinute, {BonusKind::kSimpleDelay, 5 * kSecond}}));
  EXPECT_EQ(Human("G/60 b5").period(0),
            (Period{kRestOfGame, 60 * kMinute, {BonusKind::kBronsteinDelay, 5 * kSecond}}));
  EXPECT_EQ(Human("g/60;D5"), Human("G/60 d5"));
  EXPECT_EQ(Human("SD/60 d5"), Human("G/60 d5"));
  EXPECT_EQ(Human("60 d5"), Human("G/60 d5"));
}

// "40 moves in 90 min, then 30 min, 30 s increment from move 1" vs "... +30 s from move 41".
TEST(HumanTimeControlTest, BonusBelongsToItsPeriod) {
  TimeControl from_move_1 = Human("40/90+30, 30+30");
  EXPECT_EQ(from_move_1, Pgn("40/5400+30:1800+30"));
  EXPECT_EQ(from_move_1.BonusOfMove(1).ms, 30 * kSecond);
  TimeControl from_move_41 = Human("40/90, 30+30");
  EXPECT_EQ(from_move_41.BonusOfMove(1).kind, BonusKind::kNone);
  EXPECT_EQ(from_move_41.BonusOfMove(40).kind, BonusKind::kNone);
  EXPECT_EQ(from_move_41.BonusOfMove(41).ms, 30 * kSecond);
  EXPECT_EQ(Human(" 40 / 90 + 30 ,30 + 30 "), from_move_1);
}

TEST(HumanTimeControlTest, DecimalsAndHourglass) {
  EXPECT_EQ(Human("G/2.5").initial_ms(), 150 * kSecond);
  EXPECT_EQ(Human("3+0.5").period(0).bonus.ms, 500);
  ExpectHourglassAndUntimed(Human("hourglass 5"), 5 * kMinute, Human("-"));
}

TEST(HumanTimeControlTest, PreciseErrors) {
  ExpectPreciseErrors(
      ParseHumanTimeControl,
      {
          {"", "empty"},
          {"30, 40/90", "period 1 \"30\": without a move count it covers the rest of the game"},
          {"40/90,", "period 2 is empty"},
          {"40/90 x", "period 1 \"40/90 x\": unexpected \"x\""},
          {"90+30 d5", "after the bonus; a period has one bonus"},
          {"G/60 d", "expected the simple_delay in seconds"},
          {"G/", "expected the time in minutes"},
          {"/90", "positive whole number of moves"},
          {"0/90", "positive whole number of moves"},
          {"G/0.00001", "decimals must give whole milliseconds"},
          {"hourglass", "expected \"hourglass <minutes>\""},
          {"hourglass 5+2", "expected \"hourglass <minutes>\""},
          {"2000/90", "at most 1000 moves"},
          {"G/0", "the first period must give some time"},
      });
}

TEST(HumanTimeControlTest, RoundTrips) {
  for (const char* text : {"90+30", "G/90", "G/60 d5", "G/60 b5", "40/90, 30", "40/120, 20/60, 30",
                           "40/90+30, 30+30", "40/90, 30+30", "40/120 d5, 30 d5", "hourglass 5",
                           "-", "G/2.5", "3+0.5", "40/120, 20/60"}) {
    absl::StatusOr<std::string> printed = FormatHumanTimeControl(Human(text));
    ASSERT_OK(printed);
    EXPECT_EQ(*printed, text);
  }
  // Across notations.
  absl::StatusOr<std::string> human = FormatHumanTimeControl(Pgn("40/5400+30:1800+30"));
  ASSERT_OK(human);
  EXPECT_EQ(*human, "40/90+30, 30+30");
  EXPECT_EQ(*FormatHumanTimeControl(Pgn("300+2")), "5+2");
  EXPECT_EQ(*FormatHumanTimeControl(Pgn("90+30")), "1.5+30");
  EXPECT_THAT(FormatHumanTimeControl(*TimeControl::Create({Period{0, 1, {}}})),
              HasErrorCode("ERR_NOT_EXPRESSIBLE"));
}

TEST(TimeControlTest, PeriodOfMoveAndRepetition) {
  TimeControl tc = Human("40/120, 20/60");  // the last period repeats: 20 moves per hour
  EXPECT_EQ(tc.PeriodOfMove(1), 0);
  EXPECT_EQ(tc.PeriodOfMove(40), 0);
  EXPECT_EQ(tc.PeriodOfMove(41), 1);
  EXPECT_EQ(tc.PeriodOfMove(60), 1);
  EXPECT_EQ(tc.PeriodOfMove(61), 2);
  EXPECT_EQ(tc.PeriodOfMove(80), 2);
  EXPECT_EQ(tc.PeriodOfMove(81), 3);
  EXPECT_EQ(tc.MovesAtEndOf(0), 40);
  EXPECT_EQ(tc.MovesAtEndOf(1), 60);
  EXPECT_EQ(tc.MovesAtEndOf(3), 100);
  EXPECT_FALSE(tc.IsFinal(5));
  EXPECT_EQ(tc.PeriodAt(7).time_ms, 60 * kMinute);

  TimeControl sd = Human("40/90, 30");
  EXPECT_EQ(sd.PeriodOfMove(1000), 1);
  EXPECT_EQ(sd.MovesAtEndOf(1), -1);
  EXPECT_TRUE(sd.IsFinal(1));
  EXPECT_FALSE(sd.IsFinal(0));
}

TEST(TimeControlTest, CreateValidates) {
  EXPECT_THAT(TimeControl::Create({}), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  EXPECT_THAT(TimeControl::Create({Period{0, 60'000, {BonusKind::kIncrement, 0}}}),
              HasErrorCode("ERR_BAD_TIME_CONTROL"));
  EXPECT_THAT(TimeControl::Create({Period{0, 60'000, {BonusKind::kNone, 5}}}),
              HasErrorCode("ERR_BAD_TIME_CONTROL"));
  EXPECT_THAT(TimeControl::Create({Period{0, 60'000, {}}, Period{0, 60'000, {}}}),
              HasErrorCode("ERR_BAD_TIME_CONTROL"));
  EXPECT_THAT(TimeControl::Create({Period{-1, 60'000, {}}}), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  EXPECT_THAT(TimeControl::Create({Period{0, -1, {}}}), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  EXPECT_THAT(TimeControl::Hourglass(0), HasErrorCode("ERR_BAD_TIME_CONTROL"));
}

// B1/C1 (2001, 1997): only the fixed time counts; 14:59 is blitz, 15:00 rapid.
TEST(SpeedTest, Appendix2001Boundaries) {
  EXPECT_EQ(Speed(Pgn("899"), Edition::kFide2001), SpeedCategory::kBlitz);  // 14:59
  EXPECT_EQ(Speed(Pgn("900"), Edition::kFide2001), SpeedCategory::kRapid);  // 15:00
  EXPECT_EQ(Speed(Pgn("899"), Edition::kFide1997), SpeedCategory::kBlitz);
  EXPECT_EQ(Speed(Pgn("900"), Edition::kFide1997), SpeedCategory::kRapid);
  EXPECT_EQ(Speed(Human("G/60"), Edition::kFide2001),
            SpeedCategory::kRapid);  // "zwischen 15 und 60"
  EXPECT_EQ(Speed(Human("G/61"), Edition::kFide2001), SpeedCategory::kStandard);
  EXPECT_EQ(Speed(Human("10+5"), Edition::kFide2001), SpeedCategory::kBlitz);  // fixed time only
  EXPECT_EQ(Speed(Human("40/90, 30"), Edition::kFide2001), SpeedCategory::kStandard);
}

// Item 7 (B1, C1 "alle Züge innerhalb einer festgesetzten Zeit"): "20/5", 20 moves in 5 minutes
// repeated, has no fixed time for all moves: standard, not blitz. A last period of sudden death
// counts the total: "40/10, 5" is 15 minutes, rapid. 1997-2005 ignore the increment: "G/60+30"
// rapid, "G/14+30" blitz; 2023 counts it: "G/14+30" is 44 minutes, rapid.
TEST(SpeedTest, RepeatingControlsMultiPeriodTotalsAndIncrements) {
  for (Edition e : laws::kAllEditions) {
    EXPECT_EQ(Speed(Human("20/5"), e), SpeedCategory::kStandard) << EditionName(e);
    EXPECT_EQ(Speed(Human("40/120, 20/60"), e), SpeedCategory::kStandard) << EditionName(e);
  }
  for (Edition e : {Edition::kFide1997, Edition::kFide2001, Edition::kFide2005}) {
    EXPECT_EQ(Speed(Human("40/10, 5"), e), SpeedCategory::kRapid) << EditionName(e);
    EXPECT_EQ(Speed(Human("G/60+30"), e), SpeedCategory::kRapid) << EditionName(e);
    EXPECT_EQ(Speed(Human("G/14+30"), e), SpeedCategory::kBlitz) << EditionName(e);
  }
  EXPECT_EQ(Speed(Human("G/14+30"), Edition::kFide2023), SpeedCategory::kRapid);
}

// 2023: base + 60 x increment; blitz <= 10 min, rapid > 10 and < 60.
TEST(SpeedTest, Fide2023Boundaries) {
  EXPECT_EQ(SpeedCountedMs(Human("10+0"), Edition::kFide2023), 10 * kMinute);
  EXPECT_EQ(SpeedCountedMs(Human("9+1"), Edition::kFide2023), 10 * kMinute);
  EXPECT_EQ(Speed(Human("10+0"), Edition::kFide2023), SpeedCategory::kBlitz);
  EXPECT_EQ(Speed(Human("9+1"), Edition::kFide2023), SpeedCategory::kBlitz);
  EXPECT_EQ(Speed(Human("9+2"), Edition::kFide2023), SpeedCategory::kRapid);
  EXPECT_EQ(Speed(Human("10+5"), Edition::kFide2023), SpeedCategory::kRapid);
  EXPECT_EQ(Speed(Human("59+0"), Edition::kFide2023), SpeedCategory::kRapid);
  EXPECT_EQ(Speed(Human("59+1"), Edition::kFide2023), SpeedCategory::kStandard);
  EXPECT_EQ(Speed(Human("G/60"), Edition::kFide2023), SpeedCategory::kStandard);
  EXPECT_EQ(Speed(Human("15+10"), Edition::kFide2023), SpeedCategory::kRapid);  // 25 min
  // Increment from move 41 counts only from move 41 (of the 60).
  EXPECT_EQ(SpeedCountedMs(Human("40/90, 30+30"), Edition::kFide2023),
            120 * kMinute + 20 * 30 * kSecond);
  EXPECT_EQ(Speed(Pgn("-"), Edition::kFide2023), SpeedCategory::kStandard);
}

// A time control gives the ruleset its speed and its increment (laws::Ruleset::Make).
TEST(RulesetOfATimeControl, QuickplayFinish2023OnlyWithoutIncrement) {  // 2023 Guidelines III.2.2
  using laws::QuickplayClaim;
  using laws::QuickplayRuleOf;
  using laws::Ruleset;
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
}  // namespace chessclock
