#include "libs/analysis/static_proofs.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "libs/chess/bitboard.h"
#include "libs/chess/setup.h"

namespace analysis {
namespace {

using chess::Bitboard;
using chess::Color;
using chess::PieceType;
using chess::Position;
using chess::Square;

Bitboard NonKing(const Position& pos, Color c) {
  return pos.pieces(c) & ~pos.pieces(PieceType::kKing);
}

// ---------------------------------------------------------------------------------------------
// Mate patterns.

// A piece of the material signature: its type and, for a bishop, the squares it lives on.
struct SigPiece {
  PieceType type;
  Bitboard squares;  // all squares, or the bishop's colour
  friend bool operator<(const SigPiece& a, const SigPiece& b) {
    return std::make_pair(a.type, a.squares) < std::make_pair(b.type, b.squares);
  }
  friend bool operator==(const SigPiece& a, const SigPiece& b) {
    return a.type == b.type && a.squares == b.squares;
  }
};

Bitboard BishopColour(Square s) {
  return chess::Contains(chess::kDarkSquares, s) ? chess::kDarkSquares : chess::kLightSquares;
}

SigPiece SigOf(const Position& pos, Square s) {
  PieceType t = chess::TypeOf(pos.PieceOn(s));
  return {t, t == PieceType::kBishop ? BishopColour(s) : ~Bitboard{0}};
}

// Is there any legal position, the loser (Black here: colours are symmetric for pieces) to move
// and checkmated, with White = K + `checker` and Black = K + `defenders`?
bool AnyMateExists(SigPiece checker, const std::vector<SigPiece>& defenders) {
  const Color w = Color::kWhite, l = Color::kBlack;
  for (int ki = 0; ki < 64; ++ki) {
    const Square k = static_cast<Square>(ki);
    const Bitboard around = chess::KingAttacks(k);
    Bitboard checks = chess::Attacks(checker.type, k, chess::SquareBB(k)) & checker.squares;
    while (checks) {
      const Square c = chess::PopLsb(checks);
      for (int wi = 0; wi < 64; ++wi) {
        const Square wk = static_cast<Square>(wi);
        if (wk == k || wk == c || chess::Contains(around, wk)) continue;
        // A checker next to the king must be defended by the king of its side.
        if (chess::Contains(around, c) && !chess::Contains(chess::KingAttacks(wk), c)) continue;
        const Bitboard occ = chess::SquareBB(wk) | chess::SquareBB(c);
        const Bitboard covered = chess::KingAttacks(wk) | chess::Attacks(checker.type, c, occ);
        // Escape squares nothing of White covers even on the emptiest board must be blocked by
        // Black's own pieces (more pieces only block more of White's lines).
        const Bitboard must_block = around & ~covered & ~chess::SquareBB(c);
        if (chess::PopCount(must_block) > static_cast<int>(defenders.size())) continue;
        const Bitboard taken = chess::SquareBB(k) | occ;
        // Place the defenders: each on a free square of its colour; all of must_block covered.
        std::vector<Square> placed(defenders.size(), chess::kNoSquare);
        bool found = false;
        auto place = [&](auto&& self, size_t i, Bitboard used) -> void {
          if (found) return;
          if (i == defenders.size()) {
            if ((must_block & ~used) != 0) return;
            chess::Setup setup;
            setup.board[k] = chess::MakePiece(l, PieceType::kKing);
            setup.board[wk] = chess::MakePiece(w, PieceType::kKing);
            setup.board[c] = chess::MakePiece(w, checker.type);
            for (size_t j = 0; j < defenders.size(); ++j)
              setup.board[placed[j]] = chess::MakePiece(l, defenders[j].type);
            setup.turn = l;
            absl::StatusOr<Position> pos = Position::FromSetup(setup);
            if (pos.ok() && pos->IsCheckmate()) found = true;
            return;
          }
          // Pieces left to place after this one must still be able to cover must_block.
          const int left = static_cast<int>(defenders.size() - i);
          const int open = chess::PopCount(must_block & ~used);
          if (open > left) return;
          Bitboard candidates = defenders[i].squares & ~taken & ~used;
          if (open == left) candidates &= must_block;
          while (candidates && !found) {
            const Square s = chess::PopLsb(candidates);
            placed[i] = s;
            self(self, i + 1, used | chess::SquareBB(s));
          }
        };
        place(place, 0, 0);
        if (found) return true;
      }
    }
  }
  return false;
}

// Is there any legal position, the loser (Black) to move and checkmated, with White = K and
// `bishops` bishops on squares of `colour` and Black = K + `defenders`? Only bishops can check,
// so the loser's king stands on `colour`; its neighbours of the other colour (the orthogonal
// ones) are never attacked by a bishop: each must hold a defender or be covered by the winner's
// king. That prunes the placements to corners and edges; the rest is enumerated and each
// candidate checked by libs/chess.
bool AnyBishopsMateExists(int bishops, Bitboard colour, const std::vector<SigPiece>& defenders) {
  const Color w = Color::kWhite, l = Color::kBlack;
  const int n = static_cast<int>(defenders.size());
  int can_block = 0;
  for (const SigPiece& d : defenders) can_block += (d.squares & ~colour) != 0;
  for (Bitboard ks = colour; ks;) {
    const Square k = chess::PopLsb(ks);
    const Bitboard around = chess::KingAttacks(k);
    const Bitboard orthogonal = around & ~colour;
    if (chess::PopCount(orthogonal) - 1 > can_block) continue;  // the king covers at most one
    for (int wi = 0; wi < 64; ++wi) {
      const Square wk = static_cast<Square>(wi);
      if (wk == k || chess::Contains(around, wk)) continue;
      const Bitboard must_block = orthogonal & ~chess::KingAttacks(wk);
      if (chess::PopCount(must_block) > can_block) continue;
      const Bitboard taken = chess::SquareBB(k) | chess::SquareBB(wk);
      std::vector<Square> placed(defenders.size(), chess::kNoSquare);
      bool found = false;
      // The bishops, once the defenders stand: combinations of free squares of `colour`, at
      // least one of them checking, every flight square covered or occupied.
      auto place_bishops = [&](Bitboard occ_defenders) {
        const Bitboard occ0 = taken | occ_defenders;
        const Bitboard free = colour & ~occ0;
        std::vector<Square> squares;
        for (Bitboard f = free; f;) squares.push_back(chess::PopLsb(f));
        std::vector<int> pick(bishops);
        auto rec = [&](auto&& self, int i, int from, Bitboard bb) -> void {
          if (found) return;
          if (i == bishops) {
            const Bitboard occ = occ0 | bb;
            const Bitboard no_king = occ ^ chess::SquareBB(k);
            Bitboard checkers = 0;
            Bitboard covered = chess::KingAttacks(wk);
            for (Bitboard b = bb; b;) {
              const Square s = chess::PopLsb(b);
              const Bitboard att = chess::BishopAttacks(s, no_king);
              if (chess::Contains(att, k)) checkers |= chess::SquareBB(s);
              covered |= att;
            }
            if (!checkers || ((around & ~occ_defenders) & ~covered)) return;
            chess::Setup setup;
            setup.board[k] = chess::MakePiece(l, PieceType::kKing);
            setup.board[wk] = chess::MakePiece(w, PieceType::kKing);
            for (Bitboard b = bb; b;)
              setup.board[chess::PopLsb(b)] = chess::MakePiece(w, PieceType::kBishop);
            for (int j = 0; j < n; ++j)
              setup.board[placed[j]] = chess::MakePiece(l, defenders[j].type);
            setup.turn = l;
            absl::StatusOr<Position> pos = Position::FromSetup(setup);
            if (pos.ok() && pos->IsCheckmate()) found = true;
            return;
          }
          for (int j = from; j < static_cast<int>(squares.size()) && !found; ++j) {
            self(self, i + 1, j + 1, bb | chess::SquareBB(squares[j]));
          }
        };
        rec(rec, 0, 0, 0);
      };
      auto place = [&](auto&& self, int i, Bitboard used, int blockers_left) -> void {
        if (found) return;
        const int open = chess::PopCount(must_block & ~used);
        if (open > blockers_left) return;
        if (i == n) {
          place_bishops(used);
          return;
        }
        const bool blocks = (defenders[i].squares & ~colour) != 0;
        Bitboard candidates = defenders[i].squares & ~taken & ~used;
        if (blocks && open == blockers_left) candidates &= must_block;
        while (candidates && !found) {
          const Square s = chess::PopLsb(candidates);
          placed[i] = s;
          self(self, i + 1, used | chess::SquareBB(s), blockers_left - (blocks ? 1 : 0));
        }
      };
      place(place, 0, 0, can_block);
      if (found) return true;
    }
  }
  return false;
}

// The cache: per signature, whether no mate exists for it or any signature captures leave.
class PatternCache {
 public:
  // `checker`: the winner's one piece; for bishops of one colour, `bishops` > 1 of them
  // (checker.squares their colour).
  bool NoMateEver(SigPiece checker, std::vector<SigPiece> defenders, int bishops = 1) {
    std::sort(defenders.begin(), defenders.end());
    const Key key{{checker, bishops}, defenders};
    {
      absl::MutexLock lock(&mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) return it->second;
    }
    bool none = true;
    // Every sub-multiset (captures only remove material; there are no pawns to promote).
    const size_t n = defenders.size();
    for (unsigned mask = 0; mask < (1u << n) && none; ++mask) {
      std::vector<SigPiece> sub;
      for (size_t i = 0; i < n; ++i)
        if (mask & (1u << i)) sub.push_back(defenders[i]);
      // Captures also take bishops away: every smaller number of them too.
      for (int b = bishops; b >= 1 && none; --b) {
        if (b == 1 ? AnyMateExists(checker, sub) : AnyBishopsMateExists(b, checker.squares, sub))
          none = false;
      }
    }
    absl::MutexLock lock(&mu_);
    cache_[key] = none;
    return none;
  }

 private:
  using Key = std::pair<std::pair<SigPiece, int>, std::vector<SigPiece>>;
  absl::Mutex mu_;
  std::map<Key, bool> cache_ ABSL_GUARDED_BY(mu_);
};

PatternCache& Patterns() {
  static PatternCache* cache = new PatternCache();
  return *cache;
}

// ---------------------------------------------------------------------------------------------
// Locked pawns.

// The squares a piece of type `t` starting on `from` can ever stand on, with `walls` as
// permanent obstacles (other pieces are ignored: they may move away or be captured). `no_go`
// squares are never entered (a king's squares attacked by enemy pawns). `hits` receives the
// wall squares the piece attacks from its region.
Bitboard Flood(PieceType t, Square from, Bitboard walls, Bitboard no_go, Bitboard* hits) {
  Bitboard region = chess::SquareBB(from);
  Bitboard todo = region;
  Bitboard hit = 0;
  while (todo) {
    const Square s = chess::PopLsb(todo);
    const Bitboard att = chess::Attacks(t, s, walls);
    hit |= att & walls;
    const Bitboard next = att & ~walls & ~no_go & ~region;
    region |= next;
    todo |= next;
  }
  *hits = hit;
  return region;
}

Bitboard PawnAttacksOf(Bitboard pawns, Color c) {
  Bitboard att = 0;
  while (pawns) att |= chess::PawnAttacks(c, chess::PopLsb(pawns));
  return att;
}

}  // namespace

namespace {

// Which argument of MaterialProof applies.
enum class MaterialCase { kNone, kLoneKing, kBishopsOfOneColour, kKnightVersusKing };

MaterialCase MaterialCaseOf(const Position& pos, Color winner) {
  const Color loser = ~winner;
  const Bitboard ours = NonKing(pos, winner);
  if (!ours) return MaterialCase::kLoneKing;
  if (pos.pieces(PieceType::kPawn)) return MaterialCase::kNone;  // a pawn can promote
  const Bitboard theirs = NonKing(pos, loser);
  const Bitboard our_bishops = pos.pieces(winner, PieceType::kBishop);
  if (ours == our_bishops) {
    const Bitboard colour =
        (our_bishops & chess::kDarkSquares) ? chess::kDarkSquares : chess::kLightSquares;
    if (!(our_bishops & ~colour) && !(theirs & ~pos.pieces(loser, PieceType::kBishop)) &&
        !(theirs & ~colour)) {
      return MaterialCase::kBishopsOfOneColour;
    }
  }
  if (ours == pos.pieces(winner, PieceType::kKnight) && !chess::MoreThanOne(ours) && !theirs) {
    return MaterialCase::kKnightVersusKing;
  }
  return MaterialCase::kNone;
}

}  // namespace

bool MaterialCannotMate(const Position& pos, Color winner) {
  return MaterialCaseOf(pos, winner) != MaterialCase::kNone;
}

std::optional<StaticProof> MaterialProof(const Position& pos, Color winner) {
  switch (MaterialCaseOf(pos, winner)) {
    case MaterialCase::kNone:
      return std::nullopt;
    case MaterialCase::kLoneKing:
      return StaticProof{Method::kMaterial, "the side has only its king left"};
    case MaterialCase::kBishopsOfOneColour:
      return StaticProof{Method::kMaterial,
                         "only bishops on squares of one colour (the king's orthogonal "
                         "neighbours can be neither blocked nor covered)"};
    case MaterialCase::kKnightVersusKing:
      return StaticProof{Method::kMaterial, "king and knight against a bare king"};
  }
  return std::nullopt;
}

std::optional<StaticProof> MatePatternProof(const Position& pos, Color winner) {
  const Color loser = ~winner;
  if (pos.pieces(PieceType::kPawn)) return std::nullopt;
  const Bitboard ours = NonKing(pos, winner);
  const Bitboard theirs = NonKing(pos, loser);
  if (chess::PopCount(theirs) > 2) return std::nullopt;
  const SigPiece checker = SigOf(pos, chess::Lsb(ours));
  int bishops = 1;
  if (chess::PopCount(ours) != 1) {
    // Bishops all on squares of one colour (at most three: the enumeration grows with them).
    if (ours != pos.pieces(winner, PieceType::kBishop) || (ours & ~checker.squares) ||
        chess::PopCount(ours) > 3) {
      return std::nullopt;
    }
    bishops = chess::PopCount(ours);
  }
  if (checker.type != PieceType::kKnight && checker.type != PieceType::kBishop) {
    return std::nullopt;
  }
  std::vector<SigPiece> defenders;
  for (Bitboard b = theirs; b;) defenders.push_back(SigOf(pos, chess::PopLsb(b)));
  if (!Patterns().NoMateEver(checker, defenders, bishops)) return std::nullopt;
  return StaticProof{Method::kMatePattern,
                     "no checkmate position exists with this material or any that captures "
                     "leave (every placement enumerated)"};
}

std::optional<StaticProof> LockedPawnsProof(const Position& pos, Color winner) {
  const Color loser = ~winner;
  const Bitboard walls = pos.pieces(PieceType::kPawn);
  if (!walls || pos.ep_square() != chess::kNoSquare) return std::nullopt;
  // Every pawn's way forward blocked by a pawn is needed below too; it depends on the pawns alone,
  // so it is checked before the regions are flooded: on the move path (laws::EndingOf, after every
  // move) almost every position has a pawn that can still step, and is done with here.
  for (Color c : {Color::kWhite, Color::kBlack}) {
    const Bitboard pawns = pos.pieces(c, PieceType::kPawn);
    const Bitboard fronts = c == Color::kWhite ? chess::Shift<chess::kNorth>(pawns)
                                               : chess::Shift<chess::kSouth>(pawns);
    if (fronts & ~walls) return std::nullopt;
  }
  const Bitboard pawn_att[2] = {
      PawnAttacksOf(pos.pieces(Color::kWhite, PieceType::kPawn), Color::kWhite),
      PawnAttacksOf(pos.pieces(Color::kBlack, PieceType::kPawn), Color::kBlack)};
  Bitboard region[2] = {0, 0};       // squares non-king pieces of a colour can stand on
  Bitboard hits[2] = {0, 0};         // pawns (walls) attacked from those regions and kings'
  Bitboard attack_zone[2] = {0, 0};  // squares non-king pieces of a colour can ever attack
  Bitboard king_region[2] = {0, 0};
  for (Color c : {Color::kWhite, Color::kBlack}) {
    Bitboard pieces = NonKing(pos, c) & ~walls;
    while (pieces) {
      const Square s = chess::PopLsb(pieces);
      const PieceType t = chess::TypeOf(pos.PieceOn(s));
      Bitboard hit = 0;
      const Bitboard r = Flood(t, s, walls, 0, &hit);
      region[Index(c)] |= r;
      hits[Index(c)] |= hit;
      for (Bitboard rr = r; rr;)
        attack_zone[Index(c)] |= chess::Attacks(t, chess::PopLsb(rr), walls);
    }
    // A king never enters a square an enemy pawn attacks; it may capture a pawn only where no
    // enemy pawn defends it.
    Bitboard hit = 0;
    king_region[Index(c)] =
        Flood(PieceType::kKing, pos.KingSquare(c), walls, pawn_att[Index(~c)], &hit);
    hits[Index(c)] |= hit & ~pawn_att[Index(~c)];
  }
  for (Color c : {Color::kWhite, Color::kBlack}) {
    const Bitboard pawns = pos.pieces(c, PieceType::kPawn);
    // The way forward is blocked by a pawn (checked above), so no single or double step, hence no
    // en passant ever. Never captured, and never able to capture (no enemy piece ever on a square
    // it attacks).
    if (pawns & hits[Index(~c)]) return std::nullopt;
    if (pawn_att[Index(c)] & region[Index(~c)]) return std::nullopt;
  }
  // Every pawn stays where it is forever, so no piece is ever promoted and the regions bound
  // every piece for good. A check needs a piece of the winner attacking the loser's king.
  if (attack_zone[Index(winner)] & king_region[Index(loser)]) return std::nullopt;
  return StaticProof{
      Method::kLockedPawns,
      absl::StrCat("every pawn is locked for good and no piece of ", chess::ColorName(winner),
                   " can ever reach a square attacking the squares the king of ",
                   chess::ColorName(loser), " can reach")};
}

std::optional<StaticProof> NoMatingPotentialProof(const Position& pos, Color side) {
  const Color loser = ~side;
  const Bitboard ours = NonKing(pos, side);
  const Bitboard theirs = NonKing(pos, loser);
  if (chess::PopCount(ours) == 2 && ours == pos.pieces(side, PieceType::kKnight) && !theirs) {
    return StaticProof{Method::kMaterial,
                       "king and two knights against a bare king: no position where the lone king "
                       "cannot prevent mate next move (C4, 1997)"};
  }
  if (chess::PopCount(ours) != 1 || chess::PopCount(theirs) > 1) return std::nullopt;
  const PieceType piece = chess::TypeOf(pos.PieceOn(chess::Lsb(ours)));
  const PieceType man = theirs ? chess::TypeOf(pos.PieceOn(chess::Lsb(theirs))) : PieceType::kNone;
  if (piece == PieceType::kBishop) {
    return StaticProof{
        Method::kMatePattern,
        absl::StrCat("king and bishop against king", theirs ? " and one man" : "",
                     ": no position, with this material or any that promotion or capture leaves, "
                     "where the opponent to move cannot prevent mate next move (C4, 1997; every "
                     "placement enumerated)")};
  }
  if (piece != PieceType::kKnight || !theirs) return std::nullopt;
  if (man == PieceType::kPawn) {
    const Square p = chess::Lsb(theirs);
    const bool rook_file = chess::FileOf(p) == 0 || chess::FileOf(p) == 7;
    // Relative rank 5 (0-based) is the third rank from the loser's corner: a3/h3 for Black.
    if (rook_file && chess::RelativeRank(loser, p) <= 5) return std::nullopt;
    return StaticProof{
        Method::kMatePattern,
        rook_file ? std::string("king and knight against king and a rook pawn past its sixth "
                                "rank: the only positions where the opponent cannot prevent "
                                "mate need that pawn on its sixth rank (C4, 1997; every "
                                "placement enumerated)")
                  : std::string("king and knight against king and a pawn off the rook files: "
                                "the only positions where the opponent cannot prevent mate "
                                "need a rook pawn, and this pawn never changes its file (C4, "
                                "1997; every placement enumerated)")};
  }
  return StaticProof{Method::kMatePattern,
                     "king and knight against king and one piece: no position, with this material "
                     "or any that capture leaves, where the opponent to move cannot prevent mate "
                     "next move (C4, 1997; every placement enumerated)"};
}

std::optional<StaticProof> ProveUnwinnableStatically(const Position& pos, Color winner) {
  if (auto p = MaterialProof(pos, winner)) return p;
  if (auto p = LockedPawnsProof(pos, winner)) return p;
  if (auto p = MatePatternProof(pos, winner)) return p;
  return std::nullopt;
}

}  // namespace analysis
