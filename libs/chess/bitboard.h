// Bitboards: a set of squares as 64 bits (bit n = square n, a1 = 0), and the attack tables of
// every piece (3.2-3.6, 3.7c). Sliding attacks use magic multiplication over tables that are
// filled once at program start (bitboard.cc); everything else is computed at compile time.
#ifndef ARBITER_LIBS_CHESS_BITBOARD_H_
#define ARBITER_LIBS_CHESS_BITBOARD_H_

#include <array>
#include <cstdint>

#include "libs/chess/types.h"

namespace chess {

using Bitboard = std::uint64_t;

inline constexpr Bitboard kEmpty = 0;
inline constexpr Bitboard kFileABB = 0x0101010101010101ULL;
inline constexpr Bitboard kFileHBB = kFileABB << 7;
inline constexpr Bitboard kRank1BB = 0xFFULL;
inline constexpr Bitboard kDarkSquares = 0xAA55AA55AA55AA55ULL;  // a1 is dark
inline constexpr Bitboard kLightSquares = ~kDarkSquares;

constexpr Bitboard SquareBB(Square s) { return Bitboard{1} << s; }
constexpr Bitboard FileBB(int file) { return kFileABB << file; }
constexpr Bitboard RankBB(int rank) { return kRank1BB << (8 * rank); }
// The rank `r` as seen from `c` (rank 0 = own back rank).
constexpr Bitboard RelativeRankBB(Color c, int r) { return RankBB(c == Color::kWhite ? r : 7 - r); }

inline int PopCount(Bitboard b) { return __builtin_popcountll(b); }
inline Square Lsb(Bitboard b) { return static_cast<Square>(__builtin_ctzll(b)); }
inline Square PopLsb(Bitboard& b) {
  Square s = Lsb(b);
  b &= b - 1;
  return s;
}
constexpr bool MoreThanOne(Bitboard b) { return (b & (b - 1)) != 0; }
constexpr bool Contains(Bitboard b, Square s) { return (b & SquareBB(s)) != 0; }

// One step in a direction without wrapping around the board's edge.
enum Direction : int {
  kNorth = 8,
  kSouth = -8,
  kEast = 1,
  kWest = -1,
  kNorthEast = 9,
  kNorthWest = 7,
  kSouthEast = -7,
  kSouthWest = -9
};
template <Direction D>
constexpr Bitboard Shift(Bitboard b) {
  if constexpr (D == kNorth) return b << 8;
  if constexpr (D == kSouth) return b >> 8;
  if constexpr (D == kEast) return (b & ~kFileHBB) << 1;
  if constexpr (D == kWest) return (b & ~kFileABB) >> 1;
  if constexpr (D == kNorthEast) return (b & ~kFileHBB) << 9;
  if constexpr (D == kNorthWest) return (b & ~kFileABB) << 7;
  if constexpr (D == kSouthEast) return (b & ~kFileHBB) >> 7;
  if constexpr (D == kSouthWest) return (b & ~kFileABB) >> 9;
  return 0;
}

namespace internal {

struct Magic {
  Bitboard mask;
  Bitboard magic;
  const Bitboard* attacks;
  int shift;
  unsigned Index(Bitboard occupied) const {
    return static_cast<unsigned>(((occupied & mask) * magic) >> shift);
  }
};

struct AttackTables {
  std::array<Bitboard, 64> knight;
  std::array<Bitboard, 64> king;
  std::array<std::array<Bitboard, 64>, 2> pawn;      // [colour][square]: squares that pawn attacks
  std::array<std::array<Bitboard, 64>, 64> between;  // strictly between two aligned squares
  std::array<std::array<Bitboard, 64>, 64> line;     // the whole line through two aligned squares
  std::array<Magic, 64> bishop;
  std::array<Magic, 64> rook;
};

extern AttackTables tables;

// The search that found the magic multipliers built into bitboard.cc (sparse random numbers from
// a fixed seed, kept when no two occupancies with different attacks share an index).
std::array<Bitboard, 64> FindMagics(bool rook);
// Attacks by walking the rays square by square: the reference for tests.
Bitboard ReferenceSlidingAttacks(bool rook, Square s, Bitboard occupied);

}  // namespace internal

inline Bitboard KnightAttacks(Square s) { return internal::tables.knight[s]; }
inline Bitboard KingAttacks(Square s) { return internal::tables.king[s]; }
inline Bitboard PawnAttacks(Color c, Square s) { return internal::tables.pawn[Index(c)][s]; }
inline Bitboard BishopAttacks(Square s, Bitboard occupied) {
  const internal::Magic& m = internal::tables.bishop[s];
  return m.attacks[m.Index(occupied)];
}
inline Bitboard RookAttacks(Square s, Bitboard occupied) {
  const internal::Magic& m = internal::tables.rook[s];
  return m.attacks[m.Index(occupied)];
}
inline Bitboard QueenAttacks(Square s, Bitboard occupied) {
  return BishopAttacks(s, occupied) | RookAttacks(s, occupied);
}
// Attacks of a piece of type `t` (not a pawn) on square `s`.
Bitboard Attacks(PieceType t, Square s, Bitboard occupied);

// Squares strictly between a and b if they share a rank, file or diagonal; otherwise empty.
inline Bitboard Between(Square a, Square b) { return internal::tables.between[a][b]; }
// The full rank, file or diagonal through a and b (both included); empty if not aligned.
inline Bitboard Line(Square a, Square b) { return internal::tables.line[a][b]; }
inline bool Aligned(Square a, Square b, Square c) { return (Line(a, b) & SquareBB(c)) != 0; }

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_BITBOARD_H_
