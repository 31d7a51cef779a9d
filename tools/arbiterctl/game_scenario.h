// `game simulate`, reading: one scenario line (game_simulate.h gives its keys) as the request
// the platform would send, the commands in time order, and the instant the game is read at.
#ifndef ARBITER_TOOLS_ARBITERCTL_GAME_SCENARIO_H_
#define ARBITER_TOOLS_ARBITERCTL_GAME_SCENARIO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "libs/arbitration/rulings.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbiterctl {

// One input event, read: the command, or (no command) why it is refused as a command.
struct ParsedEvent {
  std::int64_t at_ms = 0;
  arbitration::Command command;
  absl::Status refused;  // a well-formed event that cannot be a command (ERR_BAD_ARGUMENT)
};

struct Scenario {
  arbiter::v1::CreateGameRequest request;
  std::vector<ParsedEvent> events;
  std::optional<std::int64_t> query_ms;
};

// Every event is read before any is played, so a malformed line answers with its error alone:
// ERR_BAD_JSON, ERR_BAD_SCENARIO, ERR_BAD_EVENT, or a field's own code.
absl::StatusOr<Scenario> ParseScenario(const std::string& line);

// The actor of a scenario's command.
arbiter::v1::Actor ActorFor(absl::string_view subject, absl::string_view role);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_GAME_SCENARIO_H_
