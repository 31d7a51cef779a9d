#include "libs/analysis/reachability.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/chess/movegen.h"

namespace analysis {
namespace {

using chess::Bitboard;
using chess::Color;
using chess::PieceType;
using chess::Position;
using chess::Square;

constexpr Bitboard kRank1 = 0xFFULL;
constexpr Bitboard kRank8 = 0xFFULL << 56;

bool Single(Bitboard b) { return b && !chess::MoreThanOne(b); }

// What the rules of one round know about the others' sets (see reachability.h).
struct Masks {
  Bitboard reach[2] = {0, 0};           // squares some man of the colour can stand on
  Bitboard reach_non_king[2] = {0, 0};  // the same without the king: what a pawn may capture
  Bitboard pawn_reach[2] = {0, 0};      // where a pawn of the colour can stand (en passant)
  Bitboard pawn_home[2] = {0, 0};       // pawns of the colour on their first square (en passant)
  Bitboard land[2] = {0, 0};            // squares a man of the colour may move to
  Bitboard never_empty = 0;
  Bitboard fixed_attacks[2] = {0, 0};  // attacked for good by men that never move
};

Masks MasksOf(const std::vector<ReachMan>& men) {
  Masks m;
  for (const ReachMan& man : men) {
    const int c = chess::Index(man.color);
    m.reach[c] |= man.reach;
    if (man.type != PieceType::kKing) m.reach_non_king[c] |= man.reach;
    if (man.type == PieceType::kPawn) {
      m.pawn_reach[c] |= man.reach;
      if (chess::RelativeRank(man.color, man.start) == 1)
        m.pawn_home[c] |= chess::SquareBB(man.start);
    }
  }
  Bitboard clear_own[2] = {~Bitboard{0}, ~Bitboard{0}};
  Bitboard fixed_king[2] = {0, 0};
  for (const ReachMan& man : men) {
    if (man.start == chess::kNoSquare) continue;
    const int c = chess::Index(man.color);
    const Bitboard at = chess::SquareBB(man.start);
    // The man stays there for good: it never moves and no enemy man ever lands there.
    if (Single(man.reach) && !(m.reach[1 - c] & at)) {
      clear_own[c] &= ~at;
      m.never_empty |= at;
      if (man.type == PieceType::kKing) fixed_king[c] |= at;
      // What it attacks from there, for good, a king never enters (a slider's attacks depend on
      // the squares between, so only pawns, knights and kings count).
      if (man.type == PieceType::kPawn) {
        m.fixed_attacks[c] |= chess::PawnAttacks(man.color, man.start);
      } else if (man.type == PieceType::kKnight) {
        m.fixed_attacks[c] |= chess::KnightAttacks(man.start);
      } else if (man.type == PieceType::kKing) {
        m.fixed_attacks[c] |= chess::KingAttacks(man.start);
      }
    }
  }
  // A king is never captured: where it stays for good, nothing lands.
  m.land[0] = clear_own[0] & ~fixed_king[1];
  m.land[1] = clear_own[1] & ~fixed_king[0];
  return m;
}

// Squares on its file a pawn can never step onto: while it never leaves its file, an enemy pawn
// ahead of it on that file that never leaves the file and is never captured stands between them
// for good (pawns on one file never pass each other without a capture), so the pawn stays short
// of that pawn's square and the enemy pawn short of the pawn's. A man that never leaves a file
// can only be captured there by a man that can stand on its squares; pawns bound to the same
// file never capture on it.
Bitboard PassBlocked(const ReachMan& man, const std::vector<ReachMan>& men) {
  const Bitboard file = chess::FileBB(chess::FileOf(man.start));
  if (man.reach & ~file) return 0;
  const bool white = man.color == Color::kWhite;
  const int rank = chess::RankOf(man.start);
  Bitboard blocked = 0;
  for (const ReachMan& q : men) {
    if (q.type != PieceType::kPawn || q.color == man.color || !(file & chess::SquareBB(q.start)) ||
        (q.reach & ~file)) {
      continue;
    }
    const int qrank = chess::RankOf(q.start);
    if (white ? qrank <= rank : qrank >= rank) continue;  // not ahead of the pawn
    bool captured = false;
    for (const ReachMan& w : men) {
      if (w.color != man.color || !(w.reach & q.reach)) continue;
      if (w.type == PieceType::kPawn && !(w.reach & ~file)) continue;
      captured = true;
      break;
    }
    if (captured) continue;
    for (int r = qrank; white ? r < 8 : r >= 0; r += white ? 1 : -1) {
      blocked |= file & chess::RankBB(r);
    }
  }
  return blocked;
}

// The man's set grown by the rules until they add nothing (given the masks of this round).
// `king_exits[c]`: where the king of colour c can go from its square now (its legal moves when
// its side is to move, none otherwise); used when it stands on a square attacked by a pawn that
// never moves: it can never come back there, so its only way out is the one it has now.
Bitboard Grow(const ReachMan& man, const Masks& m, const std::vector<ReachMan>& men,
              const Bitboard king_exits[2]) {
  const int c = chess::Index(man.color);
  const Bitboard land = m.land[c];
  const Bitboard pass_blocked = man.type == PieceType::kPawn ? PassBlocked(man, men) : 0;
  Bitboard reach = man.reach;
  Bitboard done = 0;  // squares whose moves are already added
  while (Bitboard todo = reach & ~done) {
    done |= todo;
    Bitboard add = 0;
    while (todo) {
      const Square s = chess::PopLsb(todo);
      switch (man.type) {
        case PieceType::kKnight:
          add |= chess::KnightAttacks(s) & land;
          break;
        case PieceType::kBishop:
        case PieceType::kRook:
        case PieceType::kQueen:
          add |= chess::Attacks(man.type, s, m.never_empty) & land;
          break;
        case PieceType::kNone:  // made by promotion: any piece
          add |= (chess::QueenAttacks(s, m.never_empty) | chess::KnightAttacks(s)) & land;
          break;
        case PieceType::kKing:
          if (s == man.start && (m.fixed_attacks[1 - c] & chess::SquareBB(s))) {
            add |= king_exits[c];
          } else {
            add |= chess::KingAttacks(s) & land & ~m.fixed_attacks[1 - c];
          }
          break;
        case PieceType::kPawn: {
          if (chess::SquareBB(s) & (kRank1 | kRank8)) break;  // promoted (or never a pawn)
          const bool white = man.color == Color::kWhite;
          const Square one = static_cast<Square>(white ? s + 8 : s - 8);
          const Bitboard no_step = m.never_empty | pass_blocked;
          if (!(no_step & chess::SquareBB(one))) {
            add |= chess::SquareBB(one);
            if (chess::RelativeRank(man.color, s) == 1) {
              const Square two = static_cast<Square>(white ? s + 16 : s - 16);
              if (!(no_step & chess::SquareBB(two))) add |= chess::SquareBB(two);
            }
          }
          const Bitboard att = chess::PawnAttacks(man.color, s);
          add |= att & m.reach_non_king[1 - c];
          // En passant: an enemy pawn still on its first square steps two squares, past the
          // target, to the square beside this one.
          if (chess::RelativeRank(man.color, s) == 4) {
            const Bitboard beside =
                white ? chess::Shift<chess::kSouth>(att) : chess::Shift<chess::kNorth>(att);
            const Bitboard origin =
                white ? chess::Shift<chess::kNorth>(att) : chess::Shift<chess::kSouth>(att);
            for (Bitboard t = att; t;) {
              const Bitboard file = chess::FileBB(chess::FileOf(chess::PopLsb(t)));
              if ((beside & file & m.pawn_reach[1 - c]) && (origin & file & m.pawn_home[1 - c])) {
                add |= att & file;
              }
            }
          }
          break;
        }
        default:
          break;
      }
    }
    reach |= add;
  }
  return reach;
}

}  // namespace

const ReachMan& Reachability::king(Color c) const {
  for (const ReachMan& m : men) {
    if (m.type == PieceType::kKing && m.color == c) return m;
  }
  return men.front();  // unreachable: a legal position has both kings
}

Bitboard AttackZone(const ReachMan& m, Bitboard never_empty) {
  Bitboard zone = 0;
  for (Bitboard r = m.reach; r;) {
    const Square s = chess::PopLsb(r);
    switch (m.type) {
      case PieceType::kPawn:
        zone |= chess::PawnAttacks(m.color, s);
        break;
      case PieceType::kNone:
        zone |= chess::QueenAttacks(s, never_empty) | chess::KnightAttacks(s);
        break;
      case PieceType::kKing:
        zone |= chess::KingAttacks(s);
        break;
      default:
        zone |= chess::Attacks(m.type, s, never_empty);
        break;
    }
  }
  return zone;
}

std::optional<Reachability> ComputeReachability(const Position& pos) {
  if (pos.castling_rights() != chess::kNoCastling || pos.ep_square() != chess::kNoSquare) {
    return std::nullopt;
  }
  Reachability r;
  Bitboard king_exits[2] = {0, 0};
  {
    chess::MoveList list;
    chess::GenerateLegalMoves(pos, &list);
    const Square king = pos.KingSquare(pos.side_to_move());
    for (chess::Move mv : list) {
      if (mv.from() == king)
        king_exits[chess::Index(pos.side_to_move())] |= chess::SquareBB(mv.to());
    }
  }
  for (Bitboard b = pos.occupied(); b;) {
    const Square s = chess::PopLsb(b);
    const chess::Piece p = pos.PieceOn(s);
    r.men.push_back({chess::ColorOf(p), chess::TypeOf(p), s, chess::SquareBB(s)});
  }
  // Pieces promotions may make, one per colour and square of promotion, added when a pawn's set
  // reaches its last rank.
  std::array<Bitboard, 2> promoted = {0, 0};
  Masks masks = MasksOf(r.men);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < r.men.size(); ++i) {
      const Bitboard grown = Grow(r.men[i], masks, r.men, king_exits);
      if (grown == r.men[i].reach) continue;
      changed = true;
      r.men[i].reach = grown;
      if (r.men[i].type == PieceType::kPawn) {
        const int c = chess::Index(r.men[i].color);
        Bitboard last = grown & (r.men[i].color == Color::kWhite ? kRank8 : kRank1) & ~promoted[c];
        promoted[c] |= last;
        const Color color = r.men[i].color;
        while (last) {
          const Square q = chess::PopLsb(last);
          r.men.push_back({color, PieceType::kNone, chess::kNoSquare, chess::SquareBB(q)});
        }
      }
      // Later men of this round see the larger set at once (still a sound over-approximation:
      // the masks only ever allow more).
      masks = MasksOf(r.men);
    }
  }
  r.never_empty = masks.never_empty;
  for (const ReachMan& m : r.men) {
    r.attack_zone[chess::Index(m.color)] |= AttackZone(m, r.never_empty);
  }
  return r;
}

std::optional<StaticProof> ReachabilityProof(const Position& pos, Color winner) {
  std::optional<Reachability> r = ComputeReachability(pos);
  if (!r) return std::nullopt;
  return ReachabilityProof(*r, winner);
}

std::optional<StaticProof> ReachabilityProof(const Reachability& reach, Color winner) {
  const Reachability* r = &reach;
  const Color loser = ~winner;
  const Bitboard king_region = r->king(loser).reach;
  // Squares of the king's region some man of the winner can ever attack: where a check can be
  // given (a king never gives check).
  Bitboard checks = 0;
  for (const ReachMan& m : r->men) {
    if (m.color != winner || m.type == PieceType::kKing) continue;
    checks |= AttackZone(m, r->never_empty) & king_region;
  }
  if (!checks) {
    return StaticProof{
        Method::kLockedPawns,
        absl::StrCat("no man of ", chess::ColorName(winner),
                     " can ever attack a square the king of ", chess::ColorName(loser),
                     " can ever reach, whatever the moves (reachability through the pawns)")};
  }
  // A mate on a square k: every neighbour of k the king can ever stand on (one it can never
  // stand on is no flight, ever) is attacked by the winner or holds one of the loser's men. A
  // neighbour no man of the winner can ever attack needs a man of the loser of its own.
  std::vector<Bitboard> blockers;  // the sets of the loser's men (a pawn and what it may become)
  Bitboard any_blocker = 0;
  for (const ReachMan& m : r->men) {
    if (m.color == loser && m.type != PieceType::kKing) {
      blockers.push_back(m.reach);
      any_blocker |= m.reach;
    }
  }
  const Bitboard covered = r->attack_zone[chess::Index(winner)];
  for (Bitboard ks = checks; ks;) {
    const Square k = chess::PopLsb(ks);
    const Bitboard flights = chess::KingAttacks(k) & king_region & ~covered;
    if (flights & ~any_blocker) continue;  // a flight nothing can ever fill or cover
    // Each flight needs its own man (a promoted piece is listed besides its pawn: one man may be
    // counted twice, which only makes the test weaker).
    int men = 0;
    for (Bitboard b : blockers) men += (b & flights) != 0;
    if (chess::PopCount(flights) <= men) return std::nullopt;  // a mate may exist here
  }
  return StaticProof{
      Method::kLockedPawns,
      absl::StrCat("wherever ", chess::ColorName(winner), " could ever give check, the king of ",
                   chess::ColorName(loser),
                   " has flight squares that no man can ever cover and its own men can never "
                   "all fill (reachability through the pawns)")};
}

}  // namespace analysis
