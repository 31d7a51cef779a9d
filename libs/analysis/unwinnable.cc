#include "libs/analysis/unwinnable.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "libs/analysis/reachability.h"
#include "libs/analysis/static_proofs.h"
#include "libs/base/enum_table.h"
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

// The schedule of the searches (see Search), in positions generated: the greedy search's first
// run alone (shorter for a weak winner, whose mates the target searches find), the first turn of
// the searches that then take turns (doubling each round), and the budget of the greedy search
// that finishes each subgoal of the strip search. The first turn is short: a line the greedy
// search misses at first is found by another search as often as not, and a short turn costs a
// question that ends in the first rounds far less (measured on tests/data/unwinnable_positions.txt
// with tests/bench:unwinnable_bench: 2000/500/500 generate a fifth fewer positions than
// 3000/2000/2000, with the same undetermined questions).
constexpr std::int64_t kSoloNodes = 2000;
constexpr std::int64_t kWeakSoloNodes = 500;
constexpr std::int64_t kSliceNodes = 500;
constexpr std::int64_t kFinishNodes = 20000;
// Shares of a turn: the greedy and strip searches find most lines; the exhaustive enumeration
// only needs enough for small closed worlds (it takes half a share).
constexpr int kGreedyShare = 3;
constexpr int kPatientShare = 2;
constexpr int kTargetShare = 1;
constexpr int kStripShare = 3;
constexpr size_t kMaxTargets = 3;
// The budget of the depth-first search for a weak winner (WeakDepthFirst), before the others.
constexpr std::int64_t kWeakDepthFirstNodes = 20000;
// A position with this many pawns fixed for good (ComputeReachability) is closed; there the
// exhaustive enumeration takes this many shares of a turn.
constexpr int kClosedPawns = 4;
constexpr int kClosedExhaustiveShare = 2;
constexpr size_t kReserve = 4096;  // initial capacity of a search's tables

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

  // `loser_in_check`: the loser is to move and in check (LoserInCheck), known to the caller.
  bool IsGoal(const Position& p, bool loser_in_check) const {
    if (p.side_to_move() != loser()) return false;
    if (goal_ == Goal::kMate) return loser_in_check && !p.HasLegalMoves();
    return CannotPreventMateNextMove(p, winner_);
  }
  bool LoserInCheck(const Position& p) const { return p.side_to_move() == loser() && p.InCheck(); }

  // No goal below this position: sound pruning only.
  bool Hopeless(const Position& p) const { return MaterialCannotMate(p, winner_); }

 private:
  Color winner_;
  Goal goal_;
  const SearchLimits& limits_;
  std::int64_t nodes_ = 0;
  bool stopped_ = false;
};

enum class Outcome { kFound, kExhausted, kLimit, kGaveUp, kSubgoal };

// The parts, in the order they build on each other (each .inc says what it holds).
// How far a position is from a mate:
#include "libs/analysis/unwinnable_heuristics.inc"
// Mates with the loser's own men as blockers, for a winner without queen or rook:
#include "libs/analysis/unwinnable_mate_targets.inc"
// The guided, exhaustive and depth-first searches:
#include "libs/analysis/unwinnable_searches.inc"
// 1997 C4's patterns of mating potential, built by a walk:
#include "libs/analysis/unwinnable_c4_patterns.inc"

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

// The searches shared by mate and mating potential. A greedy guided search towards the nearest
// corner runs alone first: it finds most helpmates within a few thousand positions. Then the
// searches take turns, each resuming where it stopped (none repeats another's work, and each has
// its share whatever the limit): the greedy one; a patient one (which widens the search near the
// root and finds the long, narrow lines); for a winner without queen or rook, one search per
// mate target (MateTargets); for a winner who can mate alone, the strip search (take the loser's
// men, then mate the bare king); and the exhaustive enumeration (a proof when it completes).
UnwinnabilityResult Search(const Position& pos, Context& ctx, absl::string_view goal_text) {
  std::vector<Move> line;
  const Color winner = ctx.winner();
  const bool weak = WeakWinner(pos, winner);
  auto greedy = std::make_unique<GuidedSearch>(pos, ctx, kCorners, kGreedy);
  if (greedy->Run(weak ? kWeakSoloNodes : kSoloNodes, &line) == Outcome::kFound) {
    return Found(std::move(line), Method::kSearch, ctx.nodes(), goal_text);
  }
  if (weak) {
    WeakDepthFirst dfs(pos, ctx);
    if (dfs.Run(kWeakDepthFirstNodes, &line)) {
      return Found(std::move(line), Method::kSearch, ctx.nodes(), goal_text);
    }
  }
  // Most winnable questions end above; before the long searches, the reachability proof (locked
  // pawn chains, lone bishops behind them), cheap next to them. It proves no mate at all, so it
  // holds for mating potential too (C4 asks for more than a mate).
  // A position closed by pawns that never move (four or more of them): most of its lines are
  // shuffles behind them, which the exhaustive enumeration settles sooner than the guided
  // searches, so it takes a larger share.
  bool closed = false;
  if (std::optional<Reachability> reach = ComputeReachability(pos)) {
    if (std::optional<StaticProof> proof = ReachabilityProof(*reach, winner)) {
      return Proven(proof->method, std::move(proof->reason), ctx.nodes());
    }
    closed = chess::PopCount(reach->never_empty & pos.pieces(PieceType::kPawn)) >= kClosedPawns;
  }
  struct Turn {
    std::unique_ptr<GuidedSearch> search;
    int share;
  };
  std::vector<Turn> guided;
  guided.push_back({std::move(greedy), kGreedyShare});
  guided.push_back({std::make_unique<GuidedSearch>(pos, ctx, kCorners, kPatient), kPatientShare});
  // No queen or rook: searches driven towards concrete checkmates by a minor piece (the loser's
  // men as blockers, a second piece covering flight squares).
  if (!(pos.pieces(winner, PieceType::kQueen) | pos.pieces(winner, PieceType::kRook))) {
    for (const MateTarget& t : MateTargets(pos, winner, kMaxTargets)) {
      guided.push_back({std::make_unique<GuidedSearch>(pos, ctx, kCorners, kGreedy,
                                                       /*strip=*/false, &t),
                        kTargetShare});
    }
  }
  // A winner who can mate alone may first take the loser's men (the loser walking them into
  // capture), then mate the bare king: subgoals of the strip search, each finished by a greedy
  // mate search.
  std::unique_ptr<GuidedSearch> strip;
  if (!weak && pos.pieces(ctx.loser()) != pos.pieces(ctx.loser(), PieceType::kKing)) {
    strip = std::make_unique<GuidedSearch>(pos, ctx, kCorners, kGreedy, /*strip=*/true);
  }
  Exhaustive exhaustive(pos, ctx);
  bool exhaustive_active = true;
  for (std::int64_t slice = kSliceNodes; !ctx.stopped(); slice *= 2) {
    bool any = false;
    for (Turn& turn : guided) {
      if (turn.search == nullptr || ctx.stopped()) continue;
      any = true;
      switch (turn.search->Run(slice * turn.share, &line)) {
        case Outcome::kFound:
          return Found(std::move(line), Method::kSearch, ctx.nodes(), goal_text);
        case Outcome::kLimit:
          break;
        default:
          turn.search.reset();  // every position seen: nothing more to find there
          break;
      }
    }
    if (strip != nullptr && !ctx.stopped()) {
      any = true;
      switch (strip->Run(slice * kStripShare, &line)) {
        case Outcome::kFound:
          return Found(std::move(line), Method::kSearch, ctx.nodes(), goal_text);
        case Outcome::kSubgoal: {
          // The finishing searches take at most the strip search's share of this turn.
          const std::int64_t until = ctx.nodes() + slice * kStripShare;
          for (auto& [prefix, reached] : strip->TakeSubgoals()) {
            if (ctx.nodes() >= until || ctx.stopped()) break;
            GuidedSearch finish(reached, ctx, kCorners, kGreedy);
            if (finish.Run(std::min(kFinishNodes, until - ctx.nodes()), &line) == Outcome::kFound) {
              prefix.insert(prefix.end(), line.begin(), line.end());
              return Found(std::move(prefix), Method::kSearch, ctx.nodes(), goal_text);
            }
          }
          break;
        }
        case Outcome::kLimit:
          break;
        default:
          strip.reset();
          break;
      }
    }
    if (exhaustive_active && !ctx.stopped()) {
      any = true;
      switch (exhaustive.Run(closed ? slice * kClosedExhaustiveShare : slice / 2, &line)) {
        case Outcome::kFound:
          return Found(std::move(line), Method::kExhaustive, ctx.nodes(), goal_text);
        case Outcome::kExhausted:
          return Proven(Method::kExhaustive,
                        absl::StrCat("all ", exhaustive.positions(),
                                     " reachable positions enumerated; none reaches the goal"),
                        ctx.nodes());
        case Outcome::kGaveUp:
          exhaustive_active = false;
          break;
        default:
          break;
      }
    }
    if (!any) break;
  }
  UnwinnabilityResult r;
  r.verdict = Verdict::kUndetermined;
  r.method = Method::kLimit;
  r.reason = absl::StrCat("search limit reached after ", ctx.nodes(), " positions");
  r.nodes = ctx.nodes();
  return r;
}

}  // namespace

namespace {
// The longest run of single legal moves played before the analysis (AnalyzeUnwinnability).
constexpr int kMaxForced = 100;
UnwinnabilityResult AnalyzeAfterForced(const Position& pos, Color winner,
                                       const SearchLimits& limits);
}  // namespace

absl::string_view VerdictName(Verdict v) {
  static constexpr absl::string_view kNames[] = {"winnable", "unwinnable", "undetermined"};
  return base::EnumEntry(kNames, v, "undetermined");
}

absl::string_view MethodName(Method m) {
  static constexpr absl::string_view kNames[] = {
      "game_over", "material", "mate_pattern", "locked_pawns", "exhaustive", "search", "limit"};
  return base::EnumEntry(kNames, m, "limit");
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

UnwinnabilityResult AnalyzeUnwinnability(const Position& start, Color winner,
                                         const SearchLimits& limits) {
  // Forced moves first: while the side to move has a single legal move, every series of moves
  // goes through it (a king in check with one way out, often into a position a static proof
  // settles). A line found later starts with them.
  Position pos = start;
  std::vector<Move> forced;
  for (int i = 0; i < kMaxForced; ++i) {
    MoveList list;
    chess::GenerateLegalMoves(pos, &list);
    if (list.size != 1) break;
    forced.push_back(list.moves[0]);
    pos.PlayUnchecked(list.moves[0]);
  }
  UnwinnabilityResult r = AnalyzeAfterForced(pos, winner, limits);
  if (!forced.empty() && r.verdict == Verdict::kWinnable) {
    r.line.insert(r.line.begin(), forced.begin(), forced.end());
    if (r.method == Method::kGameOver) r.method = Method::kSearch;
  }
  if (!forced.empty() && r.verdict == Verdict::kUnwinnable) {
    // kGameOver says the position itself is over; here the only series of moves ends the game,
    // which is an enumeration of every continuation.
    if (r.method == Method::kGameOver) r.method = Method::kExhaustive;
    r.reason = absl::StrCat(r.reason, " (after ", forced.size(), " forced plies)");
  }
  return r;
}

namespace {

UnwinnabilityResult AnalyzeAfterForced(const Position& pos, Color winner,
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

}  // namespace

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
  // C4 (1997): material with no position the goal asks for, although a mate may exist (K+N+N v
  // K, K+B v K+P, K+N v K+B, ...). Verified by enumerating every placement (unwinnable_test.cc,
  // MatingPotential.TwoKnightsExhaustive and NoMatingPotential.*).
  if (std::optional<StaticProof> proof = NoMatingPotentialProof(pos, side)) {
    return Proven(proof->method, std::move(proof->reason), 0);
  }
  Context ctx(side, Goal::kPotential, limits);
  // The classes whose goals are known: build the line (C4 patterns); the searches otherwise.
  if (auto built = ConstructPotential(pos, ctx)) {
    UnwinnabilityResult r = Found(std::move(built->first), Method::kSearch, ctx.nodes(),
                                  "a position where the opponent cannot prevent mate");
    r.reason = absl::StrCat(r.reason, ", walked to a known pattern (", built->second, ")");
    return r;
  }
  return Search(pos, ctx, "a position where the opponent cannot prevent mate");
}

}  // namespace analysis
