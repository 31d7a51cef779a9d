#include "libs/clock/clock.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "libs/base/enum_table.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/clock/errors.h"

namespace chessclock {
namespace {

using chess::Color;
using chess::ColorName;
using chess::Index;

static_assert(std::is_trivially_copyable_v<TimeControl>);

constexpr std::int64_t kMaxClockMs = 10 * kMaxTimeMs;

enum class Sign { kEither, kPositive, kNegative };

struct ReasonInfo {
  AdjustReason reason;
  absl::string_view article;
  Sign sign;
};

constexpr ReasonInfo kReasons[] = {
    {AdjustReason::kArbiter, "", Sign::kEither},
    {AdjustReason::kAssistant, "6.8d", Sign::kEither},
    {AdjustReason::kUnableToKeepScore, "8.1", Sign::kNegative},
    {AdjustReason::kIllegalMove, "7.4b", Sign::kPositive},
    {AdjustReason::kIncorrectClaim, "9.5b", Sign::kEither},
    {AdjustReason::kQuickplayPostponed, "10.2b", Sign::kPositive},
    {AdjustReason::kQuickplayRejected, "10.2c", Sign::kPositive},
    {AdjustReason::kPenaltyMoreTime, "13.4b", Sign::kPositive},
    {AdjustReason::kPenaltyLessTime, "13.4c", Sign::kNegative},
    {AdjustReason::kDisturbance, "13.5", Sign::kPositive},
};

const ReasonInfo& Info(AdjustReason reason) {
  for (const ReasonInfo& info : kReasons) {
    if (info.reason == reason) return info;
  }
  return kReasons[0];
}

absl::Status NotStarted() {
  return base::Error(chessclock::kErrClockNotStarted, "the clock has not been started (6.5)");
}
absl::Status Paused() {
  return base::Error(chessclock::kErrClockPaused,
                     "the clocks are paused (6.13); the arbiter must resume them");
}

}  // namespace

absl::string_view ClockStatusName(ClockStatus status) {
  static constexpr absl::string_view kNames[] = {"not_started", "running", "paused"};
  return base::EnumEntry(kNames, status, "?");
}

absl::string_view AdjustReasonArticle(AdjustReason reason) { return Info(reason).article; }

absl::StatusOr<AdjustReason> ParseAdjustReason(absl::string_view article) {
  for (const ReasonInfo& info : kReasons) {
    if (info.article == article) return info.reason;
  }
  return base::Error(
      chessclock::kErrBadAdjustment,
      absl::StrCat("unknown adjustment reason \"", article,
                   "\"; expected one of 6.8d, 8.1, 7.4b, 9.5b, 10.2b, 10.2c, 13.4b, 13.4c, 13.5 "
                   "or none"));
}

Clock::Clock(const TimeControl& tc, const ClockOptions& options) : tc_(tc), options_(options) {
  for (Side& side : sides_) {
    side.remaining_ms = tc_.initial_ms();
    if (options_.lag_compensation) side.quota = LagQuota(options_.lag);
  }
  StartTurn();
}

absl::StatusOr<Clock> Clock::Create(const TimeControl& tc, const ClockOptions& options) {
  if (tc.untimed()) {
    return base::Error(chessclock::kErrBadTimeControl,
                       "a game without time control (\"-\") has no clock to run");
  }
  if (options.default_time_ms < 0) {
    return base::Error(
        chessclock::kErrBadOptions,
        absl::StrCat("the default time (6.7) cannot be negative, got ", options.default_time_ms));
  }
  if (options.scheduled_start_ms.has_value() &&
      (*options.scheduled_start_ms < -kMaxScheduledStartMs ||
       *options.scheduled_start_ms > kMaxScheduledStartMs)) {
    return base::Error(
        chessclock::kErrBadOptions,
        absl::StrCat("the scheduled start (6.5) must lie within +-", kMaxScheduledStartMs,
                     " ms, got ", *options.scheduled_start_ms));
  }
  if (options.lag_compensation) RETURN_IF_ERROR(ValidateLagParams(options.lag));
  static_assert(std::is_trivially_copyable_v<Clock>);
  return Clock(tc, options);
}

namespace {

std::optional<std::int64_t> Instant(std::int64_t ms, std::int64_t never) {
  if (ms == never) return std::nullopt;
  return ms;
}

}  // namespace

ClockState Clock::state() const {
  ClockState out;
  for (int i = 0; i < 2; ++i) {
    const Side& side = sides_[i];
    ClockSideState& s = out.sides[i];
    s.remaining_ms = side.remaining_ms;
    s.flag_ms = Instant(side.flag_ms, kNever);
    if (side.flag_ms != kNever && side.flag_moves_known) s.flag_moves = side.flag_moves;
    s.arrived_ms = Instant(side.arrived_ms, kNever);
    s.moves = side.moves;
    s.present = side.present;
    s.lag_quota_ms = side.quota.quota_ms();
  }
  out.since_ms = Instant(since_ms_, kNever);
  out.start_ms = Instant(start_ms_, kNever);
  out.delay_left_ms = delay_left_ms_;
  out.turn_used_ms = turn_used_ms_;
  out.status = status_;
  out.to_move = to_move_;
  return out;
}

absl::StatusOr<Clock> Clock::Restore(const TimeControl& tc, const ClockOptions& options,
                                     const ClockState& state) {
  ASSIGN_OR_RETURN(Clock clock, Create(tc, options));
  auto bad = [](absl::string_view what) {
    return base::Error(chessclock::kErrBadClockState, absl::StrCat("clock state: ", what));
  };
  if (state.status != ClockStatus::kNotStarted && state.status != ClockStatus::kRunning &&
      state.status != ClockStatus::kPaused) {
    return bad("unknown status");
  }
  if (state.to_move != chess::Color::kWhite && state.to_move != chess::Color::kBlack) {
    return bad("unknown side to move");
  }
  // A started clock has a start and a last operation; one not started has no start (it may have
  // a last operation: an adjustment before the start, 8.1).
  const bool started = state.status != ClockStatus::kNotStarted;
  if (started != state.start_ms.has_value() || (started && !state.since_ms.has_value())) {
    return bad("the start and the last operation go with the status");
  }
  if (state.delay_left_ms < 0 || state.turn_used_ms < 0) {
    return bad("the delay left and the turn's time cannot be negative");
  }
  for (int i = 0; i < 2; ++i) {
    const ClockSideState& s = state.sides[i];
    if (s.moves < 0 || s.moves > kMaxMoveCount) return bad("a move count out of range");
    if (s.lag_quota_ms < 0) return bad("a negative lag quota");
    if (s.remaining_ms < 0 && !s.flag_ms.has_value()) {
      return bad("time below zero without a fallen flag");
    }
    if (s.flag_moves.has_value() &&
        (!s.flag_ms.has_value() || *s.flag_moves < 0 || *s.flag_moves > kMaxMoveCount)) {
      return bad("a flag's move count without a flag, or out of range");
    }
    Side& side = clock.sides_[i];
    side.remaining_ms = s.remaining_ms;
    side.flag_ms = s.flag_ms.value_or(kNever);
    // Older states do not hold it: the move count stands in, but it is not the record of the
    // moves completed by the flag (8.6 may then apply, see CheckMoveCount).
    side.flag_moves = s.flag_moves.value_or(s.moves);
    side.flag_moves_known = s.flag_moves.has_value() || !s.flag_ms.has_value();
    side.arrived_ms = s.arrived_ms.value_or(kNever);
    side.moves = s.moves;
    side.present = s.present;
    side.quota = LagQuota::WithQuota(s.lag_quota_ms);
  }
  clock.since_ms_ = state.since_ms.value_or(kNever);
  clock.start_ms_ = state.start_ms.value_or(kNever);
  clock.delay_left_ms_ = state.delay_left_ms;
  clock.turn_used_ms_ = state.turn_used_ms;
  clock.status_ = state.status;
  clock.to_move_ = state.to_move;
  return clock;
}

absl::Status Clock::CheckTime(std::int64_t now_ms) const {
  if (now_ms < since_ms_) {
    return base::Error(chessclock::kErrTimeWentBackwards,
                       absl::StrCat("time ", now_ms, " ms is before the last operation at ",
                                    since_ms_, " ms; the caller's clock must be monotonic"));
  }
  return absl::OkStatus();
}

void Clock::Advance(std::int64_t now_ms) {
  if (status_ == ClockStatus::kRunning) {
    const std::int64_t dt = now_ms - since_ms_;
    Side& mover = sides_[Index(to_move_)];
    // 6.2b: in delay mode the main time only starts running once the per-move time has elapsed.
    const std::int64_t from_delay = std::min(dt, delay_left_ms_);
    // 6.1: the flag falls the instant the allotted (main) time is used up.
    if (mover.flag_ms == kNever && dt >= delay_left_ms_ + mover.remaining_ms) {
      mover.flag_ms = since_ms_ + delay_left_ms_ + mover.remaining_ms;
      mover.flag_moves = mover.moves;
    }
    delay_left_ms_ -= from_delay;
    mover.remaining_ms -= dt - from_delay;
    if (tc_.hourglass()) sides_[Index(~to_move_)].remaining_ms += dt;
    turn_used_ms_ += dt;
  }
  since_ms_ = now_ms;
}

void Clock::StartTurn() {
  turn_used_ms_ = 0;
  const Bonus& bonus = NextBonus();
  delay_left_ms_ = bonus.kind == BonusKind::kSimpleDelay ? bonus.ms : 0;
}

void Clock::EnterPeriod(Side& side, int index) {
  const Period& ended = tc_.PeriodAt(index - 1);
  const Period& next = tc_.PeriodAt(index);
  // Only 6.2b's delay mode (the simple delay) is "Aufschub-Modus"; Bronstein is not (BonusKind).
  if (ended.bonus.kind == BonusKind::kSimpleDelay &&
      options_.delay_saved_time == DelaySavedTime::kDiscard) {
    side.remaining_ms = next.time_ms;  // 6.2b literal: "außer im Aufschub-Modus"
  } else {
    side.remaining_ms += next.time_ms;  // 6.2b: saved time carries over
  }
}

absl::Status Clock::Start(std::int64_t now_ms, bool white_present, bool black_present) {
  RETURN_IF_ERROR(CheckTime(now_ms));
  if (status_ != ClockStatus::kNotStarted) {
    return base::Error(chessclock::kErrClockAlreadyStarted, "the clock was already started");
  }
  since_ms_ = now_ms;
  start_ms_ = now_ms;
  sides_[Index(Color::kWhite)].present = white_present;
  sides_[Index(Color::kBlack)].present = black_present;
  // 6.5: at the scheduled start the clock of the side to move (White, unless 6.14 set it) runs.
  status_ = ClockStatus::kRunning;
  StartTurn();
  return absl::OkStatus();
}

absl::Status Clock::Arrive(Color side, std::int64_t now_ms) {
  RETURN_IF_ERROR(CheckTime(now_ms));
  if (status_ == ClockStatus::kNotStarted) return NotStarted();
  Side& s = sides_[Index(side)];
  if (s.present) {
    return base::Error(chessclock::kErrAlreadyPresent,
                       absl::StrCat(ColorName(side), " is already present"));
  }
  Advance(now_ms);
  s.present = true;
  s.arrived_ms = now_ms;
  return absl::OkStatus();
}

absl::Status Clock::Press(Color side, std::int64_t now_ms, std::int64_t lag_ms) {
  if (status_ == ClockStatus::kRunning && side != to_move_) {
    RETURN_IF_ERROR(CheckTime(now_ms));
    return base::Error(chessclock::kErrNotYourTurn,
                       absl::StrCat(ColorName(side), " pressed, but ", ColorName(to_move_),
                                    "'s clock is running"));
  }
  return Press(now_ms, lag_ms);
}

absl::Status Clock::Press(std::int64_t now_ms, std::int64_t lag_ms) {
  RETURN_IF_ERROR(CheckTime(now_ms));
  if (status_ == ClockStatus::kNotStarted) return NotStarted();
  if (status_ == ClockStatus::kPaused) return Paused();
  Side& mover = sides_[Index(to_move_)];
  if (!mover.present) {
    return base::Error(chessclock::kErrPlayerAbsent,
                       absl::StrCat(ColorName(to_move_), " has not arrived (6.6)"));
  }
  std::int64_t move_end_ms = now_ms;
  if (options_.lag_compensation) {
    // The move is deemed to have ended `comp` earlier; that time is charged to nobody. But a press
    // that arrives after the mover's flag fell (on this clock, at now_ms) is not compensated: the
    // flag was shown (6.9, and under B6 it may be in the log awaiting a B7 claim), and a lag
    // learned of afterwards must not raise it again. The quota still gains, as for a lag of 0.
    const bool flag_fell = FlagFallen(to_move_, now_ms);
    const std::int64_t lag =
        flag_fell ? 0 : std::clamp<std::int64_t>(lag_ms, 0, now_ms - since_ms_);
    move_end_ms -= mover.quota.OnMove(options_.lag, lag);
  }
  Advance(move_end_ms);

  // 6.8a: the move is complete when its player presses.
  const int move = ++mover.moves;
  const int index = tc_.PeriodOfMove(move);
  const Bonus& bonus = tc_.PeriodAt(index).bonus;
  switch (bonus.kind) {
    case BonusKind::kIncrement:  // 6.2a: an additional amount per move
      mover.remaining_ms += bonus.ms;
      break;
    case BonusKind::kBronsteinDelay:  // the time used, up to the delay, is given back
      mover.remaining_ms += std::min(turn_used_ms_, bonus.ms);
      break;
    case BonusKind::kSimpleDelay:  // 6.2b: a press inside the delay leaves the main time unchanged
    case BonusKind::kNone:
      break;
  }
  if (move == tc_.MovesAtEndOf(index)) EnterPeriod(mover, index + 1);  // 6.2a: the period is done

  to_move_ = ~to_move_;
  since_ms_ = now_ms;
  StartTurn();
  return absl::OkStatus();
}

absl::Status Clock::Pause(std::int64_t now_ms) {
  RETURN_IF_ERROR(CheckTime(now_ms));
  if (status_ == ClockStatus::kNotStarted) return NotStarted();
  if (status_ == ClockStatus::kPaused) return Paused();
  Advance(now_ms);
  status_ = ClockStatus::kPaused;  // 6.13a: time paused counts for nobody
  return absl::OkStatus();
}

absl::Status Clock::Resume(std::int64_t now_ms) {
  RETURN_IF_ERROR(CheckTime(now_ms));
  if (status_ == ClockStatus::kNotStarted) return NotStarted();
  if (status_ == ClockStatus::kRunning) {
    return base::Error(chessclock::kErrClockNotPaused, "the clocks are not paused");
  }
  Advance(now_ms);
  status_ = ClockStatus::kRunning;  // 6.13c: the arbiter decides when play resumes
  return absl::OkStatus();
}

absl::Status Clock::Adjust(Color side, std::int64_t delta_ms, AdjustReason reason,
                           std::int64_t now_ms) {
  RETURN_IF_ERROR(CheckTime(now_ms));
  const ReasonInfo& info = Info(reason);
  const absl::string_view article = info.article.empty() ? "the arbiter's decision" : info.article;
  if (delta_ms == 0 || (info.sign == Sign::kPositive && delta_ms < 0) ||
      (info.sign == Sign::kNegative && delta_ms > 0)) {
    return base::Error(chessclock::kErrBadAdjustment,
                       absl::StrCat("an adjustment of ", delta_ms, " ms does not fit ", article,
                                    info.sign == Sign::kPositive   ? " (time is added)"
                                    : info.sign == Sign::kNegative ? " (time is deducted)"
                                                                   : " (it must change the time)"));
  }
  // Bounded before the sum: a request's delta near the int64 limits would overflow it.
  if (delta_ms > kMaxClockMs || delta_ms < -kMaxClockMs) {
    return base::Error(chessclock::kErrBadAdjustment,
                       absl::StrCat("an adjustment of ", delta_ms, " ms is out of range"));
  }
  const std::int64_t remaining = RemainingMs(side, now_ms);
  const std::int64_t adjusted = remaining + delta_ms;
  if (delta_ms < 0 && adjusted <= 0) {
    return base::Error(chessclock::kErrAdjustBelowZero,
                       absl::StrCat("deducting ", -delta_ms, " ms from ", ColorName(side), "'s ",
                                    remaining, " ms leaves no time; set the clock instead (6.14)"));
  }
  if (adjusted > kMaxClockMs || delta_ms < -kMaxClockMs) {
    return base::Error(chessclock::kErrBadAdjustment,
                       absl::StrCat("an adjustment of ", delta_ms, " ms is out of range"));
  }
  Advance(now_ms);
  Side& s = sides_[Index(side)];
  s.remaining_ms = adjusted;
  // One rule with Set and Replace (see clock.h): time left means the flag is up (6.1, 6.11, B7).
  if (adjusted > 0) s.flag_ms = kNever;
  return absl::OkStatus();
}

absl::Status Clock::Set(const ClockSetting& setting, std::int64_t now_ms) {
  RETURN_IF_ERROR(CheckTime(now_ms));
  for (std::int64_t ms : {setting.white_ms, setting.black_ms}) {
    if (ms < 0 || ms > kMaxClockMs) {
      return base::Error(chessclock::kErrBadSetting,
                         absl::StrCat("a clock is set to [0, ", kMaxClockMs, "] ms, got ", ms));
    }
  }
  for (const std::optional<int>& moves : {setting.white_moves, setting.black_moves}) {
    if (moves.has_value() && (*moves < 0 || *moves > kMaxMoveCount)) {
      return base::Error(
          chessclock::kErrBadSetting,
          absl::StrCat("a move counter is set to [0, ", kMaxMoveCount, "], got ", *moves));
    }
  }
  Advance(now_ms);
  const std::int64_t ms[2] = {setting.white_ms, setting.black_ms};
  const std::optional<int> moves[2] = {setting.white_moves, setting.black_moves};
  for (int i = 0; i < 2; ++i) {
    Side& s = sides_[i];
    s.remaining_ms = ms[i];
    if (moves[i].has_value()) s.moves = *moves[i];  // 6.14: "berichtigt auch den Zugzähler"
    // The same rule as Adjust (see clock.h): a side set to 0 has its flag down from now.
    s.flag_ms = ms[i] > 0 ? kNever : now_ms;
    s.flag_moves = s.moves;
  }
  if (setting.to_move.has_value()) to_move_ = *setting.to_move;
  StartTurn();
  return absl::OkStatus();
}

absl::Status Clock::Replace(std::int64_t white_ms, std::int64_t black_ms, std::int64_t now_ms) {
  ClockSetting setting;
  setting.white_ms = white_ms;
  setting.black_ms = black_ms;
  return Set(setting, now_ms);  // 6.11: the arbiter sets the replacement's times
}

absl::StatusOr<MoveCountCheck> Clock::CheckMoveCount(Color side, std::optional<int> moves_completed,
                                                     std::int64_t now_ms) {
  RETURN_IF_ERROR(CheckTime(now_ms));
  if (status_ == ClockStatus::kNotStarted) return NotStarted();
  if (moves_completed.has_value() && (*moves_completed < 0 || *moves_completed > kMaxMoveCount)) {
    return base::Error(
        chessclock::kErrBadMoveCount,
        absl::StrCat("a move count is in [0, ", kMaxMoveCount, "], got ", *moves_completed));
  }
  if (!FlagFallen(side, now_ms)) {
    return base::Error(chessclock::kErrNoFlag, absl::StrCat("6.3 applies after a flag has fallen; ",
                                                            ColorName(side), "'s has not"));
  }
  Advance(now_ms);
  Side& s = sides_[Index(side)];
  // 6.3 "Unmittelbar nach dem Fallen eines Fallblättchens müssen die Anforderungen nach Artikel
  // 6.2a überprüft werden": the requirement is that of the period in which the flag fell (his
  // next move at the fall), not of the period the counter has reached since.
  const int flag_index = tc_.PeriodOfMove(s.flag_moves + 1);
  const int required = tc_.MovesAtEndOf(flag_index);
  // The moves completed by the flag: as the scoresheets prove them, else as this clock recorded
  // them at the fall (every press is a completed move, 6.8a). Moves made after the flag do not
  // count: the requirement is checked at the fall (6.3), so a flag that fell before the period's
  // moves were completed stands. 8.6 "Wenn ... nicht nachgewiesen werden kann" applies only where
  // neither shows it (a state restored without the flag's count): then "gilt der nächste Zug als
  // der erste für die folgende Zeitperiode, außer im Fall, dass nachweisbar mehr Züge gespielt
  // worden sind": exactly the period's moves are presumed.
  std::optional<int> shown = moves_completed;
  if (!shown.has_value() && s.flag_moves_known) shown = s.flag_moves;
  const int proven = shown.value_or(required);
  if (tc_.IsFinal(flag_index) || proven < required) {
    return MoveCountCheck{MoveCountOutcome::kNotCompleted, s.moves, tc_.PeriodOfMove(s.moves + 1),
                          "6.3, 6.10"};
  }
  // Completed. Never credit more than is proven or counted; add the time only of the periods the
  // clock has not entered yet (those it entered at a press already have theirs).
  const int entered = tc_.PeriodOfMove(s.moves + 1);
  const int credited = std::max(proven, s.moves);
  const int next_index = tc_.PeriodOfMove(credited + 1);
  for (int i = entered + 1; i <= next_index; ++i) EnterPeriod(s, i);
  s.moves = credited;
  // The flag's period is done: the flag rises if time is left (6.1); else it is down from now, in
  // the new period.
  s.flag_ms = s.remaining_ms > 0 ? kNever : now_ms;
  s.flag_moves = s.moves;
  s.flag_moves_known = true;
  return MoveCountCheck{MoveCountOutcome::kCompleted, s.moves, next_index,
                        shown.has_value() ? "6.3" : "8.6"};
}

std::int64_t Clock::RemainingMs(Color side, std::int64_t now_ms) const {
  const Side& s = sides_[Index(side)];
  if (status_ != ClockStatus::kRunning) return s.remaining_ms;
  const std::int64_t dt = std::max<std::int64_t>(0, now_ms - since_ms_);
  if (side == to_move_) return s.remaining_ms - (dt - std::min(dt, delay_left_ms_));
  return tc_.hourglass() ? s.remaining_ms + dt : s.remaining_ms;
}

std::int64_t Clock::FlagBound(std::int64_t now_ms) const {
  const std::int64_t least =
      std::min(RemainingMs(Color::kWhite, now_ms), RemainingMs(Color::kBlack, now_ms));
  return now_ms + std::max<std::int64_t>(0, least);
}

std::int64_t Clock::DelayLeftMs(std::int64_t now_ms) const {
  const std::int64_t dt =
      status_ == ClockStatus::kRunning ? std::max<std::int64_t>(0, now_ms - since_ms_) : 0;
  const Bonus& bonus = NextBonus();
  switch (bonus.kind) {
    case BonusKind::kSimpleDelay:
      return std::max<std::int64_t>(0, delay_left_ms_ - dt);
    case BonusKind::kBronsteinDelay:
      return std::max<std::int64_t>(0, bonus.ms - turn_used_ms_ - dt);
    default:
      return 0;
  }
}

std::optional<std::int64_t> Clock::Deadline() const {
  if (status_ != ClockStatus::kRunning) return std::nullopt;
  const Side& mover = sides_[Index(to_move_)];
  if (mover.flag_ms != kNever) return mover.flag_ms;
  return since_ms_ + delay_left_ms_ + mover.remaining_ms;
}

std::optional<std::int64_t> Clock::FlagTime(Color side, std::int64_t now_ms) const {
  const Side& s = sides_[Index(side)];
  if (s.flag_ms != kNever) return s.flag_ms;
  if (status_ == ClockStatus::kRunning && side == to_move_) {
    const std::int64_t deadline = since_ms_ + delay_left_ms_ + s.remaining_ms;
    if (now_ms >= deadline) return deadline;
  }
  return std::nullopt;
}

std::optional<FlagFall> Clock::FirstFlag(std::int64_t now_ms) const {
  std::optional<FlagFall> first;
  for (Color side : {Color::kWhite, Color::kBlack}) {
    std::optional<std::int64_t> at = FlagTime(side, now_ms);
    if (at.has_value() && (!first.has_value() || *at < first->at_ms)) first = FlagFall{side, *at};
  }
  return first;
}

bool ScoresheetDutyLapsed(const Clock& clock, Edition edition, Color side, std::int64_t now_ms) {
  // B3 "Die Spieler müssen die Züge nicht aufzeichnen" (2023 A.2): no duty to lapse from.
  if (!laws::ScoresheetDutyFor(edition, Speed(clock.time_control(), edition)).applies) return true;
  return clock.ScoresheetDutyLapsed(side, now_ms);
}

bool Clock::ScoresheetDutyLapsed(Color side, std::int64_t now_ms) const {
  // 8.4: "Nachdem ein Fallblättchen gefallen ist, muss der Spieler seine Aufzeichnungen sofort, vor
  // Ausführung eines Zuges auf dem Schachbrett, vollständig nachtragen"; 8.5b the same for a
  // player whom 8.4 freed, "sobald ein Fallblättchen gefallen ist". Either side's flag.
  if (FirstFlag(now_ms).has_value()) return false;
  // 8.4: "weniger als 5 Minuten ... Dies gilt nicht, wenn er pro Zug mindestens 30 zusätzliche
  // Sekunden ... hinzugefügt bekommt."
  const Bonus& bonus = tc_.BonusOfMove(moves(side) + 1);
  if (bonus.kind == BonusKind::kIncrement && bonus.ms >= 30'000) return false;
  return RemainingMs(side, now_ms) < 5 * 60'000;
}

bool Clock::InFinalPeriod(Color side) const { return tc_.IsFinal(period_index(side)); }

std::optional<std::int64_t> Clock::DefaultDeadline() const {
  if (status_ == ClockStatus::kNotStarted) return std::nullopt;
  // 6.7 "nach dem angesetzten Spielbeginn": the scheduled start when known. Without it the Start
  // stands for it (6.5: the clock is started at the scheduled start).
  return options_.scheduled_start_ms.value_or(start_ms_) + options_.default_time_ms;
}

bool Clock::LostByDefault(Color side, std::int64_t now_ms) const {
  const std::optional<std::int64_t> deadline = DefaultDeadline();
  if (!deadline.has_value()) return false;
  const Side& s = sides_[Index(side)];
  // 6.7: "mehr als eine Stunde nach dem angesetzten Spielbeginn". A player present at the Start
  // arrived by then at the latest; the clock knows no earlier instant (see clock.h).
  if (!s.present) return now_ms > *deadline;
  const std::int64_t arrived = s.arrived_ms != kNever ? s.arrived_ms : start_ms_;
  return arrived > *deadline;
}

bool FlagOrderUnknown(const Clock& clock, std::int64_t now_ms) {
  const std::optional<std::int64_t> white = clock.FlagTime(Color::kWhite, now_ms);
  const std::optional<std::int64_t> black = clock.FlagTime(Color::kBlack, now_ms);
  // The clock keeps each flag's instant: only flags that fell at the same instant (both clocks
  // set to zero together, 6.11 / 6.14) leave it open which fell first.
  return white.has_value() && black.has_value() && *white == *black;
}

std::optional<BothFlagsRuling> RuleBothFlags(const Clock& clock, Edition edition,
                                             std::int64_t now_ms) {
  // 6.12 / 10.3 "aber nicht nachweisbar ist, welches zuerst": where the order is known the first
  // flag decides (6.9, 6.10) and these articles do not apply.
  if (!FlagOrderUnknown(clock, now_ms)) return std::nullopt;
  const bool final_period =
      clock.InFinalPeriod(Color::kWhite) && clock.InFinalPeriod(Color::kBlack);
  return RuleBothFlagsFallen(edition, Speed(clock.time_control(), edition), final_period);
}

}  // namespace chessclock
