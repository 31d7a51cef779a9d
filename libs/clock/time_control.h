// A time control (6.2a): a list of periods, each with the number of moves to complete in it (or the
// rest of the game), the time it adds and its per-move bonus. Plus the two notations, kept apart
// because they disagree on units:
//
//   PGN TimeControl tag, seconds:  "40/5400+30:1800+30", "300+2", "*60" (hourglass), "-" (none)
//   what arbiters write, minutes:  "90+30", "40/90, 30", "40/120, 20/60, 30", "G/60 d5", "G/60 b5"
//
//   ASSIGN_OR_RETURN(TimeControl tc, ParseHumanTimeControl("40/90+30, 30+30"));
//   tc.PeriodOfMove(40) == 0; tc.PeriodOfMove(41) == 1; tc.BonusOfMove(41).ms == 30'000
//   FormatPgnTimeControl(tc) == "40/5400+30:1800+30"
//
// A value type of fixed size (no allocation), so a Clock holding one is trivially copyable.
// All times are integer milliseconds.
#ifndef ARBITER_LIBS_CLOCK_TIME_CONTROL_H_
#define ARBITER_LIBS_CLOCK_TIME_CONTROL_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/laws/edition.h"

namespace chessclock {

// The editions of the Laws are libs/laws's (edition.h); the clock reads them by these names.
using laws::BothFlagsOutcome;
using laws::BothFlagsRuling;
using laws::Edition;
using laws::SpeedCategory;

// The per-move bonus of a period.
enum class BonusKind : std::uint8_t {
  kNone,
  // Fischer: added after each completed move (6.2a "pro Zug eine zusätzliche Bedenkzeit").
  kIncrement,
  // The "Aufschub-Modus" of the Laws (US/simple delay): the main time starts running only after
  // the fixed per-move time has elapsed; a press inside it leaves the main time unchanged. It is
  // the delay of every edition that has one: 2001 6.2b ("Reservezeit", "fixe Zugzeit": "Das
  // Aufbrauchen der Reservezeit setzt erst nach Ablauf der Zugzeit ein"), 2005 6.2b
  // ("Hauptbedenkzeit", "Extrabedenkzeit", the same rule), 1997 (Article 6 carried as 2001) and
  // 2023 6.3.2 (beyond the seeds, the same text). The flag falls at turn start + delay + main time.
  kSimpleDelay,
  // Bronstein: the main time runs at once; at the press the time used, up to the delay, is given
  // back. It is no edition's "Aufschub-Modus": 6.2b has the main time untouched until the delay is
  // used, whereas here it runs from the start of the turn, so the flag falls at turn start + main
  // time, up to the delay earlier than 6.2b allows. It is a per-move bonus under 6.2a ("pro Zug
  // eine zusätzliche Bedenkzeit", capped at the time used; announced in advance, "im Voraus im
  // Detail angegeben"), so 6.2b's "außer im Aufschub-Modus" does not apply to it (saved time
  // always carries over, see DelaySavedTime in clock.h). Ends equal to the simple delay for equal
  // play when no flag falls.
  kBronsteinDelay,
};
absl::string_view BonusKindName(BonusKind kind);  // "none", "increment", "simple_delay", ...

struct Bonus {
  BonusKind kind = BonusKind::kNone;
  std::int64_t ms = 0;
  // A per-move delay of either kind (formatting, DelayLeftMs); only kSimpleDelay is 6.2b's
  // "Aufschub-Modus" (see above).
  bool is_delay() const {
    return kind == BonusKind::kSimpleDelay || kind == BonusKind::kBronsteinDelay;
  }
  friend bool operator==(const Bonus&, const Bonus&) = default;
};

struct Period {
  // Moves to complete in this period; kRestOfGame (0) when all remaining moves must be made in it.
  int moves = 0;
  // The time the period adds to the player's clock when it begins (6.2b: saved time carries over).
  std::int64_t time_ms = 0;
  // The bonus of every move made in this period.
  Bonus bonus;
  friend bool operator==(const Period&, const Period&) = default;
};

inline constexpr int kRestOfGame = 0;
inline constexpr int kMaxPeriods = 8;
inline constexpr std::int64_t kMaxTimeMs = 100LL * 3'600'000;  // 100 hours per period or bonus
inline constexpr int kMaxMovesPerPeriod = 1000;

class TimeControl {
 public:
  // Validates: 1..kMaxPeriods periods; only the last may be kRestOfGame; the first period's time is
  // positive; times and bonuses within [0, kMaxTimeMs]; a bonus of kind kNone has ms 0, any other
  // kind ms > 0. INVALID_ARGUMENT ERR_BAD_TIME_CONTROL otherwise.
  //
  // A last period with a move count repeats for the rest of the game (PGN standard 9.6.1: "the last
  // field is implicitly repeated"), e.g. "40/120, 20/60" = 20 moves per hour after move 40.
  static absl::StatusOr<TimeControl> Create(absl::Span<const Period> periods);
  // Hourglass ("sandclock"): while one clock runs, the other gains the same time. One period.
  static absl::StatusOr<TimeControl> Hourglass(std::int64_t time_ms);
  // No time control (PGN "-"): the clock never flags.
  static TimeControl Untimed();

  TimeControl() = default;  // untimed

  bool untimed() const { return count_ == 0; }
  bool hourglass() const { return hourglass_; }
  int period_count() const { return count_; }
  // The i-th descriptor, 0 <= i < period_count().
  const Period& period(int i) const { return periods_[i]; }

  // The period as played with index `index` (0-based), repeating the last descriptor when it has a
  // move count. Requires !untimed().
  const Period& PeriodAt(int index) const { return periods_[index < count_ ? index : count_ - 1]; }
  // The 0-based index of the period in which a player's `move_number`-th move (1-based) lies.
  int PeriodOfMove(int move_number) const;
  // The player's total number of moves when period `index` is complete; -1 for a rest-of-game
  // period (it never completes).
  int MovesAtEndOf(int index) const;
  // Whether the period with this index is the one in which all remaining moves must be made.
  bool IsFinal(int index) const { return PeriodAt(index).moves == kRestOfGame; }
  // The bonus of a player's `move_number`-th move.
  const Bonus& BonusOfMove(int move_number) const {
    return PeriodAt(PeriodOfMove(move_number)).bonus;
  }
  // Each player's time at the start (the first period's time; 0 when untimed).
  std::int64_t initial_ms() const { return count_ == 0 ? 0 : periods_[0].time_ms; }

  friend bool operator==(const TimeControl& a, const TimeControl& b);

 private:
  std::array<Period, kMaxPeriods> periods_{};
  std::array<int, kMaxPeriods> ends_{};  // cumulative moves at the end of each descriptor
  std::uint8_t count_ = 0;
  bool hourglass_ = false;
};

// The PGN TimeControl tag (seconds): fields separated by ':', each "moves/seconds", "seconds"
// (sudden death, last), either with "+increment"; or alone "-" (untimed) or "*seconds"
// (hourglass). "?" (unknown) is an error: no clock can run it. Whole seconds only; surrounding
// whitespace is ignored. INVALID_ARGUMENT ERR_BAD_TIME_CONTROL naming the field and the problem.
absl::StatusOr<TimeControl> ParsePgnTimeControl(absl::string_view tag);
// The inverse. INVALID_ARGUMENT ERR_NOT_EXPRESSIBLE for delays and non-whole seconds.
absl::StatusOr<std::string> FormatPgnTimeControl(const TimeControl& tc);

// What arbiters write (minutes; bonuses in seconds). Periods separated by ',':
//   [moves "/"] minutes [bonus]     e.g. "40/90", "40/90+30", "30", "30+30"
//   ("G/" | "SD/") minutes [bonus]  all remaining moves, e.g. "G/60", "SD/30"
//   bonus: "+" seconds (increment), "d" seconds (simple delay), "b" seconds (Bronstein), the
//   letters optionally after a space or ';' ("G/60 d5", "G/60;d5")
//   "hourglass" minutes, or "-" for no time control.
// Minutes and seconds may carry decimals when they give whole milliseconds ("G/2.5", "d0.5").
// A bonus belongs to its period: "40/90+30, 30+30" has the increment from move 1,
// "40/90, 30+30" from move 41. Case-insensitive letters; spaces around tokens are ignored.
absl::StatusOr<TimeControl> ParseHumanTimeControl(absl::string_view text);
// Canonical human form: "90+30", "G/60 d5", "40/90, 30", "40/90+30, 30+30", "hourglass 5", "-".
// INVALID_ARGUMENT ERR_NOT_EXPRESSIBLE when a time is not a whole number of 1/10000 minutes.
absl::StatusOr<std::string> FormatHumanTimeControl(const TimeControl& tc);

// The time an edition counts to classify the control (see SpeedRule): all periods' times plus,
// if the edition counts increments, the increments of the first `increment_moves` moves.
std::int64_t SpeedCountedMs(const TimeControl& tc, Edition edition);
// Standard, rapid or blitz under `edition` (B1/C1; 2023 A.1/B.1). Untimed games are standard, and
// so are repeating controls ("20/5": no fixed time for all moves; see SpeedRule in edition.h).
SpeedCategory Speed(const TimeControl& tc, Edition edition);
// 6.2a: some period adds an increment to each move (what a ruleset reads: laws::Ruleset::Make).
bool HasIncrement(const TimeControl& tc);

}  // namespace chessclock

#endif  // ARBITER_LIBS_CLOCK_TIME_CONTROL_H_
