// A game as a caller may see it: observers through the broadcast delay (the last plies, or the
// moves younger than a time, held back with everything recorded after them), the claim's advice
// for arbiters only (12.2), and who did what for the arbiters and the platform only. The server's
// handlers read the view from here; the delay is a property of the game's log, not of gRPC.
//
//   Viewer viewer{.delayed = true, .all_actors = false};
//   ASSIGN_OR_RETURN(Seen seen, SeenBy(viewer, game, now_ms));
//   FillView(game_id, seen, viewer, reply.mutable_game());
#ifndef ARBITER_LIBS_ARBITRATION_OBSERVER_VIEW_H_
#define ARBITER_LIBS_ARBITRATION_OBSERVER_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/arbitration/game_state.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

// How the caller sees a game: observers through the broadcast delay; advice for arbiters (12.2).
// Who did what is the arbiters' and the platform's: a player or an observer sees the actors'
// roles, his own subject and his own command ids, never another caller's subject (an account id)
// or the server's command ids.
struct Viewer {
  bool delayed = false;
  bool advice = false;
  bool all_actors = true;
  std::string subject;
};

// What `viewer` may see of an event's actor and command id (`command_id` as the client sent it).
void RedactActor(const Viewer& viewer, v1::ArbitrationEvent* event, std::string* command_id);

// How many of the log's first events an observer may see at `now_ms`: everything before the
// first move held back by the broadcast delay (the last `broadcast_delay_plies` plies while the
// game goes on, and every move younger than `broadcast_delay_ms`), so that nothing recorded after
// a hidden move (an offer, a claim, an illegal move, the end) gives it away.
std::size_t VisibleEvents(absl::Span<const v1::ArbitrationEvent> events, std::int64_t now_ms);

// The game as the viewer may see it: the state and the instant to read it at.
struct Seen {
  std::shared_ptr<const GameState> game;
  std::int64_t at_ms = 0;
  bool cut = false;  // observers: events held back
  // Observers of a game with a broadcast delay: whether or not something is held back now, the
  // view says nothing that would tell (the next deadline appears and vanishes with a hidden move).
  bool delayed = false;
};

// `game` as `viewer` sees it at `now_ms`: for a delayed viewer the state replayed up to the
// visible events, read at an instant that tells nothing of a hidden move. Fails only on a log
// that does not replay (ERR_CORRUPT_LOG).
absl::StatusOr<Seen> SeenBy(const Viewer& viewer, std::shared_ptr<const GameState> game,
                            std::int64_t now_ms);

// The game's view as `viewer` sees `seen`: the position, the moves, the clocks at the view's
// instant, offers, claims (advice for arbiters only, 12.2), the illegal-move ledger (7.4b, 7.5.5,
// C3), the envelope's record (A2), this turn's touches (Article 4), the next deadline (never for
// a delayed observer).
void FillView(absl::string_view game_id, const Seen& seen, const Viewer& viewer,
              v1::GameView* view);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_OBSERVER_VIEW_H_
