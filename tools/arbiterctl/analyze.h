// `arbiterctl analyze`: JSON lines in, one JSON line out per input line.
//   in:  {"fen": "<FEN|startpos>", "moves": ["e2e4", "Nf6", ...]}   (UCI or SAN)
//   out: {"fen", "legal_uci", "legal_san", "check", "checkmate", "stalemate",
//         "insufficient_material", "can_claim_threefold", "can_claim_fifty", "fivefold",
//         "seventyfive", ...} or {"error": {"code": "ERR_...", "message": "..."}} for that line.
#ifndef ARBITER_TOOLS_ARBITERCTL_ANALYZE_H_
#define ARBITER_TOOLS_ARBITERCTL_ANALYZE_H_

#include <iosfwd>
#include <string>

namespace arbiterctl {

// Answers one input line (without its newline) with one JSON line (without newline).
std::string AnalyzeLine(const std::string& line);
// Reads lines until EOF; returns 0.
int RunAnalyze(std::istream& in, std::ostream& out);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_ANALYZE_H_
