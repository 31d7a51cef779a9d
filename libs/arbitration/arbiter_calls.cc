#include "libs/arbitration/arbiter_calls.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace arbitration {
namespace {

namespace v1 = arbiter::v1;

constexpr std::int64_t kAdjournedSoonMs = 60 * 60 * 1000;

std::string SideName(v1::Color side) {
  return side == v1::COLOR_WHITE ? "White" : side == v1::COLOR_BLACK ? "Black" : "a player";
}

v1::ArbiterCall Call(const v1::GameView& game, v1::ArbiterCallKind kind, int urgency,
                     std::string article, std::string summary) {
  v1::ArbiterCall call;
  call.set_game_id(game.game_id());
  call.set_kind(kind);
  call.set_urgency(urgency);
  call.set_article(std::move(article));
  call.set_since_ms(game.last_event_ms());
  call.set_summary(std::move(summary));
  return call;
}

std::optional<v1::ArbiterCall> ClaimCall(const v1::GameView& game) {
  const v1::ClaimMade& claim = game.pending_claim();
  const std::string who = SideName(claim.side());
  v1::ArbiterCall call;
  if (claim.kind() == v1::CLAIM_KIND_ILLEGAL_MOVE) {
    // 7.4a / B5: the claimant says the opponent's move in the record was illegal.
    call = Call(game, v1::ARBITER_CALL_KIND_ILLEGAL_MOVE, 30,
                claim.article().empty() ? "7.4a" : claim.article(),
                absl::StrCat(who, " claims the move ", claim.illegal_from(), "-",
                             claim.illegal_to(), " was illegal: uphold or reject"));
  } else {
    // 10.2 with an arbiter, D1 without; after a postponement the flag brings it back (10.2b).
    call = Call(
        game, v1::ARBITER_CALL_KIND_CLAIM, 10, claim.article().empty() ? "10.2" : claim.article(),
        absl::StrCat(who, " claims a draw (", claim.article().empty() ? "10.2" : claim.article(),
                     "): draw, postpone or reject"));
    call.set_advice(claim.advice());
  }
  call.set_side(claim.side());
  call.set_proof(claim.reason());
  return call;
}

}  // namespace

std::optional<v1::ArbiterCall> ArbiterCallOf(const v1::GameView& game, std::int64_t now_ms) {
  if (game.has_pending_claim() && game.pending_claim().ruling() == v1::CLAIM_RULING_PENDING) {
    return ClaimCall(game);
  }
  if (game.stopped_by() != v1::COLOR_UNSPECIFIED) {
    // 6.13b: a player stopped the clocks to call the arbiter; 6.13d: he rules on the stop.
    v1::ArbiterCall call = Call(
        game, v1::ARBITER_CALL_KIND_STOP, 20, "6.13b",
        absl::StrCat(SideName(game.stopped_by()), " stopped the clocks and calls the arbiter"));
    call.set_side(game.stopped_by());
    return call;
  }
  if (game.paused() && game.status() != v1::GAME_STATUS_ENDED) {
    // 6.13a: the clocks stand until the arbiter restarts them (an irregularity of Article 7, a
    // board's illegal move that stood, a disturbance).
    return Call(game, v1::ARBITER_CALL_KIND_IRREGULARITY, 40, "6.13a",
                "the clocks are stopped: rule on the irregularity, then resume");
  }
  if (game.review()) {
    v1::ArbiterCall call = Call(game, v1::ARBITER_CALL_KIND_FLAG_REVIEW, 50,
                                game.outcome().article().empty() ? "6.9" : game.outcome().article(),
                                game.review_awaits_analysis()
                                    ? "a flag under review, waiting for analysis: set the result"
                                    : "a flag under review: confirm or set the result");
    if (game.has_review_settled()) call.set_proof(game.review_settled().proof());
    return call;
  }
  if (game.status() == v1::GAME_STATUS_ADJOURNED) {
    const std::int64_t due = game.envelope().resume_at_ms();
    const bool soon = due == 0 || due - now_ms <= kAdjournedSoonMs;
    v1::ArbiterCall call =
        Call(game, v1::ARBITER_CALL_KIND_ADJOURNED, soon ? 60 : 80, "A9",
             due != 0 && due <= now_ms ? "adjourned: the resumption is due, open the envelope"
                                       : "adjourned: the envelope is sealed until the resumption");
    call.set_side(game.envelope().sealer());
    call.set_due_ms(due);
    return call;
  }
  if (game.status() == v1::GAME_STATUS_ENDED &&
      !(game.white_confirmed() && game.black_confirmed())) {
    // 8.7: both players sign the scoresheet with the result.
    const char* missing = !game.white_confirmed() && !game.black_confirmed() ? "both players"
                          : !game.white_confirmed()                          ? "White"
                                                                             : "Black";
    return Call(game, v1::ARBITER_CALL_KIND_RESULT_TO_CONFIRM, 90, "8.7",
                absl::StrCat("the result awaits the confirmation of ", missing));
  }
  return std::nullopt;
}

std::vector<v1::ArbiterCall> ArbiterCalls(absl::Span<const v1::GameView> games,
                                          std::int64_t now_ms) {
  std::vector<v1::ArbiterCall> calls;
  for (const v1::GameView& game : games) {
    if (std::optional<v1::ArbiterCall> call = ArbiterCallOf(game, now_ms)) {
      calls.push_back(*std::move(call));
    }
  }
  std::sort(calls.begin(), calls.end(), [](const v1::ArbiterCall& a, const v1::ArbiterCall& b) {
    return std::make_tuple(a.urgency(), a.since_ms(), a.game_id()) <
           std::make_tuple(b.urgency(), b.since_ms(), b.game_id());
  });
  return calls;
}

}  // namespace arbitration
