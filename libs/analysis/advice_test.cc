#include "libs/analysis/advice.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"

namespace analysis {
namespace {

chess::Game GameFrom(const std::string& fen, const std::vector<std::string>& moves) {
  chess::Game game(*chess::ParseFen(fen));
  for (const std::string& m : moves) {
    absl::StatusOr<chess::Move> move = chess::ParseMove(game.position(), m);
    EXPECT_TRUE(move.ok()) << m;
    EXPECT_TRUE(game.Play(*move).ok()) << m;
  }
  return game;
}

// D1: a player may claim without being on move; the claimant is taken as given.
TEST(AdviseClaim, AppendixDClaimantNotOnMove) {
  // Black is to move; White claims. The opponent, Black, has a bare king.
  chess::Game game =
      GameFrom("4k3/8/8/8/8/8/4B3/4K3 w - - 0 1", {"Kd2", "Kd8", "Kc3", "Kc8", "Bf3"});
  auto a = AdviseClaim(game, nullptr, {.claimant = chess::Color::kWhite},
                       absl::Now() + absl::Seconds(5));
  ASSERT_OK(a);
  EXPECT_EQ(a->claimant, chess::Color::kWhite);
  EXPECT_EQ(a->opponent, chess::Color::kBlack);
  EXPECT_EQ(a->opponent_can_mate.verdict, Verdict::kUnwinnable);
  EXPECT_EQ(a->moves_considered, 2);  // Black's last moves: Kd8, Kc8
}

// 10.2 / 6.10: the opponent (White) has only a king and bishop: he cannot win by any means.
TEST(AdviseClaim, OpponentWhoCannotMateWithoutEngine) {
  // Black is to move and claims; White is the opponent.
  chess::Game game =
      GameFrom("4k3/8/8/8/8/8/4B3/4K3 w - - 0 1", {"Kd2", "Kd8", "Kc3", "Kc8", "Bf3"});
  auto a = AdviseClaim(game, nullptr, {}, absl::Now() + absl::Seconds(5));
  ASSERT_OK(a);
  EXPECT_EQ(a->label, kAdviceLabel);
  EXPECT_EQ(a->claimant, chess::Color::kBlack);
  EXPECT_EQ(a->opponent, chess::Color::kWhite);
  EXPECT_EQ(a->opponent_can_mate.verdict, Verdict::kUnwinnable);
  EXPECT_FALSE(a->engine_used);
  EXPECT_EQ(a->moves_considered, 3);
  EXPECT_EQ(a->opponent_captures, 0);
  EXPECT_EQ(a->opponent_pawn_moves, 0);
  EXPECT_EQ(a->material.size(), 6u);  // before the window's first ply and after each of 5
  EXPECT_EQ(a->material.back().white, 3);
  EXPECT_FALSE(a->notes.empty());
}

TEST(AdviseClaim, BadWindowIsRejected) {
  chess::Game game(chess::Position::Initial());
  EXPECT_THAT(AdviseClaim(game, nullptr, {.last_moves = 0}, absl::InfiniteFuture()),
              base::HasErrorCode("ERR_BAD_LIMITS"));
}

TEST(AdviseClaim, WithStockfish) {
  if (access(kDefaultEnginePath, X_OK) != 0) GTEST_SKIP() << "stockfish not installed";
  auto pool = EnginePool::Create({.size = 1});
  ASSERT_OK(pool);
  // White (the opponent of the claimant Black) has a queen more.
  chess::Game game = GameFrom("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1", {"Qd4", "Ke7", "Ke2"});
  ClaimAdviceOptions options;
  options.engine_limits = {.depth = 8, .multipv = 2};
  auto a = AdviseClaim(game, pool->get(), options, absl::Now() + absl::Seconds(20));
  ASSERT_OK(a);
  EXPECT_TRUE(a->engine_used);
  EXPECT_EQ(a->opponent_can_mate.verdict, Verdict::kWinnable);
  ASSERT_FALSE(a->lines.empty());
  EXPECT_TRUE(a->opponent_score_cp.has_value() || a->opponent_mate_in.has_value());
  if (a->opponent_score_cp) EXPECT_GT(*a->opponent_score_cp, 300);
  if (a->opponent_mate_in) EXPECT_GT(*a->opponent_mate_in, 0);
}

}  // namespace
}  // namespace analysis
