#include "libs/clock_authority/clock_commands.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/bounds.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "libs/clock/errors.h"
#include "libs/clock/lag_compensation.h"
#include "libs/clock/time_control.h"
#include "libs/clock_authority/clock_codec.h"
#include "libs/clock_authority/clock_rulings.h"
#include "libs/laws/proto_convert.h"

namespace clock_authority {
namespace {

using chess::Color;
using laws::ToProto;

// 6.7 for the game: when its default comes due, unless it was ruled on or the game is decided.
std::optional<std::int64_t> PendingDefault(const ClockGame& game) {
  if (game.default_recorded() || game.decision().has_value()) return std::nullopt;
  return DefaultDue(game.clock());
}

// FlagFell events for every flag fallen by `now_ms` and not yet recorded, in the order they fell.
std::vector<v1::ClockEvent> FallenFlags(const ClockGame& game, std::int64_t now_ms) {
  now_ms = std::max(now_ms, game.last_event_ms());
  std::vector<std::pair<std::int64_t, Color>> fallen;
  for (Color side : {Color::kWhite, Color::kBlack}) {
    std::optional<std::int64_t> at = game.clock().FlagTime(side, now_ms);
    if (at.has_value() && !game.IsRecorded(side, *at)) fallen.emplace_back(*at, side);
  }
  std::sort(fallen.begin(), fallen.end());
  const FlagRule rule = game.flag_rule();
  std::vector<v1::ClockEvent> events;
  for (const auto& [at, side] : fallen) {
    v1::ClockEvent e;
    v1::FlagFell* f = e.mutable_flag_fell();
    f->set_side(ToProto(side));
    f->set_fell_at_ms(at);
    f->set_noticed_at_ms(now_ms);
    f->set_counts(rule.counts_when_observed);
    f->set_article(std::string(rule.article));
    events.push_back(std::move(e));
  }
  return events;
}

// Stamps a command with the instant it is recorded; false for an event no command may ask for.
bool StampCommand(v1::ClockEvent& event, std::int64_t now_ms) {
  switch (event.event_case()) {
    case v1::ClockEvent::kStarted:
      event.mutable_started()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kPressed:
      event.mutable_pressed()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kArrived:
      event.mutable_arrived()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kPaused:
      event.mutable_paused()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kResumed:
      event.mutable_resumed()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kAdjusted:
      event.mutable_adjusted()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kSet:
      event.mutable_set()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kReplaced:
      event.mutable_replaced()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kFlagClaimed:
      event.mutable_flag_claimed()->set_at_ms(now_ms);
      return true;
    case v1::ClockEvent::kCreated:
    case v1::ClockEvent::kFlagFell:
    case v1::ClockEvent::kDefaulted:
    case v1::ClockEvent::EVENT_NOT_SET:
      break;
  }
  return false;
}

// A claim is recorded with its ruling (B7, B8, 6.9), granted or not: the ruling is the event.
absl::Status RuleOnClaim(const ClockGame& game, v1::FlagClaimed& claim) {
  std::optional<Color> claimant = laws::ColorOf(claim.claimant());
  if (!claimant.has_value())
    return base::Error(base::kErrBadArgument, "color (the claimant) is required");
  if (game.decision().has_value()) return absl::OkStatus();  // Apply refuses: ERR_GAME_DECIDED
  ClaimRuling ruling = RuleClaim(game.clock(), game.edition(), game.speed(), *claimant,
                                 claim.at_ms(), game.supervised());
  claim.set_granted(ruling.granted());
  claim.set_article(ruling.article);
  if (ruling.granted()) *claim.mutable_outcome() = OutcomeToProto(*ruling.decision);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::ClockCreated> NewClock(const v1::CreateClockRequest& request,
                                          std::int64_t now_ms) {
  const bool pgn = !request.time_control().empty();
  const bool human = !request.time_control_human().empty();
  if (pgn == human) {
    return base::Error(
        chessclock::kErrBadTimeControl,
        "give exactly one of time_control (PGN tag, seconds) and time_control_human (minutes)");
  }
  ASSIGN_OR_RETURN(chessclock::TimeControl tc,
                   pgn ? chessclock::ParsePgnTimeControl(request.time_control())
                       : chessclock::ParseHumanTimeControl(request.time_control_human()));
  if (tc.untimed()) {
    return base::Error(chessclock::kErrBadTimeControl,
                       "a game without time control (\"-\") has no clock to run");
  }
  ASSIGN_OR_RETURN(laws::Edition edition, laws::EditionOf(request.edition()));
  laws::SpeedCategory speed = chessclock::Speed(tc, edition);
  if (request.game_type() != v1::GAME_TYPE_UNSPECIFIED) {
    ASSIGN_OR_RETURN(speed, SpeedOf(request.game_type()));
  }
  if (request.has_default_time_ms() && request.default_time_ms() < 0) {
    return base::Error(chessclock::kErrBadOptions, "default_time_ms cannot be negative");
  }
  // 6.7: the default deadline is the start plus this time; bounded before the sum can wrap
  // (libs/base/bounds.h).
  if (request.has_default_time_ms()) {
    RETURN_IF_ERROR(base::CheckDurationMs("default_time_ms", request.default_time_ms()));
  }
  if (request.has_scheduled_start_ms()) {
    RETURN_IF_ERROR(base::CheckInstantMs("scheduled_start_ms", request.scheduled_start_ms()));
  }

  if (request.event().size() > 256) {
    return base::Error(base::kErrBadArgument, "event is longer than 256 bytes");
  }
  v1::ClockCreated created;
  created.set_at_ms(now_ms);
  created.set_event(request.event());  // whose arbiters act on it
  for (int i = 0; i < tc.period_count(); ++i) {
    const chessclock::Period& p = tc.period(i);
    v1::PeriodSpec* spec = created.add_periods();
    spec->set_moves(p.moves);
    spec->set_time_ms(p.time_ms);
    spec->set_bonus(std::string(chessclock::BonusKindName(p.bonus.kind)));
    spec->set_bonus_ms(p.bonus.ms);
  }
  created.set_hourglass(tc.hourglass());
  created.set_time_control(pgn ? request.time_control() : request.time_control_human());
  created.set_edition(request.edition());
  created.set_game_type(ToProto(speed));
  created.set_default_time_ms(
      laws::DefaultTimeMs(edition, request.has_default_time_ms()
                                       ? std::optional<std::int64_t>(request.default_time_ms())
                                       : std::nullopt));
  created.set_delay_saved_time_discard(request.delay_saved_time() == v1::DELAY_SAVED_TIME_DISCARD);
  if (request.has_supervised()) created.set_supervised(request.supervised());  // 2023 A.3 / A.4
  if (request.has_scheduled_start_ms()) {
    created.set_scheduled_start_ms(request.scheduled_start_ms());
  }
  if (request.lag_compensation()) {
    const chessclock::LagParams lag = chessclock::LichessLagParams(tc);
    created.set_lag_compensation(true);
    created.set_lag_quota_gain_ms(lag.quota_gain_ms);
    created.set_lag_initial_quota_ms(lag.initial_quota_ms);
    created.set_lag_quota_max_ms(lag.quota_max_ms);
  }
  RETURN_IF_ERROR(ClockGame::Create(created).status());  // the same checks as a replay
  return created;
}

namespace {

// What the server records by itself is recorded as the server's (every event names who
// did it; the arbitration log's Settle does the same).
std::vector<v1::ClockEvent> ByServer(std::vector<v1::ClockEvent> events) {
  for (v1::ClockEvent& e : events) {
    e.mutable_actor()->set_subject("clock");
    e.mutable_actor()->set_role("server");
  }
  return events;
}

}  // namespace

std::vector<v1::ClockEvent> SettleFlags(const ClockGame& game, std::int64_t now_ms) {
  now_ms = std::max(now_ms, game.last_event_ms());
  std::vector<v1::ClockEvent> events = FallenFlags(game, now_ms);
  const std::optional<std::int64_t> due = PendingDefault(game);
  if (!due.has_value() || *due > now_ms) return ByServer(std::move(events));
  v1::ClockEvent dflt;
  v1::PlayerDefaulted* d = dflt.mutable_defaulted();
  for (Color side : DefaultedSides(game.clock(), *due)) d->add_sides(ToProto(side));
  d->set_at_ms(*due);
  d->set_noticed_at_ms(now_ms);
  d->set_article("6.7");
  // In the order they happened; what no longer applies after a decision did not happen (the
  // clock stopped at the default: a later flag did not fall; a flag that decided first leaves
  // nothing to default).
  auto at = std::find_if(events.begin(), events.end(),
                         [&](const v1::ClockEvent& e) { return EventTime(e) > *due; });
  events.insert(at, std::move(dflt));
  ClockGame g = game;
  std::vector<v1::ClockEvent> out;
  for (v1::ClockEvent& e : events) {
    if (g.Apply(e).ok()) out.push_back(std::move(e));
  }
  return ByServer(std::move(out));
}

absl::StatusOr<Decision> Decide(const ClockGame& game, const v1::ClockEvent& command,
                                std::int64_t now_ms) {
  now_ms = std::max(now_ms, game.last_event_ms());
  ClockGame g = game;
  Decision decision;
  auto settle = [&]() -> absl::Status {
    for (v1::ClockEvent& flag : SettleFlags(g, now_ms)) {
      if (absl::Status st = g.Apply(flag); !st.ok()) {
        return CorruptLog(absl::StrCat("recording a flag: ", st.message()));
      }
      decision.events.push_back(std::move(flag));
    }
    return absl::OkStatus();
  };
  // Flags that fell before the command come first: they may decide whether it still applies.
  RETURN_IF_ERROR(settle());

  v1::ClockEvent event = command;
  if (!StampCommand(event, now_ms))
    return base::Error(base::kErrBadArgument, "not a clock command");
  if (event.has_flag_claimed()) RETURN_IF_ERROR(RuleOnClaim(g, *event.mutable_flag_claimed()));
  if (event.has_pressed() && event.pressed().side() == v1::COLOR_UNSPECIFIED &&
      g.clock().status() == chessclock::ClockStatus::kRunning) {
    // The log names whose move was completed.
    event.mutable_pressed()->set_side(ToProto(g.clock().to_move()));
  }
  if (absl::Status st = g.Apply(event); !st.ok()) {
    if (decision.events.empty()) return st;
    decision.refused = st;
    decision.after = std::move(g);
    return decision;
  }
  decision.events.push_back(std::move(event));
  // A setting to zero makes a flag fall at once (6.14).
  RETURN_IF_ERROR(settle());
  decision.after = std::move(g);
  return decision;
}

std::optional<std::int64_t> NextDeadline(const ClockGame& game) {
  const chessclock::Clock& clock = game.clock();
  if (game.decision().has_value()) return std::nullopt;
  std::optional<std::int64_t> flag;
  if (clock.status() == chessclock::ClockStatus::kRunning &&
      !FallenFlag(clock, clock.to_move()).has_value()) {
    flag = clock.Deadline();
  }
  const std::optional<std::int64_t> dflt = PendingDefault(game);
  if (flag.has_value() && dflt.has_value()) return std::min(*flag, *dflt);
  return flag.has_value() ? flag : dflt;
}

}  // namespace clock_authority
