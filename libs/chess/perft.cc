#include "libs/chess/perft.h"

#include "libs/chess/movegen.h"

namespace chess {

std::uint64_t Perft(const Position& pos, int depth) {
  if (depth <= 0) return 1;
  if (depth == 1) return static_cast<std::uint64_t>(CountLegalMoves(pos));
  MoveList list;
  GenerateLegalMoves(pos, &list);
  std::uint64_t nodes = 0;
  for (Move m : list) {
    Position child = pos;
    child.PlayUnchecked(m);
    nodes += Perft(child, depth - 1);
  }
  return nodes;
}

absl::StatusOr<std::uint64_t> Perft(const Position& pos, int depth,
                                    const std::function<absl::Status()>& check) {
  if (depth <= 3) return Perft(pos, depth);
  if (absl::Status st = check(); !st.ok()) return st;
  absl::StatusOr<std::vector<std::pair<Move, std::uint64_t>>> divided =
      PerftDivide(pos, depth, check);
  if (!divided.ok()) return divided.status();
  std::uint64_t nodes = 0;
  for (const auto& [move, n] : *divided) nodes += n;
  return nodes;
}

std::vector<std::pair<Move, std::uint64_t>> PerftDivide(const Position& pos, int depth) {
  return *PerftDivide(pos, depth, [] { return absl::OkStatus(); });
}

absl::StatusOr<std::vector<std::pair<Move, std::uint64_t>>> PerftDivide(
    const Position& pos, int depth, const std::function<absl::Status()>& check) {
  std::vector<std::pair<Move, std::uint64_t>> out;
  MoveList list;
  GenerateLegalMoves(pos, &list);
  for (Move m : list) {
    Position child = pos;
    child.PlayUnchecked(m);
    absl::StatusOr<std::uint64_t> n = Perft(child, depth - 1, check);
    if (!n.ok()) return n.status();
    out.emplace_back(m, *n);
  }
  return out;
}

}  // namespace chess
