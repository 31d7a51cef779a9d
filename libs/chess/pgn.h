// Portable Game Notation: many games per file, tags, comments ({...} and ;), NAGs, variations
// (kept or skipped), clock comments [%clk 1:23:45], escape lines (%). Reading is two steps: the
// syntax (ParsePgn, errors with line and column) and the replay of each game's moves by the Laws
// (ReplayGame: the first illegal or ambiguous move with its move number, line and column).
//
//   ASSIGN_OR_RETURN(std::vector<PgnGame> games, ParsePgn(text));
//   for (PgnGame& g : games) RETURN_IF_ERROR(ReplayGame(&g));
//   std::string out = WritePgn(games[0]);
#ifndef ARBITER_LIBS_CHESS_PGN_H_
#define ARBITER_LIBS_CHESS_PGN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/chess/position.h"

namespace chess {

struct PgnMove {
  std::string san;        // as written in the file
  Move move;              // filled by ReplayGame
  std::vector<int> nags;  // $1 .. $255 (and !, ?, !!, ??, !?, ?! as $1..$6)
  std::vector<std::string> comments;
  std::optional<std::int64_t> clock_ms;          // [%clk h:mm:ss(.f)] in a comment after the move
  std::vector<std::vector<PgnMove>> variations;  // alternatives to this move (kept if asked)
  int line = 0;
  int column = 0;
};

struct PgnGame {
  std::vector<std::pair<std::string, std::string>> tags;  // in file order
  std::vector<std::string> leading_comments;              // before the first move
  std::vector<PgnMove> moves;                             // the main line
  std::string result = "*";                               // 1-0, 0-1, 1/2-1/2 or *
  int line = 0;                                           // where the game starts

  // The value of a tag, or "" when absent.
  std::string Tag(absl::string_view name) const;
  void SetTag(absl::string_view name, absl::string_view value);
};

struct PgnReadOptions {
  bool keep_variations = true;
  std::size_t max_games = 100000;
};

// INVALID_ARGUMENT ERR_BAD_PGN "line L, column C: ..." on malformed text.
absl::StatusOr<std::vector<PgnGame>> ParsePgn(absl::string_view text,
                                              const PgnReadOptions& options = {});

// The game's start position: its FEN tag (with SetUp "1") or the initial position.
absl::StatusOr<Position> StartPosition(const PgnGame& game);

// Replays the main line (and kept variations) by the Laws, filling PgnMove::move. On the first
// bad move: ERR_ILLEGAL_MOVE / ERR_AMBIGUOUS_SAN / ERR_BAD_SAN with "move N[...]: SAN (line L,
// column C): reason". `bad_ply`, when given, receives the 0-based ply of the bad main-line move.
absl::Status ReplayGame(PgnGame* game, int* bad_ply = nullptr);

// Export format: Seven Tag Roster first, then the other tags, movetext wrapped at 80 columns,
// comments and clocks kept. Moves are written from PgnMove::san.
std::string WritePgn(const PgnGame& game);

// Formats milliseconds as a clock comment value, "1:23:45" (tenths added when not whole seconds).
std::string FormatClock(std::int64_t ms);

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_PGN_H_
