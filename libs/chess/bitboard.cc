#include "libs/chess/bitboard.h"

#include <vector>

namespace chess {
namespace internal {
namespace {

// Attacks of a slider found by walking its rays: the reference the magic tables are built from.
Bitboard SlidingAttacks(Square s, Bitboard occupied, const int (*deltas)[2]) {
  Bitboard attacks = 0;
  for (int d = 0; d < 4; ++d) {
    int f = FileOf(s) + deltas[d][0];
    int r = RankOf(s) + deltas[d][1];
    while (f >= 0 && f < 8 && r >= 0 && r < 8) {
      Bitboard bb = SquareBB(MakeSquare(f, r));
      attacks |= bb;
      if (occupied & bb) break;
      f += deltas[d][0];
      r += deltas[d][1];
    }
  }
  return attacks;
}

constexpr int kBishopDeltas[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
constexpr int kRookDeltas[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

Bitboard StepAttacks(Square s, const int (*deltas)[2], int count) {
  Bitboard attacks = 0;
  for (int i = 0; i < count; ++i) {
    int f = FileOf(s) + deltas[i][0];
    int r = RankOf(s) + deltas[i][1];
    if (f >= 0 && f < 8 && r >= 0 && r < 8) attacks |= SquareBB(MakeSquare(f, r));
  }
  return attacks;
}

// A small deterministic generator (xorshift64*), so the magics found are the same every run.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 2685821657736338717ULL;
  }
  std::uint64_t Sparse() { return Next() & Next() & Next(); }

 private:
  std::uint64_t state_;
};

Bitboard rook_table[0x19000];   // 102,400 entries: the sum over squares of 2^(relevant bits)
Bitboard bishop_table[0x1480];  // 5,248 entries

// Fills `magics` and `table` for one slider kind by trial of sparse random multipliers.
void InitMagics(const int (*deltas)[2], Magic* magics, Bitboard* table) {
  Rng rng(0x9E3779B97F4A7C15ULL);
  std::vector<Bitboard> occupancy(4096), reference(4096);
  std::vector<int> epoch(4096, 0);
  int attempt = 0;
  Bitboard* next = table;
  for (int sq = 0; sq < 64; ++sq) {
    Square s = static_cast<Square>(sq);
    Bitboard edges = ((RankBB(0) | RankBB(7)) & ~RankBB(RankOf(s))) |
                     ((FileBB(0) | FileBB(7)) & ~FileBB(FileOf(s)));
    Magic& m = magics[sq];
    m.mask = SlidingAttacks(s, 0, deltas) & ~edges;
    m.shift = 64 - PopCount(m.mask);
    m.attacks = next;
    int size = 0;
    Bitboard subset = 0;
    do {  // every subset of the mask (Carry-Rippler)
      occupancy[size] = subset;
      reference[size] = SlidingAttacks(s, subset, deltas);
      ++size;
      subset = (subset - m.mask) & m.mask;
    } while (subset != 0);
    for (int i = 0; i < size;) {
      do {
        m.magic = rng.Sparse();
      } while (PopCount((m.magic * m.mask) >> 56) < 6);
      ++attempt;
      for (i = 0; i < size; ++i) {
        unsigned idx = m.Index(occupancy[i]);
        if (epoch[idx] < attempt) {
          epoch[idx] = attempt;
          next[idx] = reference[i];
        } else if (next[idx] != reference[i]) {
          break;
        }
      }
    }
    next += size;
  }
}

AttackTables Build() {
  AttackTables t{};
  constexpr int kKnightDeltas[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                       {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
  constexpr int kKingDeltas[8][2] = {{1, 0},  {1, 1},   {0, 1},  {-1, 1},
                                     {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
  constexpr int kWhitePawn[2][2] = {{-1, 1}, {1, 1}};
  constexpr int kBlackPawn[2][2] = {{-1, -1}, {1, -1}};
  for (int sq = 0; sq < 64; ++sq) {
    Square s = static_cast<Square>(sq);
    t.knight[sq] = StepAttacks(s, kKnightDeltas, 8);
    t.king[sq] = StepAttacks(s, kKingDeltas, 8);
    t.pawn[0][sq] = StepAttacks(s, kWhitePawn, 2);
    t.pawn[1][sq] = StepAttacks(s, kBlackPawn, 2);
  }
  InitMagics(kBishopDeltas, t.bishop.data(), bishop_table);
  InitMagics(kRookDeltas, t.rook.data(), rook_table);
  for (int a = 0; a < 64; ++a) {
    Square sa = static_cast<Square>(a);
    for (int b = 0; b < 64; ++b) {
      Square sb = static_cast<Square>(b);
      if (a == b) continue;
      const int(*kinds[2])[2] = {kBishopDeltas, kRookDeltas};
      for (const int(*deltas)[2] : kinds) {
        if (SlidingAttacks(sa, 0, deltas) & SquareBB(sb)) {
          t.line[a][b] = (SlidingAttacks(sa, 0, deltas) & SlidingAttacks(sb, 0, deltas)) |
                         SquareBB(sa) | SquareBB(sb);
          t.between[a][b] =
              SlidingAttacks(sa, SquareBB(sb), deltas) & SlidingAttacks(sb, SquareBB(sa), deltas);
        }
      }
    }
  }
  return t;
}

}  // namespace

// Filled during static initialisation of this translation unit. Nothing else in the project may
// use the tables from a static initialiser of its own.
AttackTables tables = Build();

}  // namespace internal

Bitboard Attacks(PieceType t, Square s, Bitboard occupied) {
  switch (t) {
    case PieceType::kKnight:
      return KnightAttacks(s);
    case PieceType::kBishop:
      return BishopAttacks(s, occupied);
    case PieceType::kRook:
      return RookAttacks(s, occupied);
    case PieceType::kQueen:
      return QueenAttacks(s, occupied);
    case PieceType::kKing:
      return KingAttacks(s);
    default:
      return 0;
  }
}

}  // namespace chess
