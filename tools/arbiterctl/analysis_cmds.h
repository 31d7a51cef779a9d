// The search-analysis commands of arbiterctl:
//
//   arbiterctl unwinnable   < JSON lines
//     in:  {"fen": "<FEN|startpos>", "side": "white"|"black"}
//          optional: "goal": "mate" (default) | "mating_potential" (1997 C4), "max_nodes": N
//     out: {"verdict": "winnable"|"unwinnable"|"undetermined", "line": ["<uci>", ...],
//           "method": "...", "reason": "...", "nodes": N}
//          ("line" only when winnable; empty when the side has already mated)
//          or {"error": {"code": "ERR_...", "message": "..."}} for that line alone.
//   arbiterctl dead --fen <FEN|startpos> [--max-nodes N]
//     out: one JSON line {"fen", "dead": true|false|null, "verdict": "dead"|"alive"|
//          "undetermined", "white": {...}, "black": {...}} (5.2b / 9.6)
//   arbiterctl advise --fen <FEN|startpos> [--moves "e4 e5 Nf3 ..."] [--engine PATH]
//          [--depth N] [--nodes N] [--movetime MS] [--multipv N] [--last N] [--timeout MS]
//     (--engine none: no engine, only the unwinnability proof and the progress summary)
//     out: one JSON line of advice for a 10.2 / Appendix D claim by the player to move,
//          labelled as advice for a human ruling.
#ifndef ARBITER_TOOLS_ARBITERCTL_ANALYSIS_CMDS_H_
#define ARBITER_TOOLS_ARBITERCTL_ANALYSIS_CMDS_H_

#include <iosfwd>
#include <map>
#include <string>

namespace arbiterctl {

// One input line of `unwinnable` (without its newline) -> one JSON line (without newline).
std::string UnwinnableLine(const std::string& line);
// Reads lines until EOF, answers each; returns 0.
int RunUnwinnable(std::istream& in, std::ostream& out);

// The flags of `dead` and of `advise`; main.cc refuses any other.
inline constexpr const char* kDeadFlags[] = {"fen", "max-nodes"};
inline constexpr const char* kAdviseFlags[] = {"fen",     "moves", "depth",   "nodes", "movetime",
                                               "multipv", "last",  "timeout", "engine"};

// `flags` are the command's --name value options (main.cc's Args::flags). Exit codes: 0 done,
// 2 bad arguments (the error JSON is still printed on `out`, the message on `err`).
int RunDead(const std::map<std::string, std::string>& flags, std::ostream& out, std::ostream& err);
int RunAdvise(const std::map<std::string, std::string>& flags, std::ostream& out,
              std::ostream& err);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_ANALYSIS_CMDS_H_
