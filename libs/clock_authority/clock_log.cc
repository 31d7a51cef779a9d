#include "libs/clock_authority/clock_log.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/laws/proto_convert.h"

namespace clockauth {
namespace {

using chess::Color;
using chessclock::Clock;
// The proto conversions are libs/laws's (one place for every service).
using laws::ColorOf;
using laws::EditionOf;
using laws::SpeedCategory;
using laws::ToProto;

constexpr absl::string_view kSnapshotType = "type.googleapis.com/arbiter.v1.ClockSnapshot";
constexpr absl::string_view kEventType = "type.googleapis.com/arbiter.v1.ClockEvent";

absl::Status Corrupt(absl::string_view message) {
  return base::Error(absl::StatusCode::kInternal, kErrCorruptLog, message);
}

absl::Status BadArgument(absl::string_view message) {
  return base::InvalidArgument("ERR_BAD_ARGUMENT", message);
}

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
  switch (state.status) {
    case chessclock::ClockStatus::kNotStarted:
      out.set_status(v1::ClockRunState::STATUS_NOT_STARTED);
      break;
    case chessclock::ClockStatus::kRunning:
      out.set_status(v1::ClockRunState::STATUS_RUNNING);
      break;
    case chessclock::ClockStatus::kPaused:
      out.set_status(v1::ClockRunState::STATUS_PAUSED);
      break;
  }
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
  switch (state.status()) {
    case v1::ClockRunState::STATUS_NOT_STARTED:
      out.status = chessclock::ClockStatus::kNotStarted;
      break;
    case v1::ClockRunState::STATUS_RUNNING:
      out.status = chessclock::ClockStatus::kRunning;
      break;
    case v1::ClockRunState::STATUS_PAUSED:
      out.status = chessclock::ClockStatus::kPaused;
      break;
    default:
      return Corrupt(absl::StrCat("unknown clock status ", state.status(), " in the snapshot"));
  }
  std::optional<Color> to_move = ColorOf(state.to_move());
  if (!to_move.has_value()) return Corrupt("the snapshot's side to move is neither side");
  out.to_move = *to_move;
  return out;
}

absl::StatusOr<chessclock::BonusKind> BonusKindOf(absl::string_view name) {
  for (chessclock::BonusKind kind :
       {chessclock::BonusKind::kNone, chessclock::BonusKind::kIncrement,
        chessclock::BonusKind::kSimpleDelay, chessclock::BonusKind::kBronsteinDelay}) {
    if (chessclock::BonusKindName(kind) == name) return kind;
  }
  return base::InvalidArgument("ERR_BAD_TIME_CONTROL",
                               absl::StrCat("unknown bonus kind \"", name, "\""));
}

absl::StatusOr<chessclock::TimeControl> TimeControlOf(const v1::ClockCreated& created) {
  if (created.hourglass()) {
    if (created.periods_size() != 1) {
      return base::InvalidArgument("ERR_BAD_TIME_CONTROL", "an hourglass has one period");
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

absl::StatusOr<SpeedCategory> SpeedOf(v1::GameType type) {
  switch (type) {
    case v1::GAME_TYPE_STANDARD:
      return SpeedCategory::kStandard;
    case v1::GAME_TYPE_RAPID:
      return SpeedCategory::kRapid;
    case v1::GAME_TYPE_BLITZ:
      return SpeedCategory::kBlitz;
    default:
      return base::InvalidArgument("ERR_BAD_ARGUMENT", "game_type is not a speed category");
  }
}

// 6.7: a default is a result by itself ("verliert die Partie"), whatever the position.
v1::Outcome DefaultWinFor(Color winner) {
  v1::Outcome out;
  out.set_result(winner == Color::kWhite ? v1::RESULT_WHITE_WINS : v1::RESULT_BLACK_WINS);
  out.set_termination(v1::TERMINATION_DEFAULT);
  out.set_winner(ToProto(winner));
  return out;
}

// A counted flag is not a win (6.10; 1997 blitz C4): the clock knows no position, so it names no
// result, only the rule it follows from. See ClockDecision.KIND_FLAG_FELL.
v1::Outcome FlagFellOutcome(const laws::FlagResultRule& rule) {
  v1::Outcome out;
  out.set_result(v1::RESULT_UNSPECIFIED);
  out.set_termination(v1::TERMINATION_TIME_FORFEIT);
  out.set_article(std::string(rule.article));
  return out;
}

v1::ClockDecision FlagFellDecision(const ClockGame& game, Color flagged, absl::string_view article,
                                   std::int64_t at_ms) {
  const laws::FlagResultRule rule = laws::FlagResultFor(game.edition(), game.speed());
  v1::ClockDecision d;
  *d.mutable_outcome() = FlagFellOutcome(rule);
  d.set_article(std::string(article));
  d.set_at_ms(at_ms);
  d.set_kind(v1::ClockDecision::KIND_FLAG_FELL);
  d.set_flagged(ToProto(flagged));
  d.set_result_article(std::string(rule.article));
  d.set_needs_mating_potential(rule.needs_mating_potential);
  return d;
}

v1::Outcome BothFlagsDraw() {
  v1::Outcome out;
  out.set_result(v1::RESULT_DRAW);
  out.set_termination(v1::TERMINATION_BOTH_FLAGS);
  return out;
}

bool BothInFinalPeriod(const Clock& clock) {
  return clock.InFinalPeriod(Color::kWhite) && clock.InFinalPeriod(Color::kBlack);
}

// The first flag of `side` as the state holds it, whatever the time (nullopt if not yet fallen).
// 6.7: the sides that have lost by default at `at_ms` (absent, not arrived by the deadline).
std::vector<Color> DefaultedSides(const Clock& clock, std::int64_t at_ms) {
  std::vector<Color> out;
  for (Color side : {Color::kWhite, Color::kBlack}) {
    if (clock.LostByDefault(side, at_ms)) out.push_back(side);
  }
  return out;
}

// The instant 6.7 would decide the game if nobody arrives: nullopt when it cannot (not started,
// already ruled on, decided, everyone present).
std::optional<std::int64_t> DefaultDue(const ClockGame& game) {
  const Clock& clock = game.clock();
  if (game.default_recorded() || game.decision().has_value()) return std::nullopt;
  const std::optional<std::int64_t> deadline = clock.DefaultDeadline();
  if (!deadline.has_value()) return std::nullopt;
  const std::int64_t due = *deadline + 1;  // "more than" the default time late
  // Someone absent may still be late; someone present may have come late already (a start more
  // than the default time after the scheduled start, 6.7).
  for (Color side : {Color::kWhite, Color::kBlack}) {
    if (!clock.present(side) || clock.LostByDefault(side, due)) return due;
  }
  return std::nullopt;
}

std::optional<std::int64_t> FallenFlag(const Clock& clock, Color side) {
  return clock.FlagTime(side, std::numeric_limits<std::int64_t>::min());
}

// B7 / 6.9 / B8 / 6.12: how a claim of `claimant` at `at_ms` is ruled.
struct ClaimRuling {
  bool granted = false;
  std::string article;
  v1::Outcome outcome;
};

ClaimRuling RuleClaim(const ClockGame& game, Color claimant, std::int64_t at_ms) {
  const Clock& clock = game.clock();
  const std::optional<std::int64_t> own = clock.FlagTime(claimant, at_ms);
  const std::optional<std::int64_t> opponent = clock.FlagTime(~claimant, at_ms);
  const FlagRule rule = game.flag_rule();
  ClaimRuling ruling;
  if (own.has_value() && opponent.has_value()) {
    // B8 / 6.12: both flags down and, for the claim, which fell first does not matter.
    laws::BothFlagsRuling both =
        laws::RuleBothFlagsFallen(game.edition(), game.speed(), BothInFinalPeriod(clock));
    ruling.article = std::string(both.article);
    if (both.outcome == laws::BothFlagsOutcome::kDraw) {
      ruling.granted = true;
      ruling.outcome = BothFlagsDraw();
    }
    return ruling;
  }
  // B7: granted only if the claimant's flag is still up and the opponent's has fallen. Where the
  // flag counts when observed, a player's pointing it out is the other half of 6.9.
  ruling.article = rule.counts_when_observed ? "6.9" : "B7";
  if (opponent.has_value()) {
    ruling.granted = true;
    // The opponent's flag counts now; what it decides is 6.10's (C4 in 1997 blitz), not a win.
    ruling.outcome = FlagFellOutcome(laws::FlagResultFor(game.edition(), game.speed()));
  }
  return ruling;
}

}  // namespace

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

// --- ClockGame ---------------------------------------------------------------------------------

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
  ASSIGN_OR_RETURN(laws::Edition edition, EditionOf(created.edition()));
  ASSIGN_OR_RETURN(SpeedCategory speed, SpeedOf(created.game_type()));
  chessclock::ClockOptions options;
  options.default_time_ms = created.default_time_ms();
  options.delay_saved_time = created.delay_saved_time_discard()
                                 ? chessclock::DelaySavedTime::kDiscard
                                 : chessclock::DelaySavedTime::kCarry;
  options.lag_compensation = created.lag_compensation();
  if (created.has_scheduled_start_ms()) options.scheduled_start_ms = created.scheduled_start_ms();
  options.lag = {created.lag_quota_gain_ms(), created.lag_initial_quota_ms(),
                 created.lag_quota_max_ms()};
  ASSIGN_OR_RETURN(Clock clock, Clock::Create(tc, options));
  ClockGame game(created, clock, edition, speed);
  game.version_ = 1;
  game.last_event_ms_ = created.at_ms();
  return game;
}

namespace {

template <typename Events>
absl::StatusOr<ClockGame> ReplayAll(const Events& events) {
  if (events.empty() || !events[0].has_created()) {
    return Corrupt("a clock's log begins with its creation");
  }
  absl::StatusOr<ClockGame> game = ClockGame::Create(events[0].created());
  if (!game.ok()) return Corrupt(absl::StrCat("event 1 (created): ", game.status().message()));
  for (int i = 1; i < static_cast<int>(events.size()); ++i) {
    if (absl::Status st = game->Apply(events[i]); !st.ok()) {
      return Corrupt(absl::StrCat("event ", i + 1, " does not apply: ", base::ErrorCode(st), ": ",
                                  st.message()));
    }
  }
  return game;
}

}  // namespace

absl::StatusOr<ClockGame> ClockGame::Replay(absl::Span<const v1::ClockEvent> events) {
  return ReplayAll(events);
}

absl::StatusOr<ClockGame> ClockGame::Replay(
    const google::protobuf::RepeatedPtrField<v1::ClockEvent>& events) {
  return ReplayAll(events);
}

absl::StatusOr<ClockGame> ClockGame::FromSnapshot(const v1::GameSnapshot& snapshot) {
  if (snapshot.state().type_url() != kSnapshotType) {
    return Corrupt(
        absl::StrCat("the game's state is not a clock (", snapshot.state().type_url(), ")"));
  }
  const std::uint32_t schema = snapshot.schema_version();
  if (schema != kClockSnapshotSchemaVersion && schema != kClockReplaySnapshotSchemaVersion) {
    return Corrupt(absl::StrCat("unknown clock snapshot schema version ", schema));
  }
  v1::ClockSnapshot state;
  if (!state.ParseFromString(snapshot.state().value())) {
    return Corrupt("the clock snapshot does not parse");
  }
  absl::StatusOr<ClockGame> game =
      schema == kClockSnapshotSchemaVersion ? FromState(state) : ClockGame::Replay(state.events());
  if (!game.ok()) return game.status();
  if (snapshot.version() != 0 && snapshot.version() != game->version()) {
    return Corrupt(absl::StrCat("the snapshot at version ", snapshot.version(), " holds ",
                                game->version(), " events"));
  }
  return game;
}

absl::StatusOr<ClockGame> ClockGame::FromState(const v1::ClockSnapshot& state) {
  absl::StatusOr<ClockGame> game = Create(state.created());
  if (!game.ok()) {
    return Corrupt(absl::StrCat("the snapshot's creation: ", game.status().message()));
  }
  absl::StatusOr<chessclock::ClockState> clock_state = StateFromProto(state.clock());
  if (!clock_state.ok()) return clock_state.status();
  absl::StatusOr<Clock> clock =
      Clock::Restore(game->clock_.time_control(), game->clock_.options(), *clock_state);
  if (!clock.ok()) return Corrupt(absl::StrCat("the snapshot's clock: ", clock.status().message()));
  if (state.version() < 1) return Corrupt("a snapshot holds at least the creation");
  game->clock_ = *clock;
  game->version_ = state.version();
  game->last_event_ms_ = state.last_event_ms();
  for (const v1::FlagRecord& f : state.flags()) {
    std::optional<Color> side = ColorOf(f.side());
    if (!side.has_value()) return Corrupt("a recorded flag of neither side in the snapshot");
    game->flags_.push_back(RecordedFlag{*side, f.fell_at_ms(), f.noticed_at_ms(), f.counts(),
                                        f.article(), f.version()});
  }
  if (state.has_decision()) game->decision_ = state.decision();
  if (state.has_last_claim()) game->last_claim_ = state.last_claim();
  game->default_recorded_ = state.default_recorded();
  return game;
}

bool ClockGame::IsRecorded(Color side, std::int64_t fell_at_ms) const {
  for (const RecordedFlag& f : flags_) {
    if (f.side == side && f.fell_at_ms == fell_at_ms) return true;
  }
  return false;
}

v1::GameSnapshot ClockGame::Snapshot() const {
  v1::ClockSnapshot state;
  *state.mutable_created() = *created_;
  *state.mutable_clock() = StateToProto(clock_.state());
  state.set_version(version_);
  state.set_last_event_ms(last_event_ms_);
  for (const RecordedFlag& f : flags_) *state.add_flags() = FlagRecordOf(f);
  if (decision_.has_value()) *state.mutable_decision() = *decision_;
  if (last_claim_.has_value()) *state.mutable_last_claim() = *last_claim_;
  state.set_default_recorded(default_recorded_);
  v1::GameSnapshot snapshot;
  snapshot.set_schema_version(kClockSnapshotSchemaVersion);
  snapshot.mutable_state()->set_type_url(std::string(kSnapshotType));
  snapshot.mutable_state()->set_value(state.SerializeAsString());
  return snapshot;
}

absl::Status ClockGame::Apply(const v1::ClockEvent& event) {
  const std::int64_t at = EventTime(event);
  // A flag fall or a default is recorded at the instant it happened, maybe noticed later.
  if (at < clock_.last_operation_ms() && event.event_case() != v1::ClockEvent::kFlagFell &&
      event.event_case() != v1::ClockEvent::kDefaulted) {
    return base::InvalidArgument(
        "ERR_TIME_WENT_BACKWARDS",
        absl::StrCat("an event at ", at, " ms is before the clock's last operation at ",
                     clock_.last_operation_ms(), " ms"));
  }
  // A failed operation leaves the game unchanged.
  const Clock clock_before = clock_;
  const std::optional<v1::ClockDecision> decision_before = decision_;
  const size_t flags_before = flags_.size();
  const std::optional<v1::FlagClaimed> claim_before = last_claim_;
  const bool default_before = default_recorded_;
  if (absl::Status st = ApplyOperation(event); !st.ok()) {
    default_recorded_ = default_before;
    clock_ = clock_before;
    decision_ = decision_before;
    last_claim_ = claim_before;
    flags_.erase(flags_.begin() + static_cast<std::ptrdiff_t>(flags_before), flags_.end());
    return st;
  }
  ++version_;
  last_event_ms_ = std::max(last_event_ms_, at);
  return absl::OkStatus();
}

absl::Status ClockGame::ApplyOperation(const v1::ClockEvent& e) {
  const bool decided = decision_.has_value();
  auto refuse_decided = [&]() -> absl::Status {
    return base::FailedPrecondition(
        kErrGameDecided, absl::StrCat("the clock has decided the game (", decision_->article(),
                                      "); the arbiter may set the clock to continue (6.14)"));
  };
  switch (e.event_case()) {
    case v1::ClockEvent::kCreated:
      return BadArgument("a clock is created once");
    case v1::ClockEvent::kStarted: {
      bool present[2] = {true, true};
      for (int c : e.started().absent()) {
        std::optional<Color> side = ColorOf(static_cast<v1::Color>(c));
        if (!side.has_value()) return BadArgument("absent: a side is white or black");
        present[chess::Index(*side)] = false;
      }
      return clock_.Start(e.started().at_ms(), present[0], present[1]);
    }
    case v1::ClockEvent::kPressed: {
      const v1::ClockPressed& p = e.pressed();
      if (decided) {
        // 6.9: the mover's flag fell before he pressed; the move does not save him.
        for (const RecordedFlag& f : flags_) {
          if (f.counts && f.side == clock_.to_move() &&
              f.fell_at_ms == FallenFlag(clock_, f.side)) {
            return base::FailedPrecondition(
                kErrFlagFallen,
                absl::StrCat(chess::ColorName(f.side), "'s flag fell at ", f.fell_at_ms,
                             " ms, before the press (", f.article, ")"));
          }
        }
        return refuse_decided();
      }
      if (p.lag_ms() < 0) return BadArgument("lag_ms cannot be negative");
      std::optional<Color> side = ColorOf(p.side());
      if (side.has_value()) return clock_.Press(*side, p.at_ms(), p.lag_ms());
      return clock_.Press(p.at_ms(), p.lag_ms());
    }
    case v1::ClockEvent::kArrived: {
      if (decided) return refuse_decided();  // e.g. 6.7: he came after the default time
      std::optional<Color> side = ColorOf(e.arrived().side());
      if (!side.has_value()) return BadArgument("side is required: white or black");
      return clock_.Arrive(*side, e.arrived().at_ms());
    }
    case v1::ClockEvent::kPaused:
      return clock_.Pause(e.paused().at_ms());
    case v1::ClockEvent::kResumed:
      if (decided) return refuse_decided();
      return clock_.Resume(e.resumed().at_ms());
    case v1::ClockEvent::kAdjusted: {
      // The game is decided: an adjustment would change a clock whose flag already decided it
      // (and, with time left, raise that flag). The arbiter continues a game by Set (6.14).
      if (decided) return refuse_decided();
      const v1::ClockAdjusted& a = e.adjusted();
      std::optional<Color> side = ColorOf(a.side());
      if (!side.has_value()) return BadArgument("side is required: white or black");
      ASSIGN_OR_RETURN(chessclock::AdjustReason reason, chessclock::ParseAdjustReason(a.reason()));
      return clock_.Adjust(*side, a.delta_ms(), reason, a.at_ms());
    }
    case v1::ClockEvent::kSet: {
      const v1::ClockSet& s = e.set();
      chessclock::ClockSetting setting;
      setting.white_ms = s.white_ms();
      setting.black_ms = s.black_ms();
      if (s.has_white_moves()) setting.white_moves = s.white_moves();
      if (s.has_black_moves()) setting.black_moves = s.black_moves();
      setting.to_move = ColorOf(s.to_move());
      RETURN_IF_ERROR(clock_.Set(setting, s.at_ms()));
      decision_.reset();  // 6.14: the arbiter restored a position; play goes on from it
      return absl::OkStatus();
    }
    case v1::ClockEvent::kReplaced: {
      const v1::ClockReplaced& r = e.replaced();
      RETURN_IF_ERROR(clock_.Replace(r.white_ms(), r.black_ms(), r.at_ms()));
      decision_.reset();  // 6.11: a replacement clock with the arbiter's times
      return absl::OkStatus();
    }
    case v1::ClockEvent::kFlagFell: {
      const v1::FlagFell& f = e.flag_fell();
      std::optional<Color> side = ColorOf(f.side());
      if (!side.has_value()) return BadArgument("flag_fell: side is white or black");
      if (clock_.FlagTime(*side, f.fell_at_ms()) != f.fell_at_ms()) {
        return BadArgument(absl::StrCat(chess::ColorName(*side), "'s flag did not fall at ",
                                        f.fell_at_ms(), " ms"));
      }
      if (IsRecorded(*side, f.fell_at_ms())) return BadArgument("this flag fall is recorded");
      if (f.noticed_at_ms() < f.fell_at_ms()) return BadArgument("noticed before it fell");
      flags_.push_back(
          {*side, f.fell_at_ms(), f.noticed_at_ms(), f.counts(), f.article(), version_ + 1});
      if (!f.counts()) return absl::OkStatus();  // B6: it counts only when claimed
      if (FallenFlag(clock_, ~*side).has_value()) {
        // 6.12 / 10.3: both flags down and not determinable which first.
        laws::BothFlagsRuling both =
            laws::RuleBothFlagsFallen(edition_, speed_, BothInFinalPeriod(clock_));
        if (both.outcome == laws::BothFlagsOutcome::kDraw) {
          v1::ClockDecision d;
          *d.mutable_outcome() = BothFlagsDraw();
          d.set_article(std::string(both.article));
          d.set_at_ms(f.fell_at_ms());
          d.set_kind(v1::ClockDecision::KIND_RESULT);  // B8 / 6.12b / 10.3: a draw by itself
          decision_ = d;
        } else {
          decision_.reset();
        }
        return absl::OkStatus();
      }
      // 6.9: the flag counts the moment it is observed; the arbiter stops the clocks (8.5a) at
      // the fall, so the display stays at zero. What it decides follows from 6.10 (C4 in 1997
      // blitz): the arbitration service rules on the position; the clock says only that it fell.
      decision_ = FlagFellDecision(*this, *side, f.article(), f.fell_at_ms());
      if (clock_.status() == chessclock::ClockStatus::kRunning) {
        RETURN_IF_ERROR(clock_.Pause(f.fell_at_ms()));
      }
      return absl::OkStatus();
    }
    case v1::ClockEvent::kDefaulted: {
      const v1::PlayerDefaulted& d = e.defaulted();
      if (default_recorded_) return BadArgument("the default (6.7) is recorded");
      if (decided) return refuse_decided();
      const std::optional<std::int64_t> deadline = clock_.DefaultDeadline();
      if (!deadline.has_value() || d.at_ms() != *deadline + 1) {
        return BadArgument("a default is recorded the first instant after the default time");
      }
      std::vector<Color> late = DefaultedSides(clock_, d.at_ms());
      std::vector<Color> named;
      for (int side : d.sides()) {
        std::optional<Color> c = ColorOf(static_cast<v1::Color>(side));
        if (!c.has_value()) return BadArgument("defaulted: a side is white or black");
        named.push_back(*c);
      }
      if (late.empty() || named != late) {
        return BadArgument(
            "the defaulted sides are not those absent when the default time ran out");
      }
      default_recorded_ = true;
      v1::ClockDecision decision;
      if (late.size() == 1) {
        *decision.mutable_outcome() = DefaultWinFor(~late[0]);
      } else {
        decision.mutable_outcome()->set_result(v1::RESULT_DOUBLE_FORFEIT);
      }
      decision.mutable_outcome()->set_termination(v1::TERMINATION_DEFAULT);
      decision.set_kind(v1::ClockDecision::KIND_RESULT);
      decision.set_article(d.article());
      decision.set_at_ms(d.at_ms());
      decision_ = decision;
      // The game is over: the clock stops (as the arbiter would stop it).
      if (clock_.status() == chessclock::ClockStatus::kRunning) {
        RETURN_IF_ERROR(clock_.Pause(std::max(d.at_ms(), clock_.last_operation_ms())));
      }
      return absl::OkStatus();
    }
    case v1::ClockEvent::kFlagClaimed: {
      const v1::FlagClaimed& c = e.flag_claimed();
      std::optional<Color> claimant = ColorOf(c.claimant());
      if (!claimant.has_value()) return BadArgument("claimant: white or black");
      if (decided) return refuse_decided();
      if (clock_.status() == chessclock::ClockStatus::kNotStarted) {
        return base::FailedPrecondition("ERR_CLOCK_NOT_STARTED", "the clock has not been started");
      }
      ClaimRuling ruling = RuleClaim(*this, *claimant, c.at_ms());
      if (ruling.granted != c.granted()) return BadArgument("the claim's ruling does not match");
      last_claim_ = c;
      if (!ruling.granted) return absl::OkStatus();
      v1::ClockDecision d;
      if (ruling.outcome.result() == v1::RESULT_DRAW) {
        *d.mutable_outcome() = ruling.outcome;  // B8 / 6.12b: both flags, a draw by itself
        d.set_article(ruling.article);
        d.set_at_ms(c.at_ms());
        d.set_kind(v1::ClockDecision::KIND_RESULT);
      } else {
        // B7: the opponent's flag counts; the result follows from 6.10 (C4 in 1997 blitz).
        d = FlagFellDecision(*this, ~*claimant, ruling.article, c.at_ms());
      }
      decision_ = d;
      // B7: the claimant stops both clocks.
      if (clock_.status() == chessclock::ClockStatus::kRunning) {
        RETURN_IF_ERROR(clock_.Pause(c.at_ms()));
      }
      return absl::OkStatus();
    }
    case v1::ClockEvent::EVENT_NOT_SET:
      break;
  }
  return BadArgument("an empty clock event");
}

// --- Commands ----------------------------------------------------------------------------------

absl::StatusOr<v1::ClockCreated> NewClock(const v1::CreateClockRequest& request,
                                          std::int64_t now_ms) {
  const bool pgn = !request.time_control().empty();
  const bool human = !request.time_control_human().empty();
  if (pgn == human) {
    return base::InvalidArgument(
        "ERR_BAD_TIME_CONTROL",
        "give exactly one of time_control (PGN tag, seconds) and time_control_human (minutes)");
  }
  ASSIGN_OR_RETURN(chessclock::TimeControl tc,
                   pgn ? chessclock::ParsePgnTimeControl(request.time_control())
                       : chessclock::ParseHumanTimeControl(request.time_control_human()));
  if (tc.untimed()) {
    return base::InvalidArgument("ERR_BAD_TIME_CONTROL",
                                 "a game without time control (\"-\") has no clock to run");
  }
  ASSIGN_OR_RETURN(laws::Edition edition, EditionOf(request.edition()));
  SpeedCategory speed = chessclock::Speed(tc, edition);
  if (request.game_type() != v1::GAME_TYPE_UNSPECIFIED) {
    ASSIGN_OR_RETURN(speed, SpeedOf(request.game_type()));
  }
  if (request.has_default_time_ms() && request.default_time_ms() < 0) {
    return base::InvalidArgument("ERR_BAD_OPTIONS", "default_time_ms cannot be negative");
  }

  v1::ClockCreated created;
  created.set_at_ms(now_ms);
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
  if (request.has_scheduled_start_ms())
    created.set_scheduled_start_ms(request.scheduled_start_ms());
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

// FlagFell events for every flag fallen by `now_ms` and not yet recorded, in the order they fell.
static std::vector<v1::ClockEvent> FallenFlags(const ClockGame& game, std::int64_t now_ms) {
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

std::vector<v1::ClockEvent> SettleFlags(const ClockGame& game, std::int64_t now_ms) {
  now_ms = std::max(now_ms, game.last_event_ms());
  std::vector<v1::ClockEvent> events = FallenFlags(game, now_ms);
  const std::optional<std::int64_t> due = DefaultDue(game);
  if (!due.has_value() || *due > now_ms) return events;
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
  return out;
}

absl::StatusOr<Decision> Decide(const ClockGame& game, const v1::ClockEvent& command,
                                std::int64_t now_ms) {
  now_ms = std::max(now_ms, game.last_event_ms());
  ClockGame g = game;
  Decision decision;
  auto settle = [&]() -> absl::Status {
    for (v1::ClockEvent& flag : SettleFlags(g, now_ms)) {
      if (absl::Status st = g.Apply(flag); !st.ok()) {
        return base::Error(absl::StatusCode::kInternal, kErrCorruptLog,
                           absl::StrCat("recording a flag: ", st.message()));
      }
      decision.events.push_back(std::move(flag));
    }
    return absl::OkStatus();
  };
  // Flags that fell before the command come first: they may decide whether it still applies.
  RETURN_IF_ERROR(settle());

  v1::ClockEvent event = command;
  switch (event.event_case()) {
    case v1::ClockEvent::kStarted:
      event.mutable_started()->set_at_ms(now_ms);
      break;
    case v1::ClockEvent::kPressed:
      event.mutable_pressed()->set_at_ms(now_ms);
      break;
    case v1::ClockEvent::kArrived:
      event.mutable_arrived()->set_at_ms(now_ms);
      break;
    case v1::ClockEvent::kPaused:
      event.mutable_paused()->set_at_ms(now_ms);
      break;
    case v1::ClockEvent::kResumed:
      event.mutable_resumed()->set_at_ms(now_ms);
      break;
    case v1::ClockEvent::kAdjusted:
      event.mutable_adjusted()->set_at_ms(now_ms);
      break;
    case v1::ClockEvent::kSet:
      event.mutable_set()->set_at_ms(now_ms);
      break;
    case v1::ClockEvent::kReplaced:
      event.mutable_replaced()->set_at_ms(now_ms);
      break;
    case v1::ClockEvent::kFlagClaimed: {
      v1::FlagClaimed* c = event.mutable_flag_claimed();
      c->set_at_ms(now_ms);
      std::optional<Color> claimant = ColorOf(c->claimant());
      if (!claimant.has_value()) return BadArgument("color (the claimant) is required");
      if (g.decision().has_value()) break;  // Apply refuses: ERR_GAME_DECIDED
      ClaimRuling ruling = RuleClaim(g, *claimant, now_ms);
      c->set_granted(ruling.granted);
      c->set_article(ruling.article);
      if (ruling.granted) *c->mutable_outcome() = ruling.outcome;
      break;
    }
    case v1::ClockEvent::kCreated:
    case v1::ClockEvent::kFlagFell:
    case v1::ClockEvent::kDefaulted:
    case v1::ClockEvent::EVENT_NOT_SET:
      return BadArgument("not a clock command");
  }
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
  const Clock& clock = game.clock();
  if (game.decision().has_value()) return std::nullopt;
  std::optional<std::int64_t> flag;
  if (clock.status() == chessclock::ClockStatus::kRunning &&
      !FallenFlag(clock, clock.to_move()).has_value()) {
    flag = clock.Deadline();
  }
  const std::optional<std::int64_t> dflt = DefaultDue(game);
  if (flag.has_value() && dflt.has_value()) return std::min(*flag, *dflt);
  return flag.has_value() ? flag : dflt;
}

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
  if (clock.FlagFallen(kWhite, t) && clock.FlagFallen(kBlack, t)) {
    laws::BothFlagsRuling both =
        laws::RuleBothFlagsFallen(game.edition(), game.speed(), BothInFinalPeriod(clock));
    r.set_both_flags_outcome(std::string(laws::BothFlagsOutcomeName(both.outcome)));
    r.set_both_flags_article(std::string(both.article));
  }
  for (Color side : {kWhite, kBlack}) {
    if (clock.LostByDefault(side, t)) r.add_defaulted(ToProto(side));
  }
  r.set_white_scoresheet_duty_lapsed(clock.ScoresheetDutyLapsed(kWhite, t));
  r.set_black_scoresheet_duty_lapsed(clock.ScoresheetDutyLapsed(kBlack, t));
  if (clock.options().lag_compensation) {
    r.set_white_lag_quota_ms(clock.lag_quota_ms(kWhite));
    r.set_black_lag_quota_ms(clock.lag_quota_ms(kBlack));
  }
  for (const RecordedFlag& f : game.recorded_flags()) *r.add_recorded_flags() = FlagRecordOf(f);
  if (r.recorded_flags_size() > 0)
    *r.mutable_flag_event() = r.recorded_flags(r.recorded_flags_size() - 1);
  if (game.decision().has_value()) *r.mutable_decision() = *game.decision();
  r.set_edition(ToProto(game.edition()));
  r.set_time_control(game.time_control_text());
  return r;
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
    return Corrupt(absl::StrCat("event ", event.version(), " is not a clock event (",
                                event.body().type_url(), ")"));
  }
  if (event.schema_version() != kClockSchemaVersion) {
    return Corrupt(absl::StrCat("event ", event.version(), ": unknown schema version ",
                                event.schema_version()));
  }
  v1::ClockEvent out;
  if (!out.ParseFromString(event.body().value())) {
    return Corrupt(absl::StrCat("event ", event.version(), " does not parse"));
  }
  return out;
}

}  // namespace clockauth
