// Inside the rulings (rulings.h): the working state of one decision, the checks every family of
// commands shares, and each family's deciders. Each command kind has one row in rulings.cc's
// table (its name, its check for a malformed command, its decider); the deciders live with their
// family of articles:
//
//   move_rulings.cc         Articles 3, 4 and 7: moves, the electronic board, touch-move claims,
//                           illegal moves and irregularities (7.1-7.5, C3)
//   draw_rulings.cc         9.1 offers, 9.2 / 9.3 claims, 10.2 / Appendix D and the arbiter's
//                           ruling on a pending claim
//   clock_rulings.cc        Article 6 and Appendix B: flags and defaults (Settle), B7's claim,
//                           the arbiter's pause (6.13a), adjustments and clock setting (6.14)
//   result_rulings.cc       the start and arrivals (6.5-6.7), resignation (5.1b), confirmation
//                           (8.7), the arbiter's result
//   arbiter_rulings.cc      a player who stops the clocks (6.13b, d), the arbiter's powers (12,
//                           13.4)
//   adjournment.cc          Appendix A: sealed moves and adjourned games
//
// Not part of the library's interface: only the rulings' own files include it.
#ifndef ARBITER_LIBS_ARBITRATION_PLAN_H_
#define ARBITER_LIBS_ARBITRATION_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/laws/outcome.h"

namespace arbitration {

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

// A command's own events on the settled plan; a returned error is the command's refusal.
// `ruling`: a claim's ruling, for the ones that rule on a claim.
using Decider = absl::Status (*)(Plan& plan, const Command& c, Analyst& analyst,
                                 v1::ClaimRuling* ruling);
// What makes a command malformed whatever the game's state (ERR_BAD_ARGUMENT).
using Validator = absl::Status (*)(const Command& c);

// --- Shared by every family (rulings.cc)

v1::ArbitrationEvent ClockStopped();
v1::ArbitrationEvent ClockRestarted();
// Moves, offers and 9.2 / 9.3 / 10.2 claims need a game in play.
absl::Status CheckInPlay(const GameState& s);
// 6.13a: while the arbiter has the clocks stopped, no move and no claim.
absl::Status CheckNotPaused(const GameState& s);
// Resignation and answers to offers: not before the start or after the end.
absl::Status CheckNotOver(const GameState& s);
// Player commands: the side is required.
absl::Status RequireSide(const Command& c);
// The arbiter's reason: at most 1,024 bytes, and required where `required`.
absl::Status CheckReason(const Command& c, bool required);
absl::Status RequireReason(const Command& c);   // CheckReason(c, true)
absl::Status OptionalReason(const Command& c);  // CheckReason(c, false)

// --- Moves, the board, Article 7 (move_rulings.cc)

// Plays `move` for `side` at the plan's instant: the press (6.8a) unless the move ends the game.
absl::Status AddMove(Plan& plan, chess::Color side, chess::Move move, bool offer_draw,
                     std::int64_t lag_ms, const v1::Actor& actor, Analyst& analyst);
// 4.3-4.5 on the opponent's touches, at his request (B5a).
absl::Status DecideTouchMoveClaim(Plan& plan, const Command& c, v1::ClaimRuling* ruling);
absl::Status ValidateMove(const Command& c);
absl::Status DecideMove(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);
absl::Status ValidateBoardFeed(const Command& c);
absl::Status DecideBoardFeed(Plan& plan, const Command& c, Analyst& analyst,
                             v1::ClaimRuling* ruling);
absl::Status ValidateReportIllegalMove(const Command& c);
absl::Status DecideReportIllegalMoveCommand(Plan& plan, const Command& c, Analyst& analyst,
                                            v1::ClaimRuling* ruling);
absl::Status ValidateCompleteIllegalMove(const Command& c);
absl::Status DecideCompleteIllegalMoveCommand(Plan& plan, const Command& c, Analyst& analyst,
                                              v1::ClaimRuling* ruling);
absl::Status ValidateClaimIllegalMove(const Command& c);
absl::Status DecideClaimIllegalMove(Plan& plan, const Command& c, Analyst& analyst,
                                    v1::ClaimRuling* ruling);
absl::Status ValidateRuleIrregularity(const Command& c);
absl::Status DecideRuleIrregularity(Plan& plan, const Command& c, Analyst& analyst,
                                    v1::ClaimRuling* ruling);

// --- Offers, claims, rulings (draw_rulings.cc)

// What the event's regulations forbid of an offer (no offers before move N; a limit per player).
// `moves_made`: the offerer's completed moves, counting a move made with the offer. nullopt:
// allowed.
struct OfferForbidden {
  base::ErrorSpec error;         // the code an offer without a move is refused with
  absl::string_view regulation;  // the regulation's field, recorded with a refused offer
  std::string reason;
};
std::optional<OfferForbidden> ForbiddenOffer(const GameState& s, chess::Color side, int moves_made);
// 9.1a: an offer made with a move that the regulations forbid: refused, the move stands.
v1::ArbitrationEvent OfferRefused(chess::Color side, const OfferForbidden& why);
absl::Status DecideOfferDraw(Plan& plan, const Command& c, Analyst& analyst,
                             v1::ClaimRuling* ruling);
absl::Status DecideAnswerDraw(Plan& plan, const Command& c, Analyst& analyst,
                              v1::ClaimRuling* ruling);  // accept or decline
absl::Status ValidateClaim(const Command& c);
absl::Status DecideClaim(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);
absl::Status ValidateRule(const Command& c);
absl::Status DecideRule(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);

// --- Time (clock_rulings.cc)

// 6.10 / C3 / B7 / 1997 C4: what a fallen flag of `loser` decides in the current position.
struct FlagVerdict {
  laws::Outcome outcome;
  std::string proof;
  bool review = false;
};
FlagVerdict RuleOnFlag(const GameState& game, chess::Color loser, absl::string_view win_article,
                       Analyst& analyst);
// Records, in the order they happened, the flags and defaults due by `now_ms`.
absl::Status SettleInto(Plan& plan, std::int64_t now_ms, Analyst& analyst);
// B7: a win on time claimed by the player whose flag is up.
absl::Status DecideTimeClaim(Plan& plan, const Command& c, chess::Color side, Analyst& analyst,
                             v1::ClaimRuling* ruling);
absl::Status DecidePause(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);
absl::Status DecideResume(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);
absl::Status ValidateAdjustTime(const Command& c);
absl::Status DecideAdjustTime(Plan& plan, const Command& c, Analyst& analyst,
                              v1::ClaimRuling* ruling);
absl::Status ValidateSetClocks(const Command& c);
absl::Status DecideSetClocks(Plan& plan, const Command& c, Analyst& analyst,
                             v1::ClaimRuling* ruling);

// --- Start, arrival, results (result_rulings.cc)

absl::Status ValidateStart(const Command& c);
absl::Status DecideStart(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);
absl::Status DecideArrive(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);
absl::Status DecideResign(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);
absl::Status DecideConfirm(Plan& plan, const Command& c, Analyst& analyst, v1::ClaimRuling* ruling);
absl::Status ValidateSetResult(const Command& c);
absl::Status DecideSetResult(Plan& plan, const Command& c, Analyst& analyst,
                             v1::ClaimRuling* ruling);

// --- The arbiter's acts on a stopped clock and his powers (arbiter_rulings.cc)

absl::Status ValidateStopClocks(const Command& c);
absl::Status DecideStopClocksCommand(Plan& plan, const Command& c, Analyst& analyst,
                                     v1::ClaimRuling* ruling);
absl::Status ValidateRuleStop(const Command& c);
absl::Status DecideRuleStopCommand(Plan& plan, const Command& c, Analyst& analyst,
                                   v1::ClaimRuling* ruling);
absl::Status ValidateUsePower(const Command& c);
absl::Status DecideUsePower(Plan& plan, const Command& c, Analyst& analyst,
                            v1::ClaimRuling* ruling);

// --- Appendix A (adjournment.cc)

absl::Status DecideSealMoveCommand(Plan& plan, const Command& c, Analyst& analyst,
                                   v1::ClaimRuling* ruling);
absl::Status DecideAdjournCommand(Plan& plan, const Command& c, Analyst& analyst,
                                  v1::ClaimRuling* ruling);
absl::Status DecideResumeAdjournedCommand(Plan& plan, const Command& c, Analyst& analyst,
                                          v1::ClaimRuling* ruling);
absl::Status DecideEnvelopeLostCommand(Plan& plan, const Command& c, Analyst& analyst,
                                       v1::ClaimRuling* ruling);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_PLAN_H_
