// Inside the rulings (rulings.h): the working state of one decision, the checks every family of
// commands shares, and the rows of commands each family lists (a command kind's name, its check
// for a malformed command, its decider), beside its deciders, in the family's file:
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
#include "absl/types/span.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/irregularities.h"
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

// Where the deciders of irregularities.h write the events of `c`, decided at the plan's instant.
inline EventSink SinkOf(Plan& plan, const Command& c) {
  return EventSink(plan.state, plan.events, plan.now_ms, c.actor);
}

// A command's own events on the settled plan; a returned error is the command's refusal.
// `ruling`: a claim's ruling, for the ones that rule on a claim.
using Decider = absl::Status (*)(Plan& plan, const Command& c, Analyst& analyst,
                                 v1::ClaimRuling* ruling);
// What makes a command malformed whatever the game's state (ERR_BAD_ARGUMENT).
using Validator = absl::Status (*)(const Command& c);

// One row per command kind: its name (CommandKindName, the JSON's and the fingerprint's word),
// what makes it malformed, and its decider. Each family's file lists its rows; rulings.cc
// indexes them by kind, and command_table_test checks that every kind has exactly one.
struct CommandRule {
  CommandKind kind;
  absl::string_view name;
  Validator validate;
  Decider decide;
};
absl::Span<const CommandRule> MoveRules();         // move_rulings.cc
absl::Span<const CommandRule> DrawRules();         // draw_rulings.cc
absl::Span<const CommandRule> ClockRules();        // clock_rulings.cc
absl::Span<const CommandRule> ResultRules();       // result_rulings.cc
absl::Span<const CommandRule> ArbiterRules();      // arbiter_rulings.cc
absl::Span<const CommandRule> AdjournmentRules();  // adjournment.cc

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

// --- What one family asks of another

// Plays `move` for `side` at the plan's instant: the press (6.8a) unless the move ends the game
// (move_rulings.cc).
absl::Status AddMove(Plan& plan, chess::Color side, chess::Move move, bool offer_draw,
                     std::int64_t lag_ms, const v1::Actor& actor, Analyst& analyst);
// 4.3-4.5 on the opponent's touches, at his request (B5a) (move_rulings.cc).
absl::Status DecideTouchMoveClaim(Plan& plan, const Command& c, v1::ClaimRuling* ruling);

// What the event's regulations forbid of an offer (no offers before move N; a limit per player).
// `moves_made`: the offerer's completed moves, counting a move made with the offer. nullopt:
// allowed (draw_rulings.cc).
struct OfferForbidden {
  base::ErrorSpec error;         // the code an offer without a move is refused with
  absl::string_view regulation;  // the regulation's field, recorded with a refused offer
  std::string reason;
};
std::optional<OfferForbidden> ForbiddenOffer(const GameState& s, chess::Color side, int moves_made);
// 9.1a: an offer made with a move that the regulations forbid: refused, the move stands.
v1::ArbitrationEvent OfferRefused(chess::Color side, const OfferForbidden& why);

// 6.10 / C3 / B7 / 1997 C4: what a fallen flag of `loser` decides in the current position
// (clock_rulings.cc).
struct FlagVerdict {
  laws::Outcome outcome;
  std::string proof;
  bool review = false;
  bool awaits_analysis = false;  // the review waits for analysis, which did not answer
};
FlagVerdict RuleOnFlag(const GameState& game, chess::Color loser, absl::string_view win_article,
                       Analyst& analyst);
// The ending event of a flag's verdict.
v1::ArbitrationEvent FlagEnded(const FlagVerdict& v);
// Records, in the order they happened, the flags and defaults due by `now_ms`.
absl::Status SettleInto(Plan& plan, std::int64_t now_ms, Analyst& analyst);
// B7: a win on time claimed by the player whose flag is up.
absl::Status DecideTimeClaim(Plan& plan, const Command& c, chess::Color side, Analyst& analyst,
                             v1::ClaimRuling* ruling);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_PLAN_H_
