#include "libs/chess/movegen.h"

#include "libs/chess/bitboard.h"

namespace chess {
namespace {

// Collects moves or only counts them; the generator is written once for both (perft counts the
// last ply without listing it).
template <bool kCountOnly>
class Sink {
 public:
  explicit Sink(Move* out) : out_(out) {}
  void Add(Square from, Bitboard targets) {
    if constexpr (kCountOnly) {
      count_ += PopCount(targets);
    } else {
      while (targets) *out_++ = Move(from, PopLsb(targets));
    }
  }
  // Pawn moves given as a target set and the fixed offset back to the origin.
  void AddPawn(Bitboard targets, int back) {
    if constexpr (kCountOnly) {
      count_ += PopCount(targets);
    } else {
      while (targets) {
        Square to = PopLsb(targets);
        *out_++ = Move(static_cast<Square>(to + back), to);
      }
    }
  }
  // 3.7e: each promotion target is four moves (queen, rook, bishop, knight).
  void AddPromotions(Bitboard targets, int back) {
    if constexpr (kCountOnly) {
      count_ += 4 * PopCount(targets);
    } else {
      while (targets) {
        Square to = PopLsb(targets);
        Square from = static_cast<Square>(to + back);
        *out_++ = Move(from, to, Move::kPromotion, PieceType::kQueen);
        *out_++ = Move(from, to, Move::kPromotion, PieceType::kRook);
        *out_++ = Move(from, to, Move::kPromotion, PieceType::kBishop);
        *out_++ = Move(from, to, Move::kPromotion, PieceType::kKnight);
      }
    }
  }
  void AddOne(Move m) {
    if constexpr (kCountOnly) {
      ++count_;
    } else {
      *out_++ = m;
    }
  }
  int count(const Move* start) const {
    if constexpr (kCountOnly) {
      return count_;
    } else {
      return static_cast<int>(out_ - start);
    }
  }

 private:
  Move* out_;
  int count_ = 0;
};

template <Color kUs, bool kCountOnly>
int Generate(const Position& pos, Move* out) {
  constexpr Color kThem = ~kUs;
  constexpr Direction kUp = kUs == Color::kWhite ? kNorth : kSouth;
  constexpr Direction kUpLeft = kUs == Color::kWhite ? kNorthWest : kSouthEast;
  constexpr Direction kUpRight = kUs == Color::kWhite ? kNorthEast : kSouthWest;
  constexpr Bitboard kRank3 = RelativeRankBB(kUs, 2);
  constexpr Bitboard kRank8 = RelativeRankBB(kUs, 7);

  Sink<kCountOnly> sink(out);
  const Bitboard occ = pos.occupied();
  const Bitboard ours = pos.pieces(kUs);
  const Bitboard theirs = pos.pieces(kThem);
  const Square ksq = pos.KingSquare(kUs);
  const Bitboard their_rq =
      pos.pieces(kThem, PieceType::kRook) | pos.pieces(kThem, PieceType::kQueen);
  const Bitboard their_bq =
      pos.pieces(kThem, PieceType::kBishop) | pos.pieces(kThem, PieceType::kQueen);

  const Bitboard checkers = pos.AttackersTo(ksq, occ) & theirs;

  // 3.9: the king may not step onto an attacked square; it no longer shields the squares behind it.
  {
    const Bitboard occ_without_king = occ ^ SquareBB(ksq);
    Bitboard targets = KingAttacks(ksq) & ~ours;
    Bitboard safe = 0;
    while (targets) {
      Square to = PopLsb(targets);
      if (!(pos.AttackersTo(to, occ_without_king) & theirs)) safe |= SquareBB(to);
    }
    sink.Add(ksq, safe);
  }
  if (MoreThanOne(checkers)) return sink.count(out);  // double check: only the king moves

  // Pieces pinned to the king may move only along the pin line.
  Bitboard pinned = 0;
  Bitboard snipers = (RookAttacks(ksq, 0) & their_rq) | (BishopAttacks(ksq, 0) & their_bq);
  while (snipers) {
    Square s = PopLsb(snipers);
    Bitboard blockers = Between(ksq, s) & occ;
    if (blockers && !MoreThanOne(blockers) && (blockers & ours)) pinned |= blockers;
  }

  // In check: capture the checker or interpose (pinned pieces cannot do either).
  const Bitboard target = checkers ? (Between(ksq, Lsb(checkers)) | checkers) : ~ours;
  const Bitboard movable = checkers ? ~pinned : ~Bitboard{0};

  // Pawns (3.7).
  {
    const Bitboard pawns = pos.pieces(kUs, PieceType::kPawn) & ~pinned;
    const Bitboard empty = ~occ;
    Bitboard single = Shift<kUp>(pawns) & empty;
    Bitboard dbl = Shift<kUp>(single & kRank3) & empty & target;
    single &= target;
    Bitboard left = Shift<kUpLeft>(pawns) & theirs & target;
    Bitboard right = Shift<kUpRight>(pawns) & theirs & target;
    sink.AddPawn(single & ~kRank8, -kUp);
    sink.AddPawn(dbl, -2 * kUp);
    sink.AddPawn(left & ~kRank8, -kUpLeft);
    sink.AddPawn(right & ~kRank8, -kUpRight);
    sink.AddPromotions(single & kRank8, -kUp);
    sink.AddPromotions(left & kRank8, -kUpLeft);
    sink.AddPromotions(right & kRank8, -kUpRight);

    if (!checkers) {
      Bitboard pinned_pawns = pos.pieces(kUs, PieceType::kPawn) & pinned;
      while (pinned_pawns) {
        Square from = PopLsb(pinned_pawns);
        Bitboard line = Line(ksq, from);
        Bitboard pb = SquareBB(from);
        Bitboard push = Shift<kUp>(pb) & empty;
        Bitboard push2 = Shift<kUp>(push & kRank3) & empty;
        Bitboard caps = PawnAttacks(kUs, from) & theirs;
        Bitboard quiet = (push | push2) & line;
        caps &= line;
        if ((quiet | caps) & kRank8) {
          Bitboard t = (quiet | caps) & kRank8;
          while (t) {
            Square to = PopLsb(t);
            sink.AddPromotions(SquareBB(to), from - to);
          }
        } else {
          sink.Add(from, quiet | caps);
        }
      }
    }

    // 3.7d: en passant. Checked in full, because removing two pawns from one rank can expose the
    // king.
    if (pos.ep_square() != kNoSquare) {
      const Square ep = pos.ep_square();
      const Square victim = static_cast<Square>(static_cast<int>(ep) - kUp);
      Bitboard capturers = PawnAttacks(kThem, ep) & pos.pieces(kUs, PieceType::kPawn);
      while (capturers) {
        Square from = PopLsb(capturers);
        if (EnPassantLeavesKingSafe(pos, from, ep)) sink.AddOne(Move(from, ep, Move::kEnPassant));
      }
    }
  }

  // Knights: a pinned knight never moves.
  {
    Bitboard knights = pos.pieces(kUs, PieceType::kKnight) & ~pinned;
    while (knights) {
      Square from = PopLsb(knights);
      sink.Add(from, KnightAttacks(from) & target);
    }
  }
  // Sliders: a pinned one moves only along its pin line.
  {
    const auto add_slider_moves = [&](Bitboard sliders, auto attacks) {
      while (sliders) {
        Square from = PopLsb(sliders);
        Bitboard t = attacks(from, occ) & target;
        if (Contains(pinned, from)) t &= Line(ksq, from);
        sink.Add(from, t);
      }
    };
    const Bitboard queens = pos.pieces(kUs, PieceType::kQueen);
    add_slider_moves((pos.pieces(kUs, PieceType::kBishop) | queens) & movable, BishopAttacks);
    add_slider_moves((pos.pieces(kUs, PieceType::kRook) | queens) & movable, RookAttacks);
  }

  // 3.8: castling — not out of check, not through or into an attacked square, nothing between.
  if (!checkers) {
    constexpr CastlingRights kKingSide = kUs == Color::kWhite ? kWhiteKingSide : kBlackKingSide;
    constexpr CastlingRights kQueenSide = kUs == Color::kWhite ? kWhiteQueenSide : kBlackQueenSide;
    constexpr Square kKingFrom = kUs == Color::kWhite ? kE1 : kE8;
    const CastlingRights rights = pos.castling_rights();
    auto safe = [&](Square s) { return !(pos.AttackersTo(s, occ) & theirs); };
    if (rights & kKingSide) {
      constexpr Square kF = kUs == Color::kWhite ? kF1 : kF8;
      constexpr Square kG = kUs == Color::kWhite ? kG1 : kG8;
      if (!(occ & (SquareBB(kF) | SquareBB(kG))) && safe(kF) && safe(kG))
        sink.AddOne(Move(kKingFrom, kG, Move::kCastling));
    }
    if (rights & kQueenSide) {
      constexpr Square kD = kUs == Color::kWhite ? kD1 : kD8;
      constexpr Square kC = kUs == Color::kWhite ? kC1 : kC8;
      constexpr Square kB = kUs == Color::kWhite ? kB1 : kB8;
      if (!(occ & (SquareBB(kD) | SquareBB(kC) | SquareBB(kB))) && safe(kD) && safe(kC))
        sink.AddOne(Move(kKingFrom, kC, Move::kCastling));
    }
  }
  return sink.count(out);
}

}  // namespace

bool EnPassantLeavesKingSafe(const Position& pos, Square from, Square ep) {
  const Color us = pos.side_to_move();
  const Color them = ~us;
  const Square ksq = pos.KingSquare(us);
  const Square victim = static_cast<Square>(us == Color::kWhite ? ep - 8 : ep + 8);
  const Bitboard after = (pos.occupied() ^ SquareBB(from) ^ SquareBB(victim)) | SquareBB(ep);
  const Bitboard rq = pos.pieces(them, PieceType::kRook) | pos.pieces(them, PieceType::kQueen);
  const Bitboard bq = pos.pieces(them, PieceType::kBishop) | pos.pieces(them, PieceType::kQueen);
  return !(RookAttacks(ksq, after) & rq) && !(BishopAttacks(ksq, after) & bq) &&
         !(KnightAttacks(ksq) & pos.pieces(them, PieceType::kKnight)) &&
         !(PawnAttacks(us, ksq) & pos.pieces(them, PieceType::kPawn) & ~SquareBB(victim));
}

void GenerateLegalMoves(const Position& pos, MoveList* list) {
  list->size = pos.side_to_move() == Color::kWhite
                   ? Generate<Color::kWhite, false>(pos, list->moves)
                   : Generate<Color::kBlack, false>(pos, list->moves);
}

int CountLegalMoves(const Position& pos) {
  return pos.side_to_move() == Color::kWhite ? Generate<Color::kWhite, true>(pos, nullptr)
                                             : Generate<Color::kBlack, true>(pos, nullptr);
}

}  // namespace chess
