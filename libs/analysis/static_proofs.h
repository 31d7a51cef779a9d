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

// 1997 Appendix C4 (seed 004): material without mating potential, although a mate may exist.
// C4 asks for a position where the opponent is to move, has a legal move, and cannot prevent
// mate on the next move; for these classes no such position exists, neither with the material
// on the board nor with any material that promotions and captures can make of it (each class
// verified by enumerating every placement: unwinnable_test.cc, NoMatingPotential.*):
//  - K+N+N v K (the seed's own example);
//  - K+B v K and at most one other man (pawn, knight, bishop, rook or queen): a bishop alone
//    cannot check a king both of whose neighbours of the other colour are blocked or covered
//    while the loser still has a move;
//  - K+N v K and one knight, bishop, rook or queen;
//  - K+N v K+P unless the pawn is a rook pawn that can still reach its sixth rank (the only
//    positions are the loser's king in the corner before its pawn on the third rank from it:
//    8/8/8/8/1N6/p7/8/k1K5 b, 8/8/8/8/8/p7/2K5/k1N5 b and their mirror images). The pawn never
//    changes its file: the only man it can capture is the knight, and then nothing can mate.
// Pawns of the winner, or more men, and the answer is nullopt.
std::optional<StaticProof> NoMatingPotentialProof(const chess::Position& pos, chess::Color side);

// All of the above, cheapest first (the C4 classes excepted: they are no proof against mate).
std::optional<StaticProof> ProveUnwinnableStatically(const chess::Position& pos,
                                                     chess::Color winner);

}  // namespace analysis

#endif  // ARBITER_LIBS_ANALYSIS_STATIC_PROOFS_H_
