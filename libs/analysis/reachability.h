// Semi-static reachability: for every man on the board, a set of squares that contains
// every square it can ever stand on, whatever the moves. Static proofs of unwinnability (5.2b,
// 6.9, 9.6) built on it hold for every continuation: when no man of the winner can ever attack a
// square the loser's king can ever stand on, there is never a check, so never a mate.
//
// The sets are the least fixed point of rules that over-approximate the moves of chess: a man
// may step from a square of its set to another if the way could be empty at some time (the
// occupant of a square on the way can leave it or be captured there), the target could be free
// of its own men, a pawn captures only where an enemy man (not a king) can stand, and a king
// never enters a square attacked by an enemy pawn that can never move and never be captured.
// Every rule allows at least what chess allows, given that every man stays in its set, so by
// induction over any series of legal moves every man stays in its set: the sets are sound. They
// need not be exact: locked pawn chains and the squares behind them are what they capture (the
// idea of M. Ambrona's "semi-static" analysis in CHA; this code is our own).
#ifndef ARBITER_LIBS_ANALYSIS_REACHABILITY_H_
#define ARBITER_LIBS_ANALYSIS_REACHABILITY_H_

#include <optional>
#include <vector>

#include "libs/analysis/static_proofs.h"
#include "libs/chess/bitboard.h"
#include "libs/chess/position.h"
#include "libs/chess/types.h"

namespace analysis {

struct ReachMan {
  chess::Color color = chess::Color::kWhite;
  chess::PieceType type = chess::PieceType::kNone;  // kNone: a piece promotion may make
  chess::Square start = chess::kNoSquare;           // kNoSquare for a promoted piece
  chess::Bitboard reach = 0;                        // every square it can ever stand on
};

struct Reachability {
  std::vector<ReachMan> men;  // every man on the board, then pieces promotions may make
  // Squares that are never empty (their occupant can never leave nor be captured).
  chess::Bitboard never_empty = 0;
  // Squares a man of the colour can ever attack (kings included), from any square of its set.
  chess::Bitboard attack_zone[2] = {0, 0};
  const ReachMan& king(chess::Color c) const;
};

// nullopt when the analysis does not apply (castling rights or an en passant capture on the
// board: the rules above leave them out).
std::optional<Reachability> ComputeReachability(const chess::Position& pos);

// Squares `m` attacks from anywhere in its set (slides stopped by squares never empty). A piece
// made by promotion may be any piece: queen and knight attacks.
chess::Bitboard AttackZone(const ReachMan& m, chess::Bitboard never_empty);

// Unwinnable for `winner` by reachability:
//  - no man of the winner can ever attack a square the loser's king can ever stand on (never a
//    check); or
//  - only bishops of one colour can ever give check, and at every square of that colour the
//    loser's king can stand on, it has more flight squares of the other colour (squares its king
//    can reach) than the winner can ever cover with other men and the loser can ever fill with
//    his own men (a bishop's check leaves the other colour free).
std::optional<StaticProof> ReachabilityProof(const chess::Position& pos, chess::Color winner);
// The same from sets already computed for `pos`.
std::optional<StaticProof> ReachabilityProof(const Reachability& r, chess::Color winner);

}  // namespace analysis

#endif  // ARBITER_LIBS_ANALYSIS_REACHABILITY_H_
