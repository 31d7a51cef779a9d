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

// The magic multipliers, found once by FindMagics below (bitboard_test finds them again and
// compares); searching at every start would cost a third of a second.
constexpr Bitboard kRookMagics[64] = {
    0x1080004008801020ULL, 0x0840092002C03000ULL, 0x1900200010400900ULL, 0x0880100008000480ULL,
    0x4200100420080200ULL, 0x8100020100080400ULL, 0x0200040110886200ULL, 0x0200008040220411ULL,
    0x0404800084400220ULL, 0x0000401000402000ULL, 0x0086001081220440ULL, 0x0408800800100280ULL,
    0x000A001201040820ULL, 0x8848800200840080ULL, 0x4001000100040200ULL, 0x0442000102105084ULL,
    0x9080010020804100ULL, 0x0040404000201009ULL, 0x0000808010002009ULL, 0x2200090021D00100ULL,
    0x0008008008040080ULL, 0x0004004002010040ULL, 0x0011040008015042ULL, 0x00000A0001768104ULL,
    0x0000800080204009ULL, 0x2010004140002001ULL, 0x9800200280100080ULL, 0x1000100080080080ULL,
    0x0442000A00049020ULL, 0x2100040080020080ULL, 0x0800120400900148ULL, 0x0010040A00128541ULL,
    0x2800804000800030ULL, 0x1010002000400041ULL, 0x4000200011004100ULL, 0x0610008410800800ULL,
    0x0400802402800800ULL, 0xC100020080800400ULL, 0x0002000802000401ULL, 0x0182085882000401ULL,
    0x0220204000808000ULL, 0x2860100040024022ULL, 0x0001002004110040ULL, 0x99101042000A0020ULL,
    0x0004080004008080ULL, 0x0010040002008080ULL, 0x2012004881020004ULL, 0x8300842444820011ULL,
    0x0088403882010200ULL, 0x0820400080210100ULL, 0x0110910040A00300ULL, 0x0801100280080480ULL,
    0x0242009008200600ULL, 0x1002000489500200ULL, 0x0040800200010080ULL, 0x0091800041000080ULL,
    0x0000209300488001ULL, 0x04C1002414824001ULL, 0x020020000B001041ULL, 0x7000100004200901ULL,
    0x8002002004100802ULL, 0x30010002084C0007ULL, 0x0888221800813004ULL, 0x4000002840840112ULL,
};
constexpr Bitboard kBishopMagics[64] = {
    0x10102002004A1420ULL, 0x8020040400584008ULL, 0x10510800811201C8ULL, 0x5204042080000088ULL,
    0x2204106880000002ULL, 0x1401042004000000ULL, 0x0400880410042004ULL, 0x0028208200A02020ULL,
    0x1500241990010E00ULL, 0x8001200182020A40ULL, 0x40004101030B0000ULL, 0x8002041042000100ULL,
    0x4010011041020038ULL, 0x0000010421044000ULL, 0x1500210808020A00ULL, 0x8000088400880520ULL,
    0x0405004010040100ULL, 0x1005823210040108ULL, 0x2708008102040011ULL, 0x4048200404009100ULL,
    0x0018104101400024ULL, 0x0003000601190101ULL, 0x8004803108491000ULL, 0x8014241200820800ULL,
    0x0006E080100C3040ULL, 0x0501044A11041800ULL, 0x9020300008004045ULL, 0x0894080000220040ULL,
    0x1001010083104000ULL, 0x5004030040900080ULL, 0x000400422C012400ULL, 0x0002128698404812ULL,
    0x1010108404900440ULL, 0x0928021182084100ULL, 0x2006080409020024ULL, 0x1010202020180080ULL,
    0xA010008200202200ULL, 0x2098015100019004ULL, 0x0002041440810811ULL, 0x802A02020000B098ULL,
    0x0009015090004060ULL, 0x4000821082081001ULL, 0x0100210040420800ULL, 0x0800004010488A00ULL,
    0x2000081104004040ULL, 0x4C8E029015000082ULL, 0x0420340322224842ULL, 0x1298260043400210ULL,
    0x0000822802400008ULL, 0x00008A0101600000ULL, 0x3040003412080021ULL, 0x3040290220884800ULL,
    0x4A1500401041004AULL, 0x8010200282020781ULL, 0x0020203142209091ULL, 0x0070300600902110ULL,
    0x0040808800B62048ULL, 0x0000810400C44420ULL, 0x00080400440C0441ULL, 0x8340080020840411ULL,
    0x0000000104208200ULL, 0x0000800810D00080ULL, 0x0400530411080200ULL, 0x4040702400932244ULL,
};

Bitboard RelevantMask(Square s, const int (*deltas)[2]) {
  Bitboard edges = ((RankBB(0) | RankBB(7)) & ~RankBB(RankOf(s))) |
                   ((FileBB(0) | FileBB(7)) & ~FileBB(FileOf(s)));
  return SlidingAttacks(s, 0, deltas) & ~edges;
}

// Fills `magics` and `table` for one slider kind from the given multipliers.
void InitMagics(const int (*deltas)[2], const Bitboard* multipliers, Magic* magics,
                Bitboard* table) {
  Bitboard* next = table;
  for (int sq = 0; sq < 64; ++sq) {
    Square s = static_cast<Square>(sq);
    Magic& m = magics[sq];
    m.mask = RelevantMask(s, deltas);
    m.shift = 64 - PopCount(m.mask);
    m.magic = multipliers[sq];
    m.attacks = next;
    Bitboard subset = 0;
    do {  // every subset of the mask (Carry-Rippler)
      next[m.Index(subset)] = SlidingAttacks(s, subset, deltas);
      subset = (subset - m.mask) & m.mask;
    } while (subset != 0);
    next += Bitboard{1} << PopCount(m.mask);
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
  InitMagics(kBishopDeltas, kBishopMagics, t.bishop.data(), bishop_table);
  InitMagics(kRookDeltas, kRookMagics, t.rook.data(), rook_table);
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

std::array<Bitboard, 64> FindMagics(bool rook) {
  const int(*deltas)[2] = rook ? kRookDeltas : kBishopDeltas;
  std::array<Bitboard, 64> found{};
  Rng rng(0x9E3779B97F4A7C15ULL);
  std::vector<Bitboard> occupancy(4096), reference(4096), used(4096);
  std::vector<int> epoch(4096, 0);
  int attempt = 0;
  for (int sq = 0; sq < 64; ++sq) {
    Square s = static_cast<Square>(sq);
    Magic m{};
    m.mask = RelevantMask(s, deltas);
    m.shift = 64 - PopCount(m.mask);
    int size = 0;
    Bitboard subset = 0;
    do {
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
          used[idx] = reference[i];
        } else if (used[idx] != reference[i]) {
          break;
        }
      }
    }
    found[sq] = m.magic;
  }
  return found;
}

Bitboard ReferenceSlidingAttacks(bool rook, Square s, Bitboard occupied) {
  return SlidingAttacks(s, occupied, rook ? kRookDeltas : kBishopDeltas);
}

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
