// Forsyth-Edwards Notation. Reading is strict (six fields; four are accepted with the counters
// defaulting to 0 and 1) and an error names the 1-based column where the text went wrong.
// Writing gives the en passant square only when an en passant capture is legal (as Lichess and
// python-chess do), so equal positions (9.2) have equal FENs.
//
//   absl::StatusOr<Position> pos =
//       ParseFen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
//   std::string fen = ToFen(*pos);
#ifndef ARBITER_LIBS_CHESS_FEN_H_
#define ARBITER_LIBS_CHESS_FEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/chess/position.h"
#include "libs/chess/setup.h"

namespace chess {

inline constexpr absl::string_view kStartFen =
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// Syntax only: INVALID_ARGUMENT ERR_BAD_FEN "column N: ..." on malformed text.
absl::StatusOr<Setup> ParseFenSetup(absl::string_view fen);
// Syntax and legality: ERR_BAD_FEN, or ERR_BAD_SETUP listing every problem.
absl::StatusOr<Position> ParseFen(absl::string_view fen);
// Accepts "startpos" as well as a FEN (the form the command-line tools and UCI use).
absl::StatusOr<Position> ParseFenOrStartpos(absl::string_view text);

// The tolerant reader of the command-line tools and the analysis service (as python-chess and
// chessops read): also a FEN without the move counters, or with only the placement and the side
// to move (and optionally castling), the missing fields read as "- - 0 1". The strict readers
// above name the missing field instead.
absl::StatusOr<Position> ParseFenTolerant(absl::string_view text);

std::string ToFen(const Position& pos);
std::string ToFen(const Setup& setup);

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_FEN_H_
