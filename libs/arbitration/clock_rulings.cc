// Article 6 and Appendix B / the 2023 Guidelines: what the passing of time records by itself (a
// flag, a default, an envelope that closes: Settle), B7's claim of a win on time, and the
// arbiter's hand on the clocks: the interruption (6.13a), an adjustment, the clocks set (6.14,
// 6.11). See plan.h for the families.
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
#include "libs/laws/proto_convert.h"
#include "libs/laws/ruleset.h"

namespace arbitration {
namespace {

using chess::Color;
using laws::Outcome;
using laws::Termination;

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
  return plan.Add(FlagEnded(v), at_ms, ServerActor());
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

}  // namespace

// The opponent wins unless he cannot mate (by any series of legal moves; in 1997 blitz, without
// mating potential); an undetermined search counts for him and is marked for review, a review
// that waits for analysis when the question went unanswered (ReviewSettledByAnalysis asks again).
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
    v.awaits_analysis = v.review && answer.unanswered;
  }
  return v;
}

v1::ArbitrationEvent FlagEnded(const FlagVerdict& v) {
  return EndedEvent(v.outcome, v.proof, v.review, v.awaits_analysis);
}

std::optional<v1::ArbitrationEvent> ReviewSettledByAnalysis(const GameState& game,
                                                            Analyst& analyst) {
  const std::optional<Color> winner = game.outcome().winner();
  if (!game.review_awaits_analysis() || !winner) return std::nullopt;
  // The question the flag's ruling asked, on the position the game ended in, and the ruling the
  // answer would have given in time (the article the win rested on stays the same).
  FlagVerdict v = RuleOnFlag(game, ~*winner, game.outcome().article, analyst);
  if (v.awaits_analysis) return std::nullopt;  // still unanswered: asked again later
  v1::ArbitrationEvent e;
  v1::ReviewSettled* settled = e.mutable_review_settled();
  laws::ToProto(v.outcome, settled->mutable_outcome());
  settled->set_proof(v.proof);
  settled->set_article(std::string(laws::WinOnTimeOf(game.ruleset()).article));
  settled->set_settled_by("analysis");
  settled->set_review(v.review);  // undetermined by the search's limits: the arbiter's review
  return e;
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
  v1::ArbitrationEvent claim = ClaimEvent(
      side, v1::CLAIM_KIND_TIME, correct ? v1::CLAIM_RULING_CORRECT : v1::CLAIM_RULING_INCORRECT,
      b8 ? rule.both_down_article : rule.claim_article);
  v1::ClaimMade* cm = claim.mutable_claim();
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
  return plan.Add(FlagEnded(v), plan.now_ms, c.actor);
}

namespace {

absl::Status DecidePause(Plan& plan, const Command& c, Analyst& /*analyst*/,
                         v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  // 6.13a: only a game in play is interrupted; while a claim awaits the ruling (10.2, D1) the
  // clocks are stopped already.
  RETURN_IF_ERROR(CheckInPlay(s));
  if (s.paused()) return Error(kErrGamePaused, "the clocks are stopped already (6.13a)");
  v1::ArbitrationEvent e;
  e.mutable_paused()->set_reason(c.reason);
  e.mutable_paused()->set_article("6.13a");
  return plan.Add(std::move(e), now, c.actor);
}

// 6.13: the arbiter restarts the clocks.
absl::Status DecideResume(Plan& plan, const Command& c, Analyst& /*analyst*/,
                          v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  if (!s.paused()) {
    return Error(kErrGameNotPaused, "the arbiter has not stopped the clocks (6.13a)");
  }
  v1::ArbitrationEvent e;
  e.mutable_resumed()->set_reason(c.reason);
  return plan.Add(std::move(e), now, c.actor);
}

absl::Status ValidateAdjustTime(const Command& c) {
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

absl::Status DecideAdjustTime(Plan& plan, const Command& c, Analyst& /*analyst*/,
                              v1::ClaimRuling* /*ruling*/) {
  // Any time between the start and the end: during an interruption (6.13) too, and while a
  // claim awaits the ruling. The clock checks the sign the article fixes and that a deduction
  // leaves time (otherwise the clock is set, 6.14).
  RETURN_IF_ERROR(CheckNotOver(plan.state));
  return plan.Add(AdjustedEvent(*c.side, c.delta_ms, c.article, c.reason), plan.now_ms, c.actor);
}

absl::Status ValidateSetClocks(const Command& c) {
  RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
  if (!c.article.empty() && c.article != "6.14" && c.article != "6.11") {
    return Error(kErrBadArgument, "set_clocks: article 6.14 (the default) or 6.11");
  }
  // A clock set to nothing would have its flag down at once: a result is set, not a clock.
  if (c.clocks.white_ms() <= 0 || c.clocks.black_ms() <= 0) {
    return Error(kErrBadArgument, "set_clocks: both times must be above 0 ms");
  }
  return absl::OkStatus();
}

absl::Status DecideSetClocks(Plan& plan, const Command& c, Analyst& /*analyst*/,
                             v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  // 6.14 / 6.11: from the start to the end, during an interruption too.
  RETURN_IF_ERROR(CheckNotOver(s));
  RETURN_IF_ERROR(CheckClockSettingCorrectable(s, c.article));  // B4 (rapid, blitz)
  v1::ArbitrationEvent e;
  *e.mutable_clocks_set() = c.clocks;
  e.mutable_clocks_set()->set_article(c.article.empty() ? "6.14" : c.article);
  e.mutable_clocks_set()->set_reason(c.reason);
  return plan.Add(std::move(e), now, c.actor);
}

}  // namespace

absl::Span<const CommandRule> ClockRules() {
  static constexpr CommandRule kRows[] = {
      {CommandKind::kPause, "pause", RequireReason, DecidePause},  // 6.13a: why
      {CommandKind::kResume, "resume", OptionalReason, DecideResume},
      {CommandKind::kAdjustTime, "adjust_time", ValidateAdjustTime, DecideAdjustTime},
      {CommandKind::kSetClocks, "set_clocks", ValidateSetClocks, DecideSetClocks},
  };
  return kRows;
}

}  // namespace arbitration
