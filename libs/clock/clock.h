// The chess clock of Article 6 as a pure state machine. Time is always an argument (the caller's
// monotonic milliseconds), never read; every operation is exact to the millisecond in integer
// arithmetic. A Clock is a small trivially copyable value (no allocation): snapshot it, store it,
// replay a game's events into it.
//
//   ASSIGN_OR_RETURN(TimeControl tc, ParsePgnTimeControl("40/5400+30:1800+30"));
//   ASSIGN_OR_RETURN(Clock clock, Clock::Create(tc));
//   RETURN_IF_ERROR(clock.Start(t0));            // 6.5: White's clock runs
//   RETURN_IF_ERROR(clock.Press(t0 + 61'234));   // 6.8a: White's move 1 complete, +30 s
//   clock.RemainingMs(Color::kWhite, now);       // 5'400'000 - 61'234 + 30'000
//   clock.Deadline();                            // when Black's flag falls if he never moves
//
// Semantics, with the article each follows:
// - Start (6.5) runs White's clock at the scheduled start. Players may be absent; the absent
//   player's clock runs like any other (6.6: White loses all time until arrival). LostByDefault
//   tells whether a player has lost under 6.7: "mehr als eine Stunde nach dem angesetzten
//   Spielbeginn", counted from ClockOptions::scheduled_start_ms when it is set, else from the Start
//   (ClockOptions::default_time_ms, see DefaultTimeMs in edition.h). A player present at a Start
//   later than the scheduled start is known only to have been there at the Start: he counts as
//   arriving then. A platform that knows earlier arrivals starts the clock at the scheduled start
//   with the absent players and records each arrival (Arrive).
// - Press (6.8a) completes the running player's move: the move counter advances, the bonus of the
//   period in which the move lies is applied exactly (increment added; Bronstein: time used this
//   turn given back up to the delay; simple delay: nothing, the main time only ran after the
//   delay), and if the move was the period's last, the next period's time is added (6.2b: saved
//   time carries over). The period of a move follows from the move count alone. Which delay is
//   6.2b's "Aufschub-Modus" (the simple one, in every edition; Bronstein in none, its flag falls
//   up to the delay earlier): see BonusKind in time_control.h.
// - The flag (6.1) falls at the instant the running player's main time reaches zero (after the
//   simple delay). Deadline() gives that instant from the state; FlagTime/FlagFallen answer for any
//   time. A flag does not stop the clock: whether and when it counts (6.9, B6) and what it decides
//   (6.10) is the arbiter's; the clock keeps the exact overrun (times may go below zero only after
//   a flag) and remembers each side's first flag. CheckMoveCount is the 6.3 / 8.6 check, made
//   for the period in which the flag fell. Lag compensation (online play) never undoes a flag:
//   a press gets no compensation once the mover's flag has fallen on the caller's clock at its
//   arrival (see Press).
// - Pause/Resume (6.13): paused time counts for nobody; the delay left in the turn is kept.
// - Adjust (7.4b, 8.1, 6.8d, 9.5b, 10.2, 13.4, 13.5), Set (6.14: both clocks, the move counters and
//   the side to move after an earlier position is restored), Replace (6.11: a replacement clock
//   with the arbiter's times).
// - One rule for a fallen flag under all three of the arbiter's changes of time: afterwards a
//   side's flag is down exactly when its time is used up. 6.1 "Das Fallen des Fallblättchens
//   bedeutet, dass die einem Spieler zugewiesene Zeit aufgebraucht worden ist": a clock showing
//   time left shows no fallen flag; 6.11 "Jede Anzeige auf den Uhren ist bindend"; 6.14 the
//   arbiter sets the clocks "nach bestem Ermessen" (to keep a flag down he sets that side to 0);
//   B7 grants a claim only if "nach Anhalten der Uhren" the opponent's flag is down, i.e. as the
//   clocks stand at the claim. So time left after Adjust, Set or Replace raises the side's flag;
//   Set/Replace to 0 drop it at that instant; an Adjust that leaves an overrun clock at or below
//   zero keeps the instant it fell. (Whether the flag had already decided the game is not the
//   clock's: a counted flag stays decided, see libs/clock_authority.)
//
// 6.2b "except in delay mode": read by default as the per-move delay never being saved (a press
// inside it leaves the main time unchanged, and its unused part is not carried anywhere), while
// main time saved at a period's end carries over as in every mode. The literal alternative, that
// in delay mode no time saved in a period carries over, is DelaySavedTime::kDiscard; it applies to
// 6.2b's delay mode only (simple delay), not to Bronstein (see BonusKind).
//
// Every operation fails with the clock unchanged: INVALID_ARGUMENT for malformed input
// (ERR_TIME_WENT_BACKWARDS when now_ms is earlier than the last operation, ERR_BAD_ADJUSTMENT,
// ERR_BAD_SETTING, ERR_BAD_MOVE_COUNT), FAILED_PRECONDITION when not allowed now
// (ERR_CLOCK_NOT_STARTED, ERR_CLOCK_ALREADY_STARTED, ERR_CLOCK_PAUSED, ERR_CLOCK_NOT_PAUSED,
// ERR_NOT_YOUR_TURN, ERR_PLAYER_ABSENT, ERR_ALREADY_PRESENT, ERR_ADJUST_BELOW_ZERO, ERR_NO_FLAG).
// Queries take now_ms >= the last operation's time (an earlier one reads as that time).
#ifndef ARBITER_LIBS_CLOCK_CLOCK_H_
#define ARBITER_LIBS_CLOCK_CLOCK_H_

#include <array>
#include <cstdint>
#include <limits>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/chess/types.h"
#include "libs/clock/lag_compensation.h"
#include "libs/clock/time_control.h"
#include "libs/laws/edition.h"

namespace chessclock {

enum class ClockStatus : std::uint8_t { kNotStarted, kRunning, kPaused };
absl::string_view ClockStatusName(ClockStatus status);  // "not_started", "running", "paused"

// See "6.2b" above.
enum class DelaySavedTime : std::uint8_t { kCarry, kDiscard };

struct ClockOptions {
  // 6.7: DefaultTimeMs(edition, event regulations). One hour unless set.
  std::int64_t default_time_ms = 3'600'000;
  // 6.5 / 6.7 "der angesetzte Spielbeginn", on the caller's time base; 6.7 counts from it when
  // set (from the Start otherwise). Within +-kMaxScheduledStartMs.
  std::optional<std::int64_t> scheduled_start_ms;
  DelaySavedTime delay_saved_time = DelaySavedTime::kCarry;
  // Optional per game; see lag_compensation.h.
  bool lag_compensation = false;
  LagParams lag;
};

// Why the arbiter changes a player's time. Fixes the sign where the Laws do.
enum class AdjustReason : std::uint8_t {
  kArbiter,             // either sign: the arbiter's decision, no article given
  kAssistant,           // 6.8d: either sign, adjusted "in fairer Weise"
  kUnableToKeepScore,   // 8.1: deducted
  kIllegalMove,         // 7.4b: added to the opponent
  kIncorrectClaim,      // 9.5b: added to the opponent, deducted from the claimant
  kQuickplayPostponed,  // 10.2b: added to the opponent
  kQuickplayRejected,   // 10.2c: added to the opponent
  kPenaltyMoreTime,     // 13.4b: added to the opponent
  kPenaltyLessTime,     // 13.4c: deducted from the offender
  kDisturbance,         // 13.5: added
};
// "", "6.8d", "8.1", "7.4b", "9.5b", "10.2b", "10.2c", "13.4b", "13.4c", "13.5".
absl::string_view AdjustReasonArticle(AdjustReason reason);
// The inverse; "" is kArbiter. INVALID_ARGUMENT ERR_BAD_ADJUSTMENT otherwise.
absl::StatusOr<AdjustReason> ParseAdjustReason(absl::string_view article);

struct FlagFall {
  chess::Color side;
  std::int64_t at_ms;
  friend bool operator==(const FlagFall&, const FlagFall&) = default;
};

// 6.3 / 8.6: after a flag, were the moves of the period completed?
enum class MoveCountOutcome : std::uint8_t {
  kNotCompleted,  // 6.10: the player has lost (unless the opponent cannot mate, or 5.1/5.2 ended
                  // it)
  kCompleted,     // the clock's counter was behind: the next period has begun, its time added
};
struct MoveCountCheck {
  MoveCountOutcome outcome;
  int moves;         // the player's move count afterwards
  int period_index;  // the period of his next move afterwards (0-based)
  absl::string_view article;
};

// 6.14: what the arbiter sets when an earlier position is restored.
struct ClockSetting {
  std::int64_t white_ms = 0;
  std::int64_t black_ms = 0;
  std::optional<int> white_moves;  // correct the move counter, if given
  std::optional<int> black_moves;
  std::optional<chess::Color> to_move;  // whose clock runs afterwards, if it changes
};

inline constexpr int kMaxMoveCount = 1'000'000;
inline constexpr std::int64_t kMaxScheduledStartMs = 1'000'000'000'000'000;  // ~31,700 years

// Everything a Clock holds beyond its time control and options: what a snapshot stores so that a
// clock is restored as it was, without replaying its log. nullopt: the instant has not happened.
struct ClockSideState {
  std::int64_t remaining_ms = 0;
  std::optional<std::int64_t> flag_ms;  // the first flag, once the state has passed it
  // The side's completed moves when that flag fell (6.3: the period checked is the flag's). Absent
  // in states written before it was kept: then the move count.
  std::optional<int> flag_moves;
  std::optional<std::int64_t> arrived_ms;  // when an absent player arrived (6.6, 6.7)
  int moves = 0;
  bool present = true;
  std::int64_t lag_quota_ms = 0;
  friend bool operator==(const ClockSideState&, const ClockSideState&) = default;
};
struct ClockState {
  std::array<ClockSideState, 2> sides;   // by chess::Index
  std::optional<std::int64_t> since_ms;  // the last operation
  std::optional<std::int64_t> start_ms;  // 6.5
  std::int64_t delay_left_ms = 0;        // simple delay left in this turn
  std::int64_t turn_used_ms = 0;         // clock time the side to move has used in this turn
  ClockStatus status = ClockStatus::kNotStarted;
  chess::Color to_move = chess::Color::kWhite;
  friend bool operator==(const ClockState&, const ClockState&) = default;
};

class Clock {
 public:
  // INVALID_ARGUMENT ERR_BAD_TIME_CONTROL for an untimed control (no clock to run),
  // ERR_BAD_OPTIONS / ERR_BAD_LAG_PARAMS for bad options.
  static absl::StatusOr<Clock> Create(const TimeControl& tc, const ClockOptions& options = {});
  // A clock as `state()` described it, under the same control and options. INVALID_ARGUMENT
  // ERR_BAD_CLOCK_STATE for a state no clock of this control can be in (a damaged snapshot).
  static absl::StatusOr<Clock> Restore(const TimeControl& tc, const ClockOptions& options,
                                       const ClockState& state);
  // The running state, for snapshots: Restore(time_control(), options(), state()) is this clock.
  ClockState state() const;

  // --- Operations
  // ---------------------------------------------------------------------------------

  // 6.5 at the scheduled start; absent players arrive later (6.6, 6.7).
  absl::Status Start(std::int64_t now_ms, bool white_present = true, bool black_present = true);
  // An absent player arrives (6.6, 6.7). Whether he arrived too late: LostByDefault.
  absl::Status Arrive(chess::Color side, std::int64_t now_ms);
  // 6.8a: the running player completes his move. `lag_ms` is the network lag he reports, used only
  // with lag compensation; the compensation never reaches back past the last operation, and a
  // press that arrives (now_ms) once the mover's flag has fallen gets none: the flag the clock has
  // shown (and a server may have recorded, 6.9/B6) is not undone by a lag it learns of later. The
  // same in every edition: compensation is the platform's, not the Laws'.
  absl::Status Press(std::int64_t now_ms, std::int64_t lag_ms = 0);
  // As above, checking that `side` is the one whose clock runs (ERR_NOT_YOUR_TURN).
  absl::Status Press(chess::Color side, std::int64_t now_ms, std::int64_t lag_ms = 0);
  // 6.13.
  absl::Status Pause(std::int64_t now_ms);
  absl::Status Resume(std::int64_t now_ms);
  // Adds `delta_ms` (negative: deducts) to `side`'s time. A deduction must leave time on the clock
  // (ERR_ADJUST_BELOW_ZERO; to run a clock out, Set it). Allowed before the start (8.1). Time left
  // afterwards raises the side's flag (see "One rule for a fallen flag" above).
  absl::Status Adjust(chess::Color side, std::int64_t delta_ms, AdjustReason reason,
                      std::int64_t now_ms);
  // 6.14. The turn restarts (a fresh delay). A side set to 0 has its flag fallen now; a side set
  // above 0 has no flag.
  absl::Status Set(const ClockSetting& setting, std::int64_t now_ms);
  // 6.11: as Set, times only.
  absl::Status Replace(std::int64_t white_ms, std::int64_t black_ms, std::int64_t now_ms);
  // 6.3 after `side`'s flag fell (ERR_NO_FLAG otherwise), for the period in which it fell (that of
  // his next move at the fall, whatever the counter reached since): `moves_completed` is his move
  // count by the flag as the scoresheets prove it, or nullopt: then the clock's own record decides,
  // the moves he had completed when the flag fell (moves made after it change nothing: a flag that
  // fell before the period's moves were completed stands). Only a clock restored from a state
  // without that record cannot show it; then 8.6: the period counts as completed, "der nächste
  // Zug [gilt] als der erste für die folgende Zeitperiode" (article "8.6"). Completed: he is
  // credited with the larger of the proven count and the clock's (never more), the time of each
  // period the clock had not entered yet is added, and the flag rises if time is left. In the
  // final period the answer is always kNotCompleted.
  absl::StatusOr<MoveCountCheck> CheckMoveCount(chess::Color side,
                                                std::optional<int> moves_completed,
                                                std::int64_t now_ms);

  // --- Queries
  // ------------------------------------------------------------------------------------

  // The main time left; below zero only after the flag fell (the overrun).
  std::int64_t RemainingMs(chess::Color side, std::int64_t now_ms) const;
  // The running player's per-move delay left in this turn (simple or Bronstein); 0 without delay.
  std::int64_t DelayLeftMs(std::int64_t now_ms) const;
  // The instant the running player's flag falls (or fell) if nothing else happens; nullopt when no
  // clock runs.
  std::optional<std::int64_t> Deadline() const;
  // An instant no flag falls before, from `now_ms` on, whichever clock runs then: now plus the
  // smaller of both players' main times (6.1: a flag falls only when a player's time is used up;
  // a delay or an increment only adds to it). With play it moves only later (the mover spends
  // their own time and gets the increment; the other's time stands), except in hourglass mode
  // and on an arbiter's adjustment; the store's deadline index keeps it as a bound that a move
  // rarely rewrites. At most Deadline() while a clock runs.
  std::int64_t FlagBound(std::int64_t now_ms) const;
  // When `side`'s first flag fell, if it has by `now_ms`.
  std::optional<std::int64_t> FlagTime(chess::Color side, std::int64_t now_ms) const;
  bool FlagFallen(chess::Color side, std::int64_t now_ms) const {
    return FlagTime(side, now_ms).has_value();
  }
  // The earlier of the two flags, if any.
  std::optional<FlagFall> FirstFlag(std::int64_t now_ms) const;
  // Whether `side`'s next move lies in the period in which all remaining moves must be made.
  bool InFinalPeriod(chess::Color side) const;
  // 8.4: whether `side` is freed from recording the moves: under 5 minutes left, unless his moves
  // get an increment of at least 30 s; and never while a flag (either side's) is down: "Nachdem
  // ein Fallblättchen gefallen ist, muss der Spieler seine Aufzeichnungen sofort ... vollständig
  // nachtragen" (8.4, 8.5b). (Rapid and blitz have no duty at all, B3: that is the ruleset's to
  // decide: the free ScoresheetDutyLapsed below.)
  bool ScoresheetDutyLapsed(chess::Color side, std::int64_t now_ms) const;
  // 6.7: the scheduled start (the Start when none is set) plus the default time; a player arriving
  // later loses. nullopt before the start.
  std::optional<std::int64_t> DefaultDeadline() const;
  bool LostByDefault(chess::Color side, std::int64_t now_ms) const;

  ClockStatus status() const { return status_; }
  // The side whose clock is running; nullopt before the start and while paused.
  std::optional<chess::Color> running() const {
    if (status_ != ClockStatus::kRunning) return std::nullopt;
    return to_move_;
  }
  // The side whose clock runs (or will run on start/resume).
  chess::Color to_move() const { return to_move_; }
  // Completed moves (6.8a) of `side`.
  int moves(chess::Color side) const { return sides_[chess::Index(side)].moves; }
  // The 0-based period of `side`'s next move.
  int period_index(chess::Color side) const { return tc_.PeriodOfMove(moves(side) + 1); }
  bool present(chess::Color side) const { return sides_[chess::Index(side)].present; }
  std::int64_t lag_quota_ms(chess::Color side) const {
    return sides_[chess::Index(side)].quota.quota_ms();
  }
  // The time of the last operation.
  std::int64_t last_operation_ms() const { return since_ms_; }
  const TimeControl& time_control() const { return tc_; }
  const ClockOptions& options() const { return options_; }

 private:
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min();

  struct Side {
    std::int64_t remaining_ms = 0;
    std::int64_t flag_ms = kNever;     // the first flag, once the state has passed it
    int flag_moves = 0;                // completed moves when it fell (valid with flag_ms)
    bool flag_moves_known = true;      // false: restored from a state that did not hold it
    std::int64_t arrived_ms = kNever;  // when an absent player arrived
    int moves = 0;
    bool present = true;
    LagQuota quota;
  };

  Clock(const TimeControl& tc, const ClockOptions& options);

  absl::Status CheckTime(std::int64_t now_ms) const;
  // Brings the state to `now_ms` (>= since_ms_): the running clock consumes the delay, then the
  // main time, and the flag is recorded at its exact instant.
  void Advance(std::int64_t now_ms);
  // A new turn for to_move_: no time used, a fresh simple delay.
  void StartTurn();
  // The bonus of the next move of the side to move.
  const Bonus& NextBonus() const {
    return tc_.BonusOfMove(sides_[chess::Index(to_move_)].moves + 1);
  }
  // Adds the time of period `index` (reached on a move count boundary) to `side`.
  void EnterPeriod(Side& side, int index);

  TimeControl tc_;
  ClockOptions options_;
  std::array<Side, 2> sides_;
  std::int64_t since_ms_ = kNever;  // the state is exact as of this instant (the last operation)
  std::int64_t start_ms_ = kNever;
  std::int64_t delay_left_ms_ = 0;  // simple delay left in this turn
  std::int64_t turn_used_ms_ = 0;   // clock time the side to move has used in this turn
  ClockStatus status_ = ClockStatus::kNotStarted;
  chess::Color to_move_ = chess::Color::kWhite;
};

// Both flags have fallen by `now_ms` and it cannot be established which fell first: they fell at
// the same instant. The clock keeps every flag's instant, so otherwise the first flag is known.
bool FlagOrderUnknown(const Clock& clock, std::int64_t now_ms);

// 6.12 / 10.3 for this clock at `now_ms`: the ruling if both flags have fallen and it cannot be
// established which fell first (FlagOrderUnknown); nullopt otherwise, also when both are down in a
// known order (the first flag decides, 6.9 / 6.10). "In the final period" means both players'
// next moves lie in the period in which all remaining moves must be made. (B8, a claim that finds
// both flags down, is the claim's ruling: libs/clock_authority.)
std::optional<BothFlagsRuling> RuleBothFlags(const Clock& clock, Edition edition,
                                             std::int64_t now_ms);

// 8.1 / 8.4 under `edition`: whether `side` is free from recording the moves at `now_ms`. Rapid
// and blitz have no duty at all (B3; 2023 A.2): always true there. Standard play: the clock's 8.4.
bool ScoresheetDutyLapsed(const Clock& clock, Edition edition, chess::Color side,
                          std::int64_t now_ms);

}  // namespace chessclock

#endif  // ARBITER_LIBS_CLOCK_CLOCK_H_
