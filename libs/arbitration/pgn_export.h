// The official record of a game as PGN (8.1, 8.7): the Seven Tag Roster, the
// PGN standard's TimeControl and Termination tags, FEN / SetUp for a game from a set-up
// position, [%clk] and [%emt] after every move (tenths of a second), draw offers as "(=)"
// (8.1, Appendix E), and every claim, ruling, flag, time penalty and arbiter action as a comment
// citing its article. The text passes `arbiterctl pgn check` (chess::ParsePgn + ReplayGame).
//
//   std::string pgn = ExportPgn(game);  // game: a GameState (game_state.h)
#ifndef ARBITER_LIBS_ARBITRATION_PGN_EXPORT_H_
#define ARBITER_LIBS_ARBITRATION_PGN_EXPORT_H_

#include <string>

#include "libs/arbitration/game_state.h"
#include "libs/chess/pgn.h"
#include "libs/laws/outcome.h"

namespace arbitration {

struct PgnExportOptions {
  // [%clk] / [%emt] after every move.
  bool clocks = true;
  // Claims, rulings, flags, penalties and arbiter actions as comments.
  bool arbiter_comments = true;
  // The search-analysis advice on a 10.2 claim: 12.2 keeps it for arbiters, so it is left out of
  // the record unless the reader is one.
  bool include_advice = false;
};

// The game as a chess::PgnGame (tags, moves with their comments, result), for callers that want
// to add tags or write several games to one file.
chess::PgnGame ToPgnGame(const GameState& game, const PgnExportOptions& options = {});

// The game as PGN text (chess::WritePgn of ToPgnGame).
std::string ExportPgn(const GameState& game, const PgnExportOptions& options = {});

// The PGN standard's Termination tag value (8.1.1, "Termination") for an outcome: "normal",
// "time forfeit", "abandoned", "adjudication", "rules infraction" or "unterminated".
absl::string_view PgnTermination(const laws::Outcome& outcome);

// Milliseconds as a PGN clock value with tenths, "h:mm:ss.f" (truncated, as a clock shows it).
std::string FormatPgnClock(std::int64_t ms);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_PGN_EXPORT_H_
