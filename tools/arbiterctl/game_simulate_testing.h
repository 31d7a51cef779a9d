// For the tests of `arbiterctl game simulate`: one scenario line run and its output read back as
// JSON, and the per-event answers the output lists.
#ifndef ARBITER_TOOLS_ARBITERCTL_GAME_SIMULATE_TESTING_H_
#define ARBITER_TOOLS_ARBITERCTL_GAME_SIMULATE_TESTING_H_

#include <initializer_list>
#include <string>

#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_simulate.h"
#include "tools/arbiterctl/json_test_util.h"

namespace arbiterctl {

// The output of the scenario `line` (a test failure if it is no JSON).
inline nlohmann::json Simulate(const std::string& line) {
  return ParseOutputLine(SimulateGameLine(line));
}
// An event's answer: done; refused with the stable `code`; a claim answered with `ruling`.
inline nlohmann::json Ok() { return nlohmann::json{{"ok", true}}; }
inline nlohmann::json Refused(const std::string& code) {
  return nlohmann::json{{"ok", false}, {"code", code}};
}
inline nlohmann::json Claim(const std::string& ruling) {
  return nlohmann::json{{"ok", true}, {"ruling", ruling}};
}

// A scenario line: a game of `edition` and `time_control` (the arbiters' notation, "G/90", or
// seconds, "5400+30"), its `events` (JSON objects, comma-separated), and `more` fields after
// them (", \"query_ms\": 20000").
inline std::string Scenario(const std::string& edition, const std::string& time_control,
                            const std::string& events, const std::string& more = "") {
  return R"({"edition": ")" + edition + R"(", "time_control": ")" + time_control +
         R"(", "events": [)" + events + "]" + more + "}";
}

// The events of an opening: the start at 0 ms, then the moves `sans` made alternately from
// White, one a second from 1000 ms; a comma after each, for the events that follow.
inline std::string Opening(std::initializer_list<std::string> sans) {
  std::string events = R"({"at_ms": 0, "type": "start"}, )";
  int ply = 0;
  for (const std::string& san : sans) {
    events += R"({"at_ms": )" + std::to_string(1000 * (ply + 1)) + R"(, "type": "move", "by": ")" +
              (ply % 2 == 0 ? "white" : "black") + R"(", "move": ")" + san + R"("}, )";
    ++ply;
  }
  return events;
}

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_GAME_SIMULATE_TESTING_H_
