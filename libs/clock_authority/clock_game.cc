#include "libs/clock_authority/clock_game.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "libs/clock/errors.h"
#include "libs/clock/time_control.h"
#include "libs/laws/proto_convert.h"

namespace clock_authority {
namespace {

using chess::Color;
using chessclock::Clock;
using laws::ColorOf;
using laws::SpeedCategory;

absl::Status BadArgument(absl::string_view message) {
  return base::Error(base::kErrBadArgument, message);
}

absl::StatusOr<chessclock::BonusKind> BonusKindOf(absl::string_view name) {
  for (chessclock::BonusKind kind :
       {chessclock::BonusKind::kNone, chessclock::BonusKind::kIncrement,
        chessclock::BonusKind::kSimpleDelay, chessclock::BonusKind::kBronsteinDelay}) {
    if (chessclock::BonusKindName(kind) == name) return kind;
  }
  return base::Error(chessclock::kErrBadTimeControl,
                     absl::StrCat("unknown bonus kind \"", name, "\""));
}

absl::StatusOr<chessclock::TimeControl> TimeControlOf(const v1::ClockCreated& created) {
  if (created.hourglass()) {
    if (created.periods_size() != 1) {
      return base::Error(chessclock::kErrBadTimeControl, "an hourglass has one period");
    }
    return chessclock::TimeControl::Hourglass(created.periods(0).time_ms());
  }
  std::vector<chessclock::Period> periods;
  for (const v1::PeriodSpec& p : created.periods()) {
    chessclock::Period period;
    period.moves = p.moves();
    period.time_ms = p.time_ms();
    ASSIGN_OR_RETURN(period.bonus.kind, BonusKindOf(p.bonus()));
    period.bonus.ms = p.bonus_ms();
    periods.push_back(period);
  }
  return chessclock::TimeControl::Create(periods);
}

chessclock::ClockOptions OptionsOf(const v1::ClockCreated& created) {
  chessclock::ClockOptions options;
  options.default_time_ms = created.default_time_ms();
  options.delay_saved_time = created.delay_saved_time_discard()
                                 ? chessclock::DelaySavedTime::kDiscard
                                 : chessclock::DelaySavedTime::kCarry;
  options.lag_compensation = created.lag_compensation();
  if (created.has_scheduled_start_ms()) options.scheduled_start_ms = created.scheduled_start_ms();
  options.lag = {created.lag_quota_gain_ms(), created.lag_initial_quota_ms(),
                 created.lag_quota_max_ms()};
  return options;
}

template <typename Events>
absl::StatusOr<ClockGame> ReplayAll(const Events& events) {
  if (events.empty() || !events[0].has_created()) {
    return CorruptLog("a clock's log begins with its creation");
  }
  absl::StatusOr<ClockGame> game = ClockGame::Create(events[0].created());
  if (!game.ok()) return CorruptLog(absl::StrCat("event 1 (created): ", game.status().message()));
  for (int i = 1; i < static_cast<int>(events.size()); ++i) {
    if (absl::Status st = game->Apply(events[i]); !st.ok()) {
      return CorruptLog(absl::StrCat("event ", i + 1, " does not apply: ", base::ErrorCode(st),
                                     ": ", st.message()));
    }
  }
  return game;
}

}  // namespace

absl::Status CorruptLog(absl::string_view message) {
  return base::Error(absl::StatusCode::kInternal, kErrCorruptLog, message);
}

std::int64_t EventTime(const v1::ClockEvent& e) {
  switch (e.event_case()) {
    case v1::ClockEvent::kCreated:
      return e.created().at_ms();
    case v1::ClockEvent::kStarted:
      return e.started().at_ms();
    case v1::ClockEvent::kPressed:
      return e.pressed().at_ms();
    case v1::ClockEvent::kArrived:
      return e.arrived().at_ms();
    case v1::ClockEvent::kPaused:
      return e.paused().at_ms();
    case v1::ClockEvent::kResumed:
      return e.resumed().at_ms();
    case v1::ClockEvent::kAdjusted:
      return e.adjusted().at_ms();
    case v1::ClockEvent::kSet:
      return e.set().at_ms();
    case v1::ClockEvent::kReplaced:
      return e.replaced().at_ms();
    case v1::ClockEvent::kFlagFell:
      return e.flag_fell().fell_at_ms();
    case v1::ClockEvent::kFlagClaimed:
      return e.flag_claimed().at_ms();
    case v1::ClockEvent::kDefaulted:
      return e.defaulted().at_ms();
    case v1::ClockEvent::EVENT_NOT_SET:
      break;
  }
  return 0;
}

absl::StatusOr<SpeedCategory> SpeedOf(v1::GameType type) {
  if (std::optional<SpeedCategory> speed = laws::SpeedCategoryOf(type)) return *speed;
  return base::Error(base::kErrBadArgument, "game_type is not a speed category");
}

// --- Creation, replay, restore -------------------------------------------------------------------

ClockGame::ClockGame(const v1::ClockCreated& created, Clock clock, laws::Edition edition,
                     SpeedCategory speed)
    : created_(std::make_shared<const v1::ClockCreated>(created)),
      clock_(clock),
      edition_(edition),
      speed_(speed) {
  absl::StatusOr<std::string> text = chessclock::FormatPgnTimeControl(clock.time_control());
  if (!text.ok()) text = chessclock::FormatHumanTimeControl(clock.time_control());
  time_control_text_ =
      std::make_shared<const std::string>(text.ok() ? *text : created.time_control());
}

absl::StatusOr<ClockGame> ClockGame::Create(const v1::ClockCreated& created) {
  ASSIGN_OR_RETURN(chessclock::TimeControl tc, TimeControlOf(created));
  ASSIGN_OR_RETURN(laws::Edition edition, laws::EditionOf(created.edition()));
  ASSIGN_OR_RETURN(SpeedCategory speed, SpeedOf(created.game_type()));
  ASSIGN_OR_RETURN(Clock clock, Clock::Create(tc, OptionsOf(created)));
  ClockGame game(created, clock, edition, speed);
  game.record_.version = 1;
  game.record_.last_event_ms = created.at_ms();
  return game;
}

absl::StatusOr<ClockGame> ClockGame::Replay(absl::Span<const v1::ClockEvent> events) {
  return ReplayAll(events);
}

absl::StatusOr<ClockGame> ClockGame::Replay(
    const google::protobuf::RepeatedPtrField<v1::ClockEvent>& events) {
  return ReplayAll(events);
}

ClockGame ClockGame::Restored(ClockGame created, Clock clock, ClockRecord record) {
  ClockGame game = std::move(created);
  game.clock_ = std::move(clock);
  game.record_ = std::move(record);
  return game;
}

bool ClockGame::IsRecorded(Color side, std::int64_t fell_at_ms) const {
  for (const RecordedFlag& f : record_.flags) {
    if (f.side == side && f.fell_at_ms == fell_at_ms) return true;
  }
  return false;
}

// --- Events
// ----------------------------------------------------------------------------------------

absl::Status ClockGame::Apply(const v1::ClockEvent& event) {
  const std::int64_t at = EventTime(event);
  // A flag fall or a default is recorded at the instant it happened, maybe noticed later.
  if (at < clock_.last_operation_ms() && event.event_case() != v1::ClockEvent::kFlagFell &&
      event.event_case() != v1::ClockEvent::kDefaulted) {
    return base::Error(
        chessclock::kErrTimeWentBackwards,
        absl::StrCat("an event at ", at, " ms is before the clock's last operation at ",
                     clock_.last_operation_ms(), " ms"));
  }
  // A failed operation leaves the game unchanged.
  const Clock clock_before = clock_;
  const std::optional<ClockDecision> decision_before = record_.decision;
  const size_t flags_before = record_.flags.size();
  const std::optional<v1::FlagClaimed> claim_before = record_.last_claim;
  const bool default_before = record_.default_recorded;
  if (absl::Status st = ApplyOperation(event); !st.ok()) {
    record_.default_recorded = default_before;
    clock_ = clock_before;
    record_.decision = decision_before;
    record_.last_claim = claim_before;
    record_.flags.erase(record_.flags.begin() + static_cast<std::ptrdiff_t>(flags_before),
                        record_.flags.end());
    return st;
  }
  ++record_.version;
  record_.last_event_ms = std::max(record_.last_event_ms, at);
  return absl::OkStatus();
}

absl::Status ClockGame::ApplyOperation(const v1::ClockEvent& e) {
  switch (e.event_case()) {
    case v1::ClockEvent::kCreated:
      return BadArgument("a clock is created once");
    case v1::ClockEvent::kStarted:
      return ApplyStarted(e.started());
    case v1::ClockEvent::kPressed:
      return ApplyPressed(e.pressed());
    case v1::ClockEvent::kArrived:
      return ApplyArrived(e.arrived());
    case v1::ClockEvent::kPaused:
      return clock_.Pause(e.paused().at_ms());  // a decided game's clock may be stopped too
    case v1::ClockEvent::kResumed:
      return ApplyResumed(e.resumed());
    case v1::ClockEvent::kAdjusted:
      return ApplyAdjusted(e.adjusted());
    case v1::ClockEvent::kSet:
      return ApplySet(e.set());
    case v1::ClockEvent::kReplaced:
      return ApplyReplaced(e.replaced());
    case v1::ClockEvent::kFlagFell:
      return ApplyFlagFell(e.flag_fell());
    case v1::ClockEvent::kDefaulted:
      return ApplyDefaulted(e.defaulted());
    case v1::ClockEvent::kFlagClaimed:
      return ApplyFlagClaimed(e.flag_claimed());
    case v1::ClockEvent::EVENT_NOT_SET:
      break;
  }
  return BadArgument("an empty clock event");
}

absl::Status ClockGame::RefuseDecided() const {
  return base::FailedPrecondition(
      kErrGameDecided, absl::StrCat("the clock has decided the game (", record_.decision->article,
                                    "); the arbiter may set the clock to continue (6.14)"));
}

absl::Status ClockGame::StopClock(std::int64_t at_ms) {
  if (clock_.status() != chessclock::ClockStatus::kRunning) return absl::OkStatus();
  return clock_.Pause(at_ms);
}

absl::Status ClockGame::ApplyStarted(const v1::ClockStarted& e) {
  // 6.6: a side absent at the start has its clock run until it arrives.
  bool present[2] = {true, true};
  for (int c : e.absent()) {
    std::optional<Color> side = ColorOf(static_cast<v1::Color>(c));
    if (!side.has_value()) return BadArgument("absent: a side is white or black");
    present[chess::Index(*side)] = false;
  }
  return clock_.Start(e.at_ms(), present[0], present[1]);
}

absl::Status ClockGame::ApplyPressed(const v1::ClockPressed& e) {
  if (decision().has_value()) {
    // 6.9: the mover's flag fell before he pressed; the move does not save him.
    for (const RecordedFlag& f : record_.flags) {
      if (f.counts && f.side == clock_.to_move() && f.fell_at_ms == FallenFlag(clock_, f.side)) {
        return base::FailedPrecondition(
            kErrFlagFallen, absl::StrCat(chess::ColorName(f.side), "'s flag fell at ", f.fell_at_ms,
                                         " ms, before the press (", f.article, ")"));
      }
    }
    return RefuseDecided();
  }
  if (e.lag_ms() < 0) return BadArgument("lag_ms cannot be negative");
  std::optional<Color> side = ColorOf(e.side());
  if (side.has_value()) return clock_.Press(*side, e.at_ms(), e.lag_ms());
  return clock_.Press(e.at_ms(), e.lag_ms());
}

absl::Status ClockGame::ApplyArrived(const v1::PlayerArrived& e) {
  if (decision().has_value()) return RefuseDecided();  // e.g. 6.7: he came after the default time
  std::optional<Color> side = ColorOf(e.side());
  if (!side.has_value()) return BadArgument("side is required: white or black");
  return clock_.Arrive(*side, e.at_ms());
}

absl::Status ClockGame::ApplyResumed(const v1::ClockResumed& e) {
  if (decision().has_value()) return RefuseDecided();
  return clock_.Resume(e.at_ms());
}

absl::Status ClockGame::ApplyAdjusted(const v1::ClockAdjusted& e) {
  // The game is decided: an adjustment would change a clock whose flag already decided it (and,
  // with time left, raise that flag). The arbiter continues a game by Set (6.14).
  if (decision().has_value()) return RefuseDecided();
  std::optional<Color> side = ColorOf(e.side());
  if (!side.has_value()) return BadArgument("side is required: white or black");
  ASSIGN_OR_RETURN(chessclock::AdjustReason reason, chessclock::ParseAdjustReason(e.reason()));
  return clock_.Adjust(*side, e.delta_ms(), reason, e.at_ms());
}

absl::Status ClockGame::ApplySet(const v1::ClockSet& e) {
  chessclock::ClockSetting setting;
  setting.white_ms = e.white_ms();
  setting.black_ms = e.black_ms();
  if (e.has_white_moves()) setting.white_moves = e.white_moves();
  if (e.has_black_moves()) setting.black_moves = e.black_moves();
  setting.to_move = ColorOf(e.to_move());
  RETURN_IF_ERROR(clock_.Set(setting, e.at_ms()));
  record_.decision.reset();  // 6.14: the arbiter restored a position; play goes on from it
  return absl::OkStatus();
}

absl::Status ClockGame::ApplyReplaced(const v1::ClockReplaced& e) {
  RETURN_IF_ERROR(clock_.Replace(e.white_ms(), e.black_ms(), e.at_ms()));
  record_.decision.reset();  // 6.11: a replacement clock with the arbiter's times
  return absl::OkStatus();
}

absl::Status ClockGame::ApplyFlagFell(const v1::FlagFell& e) {
  std::optional<Color> side = ColorOf(e.side());
  if (!side.has_value()) return BadArgument("flag_fell: side is white or black");
  if (clock_.FlagTime(*side, e.fell_at_ms()) != e.fell_at_ms()) {
    return BadArgument(
        absl::StrCat(chess::ColorName(*side), "'s flag did not fall at ", e.fell_at_ms(), " ms"));
  }
  if (IsRecorded(*side, e.fell_at_ms())) return BadArgument("this flag fall is recorded");
  if (e.noticed_at_ms() < e.fell_at_ms()) return BadArgument("noticed before it fell");
  record_.flags.push_back(
      {*side, e.fell_at_ms(), e.noticed_at_ms(), e.counts(), e.article(), record_.version + 1});
  if (!e.counts()) return absl::OkStatus();  // B6: it counts only when claimed
  record_.decision = RuleCountedFlag(clock_, edition_, speed_, *side, e.article(), e.fell_at_ms());
  // 6.9: the flag counts the moment it is observed; the arbiter stops the clocks (8.5a) at the
  // fall, so the display stays at zero. Both flags down (6.12, 10.3, B8) leave the clock as it is.
  if (record_.decision.has_value() && record_.decision->kind == ClockDecision::Kind::kFlagFell) {
    return StopClock(e.fell_at_ms());
  }
  return absl::OkStatus();
}

absl::Status ClockGame::ApplyDefaulted(const v1::PlayerDefaulted& e) {
  if (record_.default_recorded) return BadArgument("the default (6.7) is recorded");
  if (decision().has_value()) return RefuseDecided();
  const std::optional<std::int64_t> deadline = clock_.DefaultDeadline();
  if (!deadline.has_value() || e.at_ms() != *deadline + 1) {
    return BadArgument("a default is recorded the first instant after the default time");
  }
  std::vector<Color> late = DefaultedSides(clock_, e.at_ms());
  std::vector<Color> named;
  for (int side : e.sides()) {
    std::optional<Color> c = ColorOf(static_cast<v1::Color>(side));
    if (!c.has_value()) return BadArgument("defaulted: a side is white or black");
    named.push_back(*c);
  }
  if (late.empty() || named != late) {
    return BadArgument("the defaulted sides are not those absent when the default time ran out");
  }
  record_.default_recorded = true;
  record_.decision = DefaultDecision(late, e.article(), e.at_ms());
  return StopClock(std::max(e.at_ms(), clock_.last_operation_ms()));
}

absl::Status ClockGame::ApplyFlagClaimed(const v1::FlagClaimed& e) {
  std::optional<Color> claimant = ColorOf(e.claimant());
  if (!claimant.has_value()) return BadArgument("claimant: white or black");
  if (decision().has_value()) return RefuseDecided();
  if (clock_.status() == chessclock::ClockStatus::kNotStarted) {
    return base::Error(chessclock::kErrClockNotStarted, "the clock has not been started");
  }
  ClaimRuling ruling = RuleClaim(clock_, edition_, speed_, *claimant, e.at_ms(), supervised());
  if (ruling.granted() != e.granted()) return BadArgument("the claim's ruling does not match");
  record_.last_claim = e;
  if (!ruling.granted()) return absl::OkStatus();
  record_.decision = std::move(ruling.decision);
  return StopClock(e.at_ms());  // B7: the claimant stops both clocks
}

}  // namespace clock_authority
