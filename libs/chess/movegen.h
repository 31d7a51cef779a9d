// Legal move generation (Article 3, 3.9). Moves are generated legal directly (pins and checks are
// resolved while generating), so perft and search never play a move to test it.
#ifndef ARBITER_LIBS_CHESS_MOVEGEN_H_
#define ARBITER_LIBS_CHESS_MOVEGEN_H_

#include "libs/chess/position.h"
#include "libs/chess/types.h"

namespace chess {

struct MoveList {
  Move moves[256];  // the most legal moves any position has is 218
  int size = 0;
  const Move* begin() const { return moves; }
  const Move* end() const { return moves + size; }
  bool Contains(Move m) const {
    for (int i = 0; i < size; ++i)
      if (moves[i] == m) return true;
    return false;
  }
};

// Every legal move of the side to move.
void GenerateLegalMoves(const Position& pos, MoveList* list);
// The number of legal moves, counted without listing them (perft's bulk count at the leaves).
int CountLegalMoves(const Position& pos);

// 3.7d with 3.9: whether the side to move's pawn on `from` may capture en passant onto `ep` without
// exposing its king (removing two pawns from one rank can uncover a rook or queen).
bool EnPassantLeavesKingSafe(const Position& pos, Square from, Square ep);

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_MOVEGEN_H_
