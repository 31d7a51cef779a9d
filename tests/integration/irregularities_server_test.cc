// Over real gRPC on loopback, on a real redis-server started by the harness (and on the
// in-memory store): irregularities (Article 7 and Appendix C3), a player who stops the clocks
// (6.13b, d) and the arbiter's powers (12, 13.4). A blitz game under 2001 whose completed illegal
// move is claimed and won; one where the opponent moves instead and play goes on from the
// position the illegal move made; 7.4a with the 2023 penalties and the ledger in the reply; the
// powers seen in WatchGame and the PGN; an arbiter of one event refused on another's game.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/chess/pgn.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/game_server.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;

class IrregularitiesServerTest : public GameServerTest<IrregularitiesServerTest> {
 protected:
  grpc::Status CompleteIllegal(const std::string& game, v1::Color side, const std::string& from,
                               const std::string& to, v1::GameReply* reply = nullptr) {
    auto req = ForSide<v1::CompleteIllegalMoveRequest>(game, side);
    req.set_from(from);
    req.set_to(to);
    return Unary(Stub().get(), &S::CompleteIllegalMove, req, PlayerToken(game, side), reply);
  }
  grpc::Status ClaimIllegal(const std::string& game, v1::Color side, v1::GameReply* reply) {
    auto req = ForSide<v1::ClaimRequest>(game, side);
    req.set_kind(v1::CLAIM_KIND_ILLEGAL_MOVE);
    return Unary(Stub().get(), &S::Claim, req, PlayerToken(game, side), reply);
  }
  grpc::Status Report(const std::string& game, const std::string& from, const std::string& to,
                      v1::GameReply* reply = nullptr) {
    auto req = ForGame<v1::ReportIllegalMoveRequest>(game);
    req.set_from(from);
    req.set_to(to);
    req.set_reason("seen by the arbiter");
    return Unary(Stub().get(), &S::ReportIllegalMove, req, Token(Role::kArbiter), reply);
  }
  // The PGN parses and its main line replays by the Laws (`arbiterctl pgn check`).
  std::string CheckedPgn(const std::string& game) {
    const std::string pgn = Pgn(game);
    absl::StatusOr<std::vector<chess::PgnGame>> games = chess::ParsePgn(pgn);
    EXPECT_TRUE(games.ok()) << games.status() << "\n" << pgn;
    if (games.ok() && games->size() == 1) {
      EXPECT_TRUE(chess::ReplayGame(&(*games)[0]).ok()) << pgn;
    }
    return pgn;
  }
};

// C3 (2001 blitz): White's illegal move is complete once he pressed the clock; Black claims the
// win before moving, and wins.
TEST_P(IrregularitiesServerTest, BlitzCompletedIllegalMoveClaimedAndWon) {
  const std::string game = GameId("c3win");
  Ready(game, "300", v1::EDITION_FIDE_2001);
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "e5")));
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(CompleteIllegal(game, v1::COLOR_WHITE, "e1", "e3", &reply)));
  EXPECT_EQ(reply.game().to_move(), v1::COLOR_BLACK);
  EXPECT_EQ(reply.game().clock_running(), v1::COLOR_BLACK);
  EXPECT_EQ(reply.game().illegal_moves().white(), 1);
  // White's token cannot claim for Black; Black's claim wins.
  auto wrong = ForSide<v1::ClaimRequest>(game, v1::COLOR_BLACK);
  wrong.set_kind(v1::CLAIM_KIND_ILLEGAL_MOVE);
  EXPECT_EQ(Code(Unary(Stub().get(), &S::Claim, wrong, PlayerToken(game, v1::COLOR_WHITE))),
            "ERR_PERMISSION_DENIED");
  ASSERT_TRUE(Succeeded(ClaimIllegal(game, v1::COLOR_BLACK, &reply)));
  EXPECT_EQ(reply.claim_ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(reply.game().status(), v1::GAME_STATUS_ENDED);
  EXPECT_EQ(reply.game().outcome().result(), v1::RESULT_BLACK_WINS);
  EXPECT_EQ(reply.game().outcome().termination(), v1::TERMINATION_ILLEGAL_MOVES);
  EXPECT_EQ(reply.game().outcome().article(), "C3");
  EXPECT_EQ(Code(Move(game, v1::COLOR_BLACK, "Nc6")), "ERR_GAME_OVER");
  // The record keeps the attempted move: in the watch and in the PGN.
  bool seen = false;
  for (const v1::ArbitrationEvent& e : Log(game)) {
    if (e.has_illegal_move_completed()) {
      seen = true;
      EXPECT_EQ(e.illegal_move_completed().from(), "e1");
      EXPECT_EQ(e.illegal_move_completed().to(), "e3");
      EXPECT_EQ(e.actor().role(), "player");
    }
  }
  EXPECT_TRUE(seen);
  EXPECT_NE(CheckedPgn(game).find("e1-e3"), std::string::npos);
}

// C3: Black moves instead of claiming: the illegal move stands, play goes on from the position it
// made, and neither the claim nor a correction is possible any more.
TEST_P(IrregularitiesServerTest, BlitzOpponentMovesAndTheIllegalPositionStands) {
  const std::string game = GameId("c3stand");
  Ready(game, "300", v1::EDITION_FIDE_2001);
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "e5")));
  ASSERT_TRUE(Succeeded(CompleteIllegal(game, v1::COLOR_WHITE, "e1", "e3")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "Nc6")));
  v1::GameReply reply;
  EXPECT_EQ(Code(ClaimIllegal(game, v1::COLOR_BLACK, &reply)), "ERR_NO_ILLEGAL_MOVE_TO_CLAIM");
  auto report = ForGame<v1::ReportIllegalMoveRequest>(game);
  report.set_ply(2);
  report.set_from("e1");
  report.set_to("e3");
  EXPECT_EQ(Code(Unary(Stub().get(), &S::ReportIllegalMove, report, Token(Role::kArbiter))),
            "ERR_ILLEGAL_MOVE_STANDS");
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "Kd3")));  // the king from e3
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "Nf6", &reply)));
  EXPECT_EQ(reply.game().status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(reply.game().fen(), "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/3K4/PPPP1PPP/RNBQ1BNR w kq - 4 4");
  ASSERT_EQ(reply.game().illegal_moves().entries_size(), 1);
  EXPECT_EQ(reply.game().illegal_moves().entries(0).move(), "e1-e3");
  const std::string pgn = CheckedPgn(game);
  EXPECT_NE(pgn.find("[SetUp \"1\"]"), std::string::npos) << pgn;
}

// 7.4a / 7.5.5 (2023 standard): only the arbiter's finding counts. A player's report is a claim
// that names a move of the record; every move here came through SubmitMove, so the server
// validated it and no illegal move stands: the claim is refused (FAILED_PRECONDITION
// ERR_MOVE_WAS_VALIDATED) and changes nothing: no rewind, no two minutes, no 4.3, no second
// "illegal move" that wins. The arbiter's own findings give the opponent two minutes, hold the
// offender to the piece, and the second loses.
TEST_P(IrregularitiesServerTest, ReportedIllegalMoves2023) {
  const std::string game = GameId("rep2023");
  Ready(game, "5400", v1::EDITION_FIDE_2023);
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "Nf6")));
  const v1::GameReply before = Get(game);
  // White names himself as the offender: not his to claim.
  auto own = ForSide<v1::ReportIllegalMoveRequest>(game, v1::COLOR_WHITE);
  own.set_from("e2");
  own.set_to("e4");
  EXPECT_EQ(
      Code(Unary(Stub().get(), &S::ReportIllegalMove, own, PlayerToken(game, v1::COLOR_WHITE))),
      "ERR_PERMISSION_DENIED");
  // White's claim of Black's recorded move, twice (once it would have won, 7.5.5).
  for (int i = 0; i < 2; ++i) {
    auto claim = ForSide<v1::ReportIllegalMoveRequest>(game, v1::COLOR_BLACK);
    claim.set_from("g8");
    claim.set_to("f6");
    grpc::Status st =
        Unary(Stub().get(), &S::ReportIllegalMove, claim, PlayerToken(game, v1::COLOR_WHITE));
    EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_EQ(Code(st), "ERR_MOVE_WAS_VALIDATED");
  }
  // A move that never happened (the knight to g6) is no move of the record.
  auto invented = ForSide<v1::ReportIllegalMoveRequest>(game, v1::COLOR_BLACK);
  invented.set_from("g8");
  invented.set_to("g6");
  invented.set_ply(1);
  EXPECT_EQ(Code(Unary(Stub().get(), &S::ReportIllegalMove, invented,
                       PlayerToken(game, v1::COLOR_WHITE))),
            "ERR_MOVE_NOT_IN_RECORD");
  // Nor does the player set the clocks (6.14 is the arbiter's).
  auto clocks = ForSide<v1::ReportIllegalMoveRequest>(game, v1::COLOR_BLACK);
  clocks.set_from("g8");
  clocks.set_to("f6");
  clocks.set_white_ms(9'000'000);
  clocks.set_black_ms(1);
  EXPECT_EQ(
      Code(Unary(Stub().get(), &S::ReportIllegalMove, clocks, PlayerToken(game, v1::COLOR_WHITE))),
      "ERR_BAD_ARGUMENT");
  const v1::GameReply after = Get(game);
  EXPECT_EQ(after.game().version(), before.game().version());
  EXPECT_EQ(after.game().fen(), before.game().fen());
  EXPECT_EQ(after.game().illegal_moves().black(), 0);
  EXPECT_EQ(after.game().status(), v1::GAME_STATUS_ONGOING);
  EXPECT_LE(after.game().white_ms(), before.game().white_ms());
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "Nf3")));
  // The arbiter finds: Black's knight g8-g6 now (7.5.1), White +2 minutes, 4.3 on the knight.
  v1::GameReply reply;
  const v1::GameReply now = Get(game);
  ASSERT_TRUE(Succeeded(Report(game, "f6", "f4", &reply)));
  EXPECT_GE(reply.game().white_ms(), now.game().white_ms() + 119'000);
  EXPECT_EQ(reply.game().illegal_moves().black(), 1);
  EXPECT_EQ(Code(Move(game, v1::COLOR_BLACK, "e5")), "ERR_TOUCH_MOVE_OWED");
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "Nxe4")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "d3")));
  ASSERT_TRUE(Succeeded(Report(game, "e4", "e1", &reply)));
  EXPECT_EQ(reply.game().outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(reply.game().outcome().article(), "7.5.5 (2023)");
  CheckedPgn(game);
}

// 7.4a with a player's claim: an electronic board's illegal move that stood is in the record
// without the server's validation. Black's claim keeps the clocks stopped and awaits the
// arbiter; his ruling UPHOLD is the finding (7.4b: Black +2 minutes).
TEST_P(IrregularitiesServerTest, AClaimOfTheBoardsIllegalMoveAwaitsTheArbiter) {
  const std::string game = GameId("boardclaim");
  Ready(game, "5400", v1::EDITION_FIDE_2001);
  auto feed = ForGame<v1::SubmitBoardFeedRequest>(game);
  v1::BoardPlacement* frame = feed.add_placements();
  frame->set_placement("rnbqkbnr/pppppppp/8/8/8/5B2/PPPPPPPP/RNBQK1NR");  // the bishop f1-f3
  frame->set_clock_pressed(true);
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::SubmitBoardFeed, feed, Token(Role::kService))));
  const v1::GameReply before = Get(game);
  auto claim = ForSide<v1::ReportIllegalMoveRequest>(game, v1::COLOR_WHITE);
  claim.set_from("f1");
  claim.set_to("f3");
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::ReportIllegalMove, claim,
                              PlayerToken(game, v1::COLOR_BLACK), &reply)));
  EXPECT_EQ(reply.claim_ruling(), v1::CLAIM_RULING_PENDING);
  EXPECT_EQ(reply.game().status(), v1::GAME_STATUS_AWAITING_RULING);
  EXPECT_EQ(reply.game().pending_claim().kind(), v1::CLAIM_KIND_ILLEGAL_MOVE);
  EXPECT_EQ(reply.game().pending_claim().illegal_from(), "f1");
  EXPECT_EQ(reply.game().illegal_moves().white(), 0);
  // The player does not rule.
  auto uphold = ForGame<v1::RuleRequest>(game);
  uphold.set_decision(v1::RULING_DECISION_UPHOLD);
  uphold.set_reason("the bishop stood on f3");
  EXPECT_EQ(Code(Unary(Stub().get(), &S::Rule, uphold, PlayerToken(game, v1::COLOR_BLACK))),
            "ERR_PERMISSION_DENIED");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::Rule, uphold, Token(Role::kArbiter), &reply)));
  EXPECT_EQ(reply.game().status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(reply.game().illegal_moves().white(), 1);
  EXPECT_EQ(reply.game().black_ms(), before.game().black_ms() + 120'000);
}

// 6.13b/d with 13.4, and the powers (13.4a, 12.4, 13.4d) recorded with actor, article, reason.
TEST_P(IrregularitiesServerTest, StopClocksAndPowers) {
  const std::string game = GameId("powers");
  Ready(game, "5400", v1::EDITION_FIDE_2023);
  auto stop = ForSide<v1::StopClocksRequest>(game, v1::COLOR_WHITE);
  stop.set_reason("to seek the arbiter");
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::StopClocks, stop, PlayerToken(game, v1::COLOR_WHITE), &reply)));
  EXPECT_TRUE(reply.game().paused());
  auto rule = ForGame<v1::RuleStopRequest>(game);
  rule.set_penalty("13.4a");
  rule.set_reason("no valid reason");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::RuleStop, rule, Token(Role::kArbiter))));
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::ResumeGame, ForGame<v1::ResumeGameRequest>(game),
                              Token(Role::kArbiter))));
  auto leave = ForSide<v1::UsePowerRequest>(game, v1::COLOR_BLACK);
  leave.set_power(v1::ARBITER_POWER_LEAVE_PERMITTED);
  leave.set_reason("medical");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::UsePower, leave, Token(Role::kArbiter))));
  auto loss = ForSide<v1::UsePowerRequest>(game, v1::COLOR_WHITE);
  loss.set_power(v1::ARBITER_POWER_LOSS);
  loss.set_reason("a phone in the playing area");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::UsePower, loss, Token(Role::kArbiter), &reply)));
  EXPECT_EQ(reply.game().outcome().result(), v1::RESULT_BLACK_WINS);
  EXPECT_EQ(reply.game().outcome().article(), "13.4d");
  std::vector<std::string> articles;
  for (const v1::ArbitrationEvent& e : Log(game)) {
    if (e.has_power_used()) {
      articles.push_back(e.power_used().article());
      EXPECT_EQ(e.actor().role(), "arbiter");
      EXPECT_FALSE(e.power_used().reason().empty());
    }
  }
  EXPECT_EQ(articles, (std::vector<std::string>{"13.4a", "12.4", "13.4d"}));
  const std::string pgn = CheckedPgn(game);
  EXPECT_NE(pgn.find("6.13b"), std::string::npos) << pgn;
}

// An arbiter whose token serves event A uses no power on event B's game.
TEST_P(IrregularitiesServerTest, AnArbiterOfAnotherEventIsRefused) {
  const std::string game = GameId("otherevent");
  Ready(game, "5400", v1::EDITION_FIDE_2023, "Open B");
  service::TokenClaims claims = Claims(Role::kArbiter);
  claims.event = "Open A";
  auto loss = ForSide<v1::UsePowerRequest>(game, v1::COLOR_WHITE);
  loss.set_power(v1::ARBITER_POWER_LOSS);
  loss.set_reason("not his event");
  grpc::Status st = Unary(Stub().get(), &S::UsePower, loss, Sign(claims));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  auto report = ForGame<v1::ReportIllegalMoveRequest>(game);
  report.set_from("e1");
  report.set_to("e3");
  EXPECT_EQ(Code(Unary(Stub().get(), &S::ReportIllegalMove, report, Sign(claims))),
            "ERR_OTHER_EVENT");
  EXPECT_EQ(Get(game).game().status(), v1::GAME_STATUS_ONGOING);
}

INSTANTIATE_TEST_SUITE_P(Stores, IrregularitiesServerTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
