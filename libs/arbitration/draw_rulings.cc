// Article 9 and 10.2 (Appendix D without an arbiter): draw offers and their answers, the claims
// of 9.2 / 9.3 (ruled at once, 9.5) and of a quickplay finish (ruled by the arbiter), the claim
// command's dispatch to the claim's own family, and the arbiter's ruling on a pending claim.
// See plan.h for the families.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/events.h"
#include "libs/arbitration/irregularities.h"
#include "libs/arbitration/plan.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/laws/proto_convert.h"
#include "libs/laws/ruleset.h"

namespace arbitration {
namespace {

using chess::Color;
using laws::Outcome;
using laws::Termination;

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
  // 10.2 is the claim of the player on move; D1 does not ask it.
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
  v1::ArbitrationEvent claim =
      ClaimEvent(side, v1::CLAIM_KIND_QUICKPLAY, v1::CLAIM_RULING_PENDING, rule.article);
  v1::ClaimMade* cm = claim.mutable_claim();
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
    return plan.Add(FlagEnded(v), now, c.actor);
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

}  // namespace

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

namespace {

absl::Status DecideOfferDraw(Plan& plan, const Command& c, Analyst& /*analyst*/,
                             v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  // Appendix A4: an offer made during the adjournment stands until answered (9.1).
  if (s.status() != GameStatus::kAdjourned) RETURN_IF_ERROR(CheckInPlay(s));
  RETURN_IF_ERROR(CheckOfferAllowed(s, *c.side, s.clock().moves(*c.side)));
  v1::ArbitrationEvent e;
  e.mutable_draw_offered()->set_side(laws::ToProto(*c.side));
  // 9.1b: an offer on one's own time, before moving, is valid; 12.5 may apply.
  e.mutable_draw_offered()->set_outside_move(*c.side == s.to_move());
  return plan.Add(std::move(e), now, c.actor);
}

// 9.1: accept or decline the opponent's pending offer.
absl::Status DecideAnswerDraw(Plan& plan, const Command& c, Analyst& /*analyst*/,
                              v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
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

absl::Status ValidateClaim(const Command& c) {
  RETURN_IF_ERROR(RequireSide(c));
  if (c.claim == v1::CLAIM_KIND_UNSPECIFIED) {
    return Error(kErrBadArgument, "claim: kind threefold, fifty, quickplay or time");
  }
  if (c.move.size() > 24) return Error(kErrBadArgument, "claim: the move is too long");
  return absl::OkStatus();
}

absl::Status DecideClaim(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
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
}

absl::Status ValidateRule(const Command& c) {
  if (c.decision == v1::RULING_DECISION_UNSPECIFIED) {
    return Error(kErrBadRuling, "a decision (draw, postpone or reject) is required");
  }
  return absl::OkStatus();
}

absl::Status DecideRule(Plan& plan, const Command& c, Analyst& analyst,
                        v1::ClaimRuling* /*ruling*/) {
  return DecideRuling(plan, c, analyst);
}

}  // namespace

absl::Span<const CommandRule> DrawRules() {
  static constexpr CommandRule kRows[] = {
      {CommandKind::kOfferDraw, "offer_draw", RequireSide, DecideOfferDraw},
      {CommandKind::kAcceptDraw, "accept_draw", RequireSide, DecideAnswerDraw},
      {CommandKind::kDeclineDraw, "decline_draw", RequireSide, DecideAnswerDraw},
      {CommandKind::kClaim, "claim", ValidateClaim, DecideClaim},
      {CommandKind::kRule, "rule", ValidateRule, DecideRule},
  };
  return kRows;
}

}  // namespace arbitration
