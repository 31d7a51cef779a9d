#include "libs/arbitration/observer_view.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "libs/arbitration/rulings.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"
#include "libs/store/command_ids.h"

namespace arbitration {
namespace {

// The instant an observer's view is read at, from what he may see alone: the time delay's
// `now - broadcast_delay_ms`, never before the last event he sees; under a ply delay the instant of
// the last event he sees, whether or not a move is held back now. Reading at the first held-back
// move's instant (or at `now` only when nothing is held back) would tell when that move was made,
// or that one was.
std::int64_t ObserverInstant(absl::Span<const v1::ArbitrationEvent> events, size_t visible,
                             std::int64_t now_ms) {
  if (events.empty() || !events[0].has_created()) return now_ms;
  const v1::GameCreated& created = events[0].created();
  const std::int64_t delay_ms = std::max<std::int64_t>(0, created.broadcast_delay_ms());
  if (created.broadcast_delay_plies() <= 0 && delay_ms == 0) return now_ms;
  const std::int64_t last = visible > 0 ? events[visible - 1].at_ms() : events[0].at_ms();
  bool ended = false;
  for (size_t i = 0; i < visible; ++i) ended = ended || events[i].has_ended();
  if (created.broadcast_delay_plies() > 0 && !ended) return last;
  return std::max(last, now_ms - delay_ms);
}

}  // namespace

// What `viewer` may see of an event's actor and command id (`command_id` as the client sent it).
void RedactActor(const Viewer& viewer, v1::ArbitrationEvent* event, std::string* command_id) {
  if (viewer.all_actors) return;
  if (viewer.subject.empty() || event->actor().subject() != viewer.subject) {
    event->mutable_actor()->clear_subject();
    command_id->clear();
  } else if (store::IsReservedCommandId(*command_id)) {
    command_id->clear();  // an id the server made for his command
  }
}

// How many of the log's first events an observer may see at `now_ms`: everything before the
// first move held back by the broadcast delay (the last `broadcast_delay_plies` plies while the
// game goes on, and every move younger than `broadcast_delay_ms`), so that nothing recorded after
// a hidden move (an offer, a claim, an illegal move, the end) gives it away.
std::size_t VisibleEvents(absl::Span<const v1::ArbitrationEvent> events, std::int64_t now_ms) {
  if (events.empty() || !events[0].has_created()) return events.size();
  const v1::GameCreated& created = events[0].created();
  const int plies = std::max(0, created.broadcast_delay_plies());
  const std::int64_t delay_ms = std::max<std::int64_t>(0, created.broadcast_delay_ms());
  if (plies == 0 && delay_ms == 0) return events.size();
  int total_moves = 0;
  bool ended = false;
  for (const v1::ArbitrationEvent& e : events) {
    if (e.has_move()) ++total_moves;
    if (e.has_ended()) ended = true;
  }
  int move_index = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (!events[i].has_move()) continue;
    // Once the game is over the plies are no longer held back (nothing left to help with), but
    // the time delay still runs.
    const bool by_plies = !ended && move_index >= total_moves - plies;
    const bool by_time = events[i].at_ms() + delay_ms > now_ms;
    if (by_plies || by_time) return i;
    ++move_index;
  }
  return events.size();
}

absl::StatusOr<Seen> SeenBy(const Viewer& viewer, std::shared_ptr<const GameState> game,
                            std::int64_t now_ms) {
  if (!viewer.delayed) return Seen{std::move(game), now_ms, false};
  const std::vector<v1::ArbitrationEvent>& events = game->events();
  const size_t visible = VisibleEvents(events, now_ms);
  const std::int64_t at = ObserverInstant(events, visible, now_ms);
  const bool delayed = !events.empty() && events[0].has_created() &&
                       (events[0].created().broadcast_delay_plies() > 0 ||
                        events[0].created().broadcast_delay_ms() > 0);
  if (visible == events.size()) return Seen{std::move(game), at, false, delayed};
  ASSIGN_OR_RETURN(GameState prefix,
                   GameState::Replay(absl::MakeConstSpan(events.data(), visible)));
  return Seen{std::make_shared<const GameState>(std::move(prefix)), at, true, true};
}

void FillView(absl::string_view game_id, const Seen& seen, const Viewer& viewer,
              v1::GameView* view) {
  const GameState& g = *seen.game;
  view->set_game_id(std::string(game_id));
  view->set_version(g.version());
  view->set_status(ToProto(g.status()));
  if (g.outcome().over()) laws::ToProto(g.outcome(), view->mutable_outcome());
  view->set_fen(chess::ToFen(g.position()));
  view->mutable_moves_san()->Reserve(static_cast<int>(g.plies()));
  for (std::int64_t ply = 0; ply < g.plies(); ++ply) {
    if (g.retracted(ply)) continue;  // taken back by a restoration (7.3-7.5)
    const absl::string_view san = g.san(ply);
    view->add_moves_san(san.data(), san.size());
  }
  view->set_to_move(laws::ToProto(g.to_move()));
  view->set_white_ms(g.RemainingMs(chess::Color::kWhite, seen.at_ms));
  view->set_black_ms(g.RemainingMs(chess::Color::kBlack, seen.at_ms));
  if (g.status() == GameStatus::kOngoing) {
    view->set_clock_running(laws::ToProto(g.clock().running()));
  }
  view->set_draw_offer(laws::ToProto(g.draw_offer()));
  if (g.pending_claim().has_value()) {
    *view->mutable_pending_claim() = *g.pending_claim();
    if (!viewer.advice) view->mutable_pending_claim()->clear_advice();  // 12.2
  }
  view->set_white_confirmed(g.confirmed(chess::Color::kWhite));
  view->set_black_confirmed(g.confirmed(chess::Color::kBlack));
  // 11.1 (or the regulations'), with 13.4e/f and 12.7.
  const auto [white_points, black_points] = g.Points();
  view->set_white_points(white_points);
  view->set_black_points(black_points);
  *view->mutable_ruleset() = g.created().ruleset();
  view->mutable_ruleset()->set_game_type(laws::ToProto(g.ruleset().speed));
  view->set_white_id(g.created().white_id());
  view->set_black_id(g.created().black_id());
  view->set_time_control(g.created().time_control());
  view->set_event(g.created().event());
  view->set_site(g.created().site());
  view->set_round(g.created().round());
  view->set_white_name(g.created().white_name());
  view->set_black_name(g.created().black_name());
  view->set_scheduled_start_ms(g.created().scheduled_start_ms());
  view->set_now_ms(seen.at_ms);
  view->set_review(g.review());
  view->set_review_awaits_analysis(g.review_awaits_analysis());
  if (g.review_settled()) *view->mutable_review_settled() = *g.review_settled();
  // The illegal-move ledger (7.4b, 7.5.5, C3).
  if (!g.illegal_ledger().empty()) {
    v1::IllegalMoveLedger* ledger = view->mutable_illegal_moves();
    ledger->set_white(g.illegal_moves(chess::Color::kWhite));
    ledger->set_black(g.illegal_moves(chess::Color::kBlack));
    for (const v1::IllegalMoveEntry& entry : g.illegal_ledger()) *ledger->add_entries() = entry;
  }
  view->set_paused(g.paused());
  // 6.13b: who stopped the clocks, until the arbiter rules (6.13d).
  if (g.stopped_by().has_value()) view->set_stopped_by(laws::ToProto(*g.stopped_by()));
  view->set_last_event_ms(g.last_event_ms());
  // Appendix A2: the envelope's record (never the sealed move: it is not in the state in clear).
  if (g.adjournment().envelope && !g.adjournment().envelope->reply()) {
    *view->mutable_envelope() = *g.adjournment().envelope;
  }
  view->set_move_sealed(g.adjournment().sealed.has_value());
  view->set_seal_called(g.adjournment().seal_called);
  // Article 4: this turn's touches and what they oblige (nothing to do, and nearly
  // free, when none: every move clears them).
  for (const Touch& t : g.touches().touches()) {
    v1::PieceTouched* touched = view->add_touched();
    touched->set_side(laws::ToProto(g.to_move()));
    touched->set_square(SquareText(t.square));
    touched->set_piece(PieceText(t.piece));
    touched->set_adjusting(t.adjusting);
    touched->set_promotion(t.promotion);
  }
  if (std::optional<OwedMove> owed = CurrentObligation(g.touches(), g.position(), g.ruleset())) {
    v1::MoveObligation* o = view->mutable_obligation();
    o->set_free(owed->obligation.kind == Obligation::Kind::kFree);
    for (std::string& uci : owed->obligation.AllowedUci()) o->add_owed_uci(std::move(uci));
    o->set_article(owed->obligation.article);
    o->set_reason(owed->obligation.reason);
    o->set_enforced(owed->enforced);
  }
  if (!seen.cut && !seen.delayed) {
    if (std::optional<std::int64_t> deadline = NextDeadline(g)) {
      view->set_deadline_ms(*deadline);
    }
  }
}

}  // namespace arbitration
