// Move notation: UCI ("e2e4", "e7e8q"), SAN as the PGN standard writes it ("Nbd7", "exd6",
// "e8=Q+", "O-O#"), and the algebraic notation of Appendix E ("0-0", "d8D", "exd6 e.p.", "++"),
// in English or German piece letters (E2: K D T L S).
//
// Reading SAN is tolerant of what people write: English or German letters, a missing or extra "x",
// "+" or "#", "0-0" for "O-O", "e2-e4" and "Ng1-f3", "exd6e.p.", "e8Q", "e8=D". It is strict about
// meaning: a SAN that fits no legal move is ERR_ILLEGAL_MOVE, one that fits several is
// ERR_AMBIGUOUS_SAN, and text that is no move at all is ERR_BAD_SAN.
#ifndef ARBITER_LIBS_CHESS_NOTATION_H_
#define ARBITER_LIBS_CHESS_NOTATION_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/chess/position.h"
#include "libs/chess/types.h"

namespace chess {

std::string ToUci(Move m);
// ERR_BAD_UCI when malformed; ERR_ILLEGAL_MOVE (with the reason payload) when not legal here.
absl::StatusOr<Move> ParseUci(const Position& pos, absl::string_view text);

enum class SanStyle {
  kPgn,        // O-O, e8=Q, #, no e.p. (the PGN export standard)
  kAppendixE,  // 0-0, e8Q / e8D, ++, e.p. (FIDE Appendix E)
};

// `m` must be legal in `pos`.
std::string ToSan(const Position& pos, Move m, SanStyle style = SanStyle::kPgn,
                  Letters letters = Letters::kEnglish);

absl::StatusOr<Move> ParseSan(const Position& pos, absl::string_view text);

// UCI when the text has UCI's exact form, SAN otherwise (what the command-line tools accept).
absl::StatusOr<Move> ParseMove(const Position& pos, absl::string_view text);

// Appendix E12 / 8.1: "(=)" after a move records a draw offer ("e4(=)", "e4 (=)", "Sf3+(=)").
// Splits it off; the readers above ignore it, so a caller that must not lose the offer asks here.
struct MoveText {
  absl::string_view move;   // without the marker and the spaces before it
  bool draw_offer = false;  // the marker was there
};
MoveText SplitDrawOffer(absl::string_view text);

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_NOTATION_H_
