#include "tools/arbiterctl/game_simulate.h"

#include <string>

#include "absl/status/statusor.h"
#include "libs/base/status_macros.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_render.h"
#include "tools/arbiterctl/game_run.h"
#include "tools/arbiterctl/game_scenario.h"
#include "tools/arbiterctl/json_lines.h"

namespace arbiterctl {
namespace {

// Read (game_scenario.h), play (game_run.h), write (game_render.h).
absl::StatusOr<nlohmann::ordered_json> Simulate(const std::string& line) {
  ASSIGN_OR_RETURN(Scenario scenario, ParseScenario(line));
  ASSIGN_OR_RETURN(GameRun run, RunScenario(scenario));
  return RenderGame(run);
}

}  // namespace

std::string SimulateGameLine(const std::string& line) { return JsonLineOf(Simulate(line)); }

}  // namespace arbiterctl
