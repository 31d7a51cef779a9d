// Over real gRPC on loopback, on a real redis-server started by the harness (and on the
// in-memory store): electronic boards and touch-move (Article 4). The board relay (a service
// token) sends the placements a DGT board reports; a rapid game under 2001 (B5a: the arbiter
// rules on Article 4 only on request) where White touches his knight and plays a pawn, and Black's
// touch-move claim is upheld and stops the clocks; a blitz game where the claim comes after Black
// touched a piece and is refused (4.6, B5b); a standard game where the arbiter acts himself
// (the pawn move on the board is not made, SubmitMove e4 refused, the knight move made); an
// illegal move that stood stops the clocks (7.4a). The record shows it all, citing the article.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/game_server.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;

// White's pawn e2 lifted, then on e4; then Black's pawn e7 lifted.
constexpr char kNoE2[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR";
constexpr char kE4[] = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
constexpr char kE4NoE7[] = "rnbqkbnr/pppp1ppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";

class BoardFeedServerTest : public GameServerTest<BoardFeedServerTest> {
 protected:
  // A 2001 game with `time_control`, started; on the board White lifts his knight g1, puts it
  // back, then plays e4: the relay's report answered in `reply`.
  void KnightTouchedThenE4(const std::string& game, const std::string& time_control,
                           v1::GameReply* reply) {
    Ready(game, time_control, v1::EDITION_FIDE_2001);
    ASSERT_TRUE(Succeeded(Feed(game, {kNoG1, kStart, kNoE2, kE4}, reply)));
  }
  grpc::Status ClaimTouchMove(const std::string& game, v1::Color side, v1::GameReply* reply) {
    auto req = ForSide<v1::ClaimRequest>(game, side);
    req.set_kind(v1::CLAIM_KIND_TOUCH_MOVE);
    return Unary(Stub().get(), &S::Claim, req, PlayerToken(game, side), reply);
  }
};

// B5a (2001 rapid): the move on the board stands until Black claims; the claim is upheld from the
// recorded touches (4.3a) and the clocks stop for the arbiter.
TEST_P(BoardFeedServerTest, RapidTouchMoveClaimUpheld) {
  const std::string game = GameId("rapid");
  v1::GameReply reply;
  ASSERT_NO_FATAL_FAILURE(KnightTouchedThenE4(game, "1500", &reply));
  ASSERT_EQ(reply.game().moves_san_size(), 1);
  EXPECT_EQ(reply.game().moves_san(0), "e4");
  EXPECT_EQ(reply.game().to_move(), v1::COLOR_BLACK);
  // A player cannot feed the board.
  auto by_player = ForGame<v1::SubmitBoardFeedRequest>(game);
  by_player.add_placements()->set_placement(kE4NoE7);
  EXPECT_EQ(Unary(Stub().get(), &S::SubmitBoardFeed, by_player, PlayerToken(game, v1::COLOR_BLACK))
                .error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(Succeeded(ClaimTouchMove(game, v1::COLOR_BLACK, &reply)));
  EXPECT_EQ(reply.claim_ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_TRUE(reply.game().paused());
  const std::string pgn = Pgn(game);
  EXPECT_TRUE(absl::StrContains(pgn, "4.3: White touches N g1")) << pgn;
  EXPECT_TRUE(absl::StrContains(pgn, "4.3a: Black claims touch-move; the arbiter rules: violation"))
      << pgn;
}

// B5b / 4.6 (2001 blitz): Black lifted his pawn e7 before claiming: refused, play goes on.
TEST_P(BoardFeedServerTest, BlitzClaimRefusedOnceTheClaimantTouched) {
  const std::string game = GameId("blitz");
  Ready(game, "300", v1::EDITION_FIDE_2001);
  ASSERT_TRUE(Succeeded(Feed(game, {kNoG1, kStart, kNoE2, kE4, kE4NoE7})));
  v1::GameReply reply;
  grpc::Status st = ClaimTouchMove(game, v1::COLOR_BLACK, &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_CLAIM_RIGHT_LOST");
  EXPECT_FALSE(Get(game).game().paused());
}

// Standard play: the arbiter acts himself. The pawn move after the knight was touched is not
// made (a touch-move ruling is recorded); SubmitMove e4 is refused; the knight move is made.
TEST_P(BoardFeedServerTest, StandardTheArbiterEnforcesTouchMove) {
  const std::string game = GameId("standard");
  v1::GameReply reply;
  ASSERT_NO_FATAL_FAILURE(KnightTouchedThenE4(game, "5400", &reply));
  EXPECT_EQ(reply.game().moves_san_size(), 0);
  grpc::Status st = Move(game, v1::COLOR_WHITE, "e4");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_TOUCH_MOVE_OWED");
  ASSERT_TRUE(Succeeded(Feed(game, {kNoE2, kStart, kNoG1, kNf3}, &reply)));
  ASSERT_EQ(reply.game().moves_san_size(), 1);
  EXPECT_EQ(reply.game().moves_san(0), "Nf3");
  const std::string pgn = Pgn(game);
  EXPECT_TRUE(absl::StrContains(pgn, "{4.3a: the arbiter rules:")) << pgn;
  EXPECT_TRUE(absl::StrContains(pgn, "(move e2e4)")) << pgn;
}

// 7.4a: an illegal move with the clock pressed stops the clocks; the arbiter restarts them.
TEST_P(BoardFeedServerTest, IllegalMoveStoodStopsTheClocks) {
  const std::string game = GameId("illegal");
  Ready(game, "5400", v1::EDITION_FIDE_2001);
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(
      Feed(game, {"rnbqkbnr/pppppppp/8/8/8/5B2/PPPPPPPP/RNBQK1NR"}, &reply, /*pressed=*/true)));
  EXPECT_TRUE(reply.game().paused());
  EXPECT_EQ(reply.game().moves_san_size(), 0);
  auto resume = ForGame<v1::ResumeGameRequest>(game);
  resume.set_reason("bishop put back on f1");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::ResumeGame, resume, Token(Role::kArbiter))));
  ASSERT_TRUE(Succeeded(Feed(game, {kStart, kNoE2, kE4}, &reply)));
  EXPECT_EQ(reply.game().moves_san_size(), 1);
}

INSTANTIATE_TEST_SUITE_P(Stores, BoardFeedServerTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
