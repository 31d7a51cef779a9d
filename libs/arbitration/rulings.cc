#include "libs/arbitration/rulings.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/board_feed.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/events.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/enum_table.h"
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

// The working state of one decision: the state so far and the events that made it.
struct Plan {
  GameState state;
  std::vector<v1::ArbitrationEvent> events;
  std::int64_t now_ms;
  // Appendix A10: the sealed move in clear when the service opened the envelope (the command's
  // opened_move, or Settle's), for a default that falls while it is still closed.
  std::optional<std::string> opened_move;

  // Records `event` at `at_ms` by `actor` and applies it.
  absl::Status Add(v1::ArbitrationEvent event, std::int64_t at_ms, const v1::Actor& actor) {
    event.set_at_ms(at_ms);
    *event.mutable_actor() = actor;
    RETURN_IF_ERROR(state.Apply(event));
    events.push_back(std::move(event));
    return absl::OkStatus();
  }
  // Add as a function (libs/arbitration/adjournment.h).
  AddEvent Adder() {
    return [this](v1::ArbitrationEvent event, std::int64_t at_ms, const v1::Actor& actor) {
      return Add(std::move(event), at_ms, actor);
    };
  }
};

v1::ArbitrationEvent ClockStopped() {
  v1::ArbitrationEvent e;
  e.mutable_clock_stopped();
  return e;
}

v1::ArbitrationEvent ClockRestarted() {
  v1::ArbitrationEvent e;
  e.mutable_clock_restarted();
  return e;
}

// 6.10 / C3 / B7 / 1997 C4: what a fallen flag of `loser` decides in the current position. The
// opponent wins unless he cannot mate (by any series of legal moves; in 1997 blitz, without
// mating potential); an undetermined search counts for him and is marked for review.
struct FlagVerdict {
  Outcome outcome;
  std::string proof;
  bool review = false;
};
FlagVerdict RuleOnFlag(const GameState& game, Color loser, absl::string_view win_article,
                       Analyst& analyst) {
  const Color winner = ~loser;
  const laws::WinOnTime test = laws::WinOnTimeOf(game.ruleset());
  AnalystAnswer answer = test.test == laws::WinOnTimeTest::kMatingPotential
                             ? analyst.MatingPotential(game.position(), winner)
                             : analyst.CanMate(game.position(), winner);
  FlagVerdict v;
  v.proof = answer.proof;
  if (answer.verdict == analysis::Verdict::kUnwinnable) {
    v.outcome = Outcome::Draw(Termination::kTimeoutVsInsufficient, test.article);
  } else {
    v.outcome = Outcome::Win(winner, Termination::kTimeForfeit, win_article);
    v.review = answer.verdict == analysis::Verdict::kUndetermined;
  }
  return v;
}

// A flag of `side` fell at `at_ms` (the clock's exact instant).
absl::Status RecordFlag(Plan& plan, Color side, std::int64_t at_ms, Analyst& analyst) {
  const laws::FlagRule rule = laws::FlagRuleOf(plan.state.ruleset());
  v1::ArbitrationEvent flag;
  flag.mutable_flag()->set_side(laws::ToProto(side));
  flag.mutable_flag()->set_fell_at_ms(at_ms);
  flag.mutable_flag()->set_counts(rule.counts_when_observed);
  flag.mutable_flag()->set_article(std::string(rule.article));
  RETURN_IF_ERROR(plan.Add(std::move(flag), at_ms, ServerActor()));
  // B6 (2023 A.4.5): recorded, counted only on the opponent's valid claim; the arbiter does not
  // signal it. Both down changes nothing by itself either: play goes on until a mate, a
  // resignation or a claim (B7, and B8 when the claim finds both down) decides.
  if (!rule.counts_when_observed) return absl::OkStatus();
  // 10.2b: a postponed claim; the arbiter fixes the result now that a flag fell.
  if (plan.state.status() == GameStatus::kAwaitingRuling) return absl::OkStatus();
  FlagVerdict v = RuleOnFlag(plan.state, side, "6.10", analyst);
  return plan.Add(EndedEvent(v.outcome, v.proof, v.review), at_ms, ServerActor());
}

// 6.7: an absent player arrived more than the default time after the scheduled start.
absl::Status RecordDefault(Plan& plan, std::int64_t at_ms, Analyst& analyst) {
  // Appendix A10: both absent at the resumption, the envelope still closed: it is opened to see
  // whether the absent sealer's move mates, stalemates or reaches a dead position.
  if (DefaultOpensEnvelope(plan.state)) {
    return RecordDefaultWithEnvelope(plan.state, plan.opened_move, at_ms, plan.Adder(), analyst);
  }
  const bool white_absent = !plan.state.present(Color::kWhite);
  const bool black_absent = !plan.state.present(Color::kBlack);
  Outcome outcome = white_absent && black_absent
                        ? Outcome::BothLose(Termination::kDefault, "6.7")
                        : Outcome::Win(white_absent ? Color::kBlack : Color::kWhite,
                                       Termination::kDefault, "6.7");
  return plan.Add(EndedEvent(outcome), at_ms, ServerActor());
}

// Records, in the order they happened, the flags and defaults due by `now_ms`.
absl::Status SettleInto(Plan& plan, std::int64_t now_ms, Analyst& analyst) {
  for (int round = 0; round < 4; ++round) {
    const GameState& s = plan.state;
    if (s.status() != GameStatus::kOngoing) return absl::OkStatus();
    std::optional<std::int64_t> flag_at;
    Color flag_side = Color::kWhite;
    if (std::optional<Color> running = s.clock().running(); running && !s.FlagRecorded(*running)) {
      std::optional<std::int64_t> deadline = s.clock().Deadline();
      if (deadline && *deadline <= now_ms) {
        flag_at = std::max(*deadline, s.last_event_ms());
        flag_side = *running;
      }
    }
    std::optional<std::int64_t> default_at;
    if (s.default_deadline_ms() && (!s.present(Color::kWhite) || !s.present(Color::kBlack))) {
      // "more than one hour": the first instant after the deadline.
      const std::int64_t t = std::max(*s.default_deadline_ms() + 1, s.last_event_ms());
      if (t <= now_ms) default_at = t;
    }
    // Appendix A1b: an envelope sealed early closes at the session's end (unless a flag or a
    // default came first).
    if (std::optional<std::int64_t> close_at = EnvelopeClosesAt(s);
        close_at && *close_at <= now_ms && (!flag_at || *close_at < *flag_at) &&
        (!default_at || *close_at < *default_at)) {
      RETURN_IF_ERROR(CloseEnvelopeAt(s, *close_at, plan.Adder()));
      continue;
    }
    if (!flag_at && !default_at) return absl::OkStatus();
    if (flag_at && (!default_at || *flag_at <= *default_at)) {
      RETURN_IF_ERROR(RecordFlag(plan, flag_side, *flag_at, analyst));
    } else {
      RETURN_IF_ERROR(RecordDefault(plan, *default_at, analyst));
    }
  }
  return absl::OkStatus();
}

struct Ending {
  Outcome outcome;
  std::string proof;
};

// What the position after a move ends: the automatic endings of libs/laws (5.1a, 5.2a, 2023
// 9.6.1-2, a dead position proved statically), then, after a capture, a pawn move or a
// promotion, the analyst's dead-position check (5.2b / 9.6): a piece move cannot take away the
// last mating chance that material and pawn structure left.
std::optional<Ending> EndingAfterMove(const chess::Game& after, bool zeroing,
                                      const laws::Ruleset& ruleset, Analyst& analyst) {
  if (std::optional<laws::AutomaticEnding> end = laws::EndingOf(after, ruleset.edition)) {
    return Ending{end->outcome, end->proof};
  }
  if (zeroing) {
    AnalystAnswer dead = analyst.DeadPosition(after.position());
    if (dead.verdict == analysis::Verdict::kUnwinnable) {
      return Ending{Outcome::Draw(Termination::kDeadPosition, "5.2b"), dead.proof};
    }
  }
  return std::nullopt;
}

// Plays `move` for `side` at the plan's instant: the press (6.8a) unless the move ends the game.
absl::Status AddMove(Plan& plan, Color side, chess::Move move, bool offer_draw, std::int64_t lag_ms,
                     const v1::Actor& actor, Analyst& analyst) {
  const GameState& s = plan.state;
  const chess::Position& before = s.position();
  // The endings after the move need the positions that can repeat, not the whole game's.
  chess::Game after = s.game().RepetitionWindow();
  RETURN_IF_ERROR(after.Play(move));
  std::optional<Ending> ending =
      EndingAfterMove(after, before.IsZeroing(move), s.ruleset(), analyst);
  const std::int64_t remaining = s.RemainingMs(side, plan.now_ms);
  v1::ArbitrationEvent e;
  v1::MoveMade* m = e.mutable_move();
  m->set_side(laws::ToProto(side));
  m->set_uci(chess::ToUci(move));
  m->set_san(chess::ToSan(before, move));
  m->set_offer_draw(offer_draw && !ending);
  m->set_lag_ms(lag_ms);
  m->set_ends_game(ending.has_value());
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

// Moves, offers and 9.2 / 9.3 / 10.2 claims need a game in play.
absl::Status CheckInPlay(const GameState& s) {
  switch (s.status()) {
    case GameStatus::kCreated:
      return Error(kErrGameNotStarted, "the game has not started (6.5)");
    case GameStatus::kEnded:
      return Error(kErrGameOver,
                   absl::StrCat("the game is over (", laws::ResultText(s.outcome().result), ", ",
                                s.outcome().article, ")"));
    case GameStatus::kAwaitingRuling:
      return Error(kErrAwaitingRuling,
                   "a claim awaits the arbiter's ruling; the clocks are stopped");
    case GameStatus::kAdjourned:
      return Error(kErrGameAdjourned,
                   "the game is adjourned (Appendix A): play waits for the resumption (A9)");
    case GameStatus::kOngoing:
      break;
  }
  return absl::OkStatus();
}

// 6.13a: while the arbiter has the clocks stopped the game is interrupted: no move and no claim
// (a claim stops a clock, 9.2 / 10.2, and none runs). Resignation, offers and their answers stay
// possible: they need no clock.
absl::Status CheckNotPaused(const GameState& s) {
  if (s.paused()) {
    return Error(kErrGamePaused,
                 "the arbiter has stopped the clocks (6.13a): play resumes when he restarts them");
  }
  return absl::OkStatus();
}

// Resignation and answers to offers are possible while a ruling is awaited, not before the start
// or after the end.
absl::Status CheckNotOver(const GameState& s) {
  if (s.status() == GameStatus::kCreated) {
    return Error(kErrGameNotStarted, "the game has not started (6.5)");
  }
  if (s.status() == GameStatus::kEnded) return Error(kErrGameOver, "the game is over");
  return absl::OkStatus();
}

// What the event's regulations forbid of an offer (no offers before move N; a limit per player;
// the Laws set neither). `moves_made`: the offerer's completed moves, counting a move made with
// the offer. nullopt: allowed.
struct OfferForbidden {
  base::ErrorSpec error;         // the code an offer without a move is refused with
  absl::string_view regulation;  // the regulation's field, recorded with a refused offer
  std::string reason;
};
std::optional<OfferForbidden> ForbiddenOffer(const GameState& s, Color side, int moves_made) {
  const laws::Regulations& regs = s.ruleset().regulations;
  if (moves_made < regs.no_draw_offers_before_move) {
    return OfferForbidden{kErrDrawOfferTooEarly, "no_draw_offers_before_move",
                          absl::StrCat("the regulations allow no draw offers before move ",
                                       regs.no_draw_offers_before_move)};
  }
  if (const int limit = laws::MaxDrawOffers(s.ruleset());
      limit > 0 && s.draw_offers_made(side) >= limit) {
    return OfferForbidden{
        kErrTooManyDrawOffers, "max_draw_offers",
        absl::StrCat(s.draw_offers_made(side), " draw offers made; the regulations allow ", limit)};
  }
  return std::nullopt;
}

// An offer without a move: refused whole when the regulations forbid it or an offer is pending
// (it changes nothing; nothing else is lost).
absl::Status CheckOfferAllowed(const GameState& s, Color side, int moves_made) {
  if (s.draw_offer()) {
    return Error(kErrDrawOfferPending,
                 *s.draw_offer() == side ? "your draw offer is pending (9.1)"
                                         : "the opponent's offer is pending: accept or decline it");
  }
  if (std::optional<OfferForbidden> f = ForbiddenOffer(s, side, moves_made)) {
    return Error(f->error, f->reason);
  }
  return absl::OkStatus();
}

// 9.1a: an offer made with a move that the regulations forbid costs the offer, never the move
// (4.7, 6.8a: the move is made). The offer is refused and recorded for the arbiter (12.5, 12.6,
// 13.4).
v1::ArbitrationEvent OfferRefused(Color side, const OfferForbidden& why) {
  v1::ArbitrationEvent e;
  v1::DrawOfferRefused* r = e.mutable_draw_offer_refused();
  r->set_side(laws::ToProto(side));
  r->set_code(std::string(kErrDrawOfferRefused.code));
  r->set_regulation(std::string(why.regulation));
  r->set_reason(absl::StrCat(why.reason, ": the move stands, the offer is refused (9.1a, 12.5)"));
  return e;
}

absl::Status RequireSide(const Command& c) {
  if (!c.side) {
    return Error(kErrBadArgument,
                 absl::StrCat(CommandKindName(c.kind), ": the side (white or black) is required"));
  }
  return absl::OkStatus();
}

// 9.2 / 9.3 with 9.5: ruled at once.
absl::Status DecideDrawClaim(Plan& plan, const Command& c, Color side, Analyst& analyst,
                             v1::ClaimRuling* ruling) {
  const GameState& s = plan.state;
  RETURN_IF_ERROR(CheckInPlay(s));
  if (side != s.to_move()) {
    return Error(kErrNotYourTurn, "9.2 / 9.3: only the player on move claims");
  }
  // 2023 9.4: a piece touched as in 4.3 costs the right to claim on this move (2001 9.4: only
  // making the move does).
  if (const laws::DrawClaimRightRule right = laws::DrawClaimRightOf(s.ruleset());
      right.lost_on_touch && s.touches().TouchedThisTurn()) {
    return Error(kErrClaimRightLost,
                 absl::StrCat(right.article,
                              ": the claimant has touched a piece (4.3); the right to claim under "
                              "9.2 / 9.3 on this move is lost"));
  }
  std::optional<chess::Move> intended;
  if (!c.move.empty()) {
    ASSIGN_OR_RETURN(intended, chess::ParseMove(s.position(), c.move));
  }
  const bool threefold = c.claim == v1::CLAIM_KIND_THREEFOLD;
  const chess::DrawClaim dc = threefold ? s.game().ThreefoldClaim() : s.game().FiftyMoveClaim();
  const bool by_move =
      intended && std::find(dc.by_moves.begin(), dc.by_moves.end(), *intended) != dc.by_moves.end();
  const bool correct = dc.now || by_move;
  const absl::string_view article =
      threefold ? (by_move && !dc.now ? "9.2a" : "9.2b") : (by_move && !dc.now ? "9.3a" : "9.3b");
  v1::ArbitrationEvent claim;
  v1::ClaimMade* cm = claim.mutable_claim();
  cm->set_side(laws::ToProto(side));
  cm->set_kind(c.claim);
  if (intended) {
    cm->set_intended_uci(chess::ToUci(*intended));
    cm->set_intended_san(chess::ToSan(s.position(), *intended));
  }
  cm->set_ruling(correct ? v1::CLAIM_RULING_CORRECT : v1::CLAIM_RULING_INCORRECT);
  cm->set_article(std::string(correct ? article : threefold ? "9.2" : "9.3"));
  cm->set_reason(correct ? (threefold ? "the same position for at least the third time"
                                      : "50 moves by each player without a capture or pawn move")
                         : (threefold ? "the position has not stood three times"
                                      : "the last 50 moves of each player include a capture or "
                                        "pawn move"));
  *ruling = cm->ruling();
  const std::int64_t now = plan.now_ms;
  const std::int64_t remaining = s.RemainingMs(side, now);
  // 9.5: the claimant stops the clocks; the claim is ruled at once.
  RETURN_IF_ERROR(plan.Add(ClockStopped(), now, c.actor));
  RETURN_IF_ERROR(plan.Add(std::move(claim), now, c.actor));
  if (correct) {
    return plan.Add(
        EndedEvent(Outcome::Draw(
            threefold ? Termination::kThreefoldRepetition : Termination::kFiftyMoves, article)),
        now, c.actor);
  }
  // 9.5b (2023 9.5.2): the penalty, then the declared move is played and the game goes on.
  const laws::ClaimPenalty penalty = laws::IncorrectClaimPenalty(plan.state.ruleset(), remaining);
  RETURN_IF_ERROR(
      plan.Add(AdjustedEvent(~side, penalty.opponent_add_ms, penalty.article), now, c.actor));
  if (penalty.claimant_after_ms != remaining) {
    RETURN_IF_ERROR(plan.Add(
        AdjustedEvent(side, penalty.claimant_after_ms - remaining, penalty.article), now, c.actor));
  }
  RETURN_IF_ERROR(plan.Add(ClockRestarted(), now, c.actor));
  if (intended) RETURN_IF_ERROR(AddMove(plan, side, *intended, false, 0, c.actor, analyst));
  return absl::OkStatus();
}

// 10.2 (with an arbiter) / D1 (without): the clocks stop and the arbiter decides.
absl::Status DecideQuickplayClaim(Plan& plan, const Command& c, Color side, Analyst& analyst,
                                  v1::ClaimRuling* ruling) {
  const GameState& s = plan.state;
  RETURN_IF_ERROR(CheckInPlay(s));
  const laws::QuickplayRule rule = laws::QuickplayRuleOf(s.ruleset());
  if (rule.claim == laws::QuickplayClaim::kNotApplicable) {
    return Error(kErrClaimNotAllowed,
                 absl::StrCat(rule.article, ": no quickplay-finish claim in this game (",
                              s.ruleset().speed == laws::SpeedCategory::kBlitz
                                  ? "Article 10.2 does not apply in blitz"
                                  : "2023 Guidelines III apply only to games without increment",
                              ")"));
  }
  // 10.2 is the claim of the player on move; D1 does not ask it (issue 14.9).
  if (rule.claim == laws::QuickplayClaim::kArbiter && side != s.to_move()) {
    return Error(kErrNotYourTurn, "10.2: only the player on move claims");
  }
  const std::int64_t remaining = s.RemainingMs(side, plan.now_ms);
  if (remaining <= 0 || s.clock().FlagFallen(side, plan.now_ms)) {
    return Error(kErrClaimNotAllowed,
                 absl::StrCat(rule.article, ": the claimant's flag has fallen"));
  }
  if (remaining >= laws::kQuickplayThresholdMs) {
    return Error(kErrClaimNotAllowed, absl::StrCat(rule.article, ": the claimant has ", remaining,
                                                   " ms, not less than two minutes"));
  }
  if (!s.clock().InFinalPeriod(side)) {
    return Error(kErrClaimNotAllowed,
                 absl::StrCat(rule.article,
                              ": only in the period in which all remaining moves must be made "
                              "(10.1)"));
  }
  v1::ArbitrationEvent claim;
  v1::ClaimMade* cm = claim.mutable_claim();
  cm->set_side(laws::ToProto(side));
  cm->set_kind(v1::CLAIM_KIND_QUICKPLAY);
  cm->set_ruling(v1::CLAIM_RULING_PENDING);
  cm->set_article(std::string(rule.article));
  cm->set_ground(c.ground);
  if (rule.claim == laws::QuickplayClaim::kAppendixD) {
    // D1: "Dies beendet die Partie"; the final position written down for the arbiter.
    cm->set_final_fen(chess::ToFen(s.position()));
    cm->set_reason("Appendix D: the claim ends the game; an arbiter decides the result");
  } else {
    cm->set_reason("10.2: the clocks are stopped; the arbiter rules");
  }
  // Advice for the arbiter's ruling, never a ruling (12.2: the service shows it to arbiters only).
  ASSIGN_OR_RETURN(chess::Game whole, s.FullGame());
  cm->set_advice(analyst.QuickplayAdvice(whole, side));
  *ruling = v1::CLAIM_RULING_PENDING;
  RETURN_IF_ERROR(plan.Add(ClockStopped(), plan.now_ms, c.actor));
  return plan.Add(std::move(claim), plan.now_ms, c.actor);
}

// B7: a win on time claimed by the player whose flag is up.
absl::Status DecideTimeClaim(Plan& plan, const Command& c, Color side, Analyst& analyst,
                             v1::ClaimRuling* ruling) {
  const GameState& s = plan.state;
  RETURN_IF_ERROR(CheckInPlay(s));
  const laws::FlagRule rule = laws::FlagRuleOf(s.ruleset());
  if (rule.counts_when_observed) {
    return Error(kErrClaimNotAllowed,
                 absl::StrCat(rule.article,
                              ": flags count the moment they fall here; there is nothing to "
                              "claim"));
  }
  const std::optional<std::int64_t> own = s.clock().FlagTime(side, plan.now_ms);
  const std::optional<std::int64_t> opponent = s.clock().FlagTime(~side, plan.now_ms);
  // B7: "nur ..., wenn nach Anhalten der Uhren das Fallblättchen des Antragstellers noch oben und
  // das seines Gegners gefallen ist"; B8: both down at the claim, drawn whichever fell first. 2023
  // A.4.5 has no B8: the clock knows which fell first, and only a claim against a flag that fell
  // before the claimant's own is valid.
  const bool both_down = own.has_value() && opponent.has_value();
  const bool b8 = both_down && rule.both_down_draws;
  const bool correct = opponent.has_value() && !b8 && (!own.has_value() || *opponent < *own);
  v1::ArbitrationEvent claim;
  v1::ClaimMade* cm = claim.mutable_claim();
  cm->set_side(laws::ToProto(side));
  cm->set_kind(v1::CLAIM_KIND_TIME);
  cm->set_ruling(correct ? v1::CLAIM_RULING_CORRECT : v1::CLAIM_RULING_INCORRECT);
  cm->set_article(std::string(b8 ? rule.both_down_article : rule.claim_article));
  cm->set_reason(b8          ? "both flags have fallen: the game is drawn"
                 : correct   ? (own.has_value() ? "the opponent's flag fell before the claimant's"
                                                : "the claimant's flag is up and the opponent's "
                                                  "has fallen")
                 : !opponent ? "the opponent's flag has not fallen"
                             : "the claimant's own flag fell first");
  *ruling = cm->ruling();
  RETURN_IF_ERROR(plan.Add(std::move(claim), plan.now_ms, c.actor));
  if (b8) {
    return plan.Add(EndedEvent(Outcome::Draw(Termination::kBothFlags, rule.both_down_article)),
                    plan.now_ms, c.actor);
  }
  if (!correct) return absl::OkStatus();
  // 10.2b: "Nachdem ein Fallblättchen gefallen ist, setzt der Schiedsrichter das letztendlich
  // gültige Resultat fest": in a postponed game the claim stops the clocks and the arbiter rules.
  if (plan.state.awaiting_after_flag()) return absl::OkStatus();
  FlagVerdict v = RuleOnFlag(plan.state, ~side, rule.claim_article, analyst);
  return plan.Add(EndedEvent(v.outcome, v.proof, v.review), plan.now_ms, c.actor);
}

v1::ArbitrationEvent Ruled(const Command& c, absl::string_view article) {
  v1::ArbitrationEvent e;
  e.mutable_ruled()->set_decision(c.decision);
  e.mutable_ruled()->set_add_time(c.add_time);
  e.mutable_ruled()->set_article(std::string(article));
  e.mutable_ruled()->set_reason(c.reason);
  return e;
}

// The arbiter on a claim awaiting him: 10.2 a/b/c, D1, or the result after a flag in a postponed
// game (10.2b).
absl::Status DecideRuling(Plan& plan, const Command& c, Analyst& analyst) {
  const GameState& s = plan.state;
  if (s.status() != GameStatus::kAwaitingRuling) {
    return Error(kErrNoPendingClaim, "no claim awaits a ruling");
  }
  const std::int64_t now = plan.now_ms;
  const auto bad = [&](absl::string_view why) { return Error(kErrBadRuling, why); };
  if (s.awaiting_after_flag()) {
    // 10.2b: the arbiter fixes the result after a flag fell.
    if (c.decision == v1::RULING_DECISION_POSTPONE) {
      return bad("10.2b: the flag has fallen; rule draw or reject");
    }
    const Color loser = s.after_flag_loser();
    RETURN_IF_ERROR(plan.Add(Ruled(c, "10.2b"), now, c.actor));
    if (c.decision == v1::RULING_DECISION_DRAW) {
      return plan.Add(EndedEvent(Outcome::Draw(Termination::kQuickplayFinishClaim, "10.2b")), now,
                      c.actor);
    }
    FlagVerdict v =
        RuleOnFlag(plan.state, loser,
                   laws::FlagRuleOf(s.ruleset()).counts_when_observed ? "6.10" : "B7", analyst);
    return plan.Add(EndedEvent(v.outcome, v.proof, v.review), now, c.actor);
  }
  if (s.pending_claim()->kind() == v1::CLAIM_KIND_ILLEGAL_MOVE) {  // 7.4a: the arbiter finds
    EventSink sink(plan.state, plan.events, now, c.actor);
    return DecideIllegalMoveRuling(sink, c.decision, c.reason, analyst);
  }
  const v1::ClaimMade claim = *s.pending_claim();
  const Color claimant = *laws::ColorOf(claim.side());
  if (claim.article() == "D1") {
    if (c.decision == v1::RULING_DECISION_POSTPONE) {
      return bad("D1: the claim ended the game; rule draw or reject");
    }
    RETURN_IF_ERROR(plan.Add(Ruled(c, "D1"), now, c.actor));
    Outcome o = c.decision == v1::RULING_DECISION_DRAW
                    ? Outcome::Draw(Termination::kQuickplayFinishClaim, "D1")
                    : Outcome::Win(~claimant, Termination::kArbiterDecision, "D1");
    return plan.Add(EndedEvent(o), now, c.actor);
  }
  switch (c.decision) {
    case v1::RULING_DECISION_DRAW:
      RETURN_IF_ERROR(plan.Add(Ruled(c, "10.2a"), now, c.actor));
      return plan.Add(EndedEvent(Outcome::Draw(Termination::kQuickplayFinishClaim, "10.2a")), now,
                      c.actor);
    case v1::RULING_DECISION_POSTPONE:
      RETURN_IF_ERROR(plan.Add(Ruled(c, "10.2b"), now, c.actor));
      if (c.add_time) {
        RETURN_IF_ERROR(
            plan.Add(AdjustedEvent(~claimant, laws::kQuickplayExtraMs, "10.2b"), now, c.actor));
      }
      return plan.Add(ClockRestarted(), now, c.actor);
    case v1::RULING_DECISION_REJECT:
      RETURN_IF_ERROR(plan.Add(Ruled(c, "10.2c"), now, c.actor));
      RETURN_IF_ERROR(
          plan.Add(AdjustedEvent(~claimant, laws::kQuickplayExtraMs, "10.2c"), now, c.actor));
      return plan.Add(ClockRestarted(), now, c.actor);
    default:
      break;
  }
  return bad("a decision (draw, postpone or reject) is required");
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

// An electronic board's reports (board_feed.h), each at its instant (no earlier than the last
// event, no later than now): touches and releases recorded (4.3); a legal move complete on the
// board made as SubmitMove makes it (4.6, 4.7), unless it breaks touch-move where the arbiter acts
// himself or after a ruling (then refused and ruled, 4.3 / 4.4); an illegal move that stood (the
// clock pressed) recorded and the clocks stopped for the arbiter (7.4a); the kings' result signal
// recorded, never a result (after the end, the only thing recorded). While the arbiter has the
// clocks stopped, reports only update the board (he restores the position). A touch rejects the
// opponent's pending draw offer (9.1).
absl::Status DecideBoardFeed(Plan& plan, const Command& c, Analyst& analyst) {
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
          v1::PieceTouched* t = e.mutable_piece_touched();
          t->set_side(laws::ToProto(side));
          t->set_square(SquareText(o.square));
          t->set_piece(PieceText(o.piece));
          t->set_adjusting(plan.state.touches().adjusting());
          t->set_placement(text_of(next));
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
          v1::PieceTouched* t = e.mutable_piece_touched();
          t->set_side(laws::ToProto(side));
          t->set_square(SquareText(o.square));
          t->set_piece(PieceText(o.piece));
          t->set_promotion(true);
          t->set_placement(text_of(next));
          break;
        }
        case Observation::Kind::kReleased: {
          v1::PieceReleased* r = e.mutable_piece_released();
          r->set_side(laws::ToProto(side));
          r->set_square(SquareText(o.square));
          r->set_piece(PieceText(o.piece));
          r->set_placement(text_of(next));
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

// The command's own events on the settled plan. A returned error is the command's refusal.
absl::Status DecideCommand(Plan& plan, const Command& c, Analyst& analyst,
                           v1::ClaimRuling* ruling) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  switch (c.kind) {
    case CommandKind::kStart: {
      if (s.status() == GameStatus::kEnded) return Error(kErrGameOver, "the game is over");
      if (s.status() != GameStatus::kCreated) {
        return Error(kErrGameAlreadyStarted, "the game has started already");
      }
      v1::ArbitrationEvent e;
      for (Color side : c.absent) e.mutable_started()->add_absent(laws::ToProto(side));
      e.mutable_started();
      return plan.Add(std::move(e), now, c.actor);
    }
    case CommandKind::kArrive: {
      RETURN_IF_ERROR(CheckNotOver(s));
      if (s.present(*c.side)) return Error(kErrAlreadyPresent, "the player is present already");
      v1::ArbitrationEvent e;
      e.mutable_arrived()->set_side(laws::ToProto(*c.side));
      RETURN_IF_ERROR(plan.Add(std::move(e), now, c.actor));
      // Appendix A9b, A9c: the envelope that waited for him is opened.
      return OpenOnArrival(plan.state, c, now, plan.Adder(), analyst);
    }
    case CommandKind::kMove: {
      RETURN_IF_ERROR(CheckInPlay(s));
      RETURN_IF_ERROR(CheckNotPaused(s));
      RETURN_IF_ERROR(CheckNoSealPending(s));  // Appendix A1, A7
      RETURN_IF_ERROR(CheckPlayable(s));       // C3: an illegal move that left no position
      const Color side = *c.side;
      if (side != s.to_move()) {
        return Error(kErrNotYourTurn,
                     absl::StrCat("it is ", chess::ColorName(s.to_move()), "'s move"));
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
    case CommandKind::kResign: {
      RETURN_IF_ERROR(CheckNotOver(s));
      v1::ArbitrationEvent e;
      e.mutable_resigned()->set_side(laws::ToProto(*c.side));
      RETURN_IF_ERROR(plan.Add(std::move(e), now, c.actor));
      return plan.Add(EndedEvent(Outcome::Win(~*c.side, Termination::kResignation, "5.1b")), now,
                      c.actor);
    }
    case CommandKind::kOfferDraw: {
      // Appendix A4: an offer made during the adjournment stands until answered (9.1).
      if (s.status() != GameStatus::kAdjourned) RETURN_IF_ERROR(CheckInPlay(s));
      RETURN_IF_ERROR(CheckOfferAllowed(s, *c.side, s.clock().moves(*c.side)));
      v1::ArbitrationEvent e;
      e.mutable_draw_offered()->set_side(laws::ToProto(*c.side));
      // 9.1b: an offer on one's own time, before moving, is valid; 12.5 may apply.
      e.mutable_draw_offered()->set_outside_move(*c.side == s.to_move());
      return plan.Add(std::move(e), now, c.actor);
    }
    case CommandKind::kAcceptDraw:
    case CommandKind::kDeclineDraw: {
      RETURN_IF_ERROR(CheckNotOver(s));
      if (s.draw_offer() != ~*c.side) {
        return Error(kErrNoDrawOffer, "no draw offer of the opponent's is pending (9.1)");
      }
      const bool accept = c.kind == CommandKind::kAcceptDraw;
      v1::ArbitrationEvent e;
      e.mutable_draw_answered()->set_side(laws::ToProto(*c.side));
      e.mutable_draw_answered()->set_accepted(accept);
      RETURN_IF_ERROR(plan.Add(std::move(e), now, c.actor));
      if (!accept) return absl::OkStatus();
      return plan.Add(EndedEvent(Outcome::Draw(Termination::kAgreement, "9.1")), now, c.actor);
    }
    case CommandKind::kClaim:
      RETURN_IF_ERROR(CheckNotPaused(s));
      if (c.claim != v1::CLAIM_KIND_TIME) RETURN_IF_ERROR(CheckNoSealPending(s));  // A1, A7
      switch (c.claim) {
        case v1::CLAIM_KIND_THREEFOLD:
        case v1::CLAIM_KIND_FIFTY:
          return DecideDrawClaim(plan, c, *c.side, analyst, ruling);
        case v1::CLAIM_KIND_QUICKPLAY:
          return DecideQuickplayClaim(plan, c, *c.side, analyst, ruling);
        case v1::CLAIM_KIND_TIME:
          return DecideTimeClaim(plan, c, *c.side, analyst, ruling);
        case v1::CLAIM_KIND_ILLEGAL_MOVE: {  // C3
          EventSink sink(plan.state, plan.events, now, c.actor);
          return DecideIllegalMoveClaim(sink, *c.side, analyst, ruling);
        }
        case v1::CLAIM_KIND_TOUCH_MOVE:
          return DecideTouchMoveClaim(plan, c, ruling);
        default:
          break;
      }
      return Error(kErrBadArgument, "claim: kind threefold, fifty, quickplay or time");
    case CommandKind::kRule:
      return DecideRuling(plan, c, analyst);
    case CommandKind::kConfirm: {
      if (s.status() != GameStatus::kEnded) {
        return Error(kErrGameNotOver, "8.7: the result is confirmed after the game");
      }
      if (s.confirmed(*c.side)) return Error(kErrAlreadyConfirmed, "8.7: confirmed already");
      v1::ArbitrationEvent e;
      e.mutable_confirmed()->set_side(laws::ToProto(*c.side));
      return plan.Add(std::move(e), now, c.actor);
    }
    case CommandKind::kSetResult: {
      v1::ArbitrationEvent e;
      laws::ToProto(c.outcome, e.mutable_result_set()->mutable_outcome());
      e.mutable_result_set()->set_reason(c.reason);
      return plan.Add(std::move(e), now, c.actor);
    }
    case CommandKind::kPause: {
      // 6.13a: only a game in play is interrupted; while a claim awaits the ruling (10.2, D1) the
      // clocks are stopped already.
      RETURN_IF_ERROR(CheckInPlay(s));
      if (s.paused()) return Error(kErrGamePaused, "the clocks are stopped already (6.13a)");
      v1::ArbitrationEvent e;
      e.mutable_paused()->set_reason(c.reason);
      e.mutable_paused()->set_article("6.13a");
      return plan.Add(std::move(e), now, c.actor);
    }
    case CommandKind::kAdjustTime: {
      // Any time between the start and the end: during an interruption (6.13) too, and while a
      // claim awaits the ruling. The clock checks the sign the article fixes and that a deduction
      // leaves time (otherwise the clock is set, 6.14).
      RETURN_IF_ERROR(CheckNotOver(s));
      v1::ArbitrationEvent e = AdjustedEvent(*c.side, c.delta_ms, c.article);
      e.mutable_adjusted()->set_reason(c.reason);
      return plan.Add(std::move(e), now, c.actor);
    }
    case CommandKind::kSetClocks: {
      // 6.14 / 6.11: from the start to the end, during an interruption too.
      RETURN_IF_ERROR(CheckNotOver(s));
      RETURN_IF_ERROR(CheckClockSettingCorrectable(s, c.article));  // B4 (rapid, blitz)
      v1::ArbitrationEvent e;
      *e.mutable_clocks_set() = c.clocks;
      e.mutable_clocks_set()->set_article(c.article.empty() ? "6.14" : c.article);
      e.mutable_clocks_set()->set_reason(c.reason);
      return plan.Add(std::move(e), now, c.actor);
    }
    case CommandKind::kBoardFeed:
      return DecideBoardFeed(plan, c, analyst);
    case CommandKind::kSealMove:
      return DecideSealMove(plan.state, c, now, plan.Adder());
    case CommandKind::kAdjourn:
      return DecideAdjourn(plan.state, c, now, plan.Adder());
    case CommandKind::kResumeAdjourned:
      return DecideResumeAdjourned(plan.state, c, now, plan.Adder(), analyst);
    case CommandKind::kReportEnvelopeLost:
      return DecideEnvelopeLost(plan.state, c, now, plan.Adder());
    // Issue 13: Article 7, 6.13b/d, 12, 13.4 (irregularities.h).
    case CommandKind::kReportIllegalMove: {
      // 7.4a: "Wenn ... festgestellt wird": the arbiter finds; a player claims
      // (kClaimIllegalMove) and the arbiter rules.
      if (c.actor.role() == "player" || c.actor.role() == "platform") {
        return Error(kErrClaimNotAllowed,
                     "7.4a: only the arbiter finds an illegal move; a player claims it "
                     "(claim_illegal_move) and the arbiter rules");
      }
      EventSink sink(plan.state, plan.events, now, c.actor);
      return DecideReportIllegalMove(sink, c.side, c.irregular, c.reason, analyst);
    }
    case CommandKind::kCompleteIllegalMove: {
      EventSink sink(plan.state, plan.events, now, c.actor);
      return DecideCompleteIllegalMove(sink, *c.side, c.irregular);
    }
    case CommandKind::kClaimIllegalMove: {
      EventSink sink(plan.state, plan.events, now, c.actor);
      return DecidePlayerIllegalMoveClaim(sink, *c.side, c.irregular, c.reason, analyst, ruling);
    }
    case CommandKind::kRuleIrregularity: {
      EventSink sink(plan.state, plan.events, now, c.actor);
      return DecideIrregularity(sink, c.article, c.irregular, c.reason);
    }
    case CommandKind::kStopClocks: {
      EventSink sink(plan.state, plan.events, now, c.actor);
      return DecideStopClocks(sink, *c.side, c.reason);
    }
    case CommandKind::kRuleStop: {
      EventSink sink(plan.state, plan.events, now, c.actor);
      return DecideRuleStop(sink, c.irregular, c.delta_ms, c.reason);
    }
    case CommandKind::kUsePower: {
      EventSink sink(plan.state, plan.events, now, c.actor);
      return DecidePower(sink, c.side, c.irregular, c.reason);
    }
    case CommandKind::kResume: {
      if (!s.paused()) {
        return Error(kErrGameNotPaused, "the arbiter has not stopped the clocks (6.13a)");
      }
      v1::ArbitrationEvent e;
      e.mutable_resumed()->set_reason(c.reason);
      return plan.Add(std::move(e), now, c.actor);
    }
  }
  return Error(kErrBadArgument, "unknown command");
}

// The arbiter's reason for what he does, recorded with it: at most 1,024 bytes, and required
// where `required`.
absl::Status CheckReason(const Command& c, bool required) {
  if (required && c.reason.empty()) {
    return Error(kErrBadArgument, absl::StrCat(CommandKindName(c.kind), ": a reason is required"));
  }
  if (c.reason.size() > 1024) {
    return Error(kErrBadArgument,
                 absl::StrCat(CommandKindName(c.kind), ": the reason is too long (1,024 bytes)"));
  }
  return absl::OkStatus();
}

// Malformed commands: what is missing whatever the game's state.
absl::Status ValidateCommand(const Command& c) {
  switch (c.kind) {
    case CommandKind::kStart:
      if (c.absent.size() > 2) return Error(kErrBadArgument, "start: at most two absent players");
      return absl::OkStatus();
    case CommandKind::kMove:
      RETURN_IF_ERROR(RequireSide(c));
      if (c.move.empty() || c.move.size() > 24) {
        return Error(kErrBadArgument, "move: a move in UCI or SAN is required");
      }
      if (c.lag_ms < 0 || c.lag_ms > 60'000) {
        return Error(kErrBadArgument, "move: lag_ms must lie in [0, 60000]");
      }
      return absl::OkStatus();
    case CommandKind::kClaim:
      RETURN_IF_ERROR(RequireSide(c));
      if (c.claim == v1::CLAIM_KIND_UNSPECIFIED) {
        return Error(kErrBadArgument, "claim: kind threefold, fifty, quickplay or time");
      }
      if (c.move.size() > 24) return Error(kErrBadArgument, "claim: the move is too long");
      return absl::OkStatus();
    case CommandKind::kRule:
      if (c.decision == v1::RULING_DECISION_UNSPECIFIED) {
        return Error(kErrBadRuling, "a decision (draw, postpone or reject) is required");
      }
      return absl::OkStatus();
    case CommandKind::kSetResult:
      if (!c.outcome.over()) return Error(kErrBadArgument, "set_result: a result is required");
      if (c.outcome.article.empty() || c.reason.empty()) {
        return Error(kErrBadArgument, "set_result: the article and a reason are required");
      }
      if (c.outcome.article.size() > 32 || c.reason.size() > 1024) {
        return Error(kErrBadArgument, "set_result: the article or the reason is too long");
      }
      return absl::OkStatus();
    case CommandKind::kBoardFeed:
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
    case CommandKind::kPause:  // 6.13a: why the game is interrupted
      return CheckReason(c, /*required=*/true);
    case CommandKind::kSealMove:  // Appendix A1
      return RequireSide(c);
    case CommandKind::kAdjourn:
    case CommandKind::kResumeAdjourned:
      return CheckReason(c, /*required=*/false);
    case CommandKind::kReportEnvelopeLost:  // A11
      return CheckReason(c, /*required=*/true);
    case CommandKind::kReportIllegalMove:
      RETURN_IF_ERROR(CheckReason(c, /*required=*/false));
      return ValidateIrregularArgs("report_illegal_move", c.irregular);
    case CommandKind::kCompleteIllegalMove:
      RETURN_IF_ERROR(RequireSide(c));
      return ValidateIrregularArgs("complete_illegal_move", c.irregular);
    case CommandKind::kClaimIllegalMove:
      RETURN_IF_ERROR(RequireSide(c));
      RETURN_IF_ERROR(CheckReason(c, /*required=*/false));
      return ValidateIrregularArgs("claim_illegal_move", c.irregular);
    case CommandKind::kRuleIrregularity:
      RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
      if (c.article != "7.1a" && c.article != "7.1b" && c.article != "7.2" && c.article != "7.3" &&
          c.article != "7.5") {
        return Error(kErrBadArgument, "rule_irregularity: article 7.1a, 7.1b, 7.2, 7.3 or 7.5");
      }
      return ValidateIrregularArgs("rule_irregularity", c.irregular);
    case CommandKind::kStopClocks:  // 6.13b: the player says why
      RETURN_IF_ERROR(RequireSide(c));
      return CheckReason(c, /*required=*/true);
    case CommandKind::kRuleStop: {
      RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
      const std::string& p = c.irregular.penalty;
      if (!p.empty() && p != "13.4a" && p != "13.4b" && p != "13.4c") {
        return Error(kErrBadArgument, "rule_stop: penalty \"\", 13.4a, 13.4b or 13.4c");
      }
      if ((p == "13.4b" || p == "13.4c") != (c.delta_ms > 0)) {
        return Error(kErrBadArgument,
                     "rule_stop: penalty_ms > 0 with 13.4b or 13.4c, and only with them");
      }
      return absl::OkStatus();
    }
    case CommandKind::kUsePower: {
      RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
      RETURN_IF_ERROR(ValidateIrregularArgs("use_power", c.irregular));
      const v1::ArbiterPower power = c.irregular.power;
      if (power == v1::ARBITER_POWER_UNSPECIFIED || !v1::ArbiterPower_IsValid(power)) {
        return Error(kErrBadArgument, "use_power: a power (13.4a, d-g, 12.4, 12.7, 12.8)");
      }
      if (power != v1::ARBITER_POWER_BOTH_REFUSE) RETURN_IF_ERROR(RequireSide(c));
      const bool points =
          power == v1::ARBITER_POWER_REDUCE_POINTS || power == v1::ARBITER_POWER_INCREASE_POINTS;
      if (points && (!c.irregular.points || *c.irregular.points <= 0)) {
        return Error(kErrBadArgument, "use_power: 13.4e/f need points > 0");
      }
      return absl::OkStatus();
    }
    case CommandKind::kResume:
      return CheckReason(c, /*required=*/false);
    case CommandKind::kSetClocks:
      RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
      if (!c.article.empty() && c.article != "6.14" && c.article != "6.11") {
        return Error(kErrBadArgument, "set_clocks: article 6.14 (the default) or 6.11");
      }
      // A clock set to nothing would have its flag down at once: a result is set, not a clock.
      if (c.clocks.white_ms() <= 0 || c.clocks.black_ms() <= 0) {
        return Error(kErrBadArgument, "set_clocks: both times must be above 0 ms");
      }
      return absl::OkStatus();
    case CommandKind::kAdjustTime: {
      RETURN_IF_ERROR(RequireSide(c));
      RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
      // The rulings' own adjustments (9.5b, 10.2b-c) are made by the rulings, not by hand.
      absl::StatusOr<chessclock::AdjustReason> reason = chessclock::ParseAdjustReason(c.article);
      if (!reason.ok() || *reason == chessclock::AdjustReason::kIncorrectClaim ||
          *reason == chessclock::AdjustReason::kQuickplayPostponed ||
          *reason == chessclock::AdjustReason::kQuickplayRejected) {
        return Error(kErrBadArgument,
                     "adjust_time: article \"\" (the arbiter's decision), 6.8d, 7.4b, 8.1, 13.4b, "
                     "13.4c or 13.5");
      }
      if (c.delta_ms == 0) return Error(kErrBadArgument, "adjust_time: delta_ms must not be 0");
      return absl::OkStatus();
    }
    default:
      return RequireSide(c);
  }
}

}  // namespace

absl::string_view CommandKindName(CommandKind kind) {
  static constexpr absl::string_view kNames[] = {"start",
                                                 "arrive",
                                                 "move",
                                                 "resign",
                                                 "offer_draw",
                                                 "accept_draw",
                                                 "decline_draw",
                                                 "claim",
                                                 "rule",
                                                 "confirm",
                                                 "set_result",
                                                 "pause",
                                                 "resume",
                                                 "adjust_time",
                                                 "set_clocks",
                                                 "seal_move",
                                                 "adjourn",
                                                 "resume_adjourned",
                                                 "report_envelope_lost",
                                                 "board_feed",
                                                 "report_illegal_move",
                                                 "complete_illegal_move",
                                                 "rule_irregularity",
                                                 "stop_clocks",
                                                 "rule_stop",
                                                 "use_power",
                                                 "claim_illegal_move"};
  return base::EnumEntry(kNames, kind, "unknown");
}

v1::Actor ServerActor() {
  v1::Actor a;
  a.set_subject("arbiter");
  a.set_role("server");
  return a;
}

absl::StatusOr<Decision> Decide(const GameState& game, const Command& command, std::int64_t now_ms,
                                Analyst& analyst) {
  RETURN_IF_ERROR(ValidateCommand(command));
  Plan plan{game, {}, std::max(now_ms, game.last_event_ms()), command.opened_move};
  RETURN_IF_ERROR(SettleInto(plan, plan.now_ms, analyst));
  Decision d;
  Plan settled = plan;
  absl::Status refused = DecideCommand(plan, command, analyst, &d.claim_ruling);
  if (refused.ok()) refused = SettleInto(plan, plan.now_ms, analyst);
  if (!refused.ok()) {
    plan = std::move(settled);  // a refused command changes nothing
    d.claim_ruling = v1::CLAIM_RULING_UNSPECIFIED;
  }
  d.events = std::move(plan.events);
  d.refused = refused;
  d.after = std::move(plan.state);
  return d;
}

std::vector<v1::ArbitrationEvent> Settle(const GameState& game, std::int64_t now_ms,
                                         Analyst& analyst,
                                         const std::optional<std::string>& opened_move) {
  Plan plan{game, {}, std::max(now_ms, game.last_event_ms()), opened_move};
  absl::Status settled = SettleInto(plan, plan.now_ms, analyst);
  (void)settled;  // what applied before a failure is still what happened
  return std::move(plan.events);
}

std::optional<std::int64_t> NextDeadline(const GameState& game) {
  if (game.status() != GameStatus::kOngoing) return std::nullopt;
  std::optional<std::int64_t> next;
  if (std::optional<Color> running = game.clock().running();
      running && !game.FlagRecorded(*running)) {
    next = game.clock().Deadline();
  }
  if (game.default_deadline_ms() &&
      (!game.present(Color::kWhite) || !game.present(Color::kBlack))) {
    const std::int64_t t = *game.default_deadline_ms() + 1;
    next = next ? std::min(*next, t) : t;
  }
  // Appendix A1b: an envelope sealed early closes at the session's end.
  if (std::optional<std::int64_t> close_at = EnvelopeClosesAt(game)) {
    next = next ? std::min(*next, *close_at) : *close_at;
  }
  return next;
}

}  // namespace arbitration
