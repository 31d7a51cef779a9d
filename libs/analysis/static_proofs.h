// Static proofs that a side can never checkmate: arguments that hold for every continuation,
// so that unwinnability (5.2b, 6.10, 9.6, C3) can be answered without search. Each proof is
// sound by construction; a proof that does not apply answers nullopt, never a guess.
#ifndef ARBITER_LIBS_ANALYSIS_STATIC_PROOFS_H_
#define ARBITER_LIBS_ANALYSIS_STATIC_PROOFS_H_

#include <optional>
#include <string>

#include "libs/analysis/unwinnable.h"
#include "libs/chess/position.h"
#include "libs/chess/types.h"

namespace analysis {

struct StaticProof {
  Method method;
  std::string reason;
};

// Material alone (cheap enough for every search node):
//  - the winner has only the king (a king never gives check);
//  - no pawns, the winner has only bishops on squares of one colour and the loser no pieces but
//    bishops of that colour (the loser's king on a square of that colour has its orthogonal
//    neighbours on the other colour; nothing can block them and the winner's king cannot cover
//    them all without standing next to the loser's king);
//  - no pawns, the winner has one knight and the loser a bare king.
std::optional<StaticProof> MaterialProof(const chess::Position& pos, chess::Color winner);
// The same test without building the proof's sentence (no allocation: the searches call it for
// every position they generate).
bool MaterialCannotMate(const chess::Position& pos, chess::Color winner);

// No pawns, the winner has one minor piece or up to three bishops all on squares of one colour,
// the loser at most two pieces besides the king: every placement of that material and of
// everything captures can leave is enumerated once (cached per material signature) and none is a
// checkmate of the loser. Examples: K+N v K+Q; K + two light-squared bishops v K+R (the rook is
// the only blocker for the king's dark neighbours, and from there it always captures or
// interposes).
std::optional<StaticProof> MatePatternProof(const chess::Position& pos, chess::Color winner);

// Locked pawns: every pawn is frozen (its way forward is blocked by a pawn, no enemy piece can
// ever reach its square or a square it attacks, computed by flooding each piece's region with
// the pawns as walls and kings kept off squares enemy pawns attack), and no piece of the winner
// can ever attack a square the loser's king can reach. The frozen pawns are an invariant of
// every continuation, so the winner can never give check.
std::optional<StaticProof> LockedPawnsProof(const chess::Position& pos, chess::Color winner);

// All of the above, cheapest first.
std::optional<StaticProof> ProveUnwinnableStatically(const chess::Position& pos,
                                                     chess::Color winner);

}  // namespace analysis

#endif  // ARBITER_LIBS_ANALYSIS_STATIC_PROOFS_H_
