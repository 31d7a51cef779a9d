#include "libs/analysis/advice.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/analysis/errors.h"
#include "libs/base/error.h"
#include "libs/chess/bitboard.h"

namespace analysis {
namespace {

using chess::Color;
using chess::PieceType;

int Material(const chess::Position& p, Color c) {
  return chess::PopCount(p.pieces(c, PieceType::kPawn)) +
         3 * chess::PopCount(p.pieces(c, PieceType::kKnight) | p.pieces(c, PieceType::kBishop)) +
         5 * chess::PopCount(p.pieces(c, PieceType::kRook)) +
         9 * chess::PopCount(p.pieces(c, PieceType::kQueen));
}

// The engine's score for the side to move, turned to `side`'s point of view.
void ScoreFor(const PvLine& line, bool side_to_move_is_side, std::optional<int>* cp,
              std::optional<int>* mate) {
  const int sign = side_to_move_is_side ? 1 : -1;
  if (line.score_cp) *cp = sign * *line.score_cp;
  if (line.mate_in) *mate = sign * *line.mate_in;
}

}  // namespace

absl::StatusOr<ClaimAdvice> AdviseClaim(const chess::Game& game, EnginePool* pool,
                                        const ClaimAdviceOptions& options, absl::Time deadline,
                                        const std::atomic<bool>* cancel) {
  if (options.last_moves < 1 || options.last_moves > 500) {
    return base::Error(analysis::kErrBadLimits, "last_moves must be 1..500");
  }
  const chess::Position& now = game.position();
  ClaimAdvice a;
  a.claimant = options.claimant.value_or(now.side_to_move());
  a.opponent = ~a.claimant;
  a.halfmove_clock = now.halfmove_clock();

  // Can the opponent win at all? (6.10 / 5.2b: unwinnable with proof.)
  SearchLimits ul = options.unwinnable_limits;
  ul.deadline = std::min(ul.deadline, deadline);
  if (ul.cancel == nullptr) ul.cancel = cancel;
  a.opponent_can_mate = AnalyzeUnwinnability(now, a.opponent, ul);

  // Progress: the last `last_moves` moves of the opponent and the material after each ply.
  const std::vector<chess::Move>& moves = game.moves();
  const std::vector<chess::Position>& positions = game.positions();
  const size_t plies = std::min(moves.size(), static_cast<size_t>(2 * options.last_moves));
  const size_t first = moves.size() - plies;
  for (size_t i = first; i < moves.size(); ++i) {
    const chess::Position& before = positions[i];
    if (before.side_to_move() != a.opponent) continue;
    ++a.moves_considered;
    if (before.IsCapture(moves[i])) ++a.opponent_captures;
    if (chess::TypeOf(before.PieceOn(moves[i].from())) == PieceType::kPawn) ++a.opponent_pawn_moves;
    if (positions[i + 1].InCheck()) ++a.opponent_checks;
  }
  for (size_t i = first; i < positions.size(); ++i) {
    a.material.push_back({static_cast<int>(i), Material(positions[i], Color::kWhite),
                          Material(positions[i], Color::kBlack)});
  }

  if (a.opponent_can_mate.verdict == Verdict::kUnwinnable) {
    a.notes.push_back(absl::StrCat(chess::ColorName(a.opponent),
                                   " cannot checkmate by any series of legal moves (",
                                   a.opponent_can_mate.reason, "): cannot win by any means"));
  }
  if (a.moves_considered > 0 && a.opponent_captures == 0 && a.opponent_pawn_moves == 0) {
    a.notes.push_back(absl::StrCat("no capture and no pawn move by ", chess::ColorName(a.opponent),
                                   " in his last ", a.moves_considered, " moves"));
  }

  if (pool != nullptr) {
    // The engine sees the game from its start, so it knows the repetitions.
    absl::StatusOr<EngineAnalysis> e =
        pool->Analyze(game.start(), moves, options.engine_limits, deadline, cancel);
    if (e.ok() && !e->lines.empty()) {
      a.engine_used = true;
      a.lines = e->lines;
      // The engine scores from the side to move, who is the claimant or the opponent.
      ScoreFor(e->lines[0], /*side_to_move_is_side=*/now.side_to_move() == a.opponent,
               &a.opponent_score_cp, &a.opponent_mate_in);
      if (!e->complete) a.notes.push_back("the engine was stopped early by the deadline");
    } else if (!e.ok()) {
      if (absl::IsCancelled(e.status())) return e.status();
      a.notes.push_back(absl::StrCat("engine advice unavailable: ", base::ErrorCode(e.status()),
                                     ": ", e.status().message()));
    }
    if (a.engine_used && options.evaluate_earlier_position && first > 0 && first < moves.size()) {
      std::vector<chess::Move> earlier(moves.begin(), moves.begin() + first);
      absl::StatusOr<EngineAnalysis> then =
          pool->Analyze(game.start(), earlier,
                        {.depth = options.engine_limits.depth,
                         .nodes = options.engine_limits.nodes,
                         .movetime = options.engine_limits.movetime,
                         .multipv = 1},
                        deadline, cancel);
      if (then.ok() && !then->lines.empty()) {
        std::optional<int> mate;
        ScoreFor(then->lines[0], positions[first].side_to_move() == a.opponent,
                 &a.earlier_opponent_score_cp, &mate);
        if (mate && !a.earlier_opponent_score_cp) {
          a.earlier_opponent_score_cp = *mate > 0 ? 10000 : -10000;
        }
      }
    }
    if (a.opponent_mate_in && *a.opponent_mate_in > 0) {
      a.notes.push_back(absl::StrCat("the engine finds a forced mate for ",
                                     chess::ColorName(a.opponent), " in ", *a.opponent_mate_in));
    } else if (a.opponent_score_cp) {
      a.notes.push_back(absl::StrCat("engine evaluation for ", chess::ColorName(a.opponent), ": ",
                                     *a.opponent_score_cp, " centipawns"));
    }
  }
  return a;
}

}  // namespace analysis
