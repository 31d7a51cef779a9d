// Property tests over random event sequences (fixed seeds, so deterministic). A reference clock
// written independently, advancing one millisecond at a time, plays the same events; at every
// millisecond the Clock's answers must equal the reference's, and:
//   - time never goes below zero except after a flag;
//   - consumed time equals elapsed time minus pauses (minus lag compensation) plus bonuses;
//   - the deadline computed from the state is the instant the step-by-step simulation sees the
//   flag.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/types.h"
#include "libs/clock/clock.h"
#include "libs/clock/time_control.h"

namespace chessclock {
namespace {

using ::chess::Color;
using ::chess::Index;

constexpr std::int64_t kNone = -1;

// The reference: the clock as a person would run it with a stopwatch, one tick per millisecond.
struct Reference {
  TimeControl tc;
  bool discard = false;
  bool lag = false;
  LagParams lag_params;

  std::array<std::int64_t, 2> main{};
  std::array<std::int64_t, 2> flag{kNone, kNone};
  std::array<int, 2> moves{};
  std::array<std::int64_t, 2> quota{};
  Color to_move = Color::kWhite;
  bool started = false;
  bool paused = false;
  std::int64_t delay_left = 0;
  std::int64_t turn_used = 0;
  std::int64_t t = 0;
  // Accounting, per side: clock time run, bonuses (increments, Bronstein give-backs, time the
  // simple delay absorbed), and everything else added (periods, arbiter, hourglass gains).
  std::array<std::int64_t, 2> run{};
  std::array<std::int64_t, 2> bonus{};
  std::array<std::int64_t, 2> added{};

  bool running() const { return started && !paused; }
  const Bonus& NextBonus() const { return tc.BonusOfMove(moves[Index(to_move)] + 1); }

  void StartTurn() {
    turn_used = 0;
    delay_left = NextBonus().kind == BonusKind::kSimpleDelay ? NextBonus().ms : 0;
  }
  // The flag falls when the main time is used up after the delay.
  void CheckFlag() {
    const int s = Index(to_move);
    if (running() && flag[s] == kNone && delay_left == 0 && main[s] <= 0) flag[s] = t;
  }
  void Tick() {
    CheckFlag();
    if (running()) {
      const int s = Index(to_move);
      if (delay_left > 0) {
        --delay_left;
        ++bonus[s];
      } else {
        --main[s];
      }
      if (tc.hourglass()) {
        ++main[1 - s];
        ++added[1 - s];
      }
      ++turn_used;
      ++run[s];
    }
    ++t;
    CheckFlag();
  }
  void TickTo(std::int64_t target) {
    while (t < target) Tick();
  }
  std::int64_t DelayLeft() const {
    const Bonus& b = NextBonus();
    if (b.kind == BonusKind::kSimpleDelay) return delay_left;
    if (b.kind == BonusKind::kBronsteinDelay) return std::max<std::int64_t>(0, b.ms - turn_used);
    return 0;
  }

  void Start() {
    started = true;
    StartTurn();
    CheckFlag();
  }
  void Press() {
    const int s = Index(to_move);
    const int n = ++moves[s];
    const int index = tc.PeriodOfMove(n);
    const Period& period = tc.PeriodAt(index);
    std::int64_t gain = 0;
    if (period.bonus.kind == BonusKind::kIncrement) gain = period.bonus.ms;
    if (period.bonus.kind == BonusKind::kBronsteinDelay) {
      gain = std::min(turn_used, period.bonus.ms);
    }
    main[s] += gain;
    bonus[s] += gain;
    if (n == tc.MovesAtEndOf(index)) {
      const std::int64_t next = tc.PeriodAt(index + 1).time_ms;
      // 6.2b "außer im Aufschub-Modus": the simple delay only (Bronstein is no delay mode).
      const std::int64_t after =
          period.bonus.kind == BonusKind::kSimpleDelay && discard ? next : main[s] + next;
      added[s] += after - main[s];
      main[s] = after;
    }
    to_move = ~to_move;
    StartTurn();
    CheckFlag();
  }
  void Set(std::int64_t white_ms, std::int64_t black_ms) {
    const std::int64_t ms[2] = {white_ms, black_ms};
    for (int s = 0; s < 2; ++s) {
      added[s] += ms[s] - main[s];
      main[s] = ms[s];
      flag[s] = ms[s] > 0 ? kNone : t;
    }
    StartTurn();
    CheckFlag();
  }
};

TimeControl RandomTimeControl(std::mt19937_64& rng) {
  auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  if (uniform(0, 9) == 0) return *TimeControl::Hourglass(uniform(1'000, 6'000));
  std::vector<Period> periods(uniform(1, 3));
  for (size_t i = 0; i < periods.size(); ++i) {
    Period& p = periods[i];
    const bool last = i + 1 == periods.size();
    p.moves = last && uniform(0, 2) > 0 ? kRestOfGame : static_cast<int>(uniform(1, 6));
    p.time_ms = uniform(i == 0 ? 1 : 0, 6'000);
    const auto kind = static_cast<BonusKind>(uniform(0, 3));
    if (kind != BonusKind::kNone) p.bonus = {kind, uniform(1, 1'200)};
  }
  return *TimeControl::Create(periods);
}

struct Totals {
  std::int64_t elapsed_running = 0;  // measured from the events alone
  std::int64_t compensated = 0;
};

// What the random scenarios exercised, so that a passing run means something.
struct Coverage {
  int scenarios = 0;
  int flags = 0;  // scenarios in which a flag fell
  int presses_after_flag = 0;
  int period_changes = 0;
  int delay_presses = 0;  // presses in a period with a delay
  int compensated_presses = 0;
  int hourglass = 0;
  int discard = 0;
  int restores = 0;  // clocks replaced by Restore(state()) mid-scenario
};

// Compares the Clock with the reference at the reference's current instant.
void ExpectSame(const Clock& clock, const Reference& ref, const TimeControl& tc) {
  const std::int64_t t = ref.t;
  for (Color side : {Color::kWhite, Color::kBlack}) {
    const int s = Index(side);
    ASSERT_EQ(clock.RemainingMs(side, t), ref.main[s]) << "side " << s << " at " << t;
    const std::optional<std::int64_t> flag = clock.FlagTime(side, t);
    ASSERT_EQ(flag.value_or(kNone), ref.flag[s]) << "flag of side " << s << " at " << t;
    ASSERT_EQ(clock.moves(side), ref.moves[s]);
    // Time never goes below zero except after a flag.
    if (clock.RemainingMs(side, t) < 0) {
      ASSERT_TRUE(clock.FlagFallen(side, t));
    }
    // Consumed = run - bonuses, per side.
    ASSERT_EQ(tc.initial_ms() + ref.added[s] - clock.RemainingMs(side, t),
              ref.run[s] - ref.bonus[s]);
  }
  ASSERT_EQ(clock.DelayLeftMs(t), ref.DelayLeft()) << "at " << t;
  ASSERT_EQ(clock.running().has_value(), ref.running());
  if (ref.started) {
    ASSERT_EQ(clock.to_move(), ref.to_move);
  }
}

// The deadline from the state equals the instant a step-by-step simulation sees the flag.
void ExpectDeadlineMatchesSimulation(const Clock& clock, const Reference& ref) {
  const std::optional<std::int64_t> deadline = clock.Deadline();
  ASSERT_EQ(deadline.has_value(), ref.running());
  if (!deadline.has_value()) return;
  Reference forward = ref;
  const int s = Index(ref.to_move);
  while (forward.flag[s] == kNone && forward.t <= *deadline) forward.Tick();
  ASSERT_EQ(forward.flag[s], *deadline);
}

void RunScenario(int seed, Coverage& coverage) {
  std::mt19937_64 rng(0xA5B17E2001ULL + seed);
  auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const TimeControl tc = RandomTimeControl(rng);
  ClockOptions options;
  options.delay_saved_time = uniform(0, 1) ? DelaySavedTime::kDiscard : DelaySavedTime::kCarry;
  options.lag_compensation = uniform(0, 2) == 0;
  options.lag = {uniform(0, 300), uniform(0, 500), 0};
  options.lag.quota_max_ms = options.lag.initial_quota_ms + uniform(0, 1'000);
  absl::StatusOr<Clock> created = Clock::Create(tc, options);
  ASSERT_OK(created);
  Clock clock = *created;
  ++coverage.scenarios;
  coverage.hourglass += tc.hourglass();
  coverage.discard += options.delay_saved_time == DelaySavedTime::kDiscard;
  bool flagged = false;

  Reference ref;
  ref.tc = tc;
  ref.discard = options.delay_saved_time == DelaySavedTime::kDiscard;
  ref.lag = options.lag_compensation;
  ref.lag_params = options.lag;
  ref.main = {tc.initial_ms(), tc.initial_ms()};
  if (ref.lag) ref.quota = {options.lag.initial_quota_ms, options.lag.initial_quota_ms};
  ref.t = uniform(-5'000, 5'000);
  ref.StartTurn();

  Totals totals;
  ASSERT_OK(clock.Start(ref.t));
  ref.Start();
  Reference at_last_event = ref;
  bool running = true;  // tracked from the events alone
  std::int64_t last_event = ref.t;
  ExpectSame(clock, ref, tc);

  for (int event = 0; event < 60; ++event) {
    const std::int64_t now = ref.t + uniform(0, 1'500);
    // Between events, compare at every millisecond.
    while (ref.t < now) {
      ref.Tick();
      ExpectSame(clock, ref, tc);
      if (::testing::Test::HasFatalFailure()) return;
    }
    if (running) totals.elapsed_running += now - last_event;
    last_event = now;

    // A failed operation changes nothing, so the Clock's last operation stays the earlier one.
    bool changed = true;
    const int kind = static_cast<int>(uniform(0, 99));
    if (kind < 70) {  // press
      const std::int64_t lag = uniform(0, 600);
      const absl::Status status = clock.Press(now, lag);
      if (!ref.running()) {
        ASSERT_EQ(base::ErrorCode(status), "ERR_CLOCK_PAUSED");
        changed = false;
      } else {
        ASSERT_OK(status);
        if (ref.lag) {
          // The move is deemed to end `comp` earlier: replay from the last event to then.
          const int s = Index(ref.to_move);
          // A press arriving after the mover's flag fell (at `now`) is not compensated: the
          // flag stays (lag compensation never undoes a flag the clock has shown).
          const std::int64_t reported =
              ref.flag[s] != kNone ? 0 : std::min(lag, now - at_last_event.t);
          const std::int64_t comp = std::min(reported, ref.quota[s]);
          ref.quota[s] = std::min(ref.quota[s] + ref.lag_params.quota_gain_ms - comp,
                                  ref.lag_params.quota_max_ms);
          const std::array<std::int64_t, 2> quota = ref.quota;
          ref = at_last_event;
          ref.quota = quota;
          ref.TickTo(now - comp);
          ref.t = now;  // the compensated time is charged to nobody
          totals.compensated += comp;
          coverage.compensated_presses += comp > 0;
        }
        const int mover = Index(ref.to_move);
        const int period = tc.PeriodOfMove(ref.moves[mover]);
        coverage.presses_after_flag += ref.flag[mover] != kNone;
        coverage.delay_presses += tc.BonusOfMove(ref.moves[mover] + 1).is_delay();
        ref.Press();
        coverage.period_changes += tc.PeriodOfMove(ref.moves[mover]) != period;
      }
    } else if (kind < 78) {  // pause or resume
      if (ref.paused) {
        ASSERT_OK(clock.Resume(now));
        ref.paused = false;
        running = true;
      } else {
        ASSERT_OK(clock.Pause(now));
        ref.paused = true;
        running = false;
      }
      ref.CheckFlag();
    } else if (kind < 90) {  // adjust
      const Color side = uniform(0, 1) ? Color::kWhite : Color::kBlack;
      const std::int64_t delta = uniform(-3'000, 3'000);
      const absl::Status status = clock.Adjust(side, delta, AdjustReason::kArbiter, now);
      const std::int64_t before = ref.main[Index(side)];
      if (delta == 0) {
        ASSERT_EQ(base::ErrorCode(status), "ERR_BAD_ADJUSTMENT");
        changed = false;
      } else if (delta < 0 && before + delta <= 0) {
        ASSERT_EQ(base::ErrorCode(status), "ERR_ADJUST_BELOW_ZERO");
        changed = false;
      } else {
        ASSERT_OK(status);
        ref.main[Index(side)] += delta;
        ref.added[Index(side)] += delta;
        // 6.1 / 6.11 / B7: time left after the arbiter's change means the flag is up.
        if (ref.main[Index(side)] > 0) ref.flag[Index(side)] = kNone;
        ref.CheckFlag();
      }
    } else if (kind < 93) {  // 6.14 / 6.11
      const std::int64_t white = uniform(0, 4'000);
      const std::int64_t black = uniform(0, 4'000);
      ASSERT_OK(clock.Replace(white, black, now));
      ref.Set(white, black);
    } else {  // out of order: a press in the past must fail and change nothing
      EXPECT_EQ(base::ErrorCode(clock.Press(clock.last_operation_ms() - 1)),
                "ERR_TIME_WENT_BACKWARDS");
      changed = false;
    }
    // Every other event, go on with the clock a snapshot restores (Restore(state())): whatever
    // it failed to carry would show against the reference from then on.
    if (event % 2 == 1) {
      absl::StatusOr<Clock> restored = Clock::Restore(tc, options, clock.state());
      ASSERT_OK(restored);
      ASSERT_EQ(restored->state(), clock.state());
      clock = *restored;
      ++coverage.restores;
    }
    ExpectSame(clock, ref, tc);
    ExpectDeadlineMatchesSimulation(clock, ref);
    if (::testing::Test::HasFatalFailure()) return;
    if (changed) at_last_event = ref;
    flagged = flagged || ref.flag[0] != kNone || ref.flag[1] != kNone;
  }
  coverage.flags += flagged;
  // Elapsed time minus pauses minus compensation is exactly the time the two clocks ran.
  EXPECT_EQ(ref.run[0] + ref.run[1], totals.elapsed_running - totals.compensated);
}

TEST(ClockPropertyTest, RandomEventSequences) {
  Coverage coverage;
  for (int seed = 0; seed < 300; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    RunScenario(seed, coverage);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(coverage.scenarios, 300);
  EXPECT_GT(coverage.flags, 50);
  EXPECT_GT(coverage.presses_after_flag, 100);
  EXPECT_GT(coverage.period_changes, 300);
  EXPECT_GT(coverage.delay_presses, 1000);
  EXPECT_GT(coverage.compensated_presses, 300);
  EXPECT_GT(coverage.hourglass, 10);
  EXPECT_GT(coverage.discard, 100);
  EXPECT_EQ(coverage.restores, 300 * 30);
  std::printf(
      "coverage: %d scenarios, %d with a flag, %d presses after a flag, %d period "
      "changes, %d presses with a delay, %d with lag compensation, %d hourglass, %d "
      "discard\n",
      coverage.scenarios, coverage.flags, coverage.presses_after_flag, coverage.period_changes,
      coverage.delay_presses, coverage.compensated_presses, coverage.hourglass, coverage.discard);
}

}  // namespace
}  // namespace chessclock
