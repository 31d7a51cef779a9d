// Articles 3, 4 and 7: a move (with what it ends and the offer it carries), an electronic
// board's reports, a claim of touch-move, and the commands of Article 7 and C3 (irregularities.h
// rules them). See plan.h for the families.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/board_feed.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/events.h"
#include "libs/arbitration/irregularities.h"
#include "libs/arbitration/plan.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/laws/automatic_ending.h"
#include "libs/laws/proto_convert.h"
#include "libs/laws/ruleset.h"

namespace arbitration {
namespace {

using chess::Color;
using laws::Outcome;
using laws::Termination;

struct Ending {
  Outcome outcome;
  std::string proof;
};

// What the position after a move ends: the automatic endings of libs/laws (5.1a, 5.2a, 2023
// 9.6.1-2, a dead position proved statically), then, after a capture, a pawn move or a
// promotion, the analyst's dead-position check (5.2b / 9.6): a piece move cannot take away the
// last mating chance that material and pawn structure left. `asked`: the check needs
// search-analysis, asked off the move's path (the move does not wait for it).
std::optional<Ending> EndingAfterMove(const chess::Game& after, bool zeroing,
                                      const laws::Ruleset& ruleset, Analyst& analyst, bool* asked) {
  if (std::optional<laws::AutomaticEnding> end = laws::EndingOf(after, ruleset.edition)) {
    return Ending{end->outcome, end->proof};
  }
  if (zeroing) {
    std::optional<AnalystAnswer> dead = analyst.DeadPositionAtOnce(after.position());
    if (!dead.has_value()) {
      *asked = true;
    } else if (dead->verdict == analysis::Verdict::kUnwinnable) {
      return Ending{Outcome::Draw(Termination::kDeadPosition, "5.2b"), dead->proof};
    }
  }
  return std::nullopt;
}

}  // namespace

// Plays `move` for `side` at the plan's instant: the press (6.8a) unless the move ends the game.
absl::Status AddMove(Plan& plan, Color side, chess::Move move, bool offer_draw, std::int64_t lag_ms,
                     const v1::Actor& actor, Analyst& analyst) {
  const GameState& s = plan.state;
  const chess::Position& before = s.position();
  // The endings after the move need the positions that can repeat, not the whole game's.
  chess::Game after = s.game().RepetitionWindow();
  RETURN_IF_ERROR(after.Play(move));
  bool dead_position_asked = false;
  std::optional<Ending> ending =
      EndingAfterMove(after, before.IsZeroing(move), s.ruleset(), analyst, &dead_position_asked);
  const std::int64_t remaining = s.RemainingMs(side, plan.now_ms);
  v1::ArbitrationEvent e;
  v1::MoveMade* m = e.mutable_move();
  m->set_side(laws::ToProto(side));
  m->set_uci(chess::ToUci(move));
  m->set_san(chess::ToSan(before, move));
  m->set_offer_draw(offer_draw && !ending);
  m->set_lag_ms(lag_ms);
  m->set_ends_game(ending.has_value());
  m->set_dead_position_asked(dead_position_asked && !ending);
  m->set_elapsed_ms(std::max<std::int64_t>(0, s.turn_start_remaining_ms() - remaining));
  if (ending) {
    m->set_clock_ms(remaining);
  } else {
    chessclock::Clock trial = s.clock();
    RETURN_IF_ERROR(trial.Press(side, plan.now_ms, lag_ms));
    m->set_clock_ms(trial.RemainingMs(side, plan.now_ms));
  }
  RETURN_IF_ERROR(plan.Add(std::move(e), plan.now_ms, actor));
  if (ending) {
    RETURN_IF_ERROR(plan.Add(EndedEvent(ending->outcome, ending->proof), plan.now_ms, actor));
  }
  return absl::OkStatus();
}

std::vector<v1::ArbitrationEvent> DeadPositionAnswers(const GameState& game, Analyst& analyst) {
  std::vector<v1::ArbitrationEvent> out;
  for (const GameState::DeadPositionQuestion& q : game.dead_position_questions()) {
    AnalystAnswer a = analyst.DeadPosition(q.position);
    if (a.unanswered) break;  // asked again later, the older question first
    v1::ArbitrationEvent e;
    v1::DeadPositionAnswered* d = e.mutable_dead_position_answered();
    d->set_version(q.version);
    d->set_ply(q.ply);
    // 5.2b: only a proof declares it dead; an undetermined search leaves the game as it went on.
    d->set_dead(a.verdict == analysis::Verdict::kUnwinnable);
    d->set_proof(a.proof);
    d->set_article("5.2b");
    d->set_arose_at_ms(q.at_ms);
    d->set_answered_by("analysis");
    out.push_back(std::move(e));
    if (d->dead()) break;  // the game ended there: later questions are void
  }
  return out;
}

// 4.3-4.5 on the opponent's touches, at his request (B5a), refused once the claimant touched a
// piece (4.6, B5b): touch_move.h rules; a violation that stood stops the clocks.
absl::Status DecideTouchMoveClaim(Plan& plan, const Command& c, v1::ClaimRuling* ruling) {
  RETURN_IF_ERROR(CheckInPlay(plan.state));
  ASSIGN_OR_RETURN(
      std::vector<v1::ArbitrationEvent> events,
      TouchMoveClaim(plan.state.touches(), plan.state.position(), plan.state.ruleset(), *c.side));
  const v1::TouchMoveRuled& r = events.front().touch_move_ruled();
  *ruling = r.violation() || r.owed() ? v1::CLAIM_RULING_CORRECT : v1::CLAIM_RULING_INCORRECT;
  for (v1::ArbitrationEvent& e : events) {
    RETURN_IF_ERROR(plan.Add(std::move(e), plan.now_ms, c.actor));
  }
  return absl::OkStatus();
}

namespace {

absl::Status ValidateMove(const Command& c) {
  RETURN_IF_ERROR(RequireSide(c));
  if (c.move.empty() || c.move.size() > 24) {
    return Error(kErrBadArgument, "move: a move in UCI or SAN is required");
  }
  if (c.lag_ms < 0 || c.lag_ms > 60'000) {
    return Error(kErrBadArgument, "move: lag_ms must lie in [0, 60000]");
  }
  return absl::OkStatus();
}

absl::Status DecideMove(Plan& plan, const Command& c, Analyst& analyst,
                        v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  RETURN_IF_ERROR(CheckInPlay(s));
  RETURN_IF_ERROR(CheckNotPaused(s));
  RETURN_IF_ERROR(CheckNoSealPending(s));  // Appendix A1, A7
  RETURN_IF_ERROR(CheckPlayable(s));       // C3: an illegal move that left no position
  const Color side = *c.side;
  if (side != s.to_move()) {
    return Error(kErrNotYourTurn, absl::StrCat("it is ", chess::ColorName(s.to_move()), "'s move"));
  }
  // Appendix E12: a move written "e4(=)" carries a draw offer.
  const chess::MoveText text = chess::SplitDrawOffer(c.move);
  const bool offer = c.offer_draw || text.draw_offer;
  ASSIGN_OR_RETURN(chess::Move move, chess::ParseMove(s.position(), text.move));
  // 4.3 / 4.4: the touched piece must be moved (touch_move.h; nothing when none was touched).
  RETURN_IF_ERROR(CheckTouchMove(s.touches(), s.position(), s.ruleset(), move));
  // 7.4a with 4.3 on the replacing move; C3's position that cannot be played on.
  RETURN_IF_ERROR(CheckMoveAfterIrregularity(s, move));
  // An offer with a move is not blocked by a pending one: the move rejects the opponent's
  // (9.1) and the player's own stands.
  const std::optional<OfferForbidden> forbidden =
      offer ? ForbiddenOffer(s, side, s.clock().moves(side) + 1) : std::nullopt;
  if (!s.present(side)) {
    // A player who moves is at the board (6.6).
    v1::ArbitrationEvent arrived;
    arrived.mutable_arrived()->set_side(laws::ToProto(side));
    RETURN_IF_ERROR(plan.Add(std::move(arrived), now, c.actor));
  }
  RETURN_IF_ERROR(AddMove(plan, side, move, offer && !forbidden, c.lag_ms, c.actor, analyst));
  if (forbidden && plan.state.status() != GameStatus::kEnded) {
    RETURN_IF_ERROR(plan.Add(OfferRefused(side, *forbidden), now, c.actor));
  }
  return absl::OkStatus();
}

absl::Status ValidateBoardFeed(const Command& c) {
  if (c.feed.empty() || c.feed.size() > 256) {
    return Error(kErrBadArgument, "board_feed: 1 to 256 placements");
  }
  for (const v1::BoardPlacement& frame : c.feed) {
    if (frame.placement().size() > 100) {
      return Error(kErrBadArgument, "board_feed: a placement is too long");
    }
    if (!frame.placement().empty()) RETURN_IF_ERROR(ParsePlacement(frame.placement()).status());
  }
  return absl::OkStatus();
}

// An electronic board's reports (board_feed.h), each at its instant (no earlier than the last
// event, no later than now): touches and releases recorded (4.3); a legal move complete on the
// board made as SubmitMove makes it (4.6, 4.7), unless it breaks touch-move where the arbiter acts
// himself or after a ruling (then refused and ruled, 4.3 / 4.4); an illegal move that stood (the
// clock pressed) recorded and the clocks stopped for the arbiter (7.4a); the kings' result signal
// recorded, never a result (after the end, the only thing recorded). While the arbiter has the
// clocks stopped, reports only update the board (he restores the position). A touch rejects the
// opponent's pending draw offer (9.1).
absl::Status DecideBoardFeed(Plan& plan, const Command& c, Analyst& analyst,
                             v1::ClaimRuling* /*ruling*/) {
  if (plan.state.status() == GameStatus::kCreated) {
    return Error(kErrGameNotStarted, "the game has not started (6.5)");
  }
  // 4.2: "j'adoube" announced by a player (not the board) is the player to move's.
  if (c.side && *c.side != plan.state.to_move()) {
    return Error(kErrNotYourTurn, "4.2: only the player to move adjusts pieces");
  }
  const std::int64_t now = plan.now_ms;
  for (const v1::BoardPlacement& frame : c.feed) {
    const GameState& s = plan.state;
    const std::int64_t at = std::clamp(frame.at_ms() > 0 ? frame.at_ms() : now, s.last_event_ms(),
                                       std::max(now, s.last_event_ms()));
    plan.now_ms = at;
    Placement previous = PlacementOf(s.position());
    if (!s.touches().placement().empty()) {
      ASSIGN_OR_RETURN(previous, ParsePlacement(s.touches().placement()));
    }
    Placement next = previous;  // an empty placement: the board unchanged (an announcement)
    if (!frame.placement().empty()) {
      ASSIGN_OR_RETURN(next, ParsePlacement(frame.placement()));
    }
    const Color side = s.to_move();
    const TouchMoveRules rules = TouchMoveRulesOf(s.ruleset());
    const bool in_play = s.status() == GameStatus::kOngoing && !s.paused();
    // After the end only the kings' result signal is recorded (the board is cleared then).
    const bool over = s.status() == GameStatus::kEnded;
    if (over && frame.adjust()) continue;
    const auto text_of = [&](const Placement& p) {
      return p == PlacementOf(plan.state.position()) ? std::string() : PlacementText(p);
    };
    // A piece touched or released as the board shows it (PieceTouched, PieceReleased).
    const auto piece_seen = [&](auto* body, const Observation& o) {
      body->set_side(laws::ToProto(side));
      body->set_square(SquareText(o.square));
      body->set_piece(PieceText(o.piece));
      body->set_placement(text_of(next));
      return body;
    };
    if (frame.adjust() && !s.touches().adjusting()) {
      // 4.2: "j'adoube" announced before the adjustment.
      v1::ArbitrationEvent e;
      e.mutable_adjust_announced()->set_side(laws::ToProto(side));
      e.mutable_adjust_announced()->set_article(std::string(rules.adjust_article));
      RETURN_IF_ERROR(plan.Add(std::move(e), at, c.actor));
    }
    for (const Observation& o :
         Observe(s.position(), previous, next, frame.clock_pressed() && in_play,
                 !rules.promotion_final_article.empty())) {
      if (over && o.kind != Observation::Kind::kResultSignal) continue;
      v1::ArbitrationEvent e;
      switch (o.kind) {
        case Observation::Kind::kResultSignal:
          e.mutable_board_result_signal()->set_result(laws::ToProto(o.result));
          e.mutable_board_result_signal()->set_placement(text_of(next));
          break;
        case Observation::Kind::kTouched: {
          v1::PieceTouched* t = piece_seen(e.mutable_piece_touched(), o);
          t->set_adjusting(plan.state.touches().adjusting());
          // 9.1: touching a piece to move it or capture it rejects the opponent's draw offer.
          if (!t->adjusting() && in_play && plan.state.draw_offer() == ~side) {
            v1::ArbitrationEvent declined;
            declined.mutable_draw_answered()->set_side(laws::ToProto(side));
            declined.mutable_draw_answered()->set_accepted(false);
            RETURN_IF_ERROR(plan.Add(std::move(e), at, c.actor));
            e = std::move(declined);
          }
          break;
        }
        case Observation::Kind::kPromotionPiece: {
          // 2023 4.4.4: the promotion's piece has touched its square; the choice is final.
          piece_seen(e.mutable_piece_touched(), o)->set_promotion(true);
          break;
        }
        case Observation::Kind::kReleased: {
          piece_seen(e.mutable_piece_released(), o);
          break;
        }
        case Observation::Kind::kIllegalStood: {
          v1::BoardIrregularity* b = e.mutable_board_irregularity();
          b->set_side(laws::ToProto(side));
          b->set_placement(text_of(next));
          b->set_expected_fen(chess::ToFen(plan.state.position()));
          b->set_article(std::string(rules.illegal_article));
          b->set_reason("the clock was pressed on a board no legal move makes");
          RETURN_IF_ERROR(plan.Add(std::move(e), at, c.actor));
          e = v1::ArbitrationEvent();
          e.mutable_paused()->set_article(std::string(rules.illegal_article));
          e.mutable_paused()->set_reason(
              absl::StrCat("an illegal move by ", chess::ColorName(side),
                           " on the electronic board: the arbiter restores the position"));
          break;
        }
        case Observation::Kind::kMove: {
          if (!in_play) continue;
          if (std::optional<Obligation> broken = BrokenBy(
                  plan.state.touches(), plan.state.position(), plan.state.ruleset(), o.move)) {
            e = ViolationRuled(side, *broken, o.move);  // the move is not made
            break;
          }
          if (!plan.state.present(side)) {
            v1::ArbitrationEvent arrived;
            arrived.mutable_arrived()->set_side(laws::ToProto(side));
            RETURN_IF_ERROR(plan.Add(std::move(arrived), at, c.actor));
          }
          RETURN_IF_ERROR(AddMove(plan, side, o.move, false, 0, c.actor, analyst));
          continue;
        }
      }
      RETURN_IF_ERROR(plan.Add(std::move(e), at, c.actor));
    }
    // The board as reported, for the next report, where no event above recorded it.
    if (plan.state.status() != GameStatus::kEnded &&
        plan.state.touches().placement() != text_of(next)) {
      v1::ArbitrationEvent e;
      e.mutable_board_frame()->set_placement(text_of(next));
      RETURN_IF_ERROR(plan.Add(std::move(e), at, c.actor));
    }
  }
  plan.now_ms = std::max(now, plan.state.last_event_ms());
  return absl::OkStatus();
}

absl::Status ValidateReportIllegalMove(const Command& c) {
  RETURN_IF_ERROR(CheckReason(c, /*required=*/false));
  return ValidateIrregularArgs("report_illegal_move", c.irregular);
}

absl::Status DecideReportIllegalMoveCommand(Plan& plan, const Command& c, Analyst& analyst,
                                            v1::ClaimRuling* /*ruling*/) {
  // 7.4a: "Wenn ... festgestellt wird": the arbiter finds; a player claims
  // (kClaimIllegalMove) and the arbiter rules.
  if (c.actor.role() == "player" || c.actor.role() == "platform") {
    return Error(kErrClaimNotAllowed,
                 "7.4a: only the arbiter finds an illegal move; a player claims it "
                 "(claim_illegal_move) and the arbiter rules");
  }
  EventSink sink = SinkOf(plan, c);
  return DecideReportIllegalMove(sink, c.side, c.irregular, c.reason, analyst);
}

absl::Status ValidateCompleteIllegalMove(const Command& c) {
  RETURN_IF_ERROR(RequireSide(c));
  return ValidateIrregularArgs("complete_illegal_move", c.irregular);
}

absl::Status DecideCompleteIllegalMoveCommand(Plan& plan, const Command& c, Analyst& /*analyst*/,
                                              v1::ClaimRuling* /*ruling*/) {
  EventSink sink = SinkOf(plan, c);
  return DecideCompleteIllegalMove(sink, *c.side, c.irregular);
}

absl::Status ValidateClaimIllegalMove(const Command& c) {
  RETURN_IF_ERROR(RequireSide(c));
  RETURN_IF_ERROR(CheckReason(c, /*required=*/false));
  return ValidateIrregularArgs("claim_illegal_move", c.irregular);
}

absl::Status DecideClaimIllegalMove(Plan& plan, const Command& c, Analyst& analyst,
                                    v1::ClaimRuling* ruling) {
  EventSink sink = SinkOf(plan, c);
  return DecidePlayerIllegalMoveClaim(sink, *c.side, c.irregular, c.reason, analyst, ruling);
}

absl::Status ValidateRuleIrregularity(const Command& c) {
  RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
  if (c.article != "7.1a" && c.article != "7.1b" && c.article != "7.2" && c.article != "7.3" &&
      c.article != "7.5") {
    return Error(kErrBadArgument, "rule_irregularity: article 7.1a, 7.1b, 7.2, 7.3 or 7.5");
  }
  return ValidateIrregularArgs("rule_irregularity", c.irregular);
}

absl::Status DecideRuleIrregularity(Plan& plan, const Command& c, Analyst& /*analyst*/,
                                    v1::ClaimRuling* /*ruling*/) {
  EventSink sink = SinkOf(plan, c);
  return DecideIrregularity(sink, c.article, c.irregular, c.reason);
}

}  // namespace

absl::Span<const CommandRule> MoveRules() {
  static constexpr CommandRule kRows[] = {
      {CommandKind::kMove, "move", ValidateMove, DecideMove},
      {CommandKind::kBoardFeed, "board_feed", ValidateBoardFeed, DecideBoardFeed},
      {CommandKind::kReportIllegalMove, "report_illegal_move", ValidateReportIllegalMove,
       DecideReportIllegalMoveCommand},
      {CommandKind::kCompleteIllegalMove, "complete_illegal_move", ValidateCompleteIllegalMove,
       DecideCompleteIllegalMoveCommand},
      {CommandKind::kRuleIrregularity, "rule_irregularity", ValidateRuleIrregularity,
       DecideRuleIrregularity},
      {CommandKind::kClaimIllegalMove, "claim_illegal_move", ValidateClaimIllegalMove,
       DecideClaimIllegalMove},
  };
  return kRows;
}

}  // namespace arbitration
