// Perft: the number of leaf nodes of the legal move tree to a depth; the standard cross-check of a
// move generator. The last ply is bulk-counted (legal moves counted, not played).
#ifndef ARBITER_LIBS_CHESS_PERFT_H_
#define ARBITER_LIBS_CHESS_PERFT_H_

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "libs/chess/position.h"

namespace chess {

std::uint64_t Perft(const Position& pos, int depth);
// The same, asking `check` between subtrees of depth 3 (well under a millisecond each) and
// returning its error as soon as it gives one: how a server stops perft at a caller's deadline.
absl::StatusOr<std::uint64_t> Perft(const Position& pos, int depth,
                                    const std::function<absl::Status()>& check);
// Per root move counts (the "divide" of move generator debugging), in generation order.
std::vector<std::pair<Move, std::uint64_t>> PerftDivide(const Position& pos, int depth);
// The same with `check` as above: the one divide the servers serve.
absl::StatusOr<std::vector<std::pair<Move, std::uint64_t>>> PerftDivide(
    const Position& pos, int depth, const std::function<absl::Status()>& check);

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_PERFT_H_
