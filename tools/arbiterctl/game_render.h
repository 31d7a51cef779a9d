// `game simulate`, writing: a run (game_run.h) as the command's JSON line, the contract that
// game_simulate.h spells out: its keys and their order do not change.
#ifndef ARBITER_TOOLS_ARBITERCTL_GAME_RENDER_H_
#define ARBITER_TOOLS_ARBITERCTL_GAME_RENDER_H_

#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_run.h"

namespace arbiterctl {

nlohmann::ordered_json RenderGame(const GameRun& run);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_GAME_RENDER_H_
