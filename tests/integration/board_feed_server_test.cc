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
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;
using S = v1::Arbitration::Stub;

constexpr char kStart[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
constexpr char kNoG1[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R";
constexpr char kNoE2[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR";
constexpr char kE4[] = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
constexpr char kE4NoE7[] = "rnbqkbnr/pppp1ppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
constexpr char kNf3[] = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R";

class BoardFeedServerTest : public EachStoreTest<BoardFeedServerTest> {
 public:
  static TestServerOptions Options(Store store) {
    TestServerOptions options({Service::kArbitration}, store);
    options.config.metrics_address = "none";
    return options;
  }

 protected:
  std::unique_ptr<S> Stub() { return server()->Stub<v1::Arbitration>(); }

  static std::string PlayerToken(const std::string& game, v1::Color side) {
    return Token(Role::kPlayer, game,
                 side == v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack);
  }
  void Ready(const std::string& game, const std::string& time_control) {
    v1::CreateGameRequest req = AliceBobGame(game, time_control, v1::EDITION_FIDE_2001);
    req.set_event("Integration");
    ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::CreateGame, req, Token(Role::kPlatform))));
    ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(game),
                                Token(Role::kArbiter))));
  }
  // The board relay's report of these placements (at the server's instant).
  grpc::Status Feed(const std::string& game, const std::vector<std::string>& placements,
                    v1::GameReply* reply = nullptr, bool pressed = false) {
    auto req = ForGame<v1::SubmitBoardFeedRequest>(game);
    for (const std::string& p : placements) req.add_placements()->set_placement(p);
    if (pressed) req.mutable_placements()->rbegin()->set_clock_pressed(true);
    return Unary(Stub().get(), &S::SubmitBoardFeed, req, Token(Role::kService), reply);
  }
  grpc::Status ClaimTouchMove(const std::string& game, v1::Color side, v1::GameReply* reply) {
    auto req = ForGame<v1::ClaimRequest>(game);
    req.set_side(side);
    req.set_kind(v1::CLAIM_KIND_TOUCH_MOVE);
    return Unary(Stub().get(), &S::Claim, req, PlayerToken(game, side), reply);
  }
  grpc::Status Move(const std::string& game, v1::Color side, const std::string& move) {
    auto req = ForGame<v1::SubmitMoveRequest>(game);
    req.set_side(side);
    req.set_move(move);
    return Unary(Stub().get(), &S::SubmitMove, req, PlayerToken(game, side));
  }
  v1::GameReply Get(const std::string& game) {
    v1::GameReply resp;
    EXPECT_TRUE(Succeeded(Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(game),
                                Token(Role::kArbiter), &resp)));
    return resp;
  }
  std::string Pgn(const std::string& game) {
    v1::ExportPgnReply resp;
    EXPECT_TRUE(Succeeded(Unary(Stub().get(), &S::ExportPgn, ForGame<v1::ExportPgnRequest>(game),
                                Token(Role::kArbiter), &resp)));
    return resp.pgn();
  }
};

// B5a (2001 rapid): the move on the board stands until Black claims; the claim is upheld from the
// recorded touches (4.3a) and the clocks stop for the arbiter.
TEST_P(BoardFeedServerTest, RapidTouchMoveClaimUpheld) {
  const std::string game = GameId("rapid");
  Ready(game, "1500");
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(Feed(game, {kNoG1, kStart, kNoE2, kE4}, &reply)));
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
  Ready(game, "300");
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
  Ready(game, "5400");
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(Feed(game, {kNoG1, kStart, kNoE2, kE4}, &reply)));
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
  Ready(game, "5400");
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
