// A Setup is any placement of pieces with the state a FEN carries: it may be impossible (no king,
// pawns on the first rank, ...). A Position (position.h) is a Setup that passed validation; its
// only door is Position::FromSetup, which reports every problem at once.
#ifndef ARBITER_LIBS_CHESS_SETUP_H_
#define ARBITER_LIBS_CHESS_SETUP_H_

#include <array>

#include "libs/chess/types.h"

namespace chess {

struct Setup {
  std::array<Piece, 64> board{};  // kNone where empty
  Color turn = Color::kWhite;
  CastlingRights castling = kNoCastling;
  Square ep_square = kNoSquare;  // the square a pawn passed over with its double step (3.7d)
  int halfmove_clock = 0;        // half-moves since the last capture or pawn move (9.3)
  int fullmove_number = 1;

  // 2.3: the initial position.
  static Setup Initial();

  friend bool operator==(const Setup&, const Setup&) = default;
};

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_SETUP_H_
