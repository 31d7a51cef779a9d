// The arbiter's queue: from the games of an event as the arbiter sees them (GameView), what needs
// him, most urgent first. Pure: the views and the instant in, the calls out; the arbitration
// service answers it as ListArbiterCalls and the arbiter's console shows it.
//
// One call per game, the most urgent thing it waits for (a game waits for one ruling at a time:
// while a claim or a stop holds the clocks nothing else happens in it):
//   claim (10.2 / D1: the clocks stopped, the engine's advice beside it)      urgency 10
//   a player's stop of the clocks (6.13b, ruled under 6.13d)                  urgency 20
//   a claimed illegal move (7.4a / B5, the clocks stopped)                    urgency 30
//   the clocks stopped by the arbiter or a board: an irregularity (6.13a, 7)  urgency 40
//   a flag under review (6.9 with 5.2b / 6.10: the result waits for him)      urgency 50
//   an adjourned game (Appendix A): due within the hour 60, later 80
//   a result that a player has yet to confirm (8.7)                           urgency 90
// Ties: the oldest first (since_ms), then the game id, so the order is stable between polls.
#ifndef ARBITER_LIBS_ARBITRATION_ARBITER_CALLS_H_
#define ARBITER_LIBS_ARBITRATION_ARBITER_CALLS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

// What `game` asks of the arbiter at `now_ms`, if anything.
std::optional<arbiter::v1::ArbiterCall> ArbiterCallOf(const arbiter::v1::GameView& game,
                                                      std::int64_t now_ms);

// The queue of `games` at `now_ms`, most urgent first.
std::vector<arbiter::v1::ArbiterCall> ArbiterCalls(absl::Span<const arbiter::v1::GameView> games,
                                                   std::int64_t now_ms);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_ARBITER_CALLS_H_
