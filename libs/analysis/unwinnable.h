// Unwinnability: can a side checkmate by some series of legal moves, the opponent cooperating
// (a helpmate)? The Laws ask it in 5.2b / 9.6 (dead position: neither side can), 6.10 and C3
// (a flag fell or an illegal move was made: can the opponent still mate?) and, with a stronger
// goal, in the 1997 blitz rule C4 (mating potential).
//
//   UnwinnabilityResult r = AnalyzeUnwinnability(pos, chess::Color::kWhite, SearchLimits{});
//   if (r.verdict == Verdict::kWinnable) Replay(pos, r.line);  // ends in mate by White
//
// The contract is soundness in both directions: kWinnable always carries a line of legal moves
// that ends in checkmate by that side; kUnwinnable is only answered with a proof (a static
// argument that holds for every continuation, or an exhaustive enumeration of every reachable
// position); anything else is kUndetermined. Move counters (9.3, 2023 9.6.2) play no part:
// "any series of legal moves" is unbounded.
//
// The method follows the ideas of M. Ambrona, "A Practical Algorithm for Chess Unwinnability"
// (FUN 2022): cheap static tests first (material, mate patterns enumerated per material, locked
// pawns), then guided helpmate searches taking turns with an exhaustive one: a greedy search,
// searches driven towards concrete checkmates by minor pieces (the loser's men as blockers), and
// one that first takes the loser's men and then mates the bare king. Then, after
// the same paper's semi-static analysis: forced moves played first, a reachability proof (the
// squares each man can ever reach through locked pawn chains: reachability.h), and a depth-first
// search for a lone minor piece whose progress moves cost no depth. The code is our own.
#ifndef ARBITER_LIBS_ANALYSIS_UNWINNABLE_H_
#define ARBITER_LIBS_ANALYSIS_UNWINNABLE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "libs/chess/position.h"
#include "libs/chess/types.h"

namespace analysis {

enum class Verdict { kWinnable, kUnwinnable, kUndetermined };
// "winnable", "unwinnable", "undetermined" (the JSON contract of `arbiterctl unwinnable`).
absl::string_view VerdictName(Verdict v);

// How a verdict was reached (stable names for logs and JSON: MethodName).
enum class Method {
  kGameOver,     // the position is already checkmate or stalemate
  kMaterial,     // a material argument (lone king, bishops of one colour, K+N v K, ...)
  kMatePattern,  // no checkmate position exists at all with this material (exhaustive)
  kLockedPawns,  // every pawn is frozen and the winner's pieces can never give check
  kExhaustive,   // every reachable position enumerated
  kSearch,       // a helpmate found by the guided search
  kLimit,        // a limit (nodes, deadline, cancellation) ended the search
};
absl::string_view MethodName(Method m);

// Bounds for one analysis. A future RPC handler passes its call's deadline and cancel flag.
struct SearchLimits {
  std::int64_t max_nodes = 1'000'000;  // positions generated, over all phases
  absl::Time deadline = absl::InfiniteFuture();
  const std::atomic<bool>* cancel = nullptr;  // polled; true stops the search (kUndetermined)
};

struct UnwinnabilityResult {
  Verdict verdict = Verdict::kUndetermined;
  Method method = Method::kLimit;
  // kWinnable: the moves from the position to checkmate by the winner (empty when the winner has
  // already mated). Otherwise empty.
  std::vector<chess::Move> line;
  std::string reason;  // one human sentence
  std::int64_t nodes = 0;
};

// Can `winner` checkmate `~winner` from `pos` by some series of legal moves?
UnwinnabilityResult AnalyzeUnwinnability(const chess::Position& pos, chess::Color winner,
                                         const SearchLimits& limits = {});

// 5.2b / 9.6: dead when unwinnable for both sides. kWinnable here means "not dead" (then
// `white`/`black` hold the per-side answers, the first winnable one with its line).
struct DeadPositionResult {
  Verdict verdict = Verdict::kUndetermined;  // kUnwinnable = dead, kWinnable = alive
  UnwinnabilityResult white;                 // can White mate?
  UnwinnabilityResult black;                 // can Black mate?
  bool dead() const { return verdict == Verdict::kUnwinnable; }
};
DeadPositionResult AnalyzeDeadPosition(const chess::Position& pos, const SearchLimits& limits = {});

// 1997 Appendix C4 (seed 004): mating potential. `side` has it when it can reach, by legal moves
// and helpmate-style play, a position where the opponent is to move, has a legal move, and
// cannot prevent mate on the next move. kWinnable carries the line to such a position (`line`;
// empty when the position is one already, or the opponent is already mated). A mate reached only
// by help does not count: K+N+N v K: insufficient; R v N: sufficient. Classes decided without
// search: no potential for K+B v K + one man, K+N v K + one piece, K+N v K+P but
// a rook pawn that can still reach its sixth rank (NoMatingPotentialProof); for that rook pawn,
// K+N+N v K+P and K+B v K + rook pawn + pawn the line is built by walking to a known pattern.
UnwinnabilityResult AnalyzeMatingPotential(const chess::Position& pos, chess::Color side,
                                           const SearchLimits& limits = {});

// The checks a caller (and the tests) can apply to a claimed result.
// True when `line` is legal from `pos` and ends in checkmate of `~winner`.
bool LineMates(const chess::Position& pos, chess::Color winner,
               const std::vector<chess::Move>& line);
// True when the opponent of `side` is to move in `pos`, has a legal move, and every legal reply
// allows `side` a checkmate in one.
bool CannotPreventMateNextMove(const chess::Position& pos, chess::Color side);

}  // namespace analysis

#endif  // ARBITER_LIBS_ANALYSIS_UNWINNABLE_H_
