#include "libs/analysis/unwinnable.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "libs/analysis/static_proofs.h"
#include "libs/chess/bitboard.h"
#include "libs/chess/movegen.h"

namespace analysis {
namespace {

using chess::Bitboard;
using chess::Color;
using chess::Move;
using chess::MoveList;
using chess::PieceType;
using chess::Position;
using chess::Square;

// Budgets of the phases, in thousandths of SearchLimits::max_nodes (positions generated). The
// greedy search finds nearly every helpmate within the first; the exhaustive enumeration proves
// small closed worlds; the last guided run takes what is left (see Search).
constexpr std::int64_t kFirstGuidedPermille = 40;
constexpr std::int64_t kCornerGuidedPermille = 40;  // each of four
constexpr std::int64_t kExhaustivePermille = 50;

// Priority of a position in the guided search: h * heuristic + d * depth. Greedy (4, 1) finds
// most helpmates at once; patient (1, 2) widens the search near the root and finds the long,
// narrow ones (lone minor pieces, whose mates need the loser's men as blockers).
struct Weights {
  int h;
  int d;
};
constexpr Weights kGreedy{4, 1};
constexpr Weights kPatient{1, 2};

// The exact identity of a position for the exhaustive enumeration: a 64-bit hash could merge two
// positions and hide a mate, so the whole board is the key (move counters excluded: 5.2b asks
// about any series of moves, however long).
struct ExactKey {
  std::array<std::uint64_t, 4> board{};
  std::uint32_t meta = 0;
  friend bool operator==(const ExactKey& a, const ExactKey& b) {
    return a.board == b.board && a.meta == b.meta;
  }
  template <typename H>
  friend H AbslHashValue(H h, const ExactKey& k) {
    return H::combine(std::move(h), k.board[0], k.board[1], k.board[2], k.board[3], k.meta);
  }
};

ExactKey MakeExactKey(const Position& p) {
  ExactKey k;
  Bitboard occ = p.occupied();
  while (occ) {
    const Square s = chess::PopLsb(occ);
    k.board[s >> 4] |= static_cast<std::uint64_t>(p.PieceOn(s)) << (4 * (s & 15));
  }
  k.meta = static_cast<std::uint32_t>(chess::Index(p.side_to_move())) |
           (static_cast<std::uint32_t>(p.castling_rights()) << 1) |
           (static_cast<std::uint32_t>(p.ep_square()) << 5);
  return k;
}

enum class Goal {
  kMate,       // the loser to move and checkmated
  kPotential,  // the loser to move and unable to prevent mate on the next move (C4, 1997)
};

bool HasMateInOne(const Position& pos) {
  MoveList list;
  chess::GenerateLegalMoves(pos, &list);
  for (Move m : list) {
    Position child = pos;
    child.PlayUnchecked(m);
    if (child.InCheck() && !child.HasLegalMoves()) return true;
  }
  return false;
}

class Context {
 public:
  std::int64_t Share(std::int64_t permille) const {
    return std::max<std::int64_t>(1000, limits_.max_nodes / 1000 * permille);
  }

  Context(Color winner, Goal goal, const SearchLimits& limits)
      : winner_(winner), goal_(goal), limits_(limits) {}

  Color winner() const { return winner_; }
  Color loser() const { return ~winner_; }
  std::int64_t nodes() const { return nodes_; }
  bool stopped() const { return stopped_; }

  // Counts one generated position; false once a limit is reached.
  bool Tick() {
    ++nodes_;
    if (nodes_ >= limits_.max_nodes) stopped_ = true;
    if ((nodes_ & 255) == 0) {
      if (limits_.cancel != nullptr && limits_.cancel->load(std::memory_order_relaxed)) {
        stopped_ = true;
      }
      if (limits_.deadline != absl::InfiniteFuture() && absl::Now() >= limits_.deadline) {
        stopped_ = true;
      }
    }
    return !stopped_;
  }

  bool IsGoal(const Position& p) const {
    if (p.side_to_move() != loser()) return false;
    if (goal_ == Goal::kMate) return p.InCheck() && !p.HasLegalMoves();
    return CannotPreventMateNextMove(p, winner_);
  }

  // No goal below this position: sound pruning only.
  bool Hopeless(const Position& p) const { return MaterialCannotMate(p, winner_); }

 private:
  Color winner_;
  Goal goal_;
  const SearchLimits& limits_;
  std::int64_t nodes_ = 0;
  bool stopped_ = false;
};

enum class Outcome { kFound, kExhausted, kLimit };

int Distance(Square a, Square b) {
  return std::max(std::abs(chess::FileOf(a) - chess::FileOf(b)),
                  std::abs(chess::RankOf(a) - chess::RankOf(b)));
}

Bitboard AttacksBy(const Position& p, Color c, Bitboard occ) {
  const Bitboard pawns = p.pieces(c, PieceType::kPawn);
  Bitboard att =
      c == Color::kWhite
          ? (chess::Shift<chess::kNorthEast>(pawns) | chess::Shift<chess::kNorthWest>(pawns))
          : (chess::Shift<chess::kSouthEast>(pawns) | chess::Shift<chess::kSouthWest>(pawns));
  for (Bitboard b = p.pieces(c, PieceType::kKnight); b;)
    att |= chess::KnightAttacks(chess::PopLsb(b));
  const Bitboard queens = p.pieces(c, PieceType::kQueen);
  for (Bitboard b = p.pieces(c, PieceType::kBishop) | queens; b;)
    att |= chess::BishopAttacks(chess::PopLsb(b), occ);
  for (Bitboard b = p.pieces(c, PieceType::kRook) | queens; b;)
    att |= chess::RookAttacks(chess::PopLsb(b), occ);
  return att | chess::KingAttacks(p.KingSquare(c));
}

// The nearest corner of the given squares (all corners, or those of one colour).
int CornerDistance(Square s, Bitboard corners) {
  int best = 7;
  while (corners) best = std::min(best, Distance(s, chess::PopLsb(corners)));
  return best;
}

constexpr Bitboard kCorners = chess::SquareBB(chess::kA1) | chess::SquareBB(chess::kH1) |
                              chess::SquareBB(chess::kA8) | chess::SquareBB(chess::kH8);

// How far `p` looks from a mate by `winner` (lower is closer): the loser's king short of escape
// squares and near a corner, the winner's king at knight's distance, the winner's pieces close,
// its pawns advanced, its material kept (and gained by promotion). When the winner has no more
// than one minor piece to mate with, the loser's own men are what blocks its king: then the
// loser's pieces are drawn to their king, its pawns to promotion, and a lone bishop's corner is
// one of its colour.
// The winner's men cannot mate without the loser's own men blocking its king: no queen, rook or
// pawn, and only one knight or bishops that all stand on squares of one colour.
bool WeakWinner(const Position& p, Color winner) {
  if (p.pieces(winner, PieceType::kQueen) | p.pieces(winner, PieceType::kRook) |
      p.pieces(winner, PieceType::kPawn)) {
    return false;
  }
  const Bitboard knights = p.pieces(winner, PieceType::kKnight);
  const Bitboard bishops = p.pieces(winner, PieceType::kBishop);
  if (knights) return !bishops && !chess::MoreThanOne(knights);
  return !(bishops & chess::kDarkSquares) || !(bishops & chess::kLightSquares);
}

// `target`: the corners the loser's king is drawn to (all, or one chosen by the caller).
int Heuristic(const Position& p, Color winner, Bitboard target) {
  const Color loser = ~winner;
  const Square lk = p.KingSquare(loser);
  const Square wk = p.KingSquare(winner);
  const Bitboard watt = AttacksBy(p, winner, p.occupied() ^ chess::SquareBB(lk));
  const int escapes = chess::PopCount(chess::KingAttacks(lk) & ~p.pieces(loser) & ~watt);
  const bool major =
      (p.pieces(winner, PieceType::kQueen) | p.pieces(winner, PieceType::kRook)) != 0;
  const bool weak = WeakWinner(p, winner);
  Bitboard corners = target;
  if (const Bitboard bishops = p.pieces(winner, PieceType::kBishop); weak && bishops) {
    // Bishops check only on their colour: the king must be mated on a corner of that colour.
    const Bitboard colour =
        (bishops & chess::kDarkSquares) ? chess::kDarkSquares : chess::kLightSquares;
    if (corners & colour) corners &= colour;
  }
  int h = 10 * escapes + 4 * CornerDistance(lk, corners);
  int material = 0;
  for (Bitboard b = p.pieces(winner) & ~p.pieces(PieceType::kKing); b;) {
    const Square s = chess::PopLsb(b);
    switch (chess::TypeOf(p.PieceOn(s))) {
      case PieceType::kPawn:
        material += 1;
        h += (major ? 1 : 3) * (7 - chess::RelativeRank(winner, s));
        break;
      case PieceType::kKnight:
        material += 3;
        h += 2 * Distance(s, lk);
        break;
      case PieceType::kBishop:
        material += 3;
        h += Distance(s, lk);
        break;
      case PieceType::kRook:
        material += 5;
        h += Distance(s, lk) / 2;
        break;
      case PieceType::kQueen:
        material += 9;
        h += Distance(s, lk) / 2;
        break;
      default:
        break;
    }
  }
  h -= 4 * material;
  // The winner's king matters in the ending; with a queen or two rooks it would only wander.
  const int pieces = material - chess::PopCount(p.pieces(winner, PieceType::kPawn));
  if (pieces <= 6) h += 3 * std::abs(Distance(wk, lk) - 2);
  if (!weak) {
    // With enough to mate, the loser's men mostly defend: fewer is better.
    for (Bitboard b = p.pieces(loser) & ~p.pieces(PieceType::kKing); b;) {
      const PieceType t = chess::TypeOf(p.PieceOn(chess::PopLsb(b)));
      h += t == PieceType::kPawn ? 1 : t == PieceType::kQueen ? 6 : 3;
    }
  }
  if (weak) {
    for (Bitboard b = p.pieces(loser) & ~p.pieces(PieceType::kKing); b;) {
      const Square s = chess::PopLsb(b);
      if (chess::TypeOf(p.PieceOn(s)) == PieceType::kPawn) {
        h += 2 * (7 - chess::RelativeRank(loser, s));
      } else {
        h += 2 * Distance(s, lk) + CornerDistance(s, corners);
      }
    }
  }
  if (p.side_to_move() == loser && p.InCheck()) h -= 3;
  return h;
}

struct TreeNode {
  Position pos;
  std::int32_t parent;
  Move move;
  std::int32_t depth;
};

std::vector<Move> LineTo(const std::vector<TreeNode>& tree, std::int32_t index) {
  std::vector<Move> line;
  for (std::int32_t i = index; tree[i].parent >= 0; i = tree[i].parent)
    line.push_back(tree[i].move);
  std::reverse(line.begin(), line.end());
  return line;
}

// A node of the guided search: the move from its parent only (the position is replayed from the
// root when the node is expanded; storing every position would cost 150 bytes a node).
struct MoveNode {
  std::int32_t parent;
  Move move;
  std::int32_t depth;
};

// Greedy best-first search over the tree of legal moves, ordered by Heuristic (and by depth,
// more or less as `w` says). Finds, never proves.
Outcome GuidedSearch(const Position& root, Context& ctx, std::int64_t cap, Bitboard corners,
                     Weights w, std::vector<Move>* line) {
  const std::int64_t stop_at = ctx.nodes() + cap;
  std::vector<MoveNode> tree;
  tree.push_back({-1, Move(), 0});
  absl::flat_hash_set<std::uint64_t> seen;
  seen.insert(root.key());
  using Entry = std::pair<int, std::int32_t>;  // priority, index
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
  open.push({0, 0});
  std::vector<Move> path;
  auto line_to = [&](std::int32_t index) {
    std::vector<Move> moves;
    for (std::int32_t i = index; tree[i].parent >= 0; i = tree[i].parent) {
      moves.push_back(tree[i].move);
    }
    std::reverse(moves.begin(), moves.end());
    return moves;
  };
  while (!open.empty()) {
    const std::int32_t index = open.top().second;
    open.pop();
    Position pos = root;
    path = line_to(index);
    for (Move m : path) pos.PlayUnchecked(m);
    MoveList list;
    chess::GenerateLegalMoves(pos, &list);
    const std::int32_t depth = tree[index].depth + 1;
    for (Move m : list) {
      if (!ctx.Tick() || ctx.nodes() >= stop_at) return Outcome::kLimit;
      Position child = pos;
      child.PlayUnchecked(m);
      if (!seen.insert(child.key()).second) continue;
      if (ctx.IsGoal(child)) {
        path.push_back(m);
        *line = std::move(path);
        return Outcome::kFound;
      }
      if (ctx.Hopeless(child)) continue;
      const int priority = w.h * Heuristic(child, ctx.winner(), corners) + w.d * depth;
      tree.push_back({index, m, depth});
      open.push({priority, static_cast<std::int32_t>(tree.size() - 1)});
    }
  }
  return Outcome::kExhausted;  // every reachable position seen (by hash: not a proof)
}

// Breadth-first enumeration of every position reachable from `root`, by exact identity. When it
// completes without meeting the goal, no series of legal moves reaches it: a proof.
Outcome Exhaust(const Position& root, Context& ctx, std::int64_t cap, std::vector<Move>* line,
                std::int64_t* positions) {
  const std::int64_t stop_at = ctx.nodes() + cap;
  std::vector<TreeNode> tree;
  tree.push_back({root, -1, Move(), 0});
  absl::flat_hash_set<ExactKey> seen;
  seen.insert(MakeExactKey(root));
  for (size_t next = 0; next < tree.size(); ++next) {
    MoveList list;
    chess::GenerateLegalMoves(tree[next].pos, &list);
    for (Move m : list) {
      if (!ctx.Tick() || ctx.nodes() >= stop_at) return Outcome::kLimit;
      Position child = tree[next].pos;
      child.PlayUnchecked(m);
      if (!seen.insert(MakeExactKey(child)).second) continue;
      const std::int32_t parent = static_cast<std::int32_t>(next);
      if (ctx.IsGoal(child)) {
        tree.push_back({child, parent, m, tree[next].depth + 1});
        *line = LineTo(tree, static_cast<std::int32_t>(tree.size() - 1));
        return Outcome::kFound;
      }
      if (ctx.Hopeless(child)) continue;  // proven: no mate below it
      tree.push_back({child, parent, m, tree[next].depth + 1});
    }
  }
  *positions = static_cast<std::int64_t>(seen.size());
  return Outcome::kExhausted;
}

UnwinnabilityResult Found(std::vector<Move> line, Method method, std::int64_t nodes,
                          absl::string_view what) {
  UnwinnabilityResult r;
  r.verdict = Verdict::kWinnable;
  r.method = method;
  r.reason = absl::StrCat(what, " in ", line.size(), " plies");
  r.line = std::move(line);
  r.nodes = nodes;
  return r;
}

UnwinnabilityResult Proven(Method method, std::string reason, std::int64_t nodes) {
  UnwinnabilityResult r;
  r.verdict = Verdict::kUnwinnable;
  r.method = method;
  r.reason = std::move(reason);
  r.nodes = nodes;
  return r;
}

// The search phases shared by mate and mating potential: a greedy guided search towards the
// nearest corner; for a weak winner (WeakWinner), one patient guided search per corner (the
// loser's blockers must gather there, and the nearest corner is often the wrong one); the
// exhaustive enumeration (a proof when it completes); a last patient guided search with the rest
// of the budget.
UnwinnabilityResult Search(const Position& pos, Context& ctx, absl::string_view goal_text) {
  std::vector<Move> line;
  if (GuidedSearch(pos, ctx, ctx.Share(kFirstGuidedPermille), kCorners, kGreedy, &line) ==
      Outcome::kFound) {
    return Found(std::move(line), Method::kSearch, ctx.nodes(), goal_text);
  }
  if (WeakWinner(pos, ctx.winner())) {
    for (Bitboard c = kCorners; c && !ctx.stopped();) {
      const Square corner = chess::PopLsb(c);
      if (GuidedSearch(pos, ctx, ctx.Share(kCornerGuidedPermille), chess::SquareBB(corner),
                       kPatient, &line) == Outcome::kFound) {
        return Found(std::move(line), Method::kSearch, ctx.nodes(), goal_text);
      }
    }
  }
  if (!ctx.stopped()) {
    std::int64_t positions = 0;
    switch (Exhaust(pos, ctx, ctx.Share(kExhaustivePermille), &line, &positions)) {
      case Outcome::kFound:
        return Found(std::move(line), Method::kExhaustive, ctx.nodes(), goal_text);
      case Outcome::kExhausted:
        return Proven(Method::kExhaustive,
                      absl::StrCat("all ", positions,
                                   " reachable positions enumerated; none reaches the goal"),
                      ctx.nodes());
      case Outcome::kLimit:
        break;
    }
  }
  if (!ctx.stopped()) {
    if (GuidedSearch(pos, ctx, std::numeric_limits<std::int64_t>::max() / 2, kCorners, kPatient,
                     &line) == Outcome::kFound) {
      return Found(std::move(line), Method::kSearch, ctx.nodes(), goal_text);
    }
  }
  UnwinnabilityResult r;
  r.verdict = Verdict::kUndetermined;
  r.method = Method::kLimit;
  r.reason = absl::StrCat("search limit reached after ", ctx.nodes(), " positions");
  r.nodes = ctx.nodes();
  return r;
}

}  // namespace

absl::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kWinnable:
      return "winnable";
    case Verdict::kUnwinnable:
      return "unwinnable";
    case Verdict::kUndetermined:
      return "undetermined";
  }
  return "undetermined";
}

absl::string_view MethodName(Method m) {
  switch (m) {
    case Method::kGameOver:
      return "game_over";
    case Method::kMaterial:
      return "material";
    case Method::kMatePattern:
      return "mate_pattern";
    case Method::kLockedPawns:
      return "locked_pawns";
    case Method::kExhaustive:
      return "exhaustive";
    case Method::kSearch:
      return "search";
    case Method::kLimit:
      return "limit";
  }
  return "limit";
}

bool LineMates(const Position& pos, Color winner, const std::vector<Move>& line) {
  Position p = pos;
  for (Move m : line) {
    if (!p.IsLegal(m)) return false;
    p.PlayUnchecked(m);
  }
  return p.side_to_move() == ~winner && p.IsCheckmate();
}

bool CannotPreventMateNextMove(const Position& pos, Color side) {
  if (pos.side_to_move() != ~side) return false;
  MoveList replies;
  chess::GenerateLegalMoves(pos, &replies);
  // A mate (or stalemate) already on the board is not the position C4 asks for: K+N+N v K can
  // be mated with help, yet has no mating potential.
  if (replies.size == 0) return false;
  for (Move m : replies) {
    Position after = pos;
    after.PlayUnchecked(m);
    if (!HasMateInOne(after)) return false;
  }
  return true;
}

UnwinnabilityResult AnalyzeUnwinnability(const Position& pos, Color winner,
                                         const SearchLimits& limits) {
  const Color loser = ~winner;
  // 5.1a / 5.2a: a checkmate or a stalemate has ended the game.
  if (!pos.HasLegalMoves()) {
    if (pos.InCheck() && pos.side_to_move() == loser) {
      UnwinnabilityResult r;
      r.verdict = Verdict::kWinnable;
      r.method = Method::kGameOver;
      r.reason = absl::StrCat(chess::ColorName(winner), " has already checkmated (5.1a)");
      return r;
    }
    return Proven(Method::kGameOver,
                  pos.InCheck() ? absl::StrCat(chess::ColorName(loser),
                                               " has already checkmated: the game is over (5.1a)")
                                : "stalemate: the game is over (5.2a)",
                  0);
  }
  if (std::optional<StaticProof> proof = ProveUnwinnableStatically(pos, winner)) {
    return Proven(proof->method, std::move(proof->reason), 0);
  }
  Context ctx(winner, Goal::kMate, limits);
  return Search(pos, ctx, "checkmate");
}

DeadPositionResult AnalyzeDeadPosition(const Position& pos, const SearchLimits& limits) {
  DeadPositionResult r;
  // The side with more on the board first: it is the likelier to mate, and one mate is enough.
  const int white_count = chess::PopCount(pos.pieces(Color::kWhite));
  const int black_count = chess::PopCount(pos.pieces(Color::kBlack));
  const Color first = white_count >= black_count ? Color::kWhite : Color::kBlack;
  UnwinnabilityResult& a = first == Color::kWhite ? r.white : r.black;
  UnwinnabilityResult& b = first == Color::kWhite ? r.black : r.white;
  a = AnalyzeUnwinnability(pos, first, limits);
  if (a.verdict == Verdict::kWinnable) {
    r.verdict = Verdict::kWinnable;
    b.reason = "not analysed: the other side can mate, so the position is not dead";
    return r;
  }
  SearchLimits rest = limits;
  rest.max_nodes = std::max<std::int64_t>(1, limits.max_nodes - a.nodes);
  b = AnalyzeUnwinnability(pos, ~first, rest);
  if (b.verdict == Verdict::kWinnable) {
    r.verdict = Verdict::kWinnable;
  } else if (a.verdict == Verdict::kUnwinnable && b.verdict == Verdict::kUnwinnable) {
    r.verdict = Verdict::kUnwinnable;  // 5.2b / 9.6: dead
  } else {
    r.verdict = Verdict::kUndetermined;
  }
  return r;
}

UnwinnabilityResult AnalyzeMatingPotential(const Position& pos, Color side,
                                           const SearchLimits& limits) {
  const Color loser = ~side;
  const bool mated = pos.side_to_move() == loser && pos.IsCheckmate();
  if (mated || CannotPreventMateNextMove(pos, side)) {
    UnwinnabilityResult r;
    r.verdict = Verdict::kWinnable;
    r.method = Method::kGameOver;
    r.reason = mated ? absl::StrCat(chess::ColorName(side), " has already checkmated")
                     : absl::StrCat(chess::ColorName(loser),
                                    " to move cannot prevent mate on the next move");
    return r;
  }
  if (!pos.HasLegalMoves()) {
    return Proven(Method::kGameOver, "the game is over (checkmate or stalemate)", 0);
  }
  // Without the means to mate at all there is no mating potential.
  if (std::optional<StaticProof> proof = ProveUnwinnableStatically(pos, side)) {
    return Proven(proof->method, std::move(proof->reason), 0);
  }
  // C4 (1997): K+N+N v K has no mating potential. Verified by enumerating every such position
  // with the lone king to move (unwinnable_test.cc, MatingPotential.TwoKnightsExhaustive).
  const Bitboard ours = pos.pieces(side) & ~pos.pieces(PieceType::kKing);
  if (!pos.pieces(PieceType::kPawn) && pos.pieces(loser) == pos.pieces(loser, PieceType::kKing) &&
      ours == pos.pieces(side, PieceType::kKnight) && chess::PopCount(ours) == 2) {
    return Proven(Method::kMaterial,
                  "king and two knights against a bare king: no position where the lone king "
                  "cannot prevent mate next move (C4, 1997)",
                  0);
  }
  Context ctx(side, Goal::kPotential, limits);
  return Search(pos, ctx, "a position where the opponent cannot prevent mate");
}

}  // namespace analysis
