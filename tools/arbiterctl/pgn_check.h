// `arbiterctl pgn check FILE`: replays every game of a PGN file by the Laws and reports each game's
// first illegal or ambiguous move with the game number, move number and reason.
#ifndef ARBITER_TOOLS_ARBITERCTL_PGN_CHECK_H_
#define ARBITER_TOOLS_ARBITERCTL_PGN_CHECK_H_

#include <iosfwd>
#include <string>

namespace arbiterctl {

// Checks `text`; writes one line per bad game (or per syntax error) and a summary line. With
// `json`, each line is a JSON object. Returns 0 when every game replays, 1 otherwise.
int CheckPgn(const std::string& text, bool json, std::ostream& out);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_PGN_CHECK_H_
