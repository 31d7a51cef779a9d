// `arbiterctl game feed` (electronic boards) against a fake arbitration service on
// loopback: the board reports read from a file, one a line, become the SubmitBoardFeed request;
// the touch-move claim's kind is "touch_move".
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/game_client_testing.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;

class FakeArbitration final : public v1::Arbitration::Service {
 public:
  grpc::Status SubmitBoardFeed(grpc::ServerContext*, const v1::SubmitBoardFeedRequest* req,
                               v1::GameReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    feed = *req;
    reply->mutable_game()->set_game_id(req->game_id());
    reply->mutable_game()->set_status(v1::GAME_STATUS_ONGOING);
    return grpc::Status::OK;
  }
  grpc::Status Claim(grpc::ServerContext*, const v1::ClaimRequest* req,
                     v1::GameReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    claim = *req;
    reply->mutable_game()->set_game_id(req->game_id());
    reply->set_claim_ruling(v1::CLAIM_RULING_CORRECT);
    return grpc::Status::OK;
  }
  std::mutex mu;
  v1::SubmitBoardFeedRequest feed;
  v1::ClaimRequest claim;
};

class GameFeedClientTest : public FakeGameServiceTest<FakeArbitration> {
 protected:
  // `arbiterctl game <words...>`: its exit code; all it printed in `out`.
  int Run(const std::vector<std::string>& words, std::string* out) {
    GameRun run = FakeGameServiceTest::Run(words);
    *out = run.out + run.err;
    return run.rc;
  }
  std::string File(const std::string& text) {
    const std::string path = absl::StrCat(::testing::TempDir(), "/board_feed.txt");
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(GameFeedClientTest, ReadsOneReportALine) {
  const std::string path = File(
      "# White touches the knight, then plays e4\n"
      "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R at=1000\n"
      "\n"
      "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 adjust\n"
      "{\"atMs\": \"3000\", \"placement\": \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR\", "
      "\"clockPressed\": true}\n");
  std::string out;
  ASSERT_EQ(Run({"feed", "--game", "g1", "--file", path}, &out), 0) << out;
  std::lock_guard<std::mutex> lock(fake_.mu);
  ASSERT_EQ(fake_.feed.placements_size(), 3);
  EXPECT_EQ(fake_.feed.game_id(), "g1");
  EXPECT_EQ(fake_.feed.placements(0).placement(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R");
  EXPECT_EQ(fake_.feed.placements(0).at_ms(), 1000);
  EXPECT_TRUE(fake_.feed.placements(1).adjust());
  EXPECT_FALSE(fake_.feed.placements(1).clock_pressed());
  EXPECT_EQ(fake_.feed.placements(2).at_ms(), 3000);
  EXPECT_TRUE(fake_.feed.placements(2).clock_pressed());
}

TEST_F(GameFeedClientTest, BadInputIsAUsageError) {
  std::string out;
  EXPECT_EQ(Run({"feed", "--game", "g1", "--file", File("# nothing\n")}, &out), 2) << out;
  EXPECT_EQ(Run({"feed", "--game", "g1", "--file", File("8/8/8/8/8/8/8/8 nonsense/word\n")}, &out),
            2)
      << out;
  EXPECT_EQ(Run({"feed", "--game", "g1", "--file", "/nonexistent/board.txt"}, &out), 2) << out;
}

TEST_F(GameFeedClientTest, TouchMoveClaimKind) {
  std::string out;
  ASSERT_EQ(Run({"claim", "--game", "g1", "--side", "black", "--kind", "touch_move"}, &out), 0)
      << out;
  std::lock_guard<std::mutex> lock(fake_.mu);
  EXPECT_EQ(fake_.claim.kind(), v1::CLAIM_KIND_TOUCH_MOVE);
  EXPECT_EQ(fake_.claim.side(), v1::COLOR_BLACK);
}

}  // namespace
}  // namespace arbiterctl
