// `game simulate`, playing: a scenario (game_scenario.h) through the arbitration rulings, as the
// server plays a game (NewGame, Decide, Settle; the sealed move with a key made for the run).
#ifndef ARBITER_TOOLS_ARBITERCTL_GAME_RUN_H_
#define ARBITER_TOOLS_ARBITERCTL_GAME_RUN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "libs/arbitration/game_state.h"
#include "tools/arbiterctl/game_scenario.h"

namespace arbiterctl {

// What became of one input event.
struct EventOutcome {
  absl::Status status;  // OK, or why it was refused
  // A claim's ruling (claims only; unspecified when refused).
  std::optional<arbiter::v1::ClaimRuling> ruling;
  // 9.1a: the move was made; the offer it carried was refused by the regulations (the code).
  std::optional<std::string> offer_refused;
};

struct GameRun {
  arbitration::GameState game;  // at `at_ms`, with what fell by then
  std::vector<EventOutcome> events;
  std::int64_t at_ms = 0;  // query_ms, else the last event's instant
};

// Fails for a creation the rulings refuse and a query before the last event; a refused event is
// its outcome and changes nothing (what fell before it, a flag or a default, still stands).
absl::StatusOr<GameRun> RunScenario(const Scenario& scenario);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_GAME_RUN_H_
