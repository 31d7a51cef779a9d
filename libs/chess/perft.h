// Perft: the number of leaf nodes of the legal move tree to a depth; the standard cross-check of a
// move generator. The last ply is bulk-counted (legal moves counted, not played).
#ifndef ARBITER_LIBS_CHESS_PERFT_H_
#define ARBITER_LIBS_CHESS_PERFT_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "libs/chess/position.h"

namespace chess {

std::uint64_t Perft(const Position& pos, int depth);
// Per root move counts (the "divide" of move generator debugging), in generation order.
std::vector<std::pair<Move, std::uint64_t>> PerftDivide(const Position& pos, int depth);

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_PERFT_H_
