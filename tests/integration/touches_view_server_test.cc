// Over real gRPC on loopback, on a real redis-server started by the harness (and on the
// in-memory store): GameView's pieces touched this turn and the move they oblige (Article 4), as
// the board relay's reports make them; B4's clock setting (SetClocks refused in 2001 rapid once
// each player completed three moves, ERR_CLOCK_SETTING_FINAL); B5b on a player's report of the
// opponent's illegal move after he touched a piece (ERR_CLAIM_RIGHT_LOST).
#include <memory>
#include <string>
#include <vector>

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

class TouchesViewServerTest : public GameServerTest<TouchesViewServerTest> {};

// 2001 standard play (G/90): White lifts his knight g1 and puts it back: GameView shows the touch
// and 4.3a's owed moves, enforced; after Nf3 on the board neither is left.
TEST_P(TouchesViewServerTest, StandardTouchAndObligation) {
  const std::string game = GameId("standard");
  Ready(game, "5400", v1::EDITION_FIDE_2001);
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(Feed(game, {kNoG1, kStart}, &reply)));
  ASSERT_EQ(reply.game().touched_size(), 1);
  EXPECT_EQ(reply.game().touched(0).square(), "g1");
  EXPECT_EQ(reply.game().touched(0).piece(), "N");
  EXPECT_EQ(reply.game().touched(0).side(), v1::COLOR_WHITE);
  EXPECT_TRUE(reply.game().touched(0).placement().empty());
  ASSERT_TRUE(reply.game().has_obligation());
  const v1::GameReply got = Get(game);
  const v1::MoveObligation& o = got.game().obligation();
  EXPECT_FALSE(o.free());
  ASSERT_EQ(o.owed_uci_size(), 2);
  EXPECT_EQ(o.owed_uci(0), "g1f3");
  EXPECT_EQ(o.owed_uci(1), "g1h3");
  EXPECT_EQ(o.article(), "4.3a");
  EXPECT_TRUE(o.enforced());
  ASSERT_TRUE(Succeeded(Feed(game, {kNoG1, kNf3}, &reply)));
  EXPECT_EQ(reply.game().moves_san_size(), 1);
  EXPECT_EQ(reply.game().touched_size(), 0);
  EXPECT_FALSE(reply.game().has_obligation());
}

// 2001 rapid (G/25): the same touch is owed only on the opponent's claim (B5a).
TEST_P(TouchesViewServerTest, RapidObligationOnClaim) {
  const std::string game = GameId("rapid");
  Ready(game, "1500", v1::EDITION_FIDE_2001);
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(Feed(game, {kNoG1, kStart}, &reply)));
  ASSERT_TRUE(reply.game().has_obligation());
  EXPECT_FALSE(reply.game().obligation().enforced());
}

// B4 (2001 rapid): the clock setting corrected after two moves each, refused after three each.
TEST_P(TouchesViewServerTest, RapidClockSettingFinalAfterThreeMovesEach) {
  const std::string game = GameId("b4");
  Ready(game, "1500", v1::EDITION_FIDE_2001);
  auto set = ForGame<v1::SetClocksRequest>(game);
  set.set_white_ms(900'000);
  set.set_black_ms(900'000);
  set.set_reason("the clocks were set to 15 minutes instead of 25");
  const std::vector<std::string> moves = {"e4", "e5", "Nf3", "Nc6"};
  for (size_t i = 0; i < moves.size(); ++i) {
    ASSERT_TRUE(Succeeded(Move(game, i % 2 == 0 ? v1::COLOR_WHITE : v1::COLOR_BLACK, moves[i])));
  }
  set.set_command_id("set-1");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::SetClocks, set, Token(Role::kArbiter))));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "Bc4")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "Bc5")));
  set.set_command_id("set-2");
  set.set_expected_version(0);
  grpc::Status st = Unary(Stub().get(), &S::SetClocks, set, Token(Role::kArbiter));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_CLOCK_SETTING_FINAL");
}

// B5b (2001 rapid): 1.e4 e5 2.Nf3 recorded, the board had White's knight g1-g4 at ply 2. Black
// lifts his knight b8 and puts it back, then reports it with his token: refused, the right is lost.
// The arbiter's own report of it is corrected (7.4a).
TEST_P(TouchesViewServerTest, RapidPlayersReportLostOnceHeTouched) {
  const std::string game = GameId("b5b");
  Ready(game, "1500", v1::EDITION_FIDE_2001);
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "e5")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "Nf3")));
  ASSERT_TRUE(Succeeded(Feed(game, {"r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
                                    "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"})));
  auto report = ForGame<v1::ReportIllegalMoveRequest>(game);
  report.set_side(v1::COLOR_WHITE);
  report.set_ply(2);
  report.set_from("g1");
  report.set_to("g4");
  grpc::Status st = Unary(Stub().get(), &S::ReportIllegalMove, report,
                          Token(Role::kPlayer, game, chess::Color::kBlack));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_CLAIM_RIGHT_LOST");
  report.set_reason("seen by the arbiter");
  v1::GameReply reply;
  ASSERT_TRUE(
      Succeeded(Unary(Stub().get(), &S::ReportIllegalMove, report, Token(Role::kArbiter), &reply)));
  EXPECT_EQ(reply.game().illegal_moves().white(), 1);
  EXPECT_EQ(reply.game().moves_san_size(), 2);
}

INSTANTIATE_TEST_SUITE_P(Stores, TouchesViewServerTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
