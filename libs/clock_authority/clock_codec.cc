#include "libs/clock_authority/clock_codec.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/enum_table.h"
#include "libs/base/status_macros.h"
#include "libs/laws/proto_convert.h"

namespace clock_authority {
namespace {

using chess::Color;
using chessclock::Clock;
// The proto conversions of the Laws' vocabulary are libs/laws's (one place for every service).
using laws::ColorOf;
using laws::ToProto;

constexpr absl::string_view kSnapshotType = "type.googleapis.com/arbiter.v1.ClockSnapshot";
constexpr absl::string_view kEventType = "type.googleapis.com/arbiter.v1.ClockEvent";

// The proto's enumerators in the order of chessclock::ClockStatus and ClockDecision::Kind.
constexpr v1::ClockRunState::Status kProtoStatuses[] = {v1::ClockRunState::STATUS_NOT_STARTED,
                                                        v1::ClockRunState::STATUS_RUNNING,
                                                        v1::ClockRunState::STATUS_PAUSED};
constexpr v1::ClockDecision::Kind kProtoKinds[] = {v1::ClockDecision::KIND_UNSPECIFIED,
                                                   v1::ClockDecision::KIND_RESULT,
                                                   v1::ClockDecision::KIND_FLAG_FELL};

// A recorded flag as the reading and the snapshot carry it.
v1::FlagRecord FlagRecordOf(const RecordedFlag& f) {
  v1::FlagRecord out;
  out.set_side(ToProto(f.side));
  out.set_fell_at_ms(f.fell_at_ms);
  out.set_noticed_at_ms(f.noticed_at_ms);
  out.set_counts(f.counts);
  out.set_article(f.article);
  out.set_version(f.version);
  return out;
}

v1::ClockSideState SideToProto(const chessclock::ClockSideState& side) {
  v1::ClockSideState out;
  out.set_remaining_ms(side.remaining_ms);
  if (side.flag_ms.has_value()) out.set_flag_ms(*side.flag_ms);
  if (side.flag_moves.has_value()) out.set_flag_moves(*side.flag_moves);
  if (side.arrived_ms.has_value()) out.set_arrived_ms(*side.arrived_ms);
  out.set_moves(side.moves);
  out.set_absent(!side.present);
  out.set_lag_quota_ms(side.lag_quota_ms);
  return out;
}

chessclock::ClockSideState SideFromProto(const v1::ClockSideState& side) {
  chessclock::ClockSideState out;
  out.remaining_ms = side.remaining_ms();
  if (side.has_flag_ms()) out.flag_ms = side.flag_ms();
  if (side.has_flag_moves()) out.flag_moves = side.flag_moves();
  if (side.has_arrived_ms()) out.arrived_ms = side.arrived_ms();
  out.moves = side.moves();
  out.present = !side.absent();
  out.lag_quota_ms = side.lag_quota_ms();
  return out;
}

v1::ClockRunState StateToProto(const chessclock::ClockState& state) {
  v1::ClockRunState out;
  *out.mutable_white() = SideToProto(state.sides[chess::Index(Color::kWhite)]);
  *out.mutable_black() = SideToProto(state.sides[chess::Index(Color::kBlack)]);
  if (state.since_ms.has_value()) out.set_since_ms(*state.since_ms);
  if (state.start_ms.has_value()) out.set_start_ms(*state.start_ms);
  out.set_delay_left_ms(state.delay_left_ms);
  out.set_turn_used_ms(state.turn_used_ms);
  out.set_status(
      base::EnumEntry(kProtoStatuses, state.status, v1::ClockRunState::STATUS_NOT_STARTED));
  out.set_to_move(ToProto(state.to_move));
  return out;
}

absl::StatusOr<chessclock::ClockState> StateFromProto(const v1::ClockRunState& state) {
  chessclock::ClockState out;
  out.sides[chess::Index(Color::kWhite)] = SideFromProto(state.white());
  out.sides[chess::Index(Color::kBlack)] = SideFromProto(state.black());
  if (state.has_since_ms()) out.since_ms = state.since_ms();
  if (state.has_start_ms()) out.start_ms = state.start_ms();
  out.delay_left_ms = state.delay_left_ms();
  out.turn_used_ms = state.turn_used_ms();
  std::optional<chessclock::ClockStatus> status =
      base::EnumOfEntry<chessclock::ClockStatus>(kProtoStatuses, state.status());
  if (!status.has_value()) {
    return CorruptLog(absl::StrCat("unknown clock status ", state.status(), " in the snapshot"));
  }
  out.status = *status;
  std::optional<Color> to_move = ColorOf(state.to_move());
  if (!to_move.has_value()) return CorruptLog("the snapshot's side to move is neither side");
  out.to_move = *to_move;
  return out;
}

// A schema 2 ClockSnapshot: the creation, the clock's state and the record, each checked.
absl::StatusOr<ClockGame> FromState(const v1::ClockSnapshot& state) {
  absl::StatusOr<ClockGame> game = ClockGame::Create(state.created());
  if (!game.ok()) {
    return CorruptLog(absl::StrCat("the snapshot's creation: ", game.status().message()));
  }
  ASSIGN_OR_RETURN(chessclock::ClockState clock_state, StateFromProto(state.clock()));
  absl::StatusOr<Clock> clock =
      Clock::Restore(game->clock().time_control(), game->clock().options(), clock_state);
  if (!clock.ok()) {
    return CorruptLog(absl::StrCat("the snapshot's clock: ", clock.status().message()));
  }
  if (state.version() < 1) return CorruptLog("a snapshot holds at least the creation");
  ClockRecord record;
  record.version = state.version();
  record.last_event_ms = state.last_event_ms();
  for (const v1::FlagRecord& f : state.flags()) {
    std::optional<Color> side = ColorOf(f.side());
    if (!side.has_value()) return CorruptLog("a recorded flag of neither side in the snapshot");
    record.flags.push_back(RecordedFlag{*side, f.fell_at_ms(), f.noticed_at_ms(), f.counts(),
                                        f.article(), f.version()});
  }
  if (state.has_decision()) record.decision = DecisionFromProto(state.decision());
  if (state.has_last_claim()) record.last_claim = state.last_claim();
  record.default_recorded = state.default_recorded();
  return ClockGame::Restored(*std::move(game), *std::move(clock), std::move(record));
}

}  // namespace

// --- The decision
// ----------------------------------------------------------------------------------

v1::Outcome OutcomeToProto(const ClockDecision& d) {
  v1::Outcome out;
  if (d.kind == ClockDecision::Kind::kFlagFell) {
    // No result, not even "ongoing": 6.10 (C4 in 1997 blitz) decides it from the position.
    out.set_result(v1::RESULT_UNSPECIFIED);
    out.set_termination(ToProto(d.outcome.termination));
    out.set_article(d.outcome.article);
    return out;
  }
  ToProto(d.outcome, &out);
  out.clear_article();  // a result names its article on the decision (ClockDecision.article)
  return out;
}

v1::ClockDecision DecisionToProto(const ClockDecision& d) {
  v1::ClockDecision out;
  *out.mutable_outcome() = OutcomeToProto(d);
  out.set_article(d.article);
  out.set_at_ms(d.at_ms);
  out.set_kind(base::EnumEntry(kProtoKinds, d.kind, v1::ClockDecision::KIND_UNSPECIFIED));
  if (d.kind == ClockDecision::Kind::kFlagFell) out.set_result_article(d.outcome.article);
  if (d.flagged.has_value()) out.set_flagged(ToProto(*d.flagged));
  out.set_needs_mating_potential(d.needs_mating_potential);
  return out;
}

ClockDecision DecisionFromProto(const v1::ClockDecision& in) {
  ClockDecision d;
  d.kind = base::EnumOfEntry<ClockDecision::Kind>(kProtoKinds, in.kind())
               .value_or(ClockDecision::Kind::kUnspecified);
  d.outcome = laws::OutcomeOf(in.outcome());
  // A result's article is the decision's; a fallen flag's outcome names 6.10's.
  if (d.kind != ClockDecision::Kind::kFlagFell) d.outcome.article = in.article();
  d.article = in.article();
  d.at_ms = in.at_ms();
  d.flagged = ColorOf(in.flagged());
  d.needs_mating_potential = in.needs_mating_potential();
  return d;
}

// --- The store's records
// ---------------------------------------------------------------------------

v1::GameSnapshot ToSnapshot(const ClockGame& game) {
  v1::ClockSnapshot state;
  *state.mutable_created() = game.created();
  *state.mutable_clock() = StateToProto(game.clock().state());
  state.set_version(game.version());
  state.set_last_event_ms(game.last_event_ms());
  for (const RecordedFlag& f : game.recorded_flags()) *state.add_flags() = FlagRecordOf(f);
  if (game.decision().has_value()) *state.mutable_decision() = DecisionToProto(*game.decision());
  if (game.last_claim().has_value()) *state.mutable_last_claim() = *game.last_claim();
  state.set_default_recorded(game.default_recorded());
  v1::GameSnapshot snapshot;
  snapshot.set_schema_version(kClockSnapshotSchemaVersion);
  snapshot.mutable_state()->set_type_url(std::string(kSnapshotType));
  snapshot.mutable_state()->set_value(state.SerializeAsString());
  return snapshot;
}

absl::StatusOr<ClockGame> FromSnapshot(const v1::GameSnapshot& snapshot) {
  if (snapshot.state().type_url() != kSnapshotType) {
    return CorruptLog(
        absl::StrCat("the game's state is not a clock (", snapshot.state().type_url(), ")"));
  }
  const std::uint32_t schema = snapshot.schema_version();
  if (schema != kClockSnapshotSchemaVersion && schema != kClockReplaySnapshotSchemaVersion) {
    return CorruptLog(absl::StrCat("unknown clock snapshot schema version ", schema));
  }
  v1::ClockSnapshot state;
  if (!state.ParseFromString(snapshot.state().value())) {
    return CorruptLog("the clock snapshot does not parse");
  }
  absl::StatusOr<ClockGame> game =
      schema == kClockSnapshotSchemaVersion ? FromState(state) : ClockGame::Replay(state.events());
  if (!game.ok()) return game.status();
  if (snapshot.version() != 0 && snapshot.version() != game->version()) {
    return CorruptLog(absl::StrCat("the snapshot at version ", snapshot.version(), " holds ",
                                   game->version(), " events"));
  }
  return game;
}

v1::GameEvent ToGameEvent(const v1::ClockEvent& event, std::int64_t recorded_at_ms) {
  v1::GameEvent out;
  out.set_recorded_at_ms(recorded_at_ms);
  out.set_schema_version(kClockSchemaVersion);
  out.mutable_body()->set_type_url(std::string(kEventType));
  out.mutable_body()->set_value(event.SerializeAsString());
  return out;
}

absl::StatusOr<v1::ClockEvent> FromGameEvent(const v1::GameEvent& event) {
  if (event.body().type_url() != kEventType) {
    return CorruptLog(absl::StrCat("event ", event.version(), " is not a clock event (",
                                   event.body().type_url(), ")"));
  }
  if (event.schema_version() != kClockSchemaVersion) {
    return CorruptLog(absl::StrCat("event ", event.version(), ": unknown schema version ",
                                   event.schema_version()));
  }
  v1::ClockEvent out;
  if (!out.ParseFromString(event.body().value())) {
    return CorruptLog(absl::StrCat("event ", event.version(), " does not parse"));
  }
  return out;
}

// --- The reading
// -----------------------------------------------------------------------------------

v1::ClockReading Read(const ClockGame& game, absl::string_view game_id, std::int64_t now_ms) {
  const std::int64_t t = std::max(now_ms, game.last_event_ms());
  const Clock& clock = game.clock();
  const Color kWhite = Color::kWhite;
  const Color kBlack = Color::kBlack;
  v1::ClockReading r;
  r.set_game_id(std::string(game_id));
  r.set_version(game.version());
  r.set_server_time_ms(t);
  const std::int64_t white = clock.RemainingMs(kWhite, t);
  const std::int64_t black = clock.RemainingMs(kBlack, t);
  r.set_white_ms(std::max<std::int64_t>(0, white));
  r.set_black_ms(std::max<std::int64_t>(0, black));
  r.set_white_remaining_ms(white);
  r.set_black_remaining_ms(black);
  if (std::optional<Color> running = clock.running(); running.has_value()) {
    r.set_running(ToProto(*running));
  }
  r.set_white_moves(clock.moves(kWhite));
  r.set_black_moves(clock.moves(kBlack));
  r.set_white_period(clock.period_index(kWhite) + 1);
  r.set_black_period(clock.period_index(kBlack) + 1);
  r.set_delay_left_ms(clock.DelayLeftMs(t));
  if (std::optional<chessclock::FlagFall> flag = clock.FirstFlag(t); flag.has_value()) {
    r.set_flag_side(ToProto(flag->side));
    r.set_flag_at_ms(flag->at_ms);
  }
  r.set_speed(ToProto(game.speed()));
  r.set_status(std::string(chessclock::ClockStatusName(clock.status())));
  r.set_to_move(ToProto(clock.to_move()));
  if (std::optional<std::int64_t> deadline = clock.Deadline(); deadline.has_value()) {
    r.set_deadline_ms(*deadline);
  }
  if (std::optional<std::int64_t> at = clock.FlagTime(kWhite, t); at.has_value()) {
    r.set_white_flag_ms(*at);
  }
  if (std::optional<std::int64_t> at = clock.FlagTime(kBlack, t); at.has_value()) {
    r.set_black_flag_ms(*at);
  }
  // 6.12 / 10.3 only where the order of the flags is unknown; otherwise the first flag decides.
  if (chessclock::FlagOrderUnknown(clock, t)) {
    const laws::BothFlagsRuling both = RuleBothFlags(clock, game.edition(), game.speed());
    r.set_both_flags_outcome(std::string(laws::BothFlagsOutcomeName(both.outcome)));
    r.set_both_flags_article(std::string(both.article));
  }
  for (Color side : {kWhite, kBlack}) {
    if (clock.LostByDefault(side, t)) r.add_defaulted(ToProto(side));
  }
  // 8.4; B3 / 2023 A.2: rapid and blitz have no duty to keep score.
  r.set_white_scoresheet_duty_lapsed(
      chessclock::ScoresheetDutyLapsed(clock, game.edition(), kWhite, t));
  r.set_black_scoresheet_duty_lapsed(
      chessclock::ScoresheetDutyLapsed(clock, game.edition(), kBlack, t));
  if (clock.options().lag_compensation) {
    r.set_white_lag_quota_ms(clock.lag_quota_ms(kWhite));
    r.set_black_lag_quota_ms(clock.lag_quota_ms(kBlack));
  }
  for (const RecordedFlag& f : game.recorded_flags()) *r.add_recorded_flags() = FlagRecordOf(f);
  if (r.recorded_flags_size() > 0)
    *r.mutable_flag_event() = r.recorded_flags(r.recorded_flags_size() - 1);
  if (game.decision().has_value()) *r.mutable_decision() = DecisionToProto(*game.decision());
  r.set_edition(ToProto(game.edition()));
  r.set_time_control(game.time_control_text());
  return r;
}

}  // namespace clock_authority
