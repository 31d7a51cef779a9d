#include "libs/arbitration/game_state.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/apply_log.h"
#include "libs/arbitration/errors.h"
#include "libs/base/bounds.h"
#include "libs/base/enum_table.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/clock/errors.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {
namespace {

using chess::Color;

laws::Regulations RegulationsOf(const v1::Regulations& r) {
  laws::Regulations out;
  if (r.has_default_time_ms()) out.default_time_ms = r.default_time_ms();
  out.arbiter_present = r.arbiter_present();
  out.no_draw_offers_before_move = r.no_draw_offers_before_move();
  out.max_draw_offers = r.max_draw_offers();
  if (r.points_win() != 0 || r.points_draw() != 0 || r.points_loss() != 0) {
    out.points = {r.points_win(), r.points_draw(), r.points_loss()};
  }
  out.lag_compensation = r.lag_compensation();
  if (r.has_illegal_move_extra_ms()) out.illegal_move_extra_ms = r.illegal_move_extra_ms();
  if (r.has_supervised()) out.supervised = r.supervised();  // 2023 A.3 / A.4; unset: A.3
  return out;
}

}  // namespace

v1::GameStatus ToProto(GameStatus status) {
  switch (status) {
    case GameStatus::kCreated:
      return v1::GAME_STATUS_CREATED;
    case GameStatus::kOngoing:
      return v1::GAME_STATUS_ONGOING;
    case GameStatus::kAwaitingRuling:
      return v1::GAME_STATUS_AWAITING_RULING;
    case GameStatus::kEnded:
      return v1::GAME_STATUS_ENDED;
    case GameStatus::kAdjourned:  // Appendix A
      return v1::GAME_STATUS_ADJOURNED;
  }
  return v1::GAME_STATUS_UNSPECIFIED;
}

absl::string_view GameStatusName(GameStatus status) {
  static constexpr absl::string_view kNames[] = {"created", "ongoing", "awaiting_ruling", "ended",
                                                 "adjourned"};
  return base::EnumEntry(kNames, status, "ongoing");
}

absl::StatusOr<chessclock::TimeControl> ParseAnyTimeControl(absl::string_view text) {
  absl::StatusOr<chessclock::TimeControl> pgn = chessclock::ParsePgnTimeControl(text);
  if (pgn.ok()) return pgn;
  absl::StatusOr<chessclock::TimeControl> human = chessclock::ParseHumanTimeControl(text);
  if (human.ok()) return human;
  return base::Error(
      chessclock::kErrBadTimeControl,
      absl::StrCat("time_control \"", text, "\" is neither a PGN tag (", pgn.status().message(),
                   ") nor the arbiters' notation (", human.status().message(), ")"));
}

GameState::GameState(std::shared_ptr<const v1::GameCreated> created, laws::Ruleset ruleset,
                     chess::Game game, chessclock::Clock clock)
    : created_(std::move(created)),
      ruleset_(std::move(ruleset)),
      game_(std::move(game)),
      clock_(std::move(clock)),
      log_() {}

GameState::Log::Log() : storage_(std::make_shared<Storage>()) {}

template <typename T>
GameState::Log::Segments<T>::~Segments() {
  for (std::atomic<T*>& segment : segments) delete[] segment.load();
}

std::pair<int, std::int64_t> GameState::Log::Locate(std::int64_t i) {
  const std::uint64_t j = static_cast<std::uint64_t>(i) + 16;
  const int segment = std::bit_width(j) - 5;
  return {segment, static_cast<std::int64_t>(j - (std::uint64_t{16} << segment))};
}

template <typename T>
T& GameState::Log::Segments<T>::at(std::int64_t i) const {
  const auto [segment, offset] = Locate(i);
  return segments[segment].load(std::memory_order_acquire)[offset];
}

template <typename T>
T& GameState::Log::Segments<T>::Claimed(std::int64_t i) {
  const auto [segment, offset] = Locate(i);
  std::atomic<T*>& slot = segments[segment];
  T* items = slot.load(std::memory_order_acquire);
  if (items == nullptr) {
    // Only the append that claimed the segment's first item makes it.
    items = new T[std::size_t{16} << segment]();
    slot.store(items, std::memory_order_release);
  }
  return items[offset];
}

v1::ArbitrationEvent GameState::Log::at(std::int64_t i) const {
  v1::ArbitrationEvent event;
  // The bytes are this log's own serialization of an event: they parse.
  event.ParseFromString(storage_->events.at(i));
  return event;
}

absl::string_view GameState::Log::san(std::int64_t ply) const {
  const San& s = storage_->sans.at(ply);
  return absl::string_view(s.text, s.size);
}

void GameState::Log::Append(const v1::ArbitrationEvent& event) {
  std::string bytes;
  event.SerializeToString(&bytes);
  Append(std::move(bytes), event.has_move() ? &event.move().san() : nullptr);
}

void GameState::Log::Append(std::string bytes, const std::string* san) {
  std::int64_t expected = size_;
  if (!storage_->end.compare_exchange_strong(expected, size_ + 1)) {
    // Another copy appended here first: this state's events go to storage of its own.
    // (Rare: two commands decided on one cached state; each event is read back once.)
    Log copy;
    for (std::int64_t i = 0; i < size_; ++i) copy.Append(at(i));
    *this = std::move(copy);
    return Append(std::move(bytes), san);
  }
  // The storage's end is this log's: its next event and its next move are this append's to write.
  storage_->events.Claimed(size_) = std::move(bytes);
  ++size_;
  if (san != nullptr) {
    San& s = storage_->sans.Claimed(plies_);
    s.size = static_cast<std::uint8_t>(std::min(san->size(), sizeof(s.text)));
    std::memcpy(s.text, san->data(), s.size);
    ++plies_;
  }
}

std::vector<v1::ArbitrationEvent> GameState::events() const {
  std::vector<v1::ArbitrationEvent> out;
  out.reserve(static_cast<size_t>(version()));
  for (std::int64_t i = 0; i < version(); ++i) out.push_back(event(i));
  return out;
}

absl::StatusOr<GameState> GameState::Create(const v1::ArbitrationEvent& created) {
  if (!created.has_created()) return CorruptLog("the first event is not the creation");
  const v1::GameCreated& c = created.created();
  ASSIGN_OR_RETURN(laws::Edition edition, laws::EditionOf(c.ruleset().edition()));
  ASSIGN_OR_RETURN(chessclock::TimeControl tc, ParseAnyTimeControl(c.time_control()));
  ASSIGN_OR_RETURN(chess::Position start,
                   chess::ParseFenOrStartpos(c.start_fen().empty() ? "startpos" : c.start_fen()));
  laws::Ruleset ruleset =
      laws::Ruleset::Make(edition, tc, RegulationsOf(c.ruleset().regulations()));
  chessclock::ClockOptions options;
  options.default_time_ms = laws::DefaultTimeMs(ruleset);
  options.lag_compensation = ruleset.regulations.lag_compensation;
  ASSIGN_OR_RETURN(chessclock::Clock clock, chessclock::Clock::Create(tc, options));
  GameState state(std::make_shared<const v1::GameCreated>(c), ruleset, chess::Game(start),
                  std::move(clock));
  state.turn_start_remaining_ms_ = tc.initial_ms();
  state.last_event_ms_ = created.at_ms();
  state.log_.Append(created);
  return state;
}

absl::StatusOr<chess::Game> GameState::FullGame() const {
  // The standing moves (Article 7: restorations take moves back; a completed illegal move, C3,
  // starts the game anew from the position it made).
  ASSIGN_OR_RETURN(Standing record, StandingRecord());
  const std::size_t base = static_cast<std::size_t>(legal_base_ply_);
  chess::Game game(record.positions.at(base));
  for (std::size_t i = base; i < record.moves.size(); ++i) {
    RETURN_IF_ERROR(game.Play(record.moves[i]));
  }
  return game;
}

namespace {

template <typename Events>
absl::StatusOr<GameState> ReplayEvents(const Events& events) {
  if (events.empty()) return CorruptLog("the log is empty");
  ASSIGN_OR_RETURN(GameState state, GameState::Create(*events.begin()));
  int i = 0;
  for (const v1::ArbitrationEvent& e : events) {
    if (i++ == 0) continue;
    absl::Status applied = state.Apply(e);
    if (!applied.ok()) return CorruptLog(absl::StrCat("event ", i, ": ", applied.message()));
  }
  return state;
}

}  // namespace

absl::StatusOr<GameState> GameState::Replay(absl::Span<const v1::ArbitrationEvent> events) {
  return ReplayEvents(events);
}

absl::StatusOr<GameState> GameState::FromSnapshot(const v1::GameLogSnapshot& snapshot) {
  return ReplayEvents(snapshot.events());
}

v1::GameLogSnapshot GameState::Snapshot() const {
  v1::GameLogSnapshot out;
  out.mutable_events()->Reserve(static_cast<int>(version()));
  for (std::int64_t i = 0; i < version(); ++i) *out.add_events() = event(i);
  return out;
}

bool GameState::FlagRecorded(Color side) const {
  for (const v1::FlagRecorded& f : flags_) {
    if (SideOf(f.side()) == side) return true;
  }
  return false;
}

std::int64_t GameState::RemainingMs(Color side, std::int64_t now_ms) const {
  std::int64_t at = std::max(now_ms, last_event_ms_);
  if (ended_at_ms_) at = *ended_at_ms_;
  return clock_.RemainingMs(side, std::max(at, clock_.last_operation_ms()));
}

void GameState::StopClock(std::int64_t at_ms) {
  if (clock_.status() == chessclock::ClockStatus::kRunning) {
    absl::Status paused = clock_.Pause(at_ms);
    (void)paused;  // running and at_ms >= its last operation: cannot fail
  }
}

absl::Status GameState::Apply(const v1::ArbitrationEvent& event) {
  if (event.has_created()) return CorruptLog("a second creation");
  if (event.at_ms() < last_event_ms_) {
    return CorruptLog(
        absl::StrCat("event at ", event.at_ms(), " ms before the last at ", last_event_ms_, " ms"));
  }
  // In place: copying the state first (so that a failure left it unchanged) cost a copy of the
  // whole position history per event, and every caller discards a state whose event did not
  // apply (a decision's scratch state, a replay, a deadline check).
  const std::vector<EventSlot>& table = EventTable();
  const auto kind = static_cast<std::size_t>(event.kind_case());
  if (kind >= table.size() || table[kind].apply == nullptr) {
    return CorruptLog("an event of no known kind");
  }
  RETURN_IF_ERROR(table[kind].apply(*this, event, event.at_ms()));
  last_event_ms_ = event.at_ms();
  log_.Append(event);
  return absl::OkStatus();
}

const std::vector<GameState::EventSlot>& GameState::EventTable() {
  static const std::vector<EventSlot>* const table = [] {
    using Family = std::vector<EventRule> (*)();
    auto* by_kind = new std::vector<EventSlot>;
    for (Family family : {PlayEvents, ResultEvents, DrawEvents, TimeEvents, AdjournmentEvents,
                          IrregularityEvents, BoardEvents}) {
      for (const EventRule& row : family()) {
        const auto i = static_cast<std::size_t>(row.kind);
        if (by_kind->size() <= i) by_kind->resize(i + 1);
        EventSlot& slot = (*by_kind)[i];
        if (slot.rows++ == 0) slot.apply = row.apply;
      }
    }
    return by_kind;
  }();
  return *table;
}

int GameState::EventRows(v1::ArbitrationEvent::KindCase kind) {
  const std::vector<EventSlot>& table = EventTable();
  const auto i = static_cast<std::size_t>(kind);
  return i < table.size() ? table[i].rows : 0;
}

// Article 4 on an electronic board (touch_move.h): the touch log's rows, each applied to the
// game's log with the player on move (a touch-move violation pauses with its own GamePaused).
std::vector<GameState::EventRule> GameState::BoardEvents() {
  std::vector<EventRule> rows;
  for (const TouchLog::EventRule& row : TouchLog::EventRows()) {
    rows.push_back({row.kind, [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t) {
                      return s.touches_.Apply(event, s.to_move());
                    }});
  }
  return rows;
}

// The start and arrivals (6.5-6.7) and the moves (with 9.1, 6.8a and Appendix A9).
std::vector<GameState::EventRule> GameState::PlayEvents() {
  return {
      {v1::ArbitrationEvent::kStarted,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         if (s.status_ != GameStatus::kCreated) return CorruptLog("started twice");
         ASSIGN_OR_RETURN(const auto absent, AbsentSides(event.started().absent()));
         // The clock starts from the position's side to move (a FEN may give Black the move).
         RETURN_IF_ERROR(s.clock_.Start(at, !absent[chess::Index(Color::kWhite)],
                                        !absent[chess::Index(Color::kBlack)]));
         if (s.game_.position().side_to_move() == Color::kBlack) {
           RETURN_IF_ERROR(s.clock_.Set({.white_ms = s.clock_.RemainingMs(Color::kWhite, at),
                                         .black_ms = s.clock_.RemainingMs(Color::kBlack, at),
                                         .to_move = Color::kBlack},
                                        at));
         }
         // 6.7: counted from the scheduled start, or from the start when none was set.
         const std::int64_t scheduled =
             s.created_->scheduled_start_ms() > 0 ? s.created_->scheduled_start_ms() : at;
         s.default_deadline_ms_ = scheduled + laws::DefaultTimeMs(s.ruleset_);
         s.turn_start_remaining_ms_ = s.clock_.RemainingMs(s.to_move(), at);
         s.status_ = GameStatus::kOngoing;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kArrived,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         ASSIGN_OR_RETURN(const Color side, SideOr(event.arrived().side(), "an arrival"));
         // Appendix A9, A10: absent at the resumption of an adjourned game (the clock knew him).
         if (s.adjournment_.absent[chess::Index(side)]) {
           s.adjournment_.absent[chess::Index(side)] = false;
           return absl::OkStatus();
         }
         return s.clock_.Arrive(side, at);
       }},
      {v1::ArbitrationEvent::kMove,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         const v1::MoveMade& m = event.move();
         std::optional<Color> side = SideOf(m.side());
         if (!side || *side != s.to_move()) return CorruptLog("a move by the side not to move");
         if (s.unplayable_) return CorruptLog("a move after an illegal move that left no position");
         ASSIGN_OR_RETURN(chess::Move move, chess::ParseUci(s.game_.position(), m.uci()));
         s.touches_.OnMove(s.game_.position(), move);  // 4.3: the turn's touches end with its move
         RETURN_IF_ERROR(s.game_.Play(move));
         // C3: once the opponent has moved, a completed illegal move stands; 4.3 is satisfied.
         if (s.completed_illegal_ && *s.completed_illegal_ != *side) s.completed_illegal_.reset();
         s.must_move_.reset();
         s.must_capture_.reset();
         ++s.standing_plies_;
         // A capture or a pawn move: no earlier position can stand again (see game()).
         if (s.game_.position().halfmove_clock() == 0) s.game_ = s.game_.RepetitionWindow();
         if (m.sealed()) {
           // Appendix A9: the sealed move opened and played on the board. The sealer's clock was
           // pressed when the envelope closed; the replier's runs. A4: an offer the replier made
           // after the sealing is not rejected by it (the move was sealed before the offer).
           s.adjournment_.sealed.reset();
           s.adjournment_.envelope.reset();
           if (m.ends_game()) s.StopClock(at);
           return absl::OkStatus();
         }
         if (m.ends_game()) {
           s.StopClock(at);  // 6.8a: a move that ends the game is complete without the press
         } else {
           RETURN_IF_ERROR(s.clock_.Press(*side, at, m.lag_ms()));
           s.turn_start_remaining_ms_ = s.clock_.RemainingMs(s.to_move(), at);
         }
         // 9.1: the opponent's pending offer is rejected by this move.
         if (s.draw_offer_ && *s.draw_offer_ != *side) s.draw_offer_.reset();
         if (m.offer_draw() && s.draw_offer_ != *side) {
           s.draw_offer_ = *side;
           ++s.offers_[chess::Index(*side)];
         }
         if (m.dead_position_asked()) {
           s.dead_position_questions_.push_back({.version = s.version() + 1,
                                                 .ply = s.standing_plies_,
                                                 .at_ms = at,
                                                 .white_ms = s.RemainingMs(Color::kWhite, at),
                                                 .black_ms = s.RemainingMs(Color::kBlack, at),
                                                 .position = s.game_.position()});
         }
         return absl::OkStatus();
       }},
  };
}

// Resignation (5.1b), the end of the game, the players' confirmation (8.7), the arbiter's result.
std::vector<GameState::EventRule> GameState::ResultEvents() {
  return {
      {v1::ArbitrationEvent::kResigned,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kEnded,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         s.paused_ = false;
         s.StopClock(at);
         s.outcome_ = laws::OutcomeOf(event.ended().outcome());
         s.proof_ = event.ended().proof();
         s.review_ = event.ended().review();
         s.review_awaits_analysis_ = s.review_ && event.ended().review_awaits_analysis();
         s.status_ = GameStatus::kEnded;
         s.ended_at_ms_ = at;
         s.draw_offer_.reset();
         s.pending_claim_.reset();
         s.awaiting_after_flag_ = false;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kConfirmed,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         ASSIGN_OR_RETURN(const Color side, SideOr(event.confirmed().side(), "a confirmation"));
         s.confirmed_[chess::Index(side)] = true;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kResultSet,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         s.StopClock(at);
         s.outcome_ = laws::OutcomeOf(event.result_set().outcome());
         s.review_ = false;
         s.review_awaits_analysis_ = false;   // the arbiter's result settles the review
         s.dead_position_questions_.clear();  // and stands whatever analysis answers
         s.status_ = GameStatus::kEnded;
         if (!s.ended_at_ms_) s.ended_at_ms_ = at;
         s.draw_offer_.reset();
         s.pending_claim_.reset();
         s.awaiting_after_flag_ = false;
         return absl::OkStatus();
       }},
      // 5.2b / 9.6: a move's dead-position question answered. Dead: "Damit ist die Partie sofort
      // beendet": the game ended the moment the position arose, so what the players did after it
      // is void: its moves are taken back (the record keeps them, retracted), the clocks are as
      // they were then, and a result they reached since (a resignation, a flag, an agreement)
      // gives way to the draw.
      {v1::ArbitrationEvent::kDeadPositionAnswered,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         const v1::DeadPositionAnswered& a = event.dead_position_answered();
         if (s.dead_position_questions_.empty() ||
             s.dead_position_questions_.front().version != a.version()) {
           return CorruptLog("an answer to no pending dead-position question");
         }
         const DeadPositionQuestion q = s.dead_position_questions_.front();
         s.dead_position_questions_.erase(s.dead_position_questions_.begin());
         if (!a.dead()) return absl::OkStatus();
         s.dead_position_questions_.clear();
         RETURN_IF_ERROR(s.RestoreTo(q.ply, at));
         chessclock::ClockSetting then;
         then.white_ms = q.white_ms;
         then.black_ms = q.black_ms;
         then.white_moves = s.clock_.moves(Color::kWhite);
         then.black_moves = s.clock_.moves(Color::kBlack);
         then.to_move = s.to_move();
         RETURN_IF_ERROR(s.clock_.Set(then, at));
         s.StopClock(at);
         s.paused_ = false;
         s.outcome_ = laws::Outcome::Draw(laws::Termination::kDeadPosition, a.article());
         s.proof_ = a.proof();
         s.review_ = false;
         s.review_awaits_analysis_ = false;
         s.status_ = GameStatus::kEnded;
         s.ended_at_ms_ = q.at_ms;
         s.draw_offer_.reset();
         s.pending_claim_.reset();
         s.awaiting_after_flag_ = false;
         return absl::OkStatus();
       }},
      // A review that waited for analysis, settled by its answer (only while it waits: after the
      // arbiter's result there is nothing left to settle).
      {v1::ArbitrationEvent::kReviewSettled,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         if (!s.review_awaits_analysis_) return CorruptLog("a review settled that did not wait");
         s.outcome_ = laws::OutcomeOf(event.review_settled().outcome());
         s.proof_ = event.review_settled().proof();
         s.review_ = event.review_settled().review();
         s.review_awaits_analysis_ = false;
         s.review_settled_ = event.review_settled();
         return absl::OkStatus();
       }},
  };
}

absl::StatusOr<v1::ArbitrationEvent> NewGame(const v1::CreateGameRequest& request,
                                             std::int64_t now_ms, const v1::Actor& actor) {
  if (request.white_id().empty() || request.black_id().empty()) {
    return Error(kErrBadArgument, "white_id and black_id are required");
  }
  if (request.white_id().size() > 128 || request.black_id().size() > 128 ||
      request.event().size() > 256 || request.site().size() > 256 || request.round().size() > 64 ||
      request.white_name().size() > 256 || request.black_name().size() > 256) {
    return Error(kErrBadArgument, "an id or a name is too long");
  }
  if (request.broadcast_delay_plies() < 0 || request.broadcast_delay_ms() < 0 ||
      request.scheduled_start_ms() < 0) {
    return Error(kErrBadArgument, "delays and the scheduled start cannot be negative");
  }
  // Appendix A13: the sessions, announced in advance, in order and not overlapping.
  if (request.sessions_size() > 64) return Error(kErrBadArgument, "at most 64 sessions");
  for (int i = 0; i < request.sessions_size(); ++i) {
    const v1::Session& session = request.sessions(i);
    if (session.start_ms() <= 0 || session.end_ms() <= session.start_ms() ||
        session.place().size() > 256 ||
        (i > 0 && session.start_ms() < request.sessions(i - 1).end_ms())) {
      return Error(kErrBadArgument,
                   absl::StrCat("session ", i + 1,
                                ": a start before its end, after the previous session's end"));
    }
  }
  const v1::Regulations& regs = request.ruleset().regulations();
  if (regs.no_draw_offers_before_move() < 0 || regs.max_draw_offers() < 0 ||
      (regs.has_default_time_ms() && regs.default_time_ms() < 0) ||
      (regs.has_illegal_move_extra_ms() && regs.illegal_move_extra_ms() < 0)) {
    return Error(kErrBadArgument, "regulations: counts and times cannot be negative");
  }
  // The platform's numbers end in sums (6.7's deadline, 7.5.5's extra time): bounded before they
  // can wrap (libs/base/bounds.h).
  RETURN_IF_ERROR(base::CheckCount("regulations.no_draw_offers_before_move",
                                   regs.no_draw_offers_before_move()));
  RETURN_IF_ERROR(base::CheckCount("regulations.max_draw_offers", regs.max_draw_offers()));
  if (regs.has_default_time_ms()) {
    RETURN_IF_ERROR(base::CheckDurationMs("regulations.default_time_ms", regs.default_time_ms()));
  }
  if (regs.has_illegal_move_extra_ms()) {
    RETURN_IF_ERROR(
        base::CheckDurationMs("regulations.illegal_move_extra_ms", regs.illegal_move_extra_ms()));
  }
  RETURN_IF_ERROR(base::CheckInstantMs("scheduled_start_ms", request.scheduled_start_ms()));
  for (const v1::Session& session : request.sessions()) {
    RETURN_IF_ERROR(base::CheckInstantMs("sessions.end_ms", session.end_ms()));
  }
  ASSIGN_OR_RETURN(laws::Edition edition, laws::EditionOf(request.ruleset().edition()));
  if (request.time_control().empty() == request.time_control_human().empty()) {
    return base::Error(chessclock::kErrBadTimeControl,
                       "give exactly one of time_control (the PGN tag, seconds) and "
                       "time_control_human (the arbiters' notation, minutes)");
  }
  ASSIGN_OR_RETURN(chessclock::TimeControl tc,
                   request.time_control_human().empty()
                       ? ParseAnyTimeControl(request.time_control())
                       : chessclock::ParseHumanTimeControl(request.time_control_human()));
  if (tc.untimed()) {
    return base::Error(chessclock::kErrBadTimeControl, "a game needs a timed control");
  }
  ASSIGN_OR_RETURN(
      chess::Position start,
      chess::ParseFenOrStartpos(request.start_fen().empty() ? "startpos" : request.start_fen()));
  if (!start.HasLegalMoves() || start.IsInsufficientMaterial()) {
    return Error(kErrBadStartPosition,
                 "the start position is already over (checkmate, stalemate or dead, 5.1, 5.2)");
  }
  v1::ArbitrationEvent event;
  event.set_at_ms(now_ms);
  *event.mutable_actor() = actor;
  v1::GameCreated* c = event.mutable_created();
  c->set_white_id(request.white_id());
  c->set_black_id(request.black_id());
  *c->mutable_ruleset() = request.ruleset();
  c->mutable_ruleset()->set_game_type(laws::ToProto(chessclock::Speed(tc, edition)));
  // Recorded in one canonical form that reads back the same (a PGN tag unless a delay needs the
  // arbiters' notation).
  absl::StatusOr<std::string> tag = chessclock::FormatPgnTimeControl(tc);
  if (tag.ok()) {
    c->set_time_control(*tag);
  } else {
    ASSIGN_OR_RETURN(std::string human, chessclock::FormatHumanTimeControl(tc));
    c->set_time_control(human);
  }
  c->set_start_fen(request.start_fen().empty() ? "" : chess::ToFen(start));
  c->set_scheduled_start_ms(request.scheduled_start_ms());
  c->set_broadcast_delay_plies(request.broadcast_delay_plies());
  c->set_broadcast_delay_ms(request.broadcast_delay_ms());
  c->set_event(request.event());
  c->set_site(request.site());
  c->set_round(request.round());
  c->set_white_name(request.white_name());
  c->set_black_name(request.black_name());
  *c->mutable_sessions() = request.sessions();
  return event;
}

}  // namespace arbitration
