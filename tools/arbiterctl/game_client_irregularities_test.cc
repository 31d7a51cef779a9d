// `arbiterctl game report-illegal|complete-illegal|irregularity|stop-clocks|rule-stop|power` and
// `claim --kind illegal_move` against a fake arbitration service on loopback: the flags
// become the requests; the ledger comes back in the JSON.
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/game_client_testing.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using Json = nlohmann::json;

// Remembers the last request of each irregularity method.
class FakeArbitration final : public v1::Arbitration::Service {
 public:
  grpc::Status ReportIllegalMove(grpc::ServerContext*, const v1::ReportIllegalMoveRequest* req,
                                 v1::GameReply* reply) override {
    return Keep(&report, *req, req->game_id(), reply);
  }
  grpc::Status CompleteIllegalMove(grpc::ServerContext*, const v1::CompleteIllegalMoveRequest* req,
                                   v1::GameReply* reply) override {
    return Keep(&complete, *req, req->game_id(), reply);
  }
  grpc::Status RuleIrregularity(grpc::ServerContext*, const v1::RuleIrregularityRequest* req,
                                v1::GameReply* reply) override {
    return Keep(&irregularity, *req, req->game_id(), reply);
  }
  grpc::Status StopClocks(grpc::ServerContext*, const v1::StopClocksRequest* req,
                          v1::GameReply* reply) override {
    return Keep(&stop, *req, req->game_id(), reply);
  }
  grpc::Status RuleStop(grpc::ServerContext*, const v1::RuleStopRequest* req,
                        v1::GameReply* reply) override {
    return Keep(&rule_stop, *req, req->game_id(), reply);
  }
  grpc::Status UsePower(grpc::ServerContext*, const v1::UsePowerRequest* req,
                        v1::GameReply* reply) override {
    return Keep(&power, *req, req->game_id(), reply);
  }
  grpc::Status Claim(grpc::ServerContext*, const v1::ClaimRequest* req,
                     v1::GameReply* reply) override {
    return Keep(&claim, *req, req->game_id(), reply);
  }

  std::mutex mu;
  v1::ReportIllegalMoveRequest report;
  v1::CompleteIllegalMoveRequest complete;
  v1::RuleIrregularityRequest irregularity;
  v1::StopClocksRequest stop;
  v1::RuleStopRequest rule_stop;
  v1::UsePowerRequest power;
  v1::ClaimRequest claim;

 private:
  template <typename Request>
  grpc::Status Keep(Request* slot, const Request& req, const std::string& game,
                    v1::GameReply* reply) {
    {
      std::lock_guard<std::mutex> lock(mu);
      *slot = req;
    }
    v1::GameView* g = reply->mutable_game();
    g->set_game_id(game);
    g->set_version(4);
    g->set_status(v1::GAME_STATUS_ONGOING);
    g->set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    g->mutable_illegal_moves()->set_white(1);
    v1::IllegalMoveEntry* e = g->mutable_illegal_moves()->add_entries();
    e->set_side(v1::COLOR_WHITE);
    e->set_ply(2);
    e->set_move("e1-e3");
    e->set_article("7.4a");
    return grpc::Status::OK;
  }
};

class GameClientIrregularitiesTest : public FakeGameServiceTest<FakeArbitration> {};

TEST_F(GameClientIrregularitiesTest, ReportIllegalAndTheLedger) {  // 7.4a
  Json j = RunJson({"report-illegal", "--game", "g", "--from", "e1", "--to", "e3", "--ply", "2",
                    "--side", "white", "--white-ms", "60000", "--black-ms", "70000", "--reason",
                    "seen"});
  std::lock_guard<std::mutex> lock(fake_.mu);
  EXPECT_EQ(fake_.report.from(), "e1");
  EXPECT_EQ(fake_.report.to(), "e3");
  EXPECT_EQ(fake_.report.ply(), 2);
  EXPECT_EQ(fake_.report.side(), v1::COLOR_WHITE);
  EXPECT_EQ(fake_.report.white_ms(), 60'000);
  EXPECT_EQ(fake_.report.black_ms(), 70'000);
  EXPECT_EQ(j["illegal_moves"]["white"], 1);
  EXPECT_EQ(j["illegal_moves"]["entries"][0]["move"], "e1-e3");
}

TEST_F(GameClientIrregularitiesTest, CompleteIllegalAndTheClaim) {  // C3
  RunJson({"complete-illegal", "--game", "g", "--side", "white", "--from", "e1", "--to", "e3"});
  RunJson({"claim", "--game", "g", "--side", "black", "--kind", "illegal_move"});
  std::lock_guard<std::mutex> lock(fake_.mu);
  EXPECT_EQ(fake_.complete.side(), v1::COLOR_WHITE);
  EXPECT_EQ(fake_.complete.to(), "e3");
  EXPECT_EQ(fake_.claim.kind(), v1::CLAIM_KIND_ILLEGAL_MOVE);
}

TEST_F(GameClientIrregularitiesTest, IrregularityStopAndPowers) {
  RunJson({"irregularity", "--game", "g", "--article", "7.2", "--replay", "--reason", "colours"});
  RunJson({"stop-clocks", "--game", "g", "--side", "black", "--reason", "no queen"});
  RunJson({"rule-stop", "--game", "g", "--valid", "--reason", "a valid reason"});
  RunJson({"power", "--game", "g", "--power", "increase_points", "--side", "black", "--points",
           "0.5", "--reason", "13.4f"});
  std::lock_guard<std::mutex> lock(fake_.mu);
  EXPECT_EQ(fake_.irregularity.article(), "7.2");
  EXPECT_TRUE(fake_.irregularity.replay());
  EXPECT_EQ(fake_.stop.side(), v1::COLOR_BLACK);
  EXPECT_TRUE(fake_.rule_stop.valid());
  EXPECT_EQ(fake_.power.power(), v1::ARBITER_POWER_INCREASE_POINTS);
  EXPECT_DOUBLE_EQ(fake_.power.points(), 0.5);
}

TEST_F(GameClientIrregularitiesTest, BadFlagsExitTwo) {
  EXPECT_EQ(Run({"power", "--game", "g", "--power", "banish", "--reason", "x", "--json"}).rc, 2);
  // --to is required
  EXPECT_EQ(Run({"report-illegal", "--game", "g", "--from", "e1", "--json"}).rc, 2);
}

}  // namespace
}  // namespace arbiterctl
