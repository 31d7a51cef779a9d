// The clock by article, with exact millisecond expectations.
#include "libs/clock/clock.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/types.h"
#include "libs/clock/time_control.h"
#include "libs/laws/edition.h"

namespace chessclock {
namespace {

using ::base::HasErrorCode;
using ::base::HasStatusCode;
using ::chess::Color;

constexpr Color kWhite = Color::kWhite;
constexpr Color kBlack = Color::kBlack;
constexpr std::int64_t kSecond = 1000;
constexpr std::int64_t kMinute = 60 * kSecond;
constexpr std::int64_t kT0 = 1'000'000;  // an arbitrary monotonic origin

Clock MakeClock(absl::string_view pgn_or_human, ClockOptions options = {}) {
  absl::StatusOr<TimeControl> tc = ParsePgnTimeControl(pgn_or_human);
  if (!tc.ok()) tc = ParseHumanTimeControl(pgn_or_human);
  EXPECT_OK(tc) << pgn_or_human;
  absl::StatusOr<Clock> clock = Clock::Create(*tc, options);
  EXPECT_OK(clock);
  return *clock;
}

// Presses `count` times, each move taking `move_ms`, starting at `*now`.
void PlayMoves(Clock& clock, std::int64_t* now, int count, std::int64_t move_ms) {
  for (int i = 0; i < count; ++i) {
    *now += move_ms;
    ASSERT_OK(clock.Press(*now));
  }
}

// "40/90, 30" started at `*now`, `presses` presses a minute apart, then an hour on the clock of
// the side to move (70 presses: 55 minutes were left, the flag fell 5 minutes ago).
Clock FortyInNinetyAfterAnHour(int presses, std::int64_t* now) {
  Clock clock = MakeClock("40/90, 30");
  EXPECT_OK(clock.Start(*now));
  PlayMoves(clock, now, presses, 60 * kSecond);
  *now += 60 * kMinute;
  return clock;
}

// --- 6.5, 6.8a -----------------------------------------------------------------------------------

TEST(Article6_5, WhitesClockRunsFromTheScheduledStart) {
  Clock clock = MakeClock("40/5400+30:1800+30");
  EXPECT_EQ(clock.status(), ClockStatus::kNotStarted);
  EXPECT_EQ(clock.running(), std::nullopt);
  EXPECT_EQ(clock.Deadline(), std::nullopt);
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0), 90 * kMinute);
  ASSERT_OK(clock.Start(kT0));
  EXPECT_EQ(clock.running(), kWhite);
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 1234), 90 * kMinute - 1234);
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 1234), 90 * kMinute);
  EXPECT_EQ(clock.Deadline(), kT0 + 90 * kMinute);
  EXPECT_THAT(clock.Start(kT0 + 1), HasErrorCode("ERR_CLOCK_ALREADY_STARTED"));
}

TEST(Article6_8a, AMoveIsCompleteWhenItsPlayerPresses) {
  Clock clock = MakeClock("300+2");
  EXPECT_THAT(clock.Press(kT0), HasErrorCode("ERR_CLOCK_NOT_STARTED"));
  ASSERT_OK(clock.Start(kT0));
  EXPECT_EQ(clock.moves(kWhite), 0);
  ASSERT_OK(clock.Press(kWhite, kT0 + 61'234));
  EXPECT_EQ(clock.moves(kWhite), 1);
  EXPECT_EQ(clock.moves(kBlack), 0);
  EXPECT_EQ(clock.running(), kBlack);
  // The time until the press is White's; then Black's runs.
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 70'000), 300'000 - 61'234 + 2'000);
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 70'000), 300'000 - (70'000 - 61'234));
  EXPECT_THAT(clock.Press(kWhite, kT0 + 70'000), HasErrorCode("ERR_NOT_YOUR_TURN"));
  EXPECT_THAT(clock.Press(kT0 + 60'000), HasErrorCode("ERR_TIME_WENT_BACKWARDS"));
  EXPECT_THAT(clock.Press(kT0 + 60'000), HasStatusCode(absl::StatusCode::kInvalidArgument));
}

// --- 6.2: periods and bonuses
// ---------------------------------------------------------------------

// 40/90 + 30 s from move 1: the second period's 30 minutes arrive exactly on move 40's press.
TEST(Article6_2, PeriodAddedExactlyOnMove40sPress) {
  Clock clock = MakeClock("40/5400+30:1800+30");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  // 39 moves each, 100 s a move.
  for (int i = 0; i < 39; ++i) {
    PlayMoves(clock, &now, 2, 100 * kSecond);
  }
  EXPECT_EQ(clock.moves(kWhite), 39);
  EXPECT_EQ(clock.period_index(kWhite), 0);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 90 * kMinute - 39 * 100 * kSecond + 39 * 30 * kSecond);
  // White's 40th move.
  now += 100 * kSecond;
  ASSERT_OK(clock.Press(now));
  EXPECT_EQ(clock.moves(kWhite), 40);
  EXPECT_EQ(clock.period_index(kWhite), 1);
  EXPECT_EQ(clock.RemainingMs(kWhite, now),
            90 * kMinute - 40 * 100 * kSecond + 40 * 30 * kSecond + 30 * kMinute);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 4'400'000);
  EXPECT_EQ(clock.period_index(kBlack), 0);  // Black's 40th move is still to come
  EXPECT_TRUE(clock.InFinalPeriod(kWhite));
  EXPECT_FALSE(clock.InFinalPeriod(kBlack));
}

TEST(Article6_2, IncrementFromMoveOne) {
  Clock clock = MakeClock("40/90+30, 30+30");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  PlayMoves(clock, &now, 1, 61'234);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 5'400'000 - 61'234 + 30'000);
}

TEST(Article6_2, IncrementFromMove41Only) {
  Clock clock = MakeClock("40/90, 30+30");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  PlayMoves(clock, &now, 1, 61'234);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 5'400'000 - 61'234);  // no increment on move 1
  PlayMoves(clock, &now, 78, 100 * kSecond);  // to White's move 40 complete, Black's 39
  ASSERT_EQ(clock.moves(kWhite), 40);
  const std::int64_t after_40 = 5'400'000 - 61'234 - 39 * 100 * kSecond + 30 * kMinute;
  EXPECT_EQ(clock.RemainingMs(kWhite, now), after_40);  // no increment on move 40 either
  PlayMoves(clock, &now, 2, 100 * kSecond);             // Black's 40th, White's 41st
  EXPECT_EQ(clock.RemainingMs(kWhite, now), after_40 - 100 * kSecond + 30 * kSecond);
}

// PGN 9.6.1: a last period with a move count repeats (20 moves per hour after move 40).
TEST(Article6_2, LastPeriodWithMoveCountRepeats) {
  Clock clock = MakeClock("40/120, 20/60");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  PlayMoves(clock, &now, 2 * 80, 10 * kSecond);
  EXPECT_EQ(clock.period_index(kWhite), 3);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 120 * kMinute + 3 * 60 * kMinute - 80 * 10 * kSecond);
  EXPECT_FALSE(clock.InFinalPeriod(kWhite));
}

// 6.2b: in delay mode the main time starts after the per-move time; a press inside it leaves the
// main time unchanged.
TEST(Article6_2b, SimpleDelayPressInsideTheDelayLeavesMainTimeUnchanged) {
  Clock clock = MakeClock("G/60 d5");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  EXPECT_EQ(clock.DelayLeftMs(now), 5'000);
  EXPECT_EQ(clock.RemainingMs(kWhite, now + 4'999), 60 * kMinute);
  EXPECT_EQ(clock.DelayLeftMs(now + 3'000), 2'000);
  EXPECT_EQ(clock.RemainingMs(kWhite, now + 8'000), 60 * kMinute - 3'000);
  PlayMoves(clock, &now, 1, 4'999);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 60 * kMinute);
  PlayMoves(clock, &now, 1, 5'000);  // exactly the delay
  EXPECT_EQ(clock.RemainingMs(kBlack, now), 60 * kMinute);
  PlayMoves(clock, &now, 1, 8'000);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 60 * kMinute - 3'000);
}

TEST(Article6_2b, SimpleDelayNeverIncreasesTheMainTime) {
  Clock clock = MakeClock("G/60 d5");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  std::int64_t previous[2] = {60 * kMinute, 60 * kMinute};
  for (int i = 0; i < 100; ++i) {
    const Color mover = clock.to_move();
    PlayMoves(clock, &now, 1, (i * 7919) % 9'000);
    const std::int64_t remaining = clock.RemainingMs(mover, now);
    EXPECT_LE(remaining, previous[chess::Index(mover)]);
    previous[chess::Index(mover)] = remaining;
  }
}

TEST(Article6_2b, BronsteinGivesBackAtMostTheDelay) {
  Clock clock = MakeClock("G/60 b5");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  // The main time runs at once.
  EXPECT_EQ(clock.RemainingMs(kWhite, now + 3'000), 60 * kMinute - 3'000);
  EXPECT_EQ(clock.DelayLeftMs(now + 3'000), 2'000);
  PlayMoves(clock, &now, 1, 3'000);  // 3 s given back
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 60 * kMinute);
  PlayMoves(clock, &now, 1, 20'000);  // only 5 s given back
  EXPECT_EQ(clock.RemainingMs(kBlack, now), 60 * kMinute - 15'000);
}

TEST(Article6_2b, BothDelaysEndEqualForEqualPlay) {
  Clock simple = MakeClock("40/90 d5, 30 d5");
  Clock bronstein = MakeClock("40/90 b5, 30 b5");
  std::int64_t now = kT0;
  ASSERT_OK(simple.Start(now));
  ASSERT_OK(bronstein.Start(now));
  for (int i = 0; i < 120; ++i) {
    now += (i * 104'729) % 12'000;
    ASSERT_OK(simple.Press(now));
    ASSERT_OK(bronstein.Press(now));
    for (Color side : {kWhite, kBlack}) {
      EXPECT_EQ(simple.RemainingMs(side, now), bronstein.RemainingMs(side, now)) << "move " << i;
    }
  }
  // ... but the flag falls differently: after delay + main time vs at the main time.
  EXPECT_EQ(*simple.Deadline(), now + 5'000 + simple.RemainingMs(simple.to_move(), now));
  EXPECT_EQ(*bronstein.Deadline(), now + bronstein.RemainingMs(bronstein.to_move(), now));
}

TEST(Article6_2b, DelayModeSavedTimeReadings) {
  // Default: main time saved in period 1 carries over; the unused delay never does.
  Clock carry = MakeClock("40/90 d5, 30 d5");
  std::int64_t now = kT0;
  ASSERT_OK(carry.Start(now));
  PlayMoves(carry, &now, 79, 65'000);  // 60 s of main time a move
  EXPECT_EQ(carry.RemainingMs(kWhite, now), 90 * kMinute - 40 * 60'000 + 30 * kMinute);
  // The literal reading: nothing saved in a period carries over in delay mode.
  ClockOptions options;
  options.delay_saved_time = DelaySavedTime::kDiscard;
  Clock discard = MakeClock("40/90 d5, 30 d5", options);
  now = kT0;
  ASSERT_OK(discard.Start(now));
  PlayMoves(discard, &now, 79, 65'000);
  EXPECT_EQ(discard.RemainingMs(kWhite, now), 30 * kMinute);
}

// --- 6.1, 6.3, 8.6: the flag
// -----------------------------------------------------------------------

TEST(Article6_1, FlagFallsWhenTheAllottedTimeIsUsedUp) {
  Clock clock = MakeClock("300+2");
  ASSERT_OK(clock.Start(kT0));
  EXPECT_EQ(clock.Deadline(), kT0 + 300'000);
  EXPECT_FALSE(clock.FlagFallen(kWhite, kT0 + 299'999));
  EXPECT_TRUE(clock.FlagFallen(kWhite, kT0 + 300'000));
  EXPECT_EQ(clock.FirstFlag(kT0 + 400'000), (FlagFall{kWhite, kT0 + 300'000}));
  // The clock keeps the overrun and the flag after a late press.
  ASSERT_OK(clock.Press(kT0 + 301'000));
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 301'000), -1'000 + 2'000);
  EXPECT_EQ(clock.FlagTime(kWhite, kT0 + 301'000), kT0 + 300'000);
  EXPECT_EQ(clock.Deadline(), kT0 + 301'000 + 300'000);
}

TEST(Article6_1, DelayDeadlines) {
  Clock simple = MakeClock("G/1 d5");
  ASSERT_OK(simple.Start(kT0));
  EXPECT_EQ(simple.Deadline(), kT0 + 65'000);
  Clock bronstein = MakeClock("G/1 b5");
  ASSERT_OK(bronstein.Start(kT0));
  EXPECT_EQ(bronstein.Deadline(), kT0 + 60'000);
}

TEST(Article6_3, ScoresheetProvesThePeriodsMovesWereMade) {
  Clock clock = MakeClock("40/90, 30");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  PlayMoves(clock, &now, 78, 60 * kSecond);  // 39 moves each, 39 minutes used
  // White forgot to press once: the clock counts 39, the scoresheet shows 40.
  EXPECT_THAT(clock.CheckMoveCount(kWhite, 40, now), HasErrorCode("ERR_NO_FLAG"));
  const std::int64_t flag = now + 51 * kMinute;
  EXPECT_EQ(clock.Deadline(), flag);
  now = flag + 5'000;
  absl::StatusOr<MoveCountCheck> check = clock.CheckMoveCount(kWhite, 40, now);
  ASSERT_OK(check);
  EXPECT_EQ(check->outcome, MoveCountOutcome::kCompleted);
  EXPECT_EQ(check->moves, 40);
  EXPECT_EQ(check->period_index, 1);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 30 * kMinute - 5'000);
  EXPECT_FALSE(clock.FlagFallen(kWhite, now));
  EXPECT_EQ(clock.Deadline(), now + 30 * kMinute - 5'000);
}

TEST(Article6_3, MovesNotCompletedLoses) {
  std::int64_t now = kT0;
  Clock clock = FortyInNinetyAfterAnHour(76, &now);
  absl::StatusOr<MoveCountCheck> check = clock.CheckMoveCount(kWhite, 38, now);
  ASSERT_OK(check);
  EXPECT_EQ(check->outcome, MoveCountOutcome::kNotCompleted);
  EXPECT_EQ(check->article, "6.3, 6.10");
  EXPECT_TRUE(clock.FlagFallen(kWhite, now));
}

// 6.3 with the clock's own record: "40/90, 30", 35 moves each, White's flag fell 5 minutes ago.
// Without a count from the scoresheets the clock shows 35 moves by the flag: not completed.
TEST(Article6_3, TheClocksRecordShowsTheMovesWereNotCompleted) {
  std::int64_t now = kT0;
  Clock clock = FortyInNinetyAfterAnHour(70, &now);  // White's flag fell 5 minutes ago
  absl::StatusOr<MoveCountCheck> check = clock.CheckMoveCount(kWhite, std::nullopt, now);
  ASSERT_OK(check);
  EXPECT_EQ(check->outcome, MoveCountOutcome::kNotCompleted);
  EXPECT_EQ(check->article, "6.3, 6.10");
  EXPECT_EQ(clock.moves(kWhite), 35);
  EXPECT_TRUE(clock.FlagFallen(kWhite, now));
}

// 8.6 only where the record cannot show it: the same clock restored from a state that does not
// hold the flag's move count. "gilt der nächste Zug als der erste für die folgende Zeitperiode".
TEST(Article8_6, UnknownCountMakesTheNextMoveTheFirstOfTheNextPeriod) {
  std::int64_t now = kT0;
  Clock played = FortyInNinetyAfterAnHour(70, &now);  // White's flag fell 5 minutes ago
  ASSERT_OK(played.Pause(now));                       // the state passes the flag
  ClockState state = played.state();
  ASSERT_TRUE(state.sides[0].flag_ms.has_value());  // the reading at `now` recorded the flag
  state.sides[0].flag_moves.reset();                // a state written before it was kept
  absl::StatusOr<Clock> clock = Clock::Restore(played.time_control(), {}, state);
  ASSERT_OK(clock);
  EXPECT_FALSE(clock->state().sides[0].flag_moves.has_value());
  absl::StatusOr<MoveCountCheck> check = clock->CheckMoveCount(kWhite, std::nullopt, now);
  ASSERT_OK(check);
  EXPECT_EQ(check->outcome, MoveCountOutcome::kCompleted);
  EXPECT_EQ(check->article, "8.6");
  EXPECT_EQ(clock->moves(kWhite), 40);
  EXPECT_EQ(clock->RemainingMs(kWhite, now), 30 * kMinute - 5 * kMinute);
  EXPECT_TRUE(clock->InFinalPeriod(kWhite));
}

TEST(Article6_10, FlagInTheFinalPeriodAlwaysLoses) {
  Clock clock = MakeClock("G/5");
  ASSERT_OK(clock.Start(kT0));
  absl::StatusOr<MoveCountCheck> check = clock.CheckMoveCount(kWhite, 100, kT0 + 5 * kMinute);
  ASSERT_OK(check);
  EXPECT_EQ(check->outcome, MoveCountOutcome::kNotCompleted);
}

// --- 6.12 / 10.3 / B8: both flags
// ------------------------------------------------------------------

// Both clocks set to zero together (6.14) in period 1 or in the final period: both flags fall at
// the same instant, so which fell first cannot be established.
Clock BothFlagsFallen(absl::string_view tc, int moves_each) {
  Clock clock = MakeClock(tc);
  EXPECT_OK(clock.Start(kT0));
  ClockSetting setting;
  setting.white_ms = 0;
  setting.black_ms = 0;
  setting.white_moves = moves_each;
  setting.black_moves = moves_each;
  EXPECT_OK(clock.Set(setting, kT0 + 10'000));
  EXPECT_EQ(clock.FlagTime(kWhite, kT0 + 12'000), kT0 + 10'000);
  EXPECT_EQ(clock.FlagTime(kBlack, kT0 + 12'000), kT0 + 10'000);
  EXPECT_TRUE(FlagOrderUnknown(clock, kT0 + 12'000));
  return clock;
}

// 6.12 (2001, 2005), 10.3: "aber nicht nachweisbar ist, welches zuerst". "40/120, 60", both set
// to 1 s in the final period (45 moves each): White's flag falls at +11 s, Black's at +13 s. The
// clock knows White's fell first: no both-flags ruling, the first flag decides (6.9, 6.10).
TEST(Article6_12, FlagsInAKnownOrderAreNotRuledAsBothFlags) {
  for (Edition edition : {Edition::kFide2001, Edition::kFide2005, Edition::kFide2023}) {
    Clock clock = MakeClock("40/120, 60");
    ASSERT_OK(clock.Start(kT0));
    ASSERT_OK(
        clock.Set({.white_ms = 1'000, .black_ms = 1'000, .white_moves = 45, .black_moves = 45},
                  kT0 + 10'000));
    ASSERT_OK(clock.Press(kT0 + 12'000));  // White's flag fell at +11 s
    const std::int64_t now = kT0 + 20'000;
    EXPECT_TRUE(clock.FlagFallen(kBlack, now));
    EXPECT_FALSE(FlagOrderUnknown(clock, now));
    EXPECT_EQ(RuleBothFlags(clock, edition, now), std::nullopt) << laws::EditionName(edition);
    EXPECT_EQ(clock.FirstFlag(now), (FlagFall{kWhite, kT0 + 11'000}));
  }
}

// Under "40/120, 60": the ruling when both flags fell before the final period (10 moves each)
// and in it (45 moves each).
void ExpectBothFlagsRulings(Edition edition, const BothFlagsRuling& before,
                            const BothFlagsRuling& in_final_period) {
  const std::int64_t now = kT0 + 20'000;
  EXPECT_EQ(RuleBothFlags(BothFlagsFallen("40/120, 60", 10), edition, now), before);
  EXPECT_EQ(RuleBothFlags(BothFlagsFallen("40/120, 60", 45), edition, now), in_final_period);
}

TEST(Article6_12, Edition2001ContinuesBeforeTheFinalPeriodAnd10_3DrawsInIt) {
  ExpectBothFlagsRulings(Edition::kFide2001, {BothFlagsOutcome::kContinue, "6.12"},
                         {BothFlagsOutcome::kDraw, "10.3"});
}

TEST(Article6_12, Edition2005ContinuesInAnyPeriodButTheLastAndDrawsInTheLast) {
  ExpectBothFlagsRulings(Edition::kFide2005, {BothFlagsOutcome::kContinue, "6.12a"},
                         {BothFlagsOutcome::kDraw, "6.12b"});
  const std::int64_t now = kT0 + 20'000;
  // A repeating period is never the last: the game continues.
  Clock repeating = BothFlagsFallen("40/120, 20/60", 45);
  EXPECT_EQ(RuleBothFlags(repeating, Edition::kFide2005, now)->outcome,
            BothFlagsOutcome::kContinue);
}

TEST(AppendixB8, RapidDrawsWhenBothFlagsFall) {
  const std::int64_t now = kT0 + 20'000;
  Clock rapid = BothFlagsFallen("40/20, 10", 10);  // 30 minutes: rapid under B1
  EXPECT_EQ(RuleBothFlags(rapid, Edition::kFide2001, now),
            (BothFlagsRuling{BothFlagsOutcome::kDraw, "B8"}));
  Clock one = MakeClock("40/20, 10");
  ASSERT_OK(one.Start(kT0));
  EXPECT_EQ(RuleBothFlags(one, Edition::kFide2001, kT0 + 20 * kMinute), std::nullopt);
}

// --- 6.13: pause
// ----------------------------------------------------------------------------------

TEST(Article6_13, TimePausedCountsForNobody) {
  Clock clock = MakeClock("300+2");
  ASSERT_OK(clock.Start(kT0));
  ASSERT_OK(clock.Pause(kT0 + 70'000));
  EXPECT_EQ(clock.running(), std::nullopt);
  EXPECT_EQ(clock.Deadline(), std::nullopt);
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 90'000), 230'000);
  EXPECT_THAT(clock.Press(kT0 + 80'000), HasErrorCode("ERR_CLOCK_PAUSED"));
  EXPECT_THAT(clock.Press(kT0 + 80'000), HasStatusCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(clock.Pause(kT0 + 80'000), HasErrorCode("ERR_CLOCK_PAUSED"));
  ASSERT_OK(clock.Resume(kT0 + 90'000));
  EXPECT_THAT(clock.Resume(kT0 + 90'000), HasErrorCode("ERR_CLOCK_NOT_PAUSED"));
  EXPECT_EQ(clock.running(), kWhite);
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 95'000), 225'000);
  EXPECT_EQ(clock.Deadline(), kT0 + 90'000 + 230'000);
}

TEST(Article6_13, TheDelayLeftSurvivesAPause) {
  Clock clock = MakeClock("G/60 d5");
  ASSERT_OK(clock.Start(kT0));
  ASSERT_OK(clock.Pause(kT0 + 2'000));
  EXPECT_EQ(clock.DelayLeftMs(kT0 + 50'000), 3'000);
  ASSERT_OK(clock.Resume(kT0 + 100'000));
  ASSERT_OK(clock.Press(kT0 + 102'500));  // 4.5 s of the turn used: inside the delay
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 102'500), 60 * kMinute);
}

// --- Arbiter operations
// ----------------------------------------------------------------------------

TEST(Article6_14, SetBothClocksAndCorrectTheMoveCounter) {
  Clock clock = MakeClock("40/90, 30");
  std::int64_t now = kT0;
  ASSERT_OK(clock.Start(now));
  PlayMoves(clock, &now, 81, 30 * kSecond);  // White 41, Black 40: both past move 40
  ASSERT_EQ(clock.period_index(kWhite), 1);
  // An illegal move is found at White's move 38: the position before it is restored, White to move.
  ClockSetting setting;
  setting.white_ms = 72 * kMinute;
  setting.black_ms = 71 * kMinute;
  setting.white_moves = 37;
  setting.black_moves = 37;
  setting.to_move = kWhite;
  ASSERT_OK(clock.Set(setting, now + 1'000));
  EXPECT_EQ(clock.moves(kWhite), 37);
  EXPECT_EQ(clock.period_index(kWhite), 0);
  EXPECT_EQ(clock.period_index(kBlack), 0);
  EXPECT_EQ(clock.running(), kWhite);
  EXPECT_EQ(clock.RemainingMs(kWhite, now + 11'000), 72 * kMinute - 10'000);
  EXPECT_EQ(clock.RemainingMs(kBlack, now + 11'000), 71 * kMinute);
  // Three more moves each reach the control again, with its time added.
  now += 1'000;
  PlayMoves(clock, &now, 5, 60 * kSecond);
  EXPECT_EQ(clock.moves(kWhite), 40);
  EXPECT_EQ(clock.RemainingMs(kWhite, now), 72 * kMinute - 3 * kMinute + 30 * kMinute);
  ClockSetting negative;
  negative.white_ms = -1;
  EXPECT_THAT(clock.Set(negative, now), HasErrorCode("ERR_BAD_SETTING"));
}

TEST(Article6_11, ReplacementClockGetsTheArbitersTimes) {
  Clock clock = MakeClock("G/90");
  ASSERT_OK(clock.Start(kT0));
  ASSERT_OK(clock.Press(kT0 + 60'000));
  ASSERT_OK(clock.Replace(80 * kMinute, 85 * kMinute, kT0 + 120'000));
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 130'000), 80 * kMinute);
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 130'000), 85 * kMinute - 10'000);
  EXPECT_EQ(clock.moves(kWhite), 1);
  EXPECT_EQ(clock.running(), kBlack);
}

TEST(ArbiterAdjustments, PenaltiesAndExtraTime) {
  Clock clock = MakeClock("40/90, 30");
  // 8.1: a player unable to keep score has time deducted at the start.
  ASSERT_OK(clock.Adjust(kBlack, -10 * kMinute, AdjustReason::kUnableToKeepScore, kT0 - 1));
  ASSERT_OK(clock.Start(kT0));
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0), 80 * kMinute);
  // 7.4b: two minutes to the opponent of an illegal move.
  ASSERT_OK(clock.Adjust(kBlack, 2 * kMinute, AdjustReason::kIllegalMove, kT0 + 5'000));
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 5'000), 82 * kMinute);
  // 13.4c on the running clock.
  ASSERT_OK(clock.Adjust(kWhite, -kMinute, AdjustReason::kPenaltyLessTime, kT0 + 10'000));
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 10'000), 89 * kMinute - 10'000);
  EXPECT_EQ(clock.Deadline(), kT0 + 90 * kMinute - kMinute);
  // Signs the Laws fix, and no silent flag.
  EXPECT_THAT(clock.Adjust(kWhite, -kMinute, AdjustReason::kIllegalMove, kT0 + 10'000),
              HasErrorCode("ERR_BAD_ADJUSTMENT"));
  EXPECT_THAT(clock.Adjust(kWhite, kMinute, AdjustReason::kUnableToKeepScore, kT0 + 10'000),
              HasErrorCode("ERR_BAD_ADJUSTMENT"));
  EXPECT_THAT(clock.Adjust(kWhite, -90 * kMinute, AdjustReason::kArbiter, kT0 + 10'000),
              HasErrorCode("ERR_ADJUST_BELOW_ZERO"));
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 10'000), 89 * kMinute - 10'000);  // unchanged
  // 6.8d: an assistant: either way.
  ASSERT_OK(clock.Adjust(kWhite, 5 * kMinute, AdjustReason::kAssistant, kT0 + 10'000));
  EXPECT_EQ(AdjustReasonArticle(AdjustReason::kDisturbance), "13.5");
  EXPECT_EQ(*ParseAdjustReason("10.2c"), AdjustReason::kQuickplayRejected);
  EXPECT_THAT(ParseAdjustReason("99"), HasErrorCode("ERR_BAD_ADJUSTMENT"));
}

// --- 8.4
// ------------------------------------------------------------------------------------------

TEST(Article8_4, ScoresheetDutyLapsesUnderFiveMinutesUnlessTheIncrementIsAtLeast30s) {
  Clock plain = MakeClock("G/90");
  ASSERT_OK(plain.Start(kT0));
  EXPECT_FALSE(plain.ScoresheetDutyLapsed(kWhite, kT0 + 85 * kMinute));
  EXPECT_TRUE(plain.ScoresheetDutyLapsed(kWhite, kT0 + 85 * kMinute + 1));
  EXPECT_FALSE(plain.ScoresheetDutyLapsed(kBlack, kT0 + 85 * kMinute + 1));
  // "G/90+30": 90 minutes (the bare "90+30" reads as the PGN tag, 90 seconds, whose flag would
  // be down at 89 minutes, and then 8.4 requires the record completed).
  Clock increment30 = MakeClock("G/90+30");
  ASSERT_OK(increment30.Start(kT0));
  EXPECT_FALSE(increment30.ScoresheetDutyLapsed(kWhite, kT0 + 89 * kMinute));
  Clock increment29 = MakeClock("G/90+29");
  ASSERT_OK(increment29.Start(kT0));
  EXPECT_TRUE(increment29.ScoresheetDutyLapsed(kWhite, kT0 + 89 * kMinute));
  // An increment only from move 41 does not help before it.
  Clock later = MakeClock("40/90, 30+30");
  ASSERT_OK(later.Start(kT0));
  EXPECT_TRUE(later.ScoresheetDutyLapsed(kWhite, kT0 + 89 * kMinute));
}

// --- 6.6, 6.7: arrival and default
// -----------------------------------------------------------------

TEST(Article6_6, NeitherPresentWhitesTimeRunsUntilArrival) {
  Clock clock = MakeClock("G/90");
  ASSERT_OK(clock.Start(kT0, /*white_present=*/false, /*black_present=*/false));
  EXPECT_THAT(clock.Press(kT0 + 1'000), HasErrorCode("ERR_PLAYER_ABSENT"));
  ASSERT_OK(clock.Arrive(kBlack, kT0 + 5 * kMinute));
  ASSERT_OK(clock.Arrive(kWhite, kT0 + 12 * kMinute));
  EXPECT_THAT(clock.Arrive(kWhite, kT0 + 12 * kMinute), HasErrorCode("ERR_ALREADY_PRESENT"));
  ASSERT_OK(clock.Press(kT0 + 13 * kMinute));
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 13 * kMinute), 77 * kMinute);
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 13 * kMinute), 90 * kMinute);
}

TEST(Article6_7, DefaultTimeOneHourIn2001) {
  ClockOptions options;
  options.default_time_ms = DefaultTimeMs(Edition::kFide2001, std::nullopt);
  Clock on_time = MakeClock("G/120", options);
  ASSERT_OK(on_time.Start(kT0, true, false));
  EXPECT_EQ(on_time.DefaultDeadline(), kT0 + 3'600'000);
  EXPECT_FALSE(on_time.LostByDefault(kBlack, kT0 + 3'600'000));
  EXPECT_TRUE(on_time.LostByDefault(kBlack, kT0 + 3'600'001));  // "mehr als eine Stunde"
  ASSERT_OK(on_time.Press(kT0 + 1'000));
  ASSERT_OK(on_time.Arrive(kBlack, kT0 + 3'600'000));
  EXPECT_FALSE(on_time.LostByDefault(kBlack, kT0 + 4'000'000));
  EXPECT_FALSE(on_time.LostByDefault(kWhite, kT0 + 4'000'000));

  Clock late = MakeClock("G/120", options);
  ASSERT_OK(late.Start(kT0, true, false));
  ASSERT_OK(late.Arrive(kBlack, kT0 + 3'600'001));
  EXPECT_TRUE(late.LostByDefault(kBlack, kT0 + 3'600'001));
}

TEST(Article6_7, DefaultTimeZeroIn2023UnlessTheEventSetsOne) {
  ClockOptions options;
  options.default_time_ms = DefaultTimeMs(Edition::kFide2023, std::nullopt);
  Clock clock = MakeClock("G/90", options);
  ASSERT_OK(clock.Start(kT0, false, true));
  EXPECT_FALSE(clock.LostByDefault(kWhite, kT0));
  EXPECT_TRUE(clock.LostByDefault(kWhite, kT0 + 1));
}

// --- Options
// ---------------------------------------------------------------------------------------

TEST(Hourglass, TheOtherClockGainsWhatTheRunningOneLoses) {
  Clock clock = MakeClock("*60");
  ASSERT_OK(clock.Start(kT0));
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 10'000), 50'000);
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 10'000), 70'000);
  ASSERT_OK(clock.Press(kT0 + 10'000));
  ASSERT_OK(clock.Press(kT0 + 14'000));
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 14'000), 54'000);
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 14'000), 66'000);
  EXPECT_EQ(clock.Deadline(), kT0 + 14'000 + 54'000);
}

TEST(LagCompensation, CompensationIsChargedToNobody) {
  ClockOptions options;
  options.lag_compensation = true;
  options.lag = {100, 300, 700};
  Clock clock = MakeClock("300+0", options);
  ASSERT_OK(clock.Start(kT0));
  ASSERT_OK(clock.Press(kT0 + 10'000, /*lag_ms=*/250));
  EXPECT_EQ(clock.RemainingMs(kWhite, kT0 + 10'000), 300'000 - 10'000 + 250);
  EXPECT_EQ(clock.lag_quota_ms(kWhite), 150);
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 11'000), 300'000 - 1'000);  // starts at the press
  ASSERT_OK(clock.Press(kT0 + 11'000, /*lag_ms=*/5'000));               // capped by the quota
  EXPECT_EQ(clock.RemainingMs(kBlack, kT0 + 11'000), 300'000 - 1'000 + 300);
  // A press arriving after the flag fell is not saved by its lag (this test
  // asserted the opposite before): the flag at +10 s stays, the overrun is charged.
  Clock blitz = MakeClock("10", options);
  ASSERT_OK(blitz.Start(kT0));
  ASSERT_OK(blitz.Press(kT0 + 10'100, /*lag_ms=*/200));
  EXPECT_EQ(blitz.FlagTime(kWhite, kT0 + 10'100), kT0 + 10'000);
  EXPECT_EQ(blitz.RemainingMs(kWhite, kT0 + 10'100), -100);
  // One that arrives before the flag is compensated as always.
  Clock saved = MakeClock("10", options);
  ASSERT_OK(saved.Start(kT0));
  ASSERT_OK(saved.Press(kT0 + 9'900, /*lag_ms=*/200));
  EXPECT_FALSE(saved.FlagFallen(kWhite, kT0 + 9'900));
  EXPECT_EQ(saved.RemainingMs(kWhite, kT0 + 9'900), 300);
}

TEST(ClockTest, CreateRejectsUntimedAndBadOptions) {
  EXPECT_THAT(Clock::Create(TimeControl::Untimed()), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  ClockOptions options;
  options.default_time_ms = -1;
  EXPECT_THAT(Clock::Create(*ParsePgnTimeControl("60"), options), HasErrorCode("ERR_BAD_OPTIONS"));
  options = {};
  options.lag_compensation = true;
  options.lag = {1, 10, 5};
  EXPECT_THAT(Clock::Create(*ParsePgnTimeControl("60"), options),
              HasErrorCode("ERR_BAD_LAG_PARAMS"));
}

// A snapshot restores a clock mid-game exactly; a damaged one is refused, not half-believed.
TEST(ClockTest, RestoreFromStateContinuesTheGameAndRefusesDamagedStates) {
  const TimeControl tc = *ParsePgnTimeControl("40/5400+30:1800+30");
  absl::StatusOr<Clock> clock = Clock::Create(tc);
  ASSERT_OK(clock);
  ASSERT_OK(clock->Start(0));
  ASSERT_OK(clock->Press(10'000));  // White's first move: 10 s used, 30 s increment
  ASSERT_OK(clock->Pause(15'000));  // 6.13
  absl::StatusOr<Clock> restored = Clock::Restore(tc, {}, clock->state());
  ASSERT_OK(restored);
  EXPECT_EQ(restored->state(), clock->state());
  ASSERT_OK(clock->Resume(20'000));
  ASSERT_OK(restored->Resume(20'000));
  for (Color side : {Color::kWhite, Color::kBlack}) {
    EXPECT_EQ(restored->RemainingMs(side, 30'000), clock->RemainingMs(side, 30'000));
  }
  EXPECT_EQ(restored->RemainingMs(Color::kWhite, 30'000), 5'400'000 - 10'000 + 30'000);
  EXPECT_EQ(restored->Deadline(), clock->Deadline());

  ClockState bad = clock->state();
  bad.start_ms.reset();  // running without a start
  EXPECT_THAT(Clock::Restore(tc, {}, bad), HasErrorCode("ERR_BAD_CLOCK_STATE"));
  bad = clock->state();
  bad.sides[0].moves = -1;
  EXPECT_THAT(Clock::Restore(tc, {}, bad), HasErrorCode("ERR_BAD_CLOCK_STATE"));
  bad = clock->state();
  bad.sides[1].remaining_ms = -5;  // 6.1: below zero only once the flag fell
  EXPECT_THAT(Clock::Restore(tc, {}, bad), HasErrorCode("ERR_BAD_CLOCK_STATE"));
  bad.sides[1].flag_ms = 4'000;
  EXPECT_OK(Clock::Restore(tc, {}, bad));
  bad = clock->state();
  bad.status = static_cast<ClockStatus>(7);
  EXPECT_THAT(Clock::Restore(tc, {}, bad), HasErrorCode("ERR_BAD_CLOCK_STATE"));
}

// --- The Laws read again ------------------------------------------------------------------------

// 6.3 / 8.6: the check is for the period in which the flag fell, at the fall. "2/1, 2/1, 1":
// White's flag falls at 60 s with no move made; he then presses at 61 s and 63 s (his 2nd press
// enters period 2 and adds its minute). The moves after the flag do not complete the period.
TEST(Article6_3, AFlagBeforeThePeriodsMovesStandsWhateverTheMovesAfterIt) {
  auto play = [] {
    Clock clock = MakeClock("2/1, 2/1, 1");
    EXPECT_OK(clock.Start(0));
    EXPECT_OK(clock.Press(61'000));  // White, after his flag at 60 s
    EXPECT_OK(clock.Press(62'000));  // Black
    EXPECT_OK(clock.Press(63'000));  // White: period 1 done by the counter, +60 s
    EXPECT_EQ(clock.FlagTime(kWhite, 64'000), 60'000);
    EXPECT_EQ(clock.RemainingMs(kWhite, 64'000), 60'000 - 62'000 + 60'000);
    return clock;
  };
  // The clock recorded 0 moves at the flag (6.3 checks then): not completed, the flag stands,
  // whatever the counter reached since; 8.6 does not apply, the record shows it.
  Clock clock = play();
  absl::StatusOr<MoveCountCheck> check = clock.CheckMoveCount(kWhite, std::nullopt, 64'000);
  ASSERT_OK(check);
  EXPECT_EQ(check->outcome, MoveCountOutcome::kNotCompleted);
  EXPECT_EQ(check->article, "6.3, 6.10");
  EXPECT_EQ(clock.moves(kWhite), 2);
  EXPECT_EQ(clock.FlagTime(kWhite, 64'000), 60'000);
  // The scoresheets prove he had made no move by the flag: 6.3, 6.10.
  Clock proven = play();
  check = proven.CheckMoveCount(kWhite, 0, 64'000);
  ASSERT_OK(check);
  EXPECT_EQ(check->outcome, MoveCountOutcome::kNotCompleted);
  EXPECT_EQ(check->article, "6.3, 6.10");
  EXPECT_EQ(proven.FlagTime(kWhite, 64'000), 60'000);
  // "außer im Fall, dass nachweisbar mehr Züge gespielt worden sind": 3 proven, still period 2.
  Clock more = play();
  check = more.CheckMoveCount(kWhite, 3, 64'000);
  ASSERT_OK(check);
  EXPECT_EQ(check->outcome, MoveCountOutcome::kCompleted);
  EXPECT_EQ(check->moves, 3);
  EXPECT_EQ(check->period_index, 1);
  EXPECT_EQ(more.RemainingMs(kWhite, 64'000), 58'000);
  // The flag's move count survives a snapshot, and decides as before it.
  Clock snap = play();
  absl::StatusOr<Clock> restored = Clock::Restore(snap.time_control(), {}, snap.state());
  ASSERT_OK(restored);
  EXPECT_EQ(restored->state().sides[0].flag_moves, 0);
  EXPECT_EQ(restored->CheckMoveCount(kWhite, std::nullopt, 64'000)->outcome,
            MoveCountOutcome::kNotCompleted);
}

// Item 3: lag compensation never undoes a flag the clock has shown. G/1, Lichess parameters
// (quota 1170 ms): the reading at 60.2 s shows White's flag at 60 s; a press at 60.5 s reporting
// 1 s of lag gets no compensation, so the flag stays and White is 500 ms over.
TEST(LagCompensation, APressArrivingAfterTheFlagIsNotCompensated) {
  const TimeControl tc = *ParseHumanTimeControl("G/1");
  ClockOptions options;
  options.lag_compensation = true;
  options.lag = LichessLagParams(tc);
  ASSERT_EQ(options.lag.initial_quota_ms, 1'170);
  absl::StatusOr<Clock> clock = Clock::Create(tc, options);
  ASSERT_OK(clock);
  ASSERT_OK(clock->Start(0));
  EXPECT_EQ(clock->FlagTime(kWhite, 60'200), 60'000);
  ASSERT_OK(clock->Press(60'500, /*lag_ms=*/1'000));
  EXPECT_EQ(clock->FlagTime(kWhite, 60'500), 60'000);
  EXPECT_EQ(clock->RemainingMs(kWhite, 60'500), -500);
  EXPECT_EQ(clock->lag_quota_ms(kWhite), 1'170 + options.lag.quota_gain_ms);  // as a lag of 0
  // The same press arriving before the flag is compensated (the flag never fell).
  absl::StatusOr<Clock> early = Clock::Create(tc, options);
  ASSERT_OK(early);
  ASSERT_OK(early->Start(0));
  ASSERT_OK(early->Press(59'900, /*lag_ms=*/1'000));
  EXPECT_FALSE(early->FlagFallen(kWhite, 59'900));
  EXPECT_EQ(early->RemainingMs(kWhite, 59'900), 1'100);
}

// Item 4: one rule for Adjust, Set and Replace (6.1, 6.11, 6.14, B7): time left raises the flag.
// G/15: White's flag falls at 900 s; pause at 906 s; +2 min (7.4b); resume.
TEST(ArbiterAdjustments, TimeLeftAfterAnyChangeRaisesTheFlag) {
  Clock adjusted = MakeClock("G/15");
  ASSERT_OK(adjusted.Start(0));
  ASSERT_OK(adjusted.Pause(906'000));
  EXPECT_EQ(adjusted.FlagTime(kWhite, 906'000), 900'000);
  ASSERT_OK(adjusted.Adjust(kWhite, 120'000, AdjustReason::kIllegalMove, 906'000));
  ASSERT_OK(adjusted.Resume(906'000));
  EXPECT_EQ(adjusted.RemainingMs(kWhite, 906'000), 114'000);  // 1:54 ...
  EXPECT_FALSE(adjusted.FlagFallen(kWhite, 906'000));         // ... and no flag
  EXPECT_EQ(adjusted.Deadline(), 906'000 + 114'000);
  // Set (6.14) and Replace (6.11) to the same time: the same.
  for (bool replace : {false, true}) {
    Clock clock = MakeClock("G/15");
    ASSERT_OK(clock.Start(0));
    ASSERT_OK(clock.Pause(906'000));
    if (replace) {
      ASSERT_OK(clock.Replace(114'000, 900'000, 906'000));
    } else {
      ASSERT_OK(clock.Set({.white_ms = 114'000, .black_ms = 900'000}, 906'000));
    }
    EXPECT_FALSE(clock.FlagFallen(kWhite, 906'000));
    EXPECT_EQ(clock.RemainingMs(kWhite, 906'000), adjusted.RemainingMs(kWhite, 906'000));
  }
  // Not enough to leave time: the flag stays down at the instant it fell.
  Clock overrun = MakeClock("G/15");
  ASSERT_OK(overrun.Start(0));
  ASSERT_OK(overrun.Pause(1'100'000));
  ASSERT_OK(overrun.Adjust(kWhite, 120'000, AdjustReason::kIllegalMove, 1'100'000));
  EXPECT_EQ(overrun.RemainingMs(kWhite, 1'100'000), -80'000);
  EXPECT_EQ(overrun.FlagTime(kWhite, 1'100'000), 900'000);
}

// Item 5: 6.7 "mehr als eine Stunde nach dem angesetzten Spielbeginn" counts from the scheduled
// start. Scheduled 10:00, the clock started 10:20 with Black absent: he is late from 11:00:00.001.
TEST(Article6_7, TheDefaultTimeCountsFromTheScheduledStart) {
  constexpr std::int64_t kTen = 10 * 60 * kMinute;
  ClockOptions options;
  options.default_time_ms = DefaultTimeMs(Edition::kFide2001, std::nullopt);
  options.scheduled_start_ms = kTen;
  Clock clock = MakeClock("G/90", options);
  ASSERT_OK(clock.Start(kTen + 20 * kMinute, /*white_present=*/true, /*black_present=*/false));
  EXPECT_EQ(clock.DefaultDeadline(), kTen + 60 * kMinute);
  EXPECT_FALSE(clock.LostByDefault(kBlack, kTen + 60 * kMinute));
  EXPECT_TRUE(clock.LostByDefault(kBlack, kTen + 60 * kMinute + 1));
  EXPECT_FALSE(clock.LostByDefault(kWhite, kTen + 60 * kMinute + 1));
  // Without the scheduled start the Start stands for it: 11:20:00.001 (the old reading).
  options.scheduled_start_ms.reset();
  Clock unscheduled = MakeClock("G/90", options);
  ASSERT_OK(unscheduled.Start(kTen + 20 * kMinute, true, false));
  EXPECT_FALSE(unscheduled.LostByDefault(kBlack, kTen + 80 * kMinute));
  EXPECT_TRUE(unscheduled.LostByDefault(kBlack, kTen + 80 * kMinute + 1));
  // A clock started only once both are present: at 10:20 nobody is late; at 11:30 both arrived
  // after 11:00 as far as the clock knows (6.7 applies to both).
  options.scheduled_start_ms = kTen;
  Clock both_present = MakeClock("G/90", options);
  ASSERT_OK(both_present.Start(kTen + 20 * kMinute));
  EXPECT_FALSE(both_present.LostByDefault(kWhite, kTen + 2 * 60 * kMinute));
  EXPECT_FALSE(both_present.LostByDefault(kBlack, kTen + 2 * 60 * kMinute));
  Clock started_late = MakeClock("G/90", options);
  ASSERT_OK(started_late.Start(kTen + 90 * kMinute));
  EXPECT_TRUE(started_late.LostByDefault(kWhite, kTen + 90 * kMinute));
  EXPECT_TRUE(started_late.LostByDefault(kBlack, kTen + 90 * kMinute));
  // Out of range.
  options.scheduled_start_ms = kMaxScheduledStartMs + 1;
  EXPECT_THAT(Clock::Create(*ParseHumanTimeControl("G/90"), options),
              HasErrorCode("ERR_BAD_OPTIONS"));
}

// Item 10: the simple delay is the "Aufschub-Modus" of 6.2b (2001 "Das Aufbrauchen der
// Reservezeit setzt erst nach Ablauf der Zugzeit ein"; 2005 "Der Verbrauch der Hauptbedenkzeit
// setzt erst nach dem Ablauf der Extrabedenkzeit ein"): its flag falls at turn start + delay +
// main time. Bronstein runs the main time from the turn's start: its flag falls at turn start +
// main time, up to the delay earlier than 6.2b allows.
TEST(Article6_2b, TheFlagInstantOfEachDelayMode) {
  Clock simple = MakeClock("G/1 d5");
  Clock bronstein = MakeClock("G/1 b5");
  for (Clock* clock : {&simple, &bronstein}) {
    ASSERT_OK(clock->Start(0));
    ASSERT_OK(clock->Press(3'000));  // White inside the delay: both leave him 60 s
    EXPECT_EQ(clock->RemainingMs(kWhite, 3'000), 60'000);
  }
  // Black never moves.
  EXPECT_EQ(simple.Deadline(), 3'000 + 5'000 + 60'000);
  EXPECT_FALSE(simple.FlagFallen(kBlack, 67'999));
  EXPECT_EQ(simple.FlagTime(kBlack, 68'000), 68'000);
  EXPECT_EQ(bronstein.Deadline(), 3'000 + 60'000);
  EXPECT_FALSE(bronstein.FlagFallen(kBlack, 62'999));
  EXPECT_EQ(bronstein.FlagTime(kBlack, 63'000), 63'000);
  // During the first 5 s of the turn the simple delay leaves the main time untouched; Bronstein
  // runs it at once.
  EXPECT_EQ(simple.RemainingMs(kBlack, 7'000), 60'000);
  EXPECT_EQ(bronstein.RemainingMs(kBlack, 7'000), 56'000);
  // 6.2b "außer im Aufschub-Modus" (DelaySavedTime::kDiscard) is the simple delay's only:
  // Bronstein carries saved time as any other bonus of 6.2a.
  ClockOptions discard;
  discard.delay_saved_time = DelaySavedTime::kDiscard;
  for (const char* tc : {"1/1 d5, 1", "1/1 b5, 1"}) {
    Clock clock = MakeClock(tc, discard);
    ASSERT_OK(clock.Start(0));
    ASSERT_OK(clock.Press(10'000));  // White's period 1 done, 55 s of it saved either way
    const bool is_simple = absl::string_view(tc).find("d5") != absl::string_view::npos;
    EXPECT_EQ(clock.RemainingMs(kWhite, 10'000), is_simple ? 60'000 : 55'000 + 60'000) << tc;
  }
}

// B3 "Die Spieler müssen die Züge nicht aufzeichnen" (blitz through C2; 2023 A.2): in rapid and
// blitz there is no duty to lapse from, with any time left; standard play keeps 8.1 until 8.4.
TEST(AppendixB3, RapidAndBlitzHaveNoScoresheetDuty) {
  for (Edition edition : laws::kAllEditions) {
    Clock rapid = MakeClock("G/30");
    ASSERT_OK(rapid.Start(kT0));
    EXPECT_TRUE(ScoresheetDutyLapsed(rapid, edition, kWhite, kT0)) << laws::EditionName(edition);
    EXPECT_TRUE(ScoresheetDutyLapsed(rapid, edition, kBlack, kT0)) << laws::EditionName(edition);
    Clock blitz = MakeClock("G/5");
    ASSERT_OK(blitz.Start(kT0));
    EXPECT_TRUE(ScoresheetDutyLapsed(blitz, edition, kWhite, kT0)) << laws::EditionName(edition);
    Clock standard = MakeClock("G/90");
    ASSERT_OK(standard.Start(kT0));
    EXPECT_FALSE(ScoresheetDutyLapsed(standard, edition, kWhite, kT0))
        << laws::EditionName(edition);
    EXPECT_TRUE(ScoresheetDutyLapsed(standard, edition, kWhite, kT0 + 86 * kMinute));  // 8.4
  }
}

// Item 12: 8.4 "Nachdem ein Fallblättchen gefallen ist, muss der Spieler seine Aufzeichnungen
// sofort ... vollständig nachtragen"; 8.5b the same for the player 8.4 freed. G/90: White under 5
// minutes is freed until a flag falls; then both must complete the record.
TEST(Article8_4, AfterAFlagTheRecordMustBeCompleted) {
  Clock clock = MakeClock("G/90");
  ASSERT_OK(clock.Start(kT0));
  EXPECT_TRUE(clock.ScoresheetDutyLapsed(kWhite, kT0 + 89 * kMinute));
  EXPECT_FALSE(clock.ScoresheetDutyLapsed(kWhite, kT0 + 90 * kMinute));  // the flag fell
  EXPECT_FALSE(clock.ScoresheetDutyLapsed(kWhite, kT0 + 95 * kMinute));
  // Black, freed by 8.4 too (set to 1 minute), must complete his as well once White's flag fell.
  Clock both = MakeClock("G/90");
  ASSERT_OK(both.Start(kT0));
  ASSERT_OK(both.Set({.white_ms = 60'000, .black_ms = 60'000}, kT0));
  EXPECT_TRUE(both.ScoresheetDutyLapsed(kBlack, kT0 + 59'999));
  EXPECT_FALSE(both.ScoresheetDutyLapsed(kBlack, kT0 + 60'000));
}

// --- The flag bound (the store's deadline index) ----------------------------------------------

// 6.1: no flag falls before both players' smaller main time has run out from now, in every
// mode: increment, simple delay, Bronstein delay, sudden death. The bound is at most the running
// player's deadline, and with play it only moves later (the mover spends their own time), so
// the index keeps the first one until it comes due.
TEST(FlagBound, NeverAfterTheDeadlineAndOnlyLaterWithPlay) {
  for (const char* tc :
       {"300+2", "G/1 d5", "G/1 b5", "40/90 d5, 30 d5", "G/15", "40/90+30, 30+30"}) {
    SCOPED_TRACE(tc);
    Clock clock = MakeClock(tc);
    std::int64_t now = kT0;
    ASSERT_OK(clock.Start(now));
    std::int64_t previous = clock.FlagBound(now);
    EXPECT_LE(previous, *clock.Deadline());
    for (std::int64_t move_ms :
         {7 * kSecond, 1 * kSecond, 12 * kSecond, 3 * kSecond, 2 * kSecond}) {
      // Within the move: never after the deadline.
      EXPECT_LE(clock.FlagBound(now + move_ms / 2), *clock.Deadline());
      now += move_ms;
      ASSERT_OK(clock.Press(now));
      const std::int64_t bound = clock.FlagBound(now);
      EXPECT_LE(bound, *clock.Deadline());
      EXPECT_GE(bound, previous);
      previous = bound;
    }
  }
  // Both times known: now plus the smaller one.
  Clock clock = MakeClock("300+2");
  ASSERT_OK(clock.Start(kT0));
  ASSERT_OK(clock.Press(kT0 + 10 * kSecond));  // White: 292 s, Black's runs with 300 s
  EXPECT_EQ(clock.FlagBound(kT0 + 10 * kSecond), kT0 + 10 * kSecond + 292 * kSecond);
}

}  // namespace
}  // namespace chessclock
