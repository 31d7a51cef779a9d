// Advice for a human arbiter on a quickplay-finish claim (10.2, Appendix D): "can the opponent
// win by normal means?" and "has he made any attempt to?". The system never rules on these
// claims itself (10.2 leaves the decision to the arbiter, D1 to an independent arbiter); it
// gathers what helps: whether the opponent can mate at all (6.10 / 5.2b, with proof), the
// engine's evaluation and best lines, and the material and progress over the last moves.
//
//   ASSIGN_OR_RETURN(ClaimAdvice a, AdviseClaim(game, pool.get(), {}, absl::Now() + 5s));
//   a.label  // "advice for a human ruling (10.2 / Appendix D); not a ruling"
#ifndef ARBITER_LIBS_ANALYSIS_ADVICE_H_
#define ARBITER_LIBS_ANALYSIS_ADVICE_H_

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "libs/analysis/engine_pool.h"
#include "libs/analysis/unwinnable.h"
#include "libs/chess/game.h"
#include "libs/chess/types.h"

namespace analysis {

inline constexpr char kAdviceLabel[] =
    "advice for a human ruling (10.2 / Appendix D); not a ruling";

struct ClaimAdviceOptions {
  int last_moves = 10;  // how many moves of each player the progress summary looks back
  EngineLimits engine_limits{
      .depth = 14, .nodes = 0, .movetime = absl::ZeroDuration(), .multipv = 3};
  bool evaluate_earlier_position = true;  // also evaluate the position `last_moves` ago
  SearchLimits unwinnable_limits;
  // The claimant: 10.2 is the claim of the player on move, but D1 lets a player claim whether
  // or not he is on move. nullopt = the player to move.
  std::optional<chess::Color> claimant;
};

// Material in pawns (P 1, N 3, B 3, R 5, Q 9) after a ply of the game.
struct MaterialPoint {
  int ply = 0;  // half-moves played since the game's start position
  int white = 0;
  int black = 0;
};

struct ClaimAdvice {
  std::string label = kAdviceLabel;
  chess::Color claimant = chess::Color::kWhite;  // ClaimAdviceOptions::claimant
  chess::Color opponent = chess::Color::kBlack;
  // Whether the opponent can mate at all. Unwinnable with proof: he cannot win by any means.
  UnwinnabilityResult opponent_can_mate;
  bool engine_used = false;
  // Engine evaluation from the opponent's point of view (positive: good for the opponent).
  std::optional<int> opponent_score_cp;
  std::optional<int> opponent_mate_in;
  std::optional<int> earlier_opponent_score_cp;  // `last_moves` moves ago, when evaluated
  std::vector<PvLine> lines;                     // best lines, scores from the side to move
  // Progress over the last `moves_considered` moves of the opponent.
  int moves_considered = 0;
  int opponent_captures = 0;
  int opponent_pawn_moves = 0;
  int opponent_checks = 0;
  int halfmove_clock = 0;  // 9.3 count of the current position
  std::vector<MaterialPoint> material;
  std::vector<std::string> notes;  // plain sentences for the arbiter
};

// Advice on a claim in `game`'s current position by options.claimant (the player to move unless
// given). `pool` may be null
// (no engine: the proof and the progress summary only). Engine failures do not fail the
// advice: they are recorded in `notes` and engine_used stays false.
absl::StatusOr<ClaimAdvice> AdviseClaim(const chess::Game& game, EnginePool* pool,
                                        const ClaimAdviceOptions& options, absl::Time deadline,
                                        const std::atomic<bool>* cancel = nullptr);

}  // namespace analysis

#endif  // ARBITER_LIBS_ANALYSIS_ADVICE_H_
