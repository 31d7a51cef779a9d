// `arbiterctl game ...` against a fake arbitration service on loopback: the flags become the
// requests, the replies become the lines (or JSON) a script reads, and errors exit 2 with their
// stable code. The real service is exercised end to end by tests/integration.
#include "tools/arbiterctl/game_client.h"

#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/base/error.h"
#include "libs/service/grpc_status.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/game_client_testing.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using Json = nlohmann::json;

// The last request of one kind a fake service received (the calls come on the server's threads).
template <typename Request>
class Last {
 public:
  void Set(const Request& req) {
    std::lock_guard<std::mutex> lock(mu_);
    req_ = req;
  }
  Request Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return req_;
  }

 private:
  std::mutex mu_;
  Request req_;
};

// Answers from a script and remembers the last request of each kind.
class FakeArbitration final : public v1::Arbitration::Service {
 public:
  grpc::Status CreateGame(grpc::ServerContext*, const v1::CreateGameRequest* req,
                          v1::GameReply* reply) override {
    create.Set(*req);
    Fill(req->game_id(), v1::GAME_STATUS_CREATED, reply->mutable_game());
    return grpc::Status::OK;
  }
  grpc::Status SubmitMove(grpc::ServerContext*, const v1::SubmitMoveRequest* req,
                          v1::GameReply* reply) override {
    move.Set(*req);
    if (req->move() == "e5") {
      return service::ToGrpcStatus(
          base::InvalidArgument("ERR_ILLEGAL_MOVE", "e5: no white pawn can reach e5"));
    }
    Fill(req->game_id(), v1::GAME_STATUS_ONGOING, reply->mutable_game());
    reply->mutable_game()->add_moves_san("e4");
    reply->mutable_game()->set_to_move(v1::COLOR_BLACK);
    if (req->offer_draw() && req->move() == "Nf3") {
      // 9.1a: the regulations refuse the offer; the move stands.
      reply->mutable_draw_offer_refused()->set_side(v1::COLOR_WHITE);
      reply->mutable_draw_offer_refused()->set_code("ERR_DRAW_OFFER_REFUSED");
      reply->mutable_draw_offer_refused()->set_reason("no draw offers before move 30");
    } else if (req->offer_draw()) {
      reply->mutable_game()->set_draw_offer(v1::COLOR_WHITE);
    }
    reply->set_replayed(req->command_id() == "seen");
    return grpc::Status::OK;
  }
  grpc::Status Claim(grpc::ServerContext*, const v1::ClaimRequest* req,
                     v1::GameReply* reply) override {
    claim.Set(*req);
    Fill(req->game_id(), v1::GAME_STATUS_ONGOING, reply->mutable_game());
    reply->set_claim_ruling(v1::CLAIM_RULING_INCORRECT);
    return grpc::Status::OK;
  }
  grpc::Status Rule(grpc::ServerContext*, const v1::RuleRequest* req,
                    v1::GameReply* reply) override {
    rule.Set(*req);
    Fill(req->game_id(), v1::GAME_STATUS_ENDED, reply->mutable_game());
    v1::Outcome* o = reply->mutable_game()->mutable_outcome();
    o->set_result(v1::RESULT_DRAW);
    o->set_termination(v1::TERMINATION_QUICKPLAY_FINISH_CLAIM);
    o->set_article("10.2a");
    return grpc::Status::OK;
  }
  grpc::Status ExportPgn(grpc::ServerContext*, const v1::ExportPgnRequest*,
                         v1::ExportPgnReply* reply) override {
    reply->set_pgn("[Event \"?\"]\n\n1. e4 *\n");
    return grpc::Status::OK;
  }
  grpc::Status ArchiveGame(grpc::ServerContext*, const v1::ArchiveGameRequest* req,
                           v1::ArchiveGameReply* reply) override {
    if (req->game_id() == "live") {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "ERR_GAME_NOT_OVER: in play");
    }
    v1::ArchivedGame* a = reply->mutable_archived();
    a->set_game_id(req->game_id());
    a->set_version(42);
    a->set_result("0-1");
    a->set_termination(v1::TERMINATION_RESIGNATION);
    a->set_article("5.1b");
    a->set_record_sha256(std::string(64, 'a'));
    a->set_archived_at_ms(1'700'000'000'000);
    return grpc::Status::OK;
  }
  grpc::Status WatchGame(grpc::ServerContext*, const v1::WatchGameRequest* req,
                         grpc::ServerWriter<v1::GameUpdate>* writer) override {
    v1::GameUpdate u;
    u.set_version(req->after_version() + 1);
    u.mutable_event()->mutable_resigned()->set_side(v1::COLOR_BLACK);
    writer->Write(u);
    u.set_version(req->after_version() + 2);
    u.mutable_event()->mutable_ended()->mutable_outcome()->set_result(v1::RESULT_WHITE_WINS);
    writer->Write(u);
    // Never reached by a watcher that stops at the end.
    u.set_version(req->after_version() + 3);
    u.mutable_event()->mutable_confirmed()->set_side(v1::COLOR_WHITE);
    writer->Write(u);
    return grpc::Status::OK;
  }

  Last<v1::CreateGameRequest> create;
  Last<v1::SubmitMoveRequest> move;
  Last<v1::ClaimRequest> claim;
  Last<v1::RuleRequest> rule;

 private:
  static void Fill(const std::string& id, v1::GameStatus status, v1::GameView* g) {
    g->set_game_id(id);
    g->set_version(3);
    g->set_status(status);
    g->mutable_outcome()->set_result(v1::RESULT_ONGOING);
    g->set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    g->set_white_ms(5'400'000);
    g->set_black_ms(5'400'000);
    g->mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  }
};

class GameClientTest : public FakeGameServiceTest<FakeArbitration> {
 protected:
  // `arbiterctl game <words...>` against the fake: its exit code; what it printed in `out`
  // (and `err`).
  int Run(const std::vector<std::string>& words, std::string* out, std::string* err = nullptr) {
    GameRun run = FakeGameServiceTest::Run(words);
    *out = run.out;
    if (err != nullptr) *err = run.err;
    return run.rc;
  }
};

TEST_F(GameClientTest, CreateMapsTheFlags) {
  Json j = RunJson({"create", "--game", "g1", "--white", "alice", "--black", "bob", "--edition",
                    "2001", "--time-control", "40/90, 30", "--no-arbiter", "--default-time-ms",
                    "900000", "--max-draw-offers", "2", "--event", "Club"});
  EXPECT_EQ(j["game_id"], "g1");
  EXPECT_EQ(j["status"], "created");
  EXPECT_EQ(j["result"], "*");
  EXPECT_TRUE(j["termination"].is_null());
  const v1::CreateGameRequest req = fake_.create.Get();
  EXPECT_EQ(req.white_id(), "alice");
  EXPECT_EQ(req.black_id(), "bob");
  EXPECT_EQ(req.ruleset().edition(), v1::EDITION_FIDE_2001);
  EXPECT_EQ(req.time_control(), "40/90, 30");
  EXPECT_FALSE(req.ruleset().regulations().arbiter_present());  // Appendix D
  EXPECT_EQ(req.ruleset().regulations().default_time_ms(), 900'000);
  EXPECT_EQ(req.ruleset().regulations().max_draw_offers(), 2);
  EXPECT_EQ(req.event(), "Club");
  EXPECT_FALSE(req.ruleset().regulations().has_supervised());  // A.3, the default
}

// 2023 rapid and blitz without adequate supervision: A.4.5, a flag counts only on a claim.
TEST_F(GameClientTest, CreateUnsupervisedSetsA4) {
  RunJson({"create", "--game", "g1", "--white", "alice", "--black", "bob", "--edition", "2023",
           "--time-control", "900", "--unsupervised"});
  const v1::CreateGameRequest req = fake_.create.Get();
  ASSERT_TRUE(req.ruleset().regulations().has_supervised());
  EXPECT_FALSE(req.ruleset().regulations().supervised());
}

TEST_F(GameClientTest, MoveWithOfferAndItsJson) {
  Json j = RunJson({"move", "--game", "g1", "--side", "white", "--move", "e4", "--offer-draw",
                    "--command-id", "c1", "--expected-version", "2"});
  const v1::SubmitMoveRequest req = fake_.move.Get();
  EXPECT_EQ(req.side(), v1::COLOR_WHITE);
  EXPECT_EQ(req.move(), "e4");
  EXPECT_TRUE(req.offer_draw());
  EXPECT_EQ(req.command_id(), "c1");
  EXPECT_EQ(req.expected_version(), 2);
  EXPECT_EQ(j["status"], "ongoing");
  EXPECT_EQ(j["draw_offer"], "white");
  EXPECT_EQ(j["to_move"], "black");
  EXPECT_EQ(j["moves"], Json::array({"e4"}));
  EXPECT_EQ(j["edition"], "fide2023");
  EXPECT_EQ(j["replayed"], false);

  std::string out;
  EXPECT_EQ(
      Run({"move", "--game", "g1", "--side", "w", "--move", "e4", "--command-id", "seen"}, &out),
      0);
  EXPECT_NE(out.find("(replayed"), std::string::npos) << out;
  EXPECT_NE(out.find("g1 v3 ongoing, black to move"), std::string::npos) << out;
}

// 9.1a: a move whose draw offer the regulations refuse: the move is made, the reply names the
// refusal's code (JSON) and its reason (text); without one the key is absent.
TEST_F(GameClientTest, MoveWithARefusedOffer) {
  Json j = RunJson({"move", "--game", "g1", "--side", "white", "--move", "Nf3", "--offer-draw"});
  EXPECT_EQ(j["draw_offer_refused"], "ERR_DRAW_OFFER_REFUSED");
  EXPECT_TRUE(j["draw_offer"].is_null());
  EXPECT_FALSE(RunJson({"move", "--game", "g1", "--side", "white", "--move", "e4"})
                   .contains("draw_offer_refused"));
  std::string out;
  EXPECT_EQ(Run({"move", "--game", "g1", "--side", "w", "--move", "Nf3", "--offer-draw"}, &out), 0);
  EXPECT_NE(out.find("draw offer refused (ERR_DRAW_OFFER_REFUSED): no draw offers before move 30"),
            std::string::npos)
      << out;
}

TEST_F(GameClientTest, ErrorsCarryTheStableCode) {
  Json j = RunJson({"move", "--game", "g1", "--side", "white", "--move", "e5"}, 2);
  EXPECT_EQ(j["error"]["code"], "ERR_ILLEGAL_MOVE");
  EXPECT_EQ(j["error"]["grpc_code"], "INVALID_ARGUMENT");
  std::string out, err;
  EXPECT_EQ(Run({"move", "--game", "g1", "--side", "white", "--move", "e5"}, &out, &err), 2);
  EXPECT_NE(err.find("ERR_ILLEGAL_MOVE"), std::string::npos) << err;
  // Bad flags are refused before anything is sent.
  EXPECT_EQ(Run({"move", "--game", "g1", "--side", "red", "--move", "e4"}, &out, &err), 2);
  EXPECT_NE(err.find("--side must be white or black"), std::string::npos) << err;
  EXPECT_EQ(Run({"respond", "--game", "g1", "--side", "black"}, &out, &err), 2);
  EXPECT_EQ(Run({"move", "--side", "white", "--move", "e4"}, &out, &err), 2);
  EXPECT_EQ(Run({"dance", "--game", "g1"}, &out, &err), 2);
}

// 9.5b: an incorrect claim exits 1, so scripts can tell it from a refusal (2).
TEST_F(GameClientTest, IncorrectClaimExitsOne) {
  Json j = RunJson(
      {"claim", "--game", "g1", "--side", "white", "--kind", "threefold", "--move", "Ng1"}, 1);
  EXPECT_EQ(j["claim_ruling"], "incorrect");
  EXPECT_EQ(fake_.claim.Get().kind(), v1::CLAIM_KIND_THREEFOLD);
  EXPECT_EQ(fake_.claim.Get().intended_move(), "Ng1");
}

TEST_F(GameClientTest, RuleAndTheOutcome) {
  Json j = RunJson({"rule", "--game", "g1", "--decision", "postpone", "--add-time", "--reason",
                    "trying to win"});
  EXPECT_EQ(fake_.rule.Get().decision(), v1::RULING_DECISION_POSTPONE);
  EXPECT_TRUE(fake_.rule.Get().add_time());
  EXPECT_EQ(j["status"], "ended");
  EXPECT_EQ(j["result"], "1/2-1/2");
  EXPECT_EQ(j["termination"], "quickplay_finish_claim");
  EXPECT_EQ(j["article"], "10.2a");
}

TEST_F(GameClientTest, ArchivePrintsTheTombstone) {
  std::string out;
  ASSERT_EQ(Run({"archive", "--game", "g1", "--json"}, &out), 0);
  const Json j = Json::parse(out);
  EXPECT_EQ(j["game_id"], "g1");
  EXPECT_EQ(j["version"], 42);
  EXPECT_EQ(j["result"], "0-1");
  EXPECT_EQ(j["termination"], "resignation");
  EXPECT_EQ(j["article"], "5.1b");
  EXPECT_EQ(j["record_sha256"], std::string(64, 'a'));
  EXPECT_EQ(j["replayed"], false);
  EXPECT_EQ(Run({"archive", "--game", "g1"}, &out), 0);
  EXPECT_TRUE(absl::StrContains(out, "archived g1 at version 42: 0-1 (5.1b)")) << out;
  EXPECT_NE(Run({"archive", "--game", "live"}, &out), 0);
}

TEST_F(GameClientTest, PgnAndWatch) {
  std::string out;
  EXPECT_EQ(Run({"pgn", "--game", "g1"}, &out), 0);
  EXPECT_EQ(out, "[Event \"?\"]\n\n1. e4 *\n");
  // The watch ends with the game's end.
  EXPECT_EQ(Run({"watch", "--game", "g1", "--after-version", "5", "--json"}, &out), 0);
  std::istringstream lines(out);
  std::vector<Json> updates;
  for (std::string line; std::getline(lines, line);) updates.push_back(Json::parse(line));
  ASSERT_EQ(updates.size(), 2u) << out;
  EXPECT_EQ(updates[0]["version"], 6);
  EXPECT_EQ(updates[0]["event"]["resigned"]["side"], "COLOR_BLACK");
  EXPECT_TRUE(updates[1]["event"].contains("ended"));
}

}  // namespace
}  // namespace arbiterctl
