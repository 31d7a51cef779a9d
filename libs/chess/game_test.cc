// 9.2 threefold repetition, 9.3 fifty moves, 2023 9.6.1 fivefold and 9.6.2 seventy-five moves.
#include "libs/chess/game.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"

namespace chess {
namespace {

void PlaySan(Game* game, const std::vector<std::string>& sans) {
  for (const std::string& san : sans) {
    absl::StatusOr<Move> m = ParseSan(game->position(), san);
    ASSERT_TRUE(m.ok()) << san << ": " << m.status();
    ASSERT_OK(game->Play(*m));
  }
}

std::vector<std::string> Uci(const std::vector<Move>& moves) {
  std::vector<std::string> out;
  for (Move m : moves) out.push_back(ToUci(m));
  return out;
}

TEST(ThreefoldTest, Article9_2_ClaimWithTheIntendedMoveAndAfterIt) {
  Game game(Position::Initial());
  PlaySan(&game, {"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"});
  // Black to move: Ng8 would bring the initial position about for the third time (9.2a).
  DrawClaim claim = game.ThreefoldClaim();
  EXPECT_FALSE(claim.now);
  EXPECT_EQ(Uci(claim.by_moves), std::vector<std::string>{"f6g8"});
  PlaySan(&game, {"Ng8"});
  // The position has just appeared for the third time (9.2b).
  EXPECT_EQ(game.RepetitionCount(), 3);
  EXPECT_TRUE(game.ThreefoldClaim().now);
}

// 9.2: a position with an en passant capture possible differs from the same placement without.
TEST(ThreefoldTest, EnPassantPossibilityMakesPositionsDiffer) {
  Game game(*ParseFen("4k3/8/8/8/5p2/8/4P3/4K3 w - - 0 1"));
  PlaySan(&game, {"e4"});  // e.p. possible now
  PlaySan(&game, {"Kd7", "Kd1", "Ke8", "Ke1"});
  // Same placement, same side to move, but the e.p. capture is gone: a different position.
  EXPECT_EQ(game.RepetitionCount(), 1);
  PlaySan(&game, {"Kd7", "Kd1", "Ke8", "Ke1"});
  EXPECT_EQ(game.RepetitionCount(), 2);
}

// 9.2: castling rights lost make the position different even with the same placement.
TEST(ThreefoldTest, CastlingRightsCount) {
  Game game(*ParseFen("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1"));
  PlaySan(&game, {"Rh2", "Ra7", "Rh1", "Ra8"});
  EXPECT_EQ(game.RepetitionCount(), 1);  // both rights are gone
  PlaySan(&game, {"Rh2", "Ra7", "Rh1", "Ra8"});
  EXPECT_EQ(game.RepetitionCount(), 2);
}

TEST(FiftyMoveTest, Article9_3) {
  Game game(*ParseFen("4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80"));
  DrawClaim claim = game.FiftyMoveClaim();
  EXPECT_FALSE(claim.now);
  // Any legal rook or king move completes the 50 moves; the pawn moves do not (9.3a).
  bool has_pawn_move = false, has_rook_move = false;
  for (Move m : claim.by_moves) {
    has_pawn_move |= m.from() == kE2;
    has_rook_move |= m.from() == kA1;
  }
  EXPECT_TRUE(has_rook_move);
  EXPECT_FALSE(has_pawn_move);
  PlaySan(&game, {"Ra2"});
  EXPECT_TRUE(game.FiftyMoveClaim().now);  // 9.3b
  // Not when the game is over: a mated player has no claim.
  Game over(*ParseFen("R3k3/8/4K3/8/8/8/8/8 b - - 120 90"));
  EXPECT_FALSE(over.FiftyMoveClaim().possible());
  EXPECT_FALSE(over.ThreefoldClaim().possible());
}

// 2023 9.6.2: 75 moves each; the checkmate by the move completing them takes precedence.
TEST(SeventyFiveMoveTest, MateOnTheSeventyFifthTakesPrecedence) {
  Game mate(*ParseFen("6k1/5ppp/8/8/8/8/8/R3K3 w - - 149 120"));
  PlaySan(&mate, {"Ra8#"});
  EXPECT_TRUE(mate.position().IsCheckmate());
  EXPECT_FALSE(mate.IsSeventyFiveMoveRule());
  Game quiet(*ParseFen("6k1/5ppp/8/8/8/8/8/R3K3 w - - 149 120"));
  PlaySan(&quiet, {"Ra7"});
  EXPECT_TRUE(quiet.IsSeventyFiveMoveRule());
}

TEST(FivefoldTest, Article9_6_1) {
  Game game(Position::Initial());
  for (int i = 0; i < 4; ++i) PlaySan(&game, {"Nf3", "Nf6", "Ng1", "Ng8"});
  EXPECT_EQ(game.RepetitionCount(), 5);
  EXPECT_TRUE(game.IsFivefoldRepetition());
}

// The window from the last capture or pawn move answers every repetition question as the whole
// game does, now and after more moves: the move path asks it instead of copying the game.
TEST(GameTest, TheRepetitionWindowAnswersAsTheWholeGame) {
  Game game(Position::Initial());
  PlaySan(&game, {"e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "Ng1", "Nb8", "Nf3", "Nc6"});
  Game window = game.RepetitionWindow();
  EXPECT_LT(window.positions().size(), game.positions().size());
  EXPECT_EQ(window.position(), game.position());
  const std::vector<std::string> more = {"Ng1", "Nb8", "Nf3", "Nc6", "Ng1", "Nb8", "Nf3", "Nc6"};
  for (const std::string& san : more) {
    EXPECT_EQ(window.RepetitionCount(), game.RepetitionCount()) << san;
    EXPECT_EQ(window.IsFivefoldRepetition(), game.IsFivefoldRepetition()) << san;
    EXPECT_EQ(Uci(window.ThreefoldClaim().by_moves), Uci(game.ThreefoldClaim().by_moves)) << san;
    EXPECT_EQ(window.ThreefoldClaim().now, game.ThreefoldClaim().now) << san;
    PlaySan(&game, {san});
    PlaySan(&window, {san});
  }
  EXPECT_EQ(window.RepetitionCount(), game.RepetitionCount());
  EXPECT_GE(window.RepetitionCount(), 3);
  EXPECT_TRUE(window.ThreefoldClaim().now);
  // Right after a pawn move the window is the position before it and the one after.
  PlaySan(&game, {"d4"});
  EXPECT_EQ(game.RepetitionWindow().positions().size(), 2u);
}

TEST(GameTest, NoMoveAfterMate) {
  Game game(*ParseFen("R3k3/8/4K3/8/8/8/8/8 b - - 0 1"));
  EXPECT_THAT(game.Play(Move(kE8, kF8)), base::HasErrorCode("ERR_GAME_OVER"));
}

}  // namespace
}  // namespace chess
