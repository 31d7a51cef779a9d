// `arbiterctl event create|get|round|results|pgn` and `arbiterctl game create --event` against a
// fake arbitration service on loopback: the flags become the requests, the replies the lines or
// JSON a script reads, errors exit 2 with their stable code. The real service: tests/integration.
#include "tools/arbiterctl/event_cmds.h"

#include <iterator>
#include <mutex>
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

class FakeEvents final : public v1::Arbitration::Service {
 public:
  grpc::Status CreateEvent(grpc::ServerContext*, const v1::CreateEventRequest* req,
                           v1::EventReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    create = *req;
    if (req->event() == "taken") {
      return grpc::Status(grpc::StatusCode::ALREADY_EXISTS, "exists with another content");
    }
    reply->mutable_event()->set_event(req->event());
    *reply->mutable_event()->mutable_ruleset() = req->ruleset();
    reply->mutable_event()->set_time_control("5400+30");
    return grpc::Status::OK;
  }
  grpc::Status CreateRound(grpc::ServerContext*, const v1::CreateRoundRequest* req,
                           v1::RoundReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    round = *req;
    reply->mutable_round()->set_round(req->round());
    for (int i = 0; i < req->pairings_size(); ++i) {
      v1::RoundPairing* p = reply->mutable_round()->add_pairings();
      *p = req->pairings(i);
      p->set_board(i + 1);
      p->set_game_id(absl::StrCat(req->event(), ".r", req->round(), ".b", i + 1));
      reply->add_games()->mutable_game()->set_version(req->start() ? 2 : 1);
    }
    return grpc::Status::OK;
  }
  grpc::Status GetEventResults(grpc::ServerContext*, const v1::GetEventResultsRequest* req,
                               v1::EventResultsReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    results = *req;
    reply->set_event(req->event());
    v1::RoundResults* r = reply->add_rounds();
    r->set_round(1);
    v1::PairingResult* won = r->add_games();
    won->set_board(1);
    won->set_game_id("g1");
    won->set_result("1-0");
    won->set_white_points(1);
    v1::PairingResult* pending = r->add_games();
    pending->set_board(2);
    pending->set_game_id("g2");
    pending->set_pending(true);
    return grpc::Status::OK;
  }
  grpc::Status ExportEventPgn(grpc::ServerContext*, const v1::ExportEventPgnRequest* req,
                              v1::ExportPgnReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    pgn = *req;
    reply->set_pgn("[Event \"open\"]\n\n1-0\n");
    return grpc::Status::OK;
  }
  grpc::Status CreateGame(grpc::ServerContext*, const v1::CreateGameRequest* req,
                          v1::GameReply* reply) override {
    std::lock_guard<std::mutex> lock(mu);
    game = *req;
    reply->mutable_game()->set_game_id(req->game_id());
    return grpc::Status::OK;
  }

  std::mutex mu;
  v1::CreateEventRequest create;
  v1::CreateRoundRequest round;
  v1::GetEventResultsRequest results;
  v1::ExportEventPgnRequest pgn;
  v1::CreateGameRequest game;
};

class EventCmdsTest : public ::testing::Test {
 protected:
  // `arbiterctl event <words...>` as main.cc parses it.
  GameRun Run(const std::vector<std::string>& words) {
    std::vector<std::string> boolean_flags = {"json", "no-arbiter", "unsupervised"};
    boolean_flags.insert(boolean_flags.end(), std::begin(kEventBooleanFlags),
                         std::end(kEventBooleanFlags));
    return RunCommand(server_.port(), "event", words, boolean_flags, RunEventRecord);
  }

  FakeEvents fake_;
  FakeServer server_{&fake_};
};

TEST_F(EventCmdsTest, CreateSendsTheEventsRulesAndRegulations) {
  GameRun run = Run({"create", "--event", "open", "--edition", "2023", "--time-control", "5400+30",
                     "--name", "City Open", "--default-time", "1800", "--first-draw-offer", "30",
                     "--unsupervised", "--command-id", "c1", "--json"});
  ASSERT_EQ(run.rc, 0) << run.err;
  const v1::CreateEventRequest& req = fake_.create;
  EXPECT_EQ(req.event(), "open");
  EXPECT_EQ(req.command_id(), "c1");
  EXPECT_EQ(req.name(), "City Open");
  EXPECT_EQ(req.ruleset().edition(), v1::EDITION_FIDE_2023);
  EXPECT_EQ(req.time_control(), "5400+30");
  EXPECT_EQ(req.ruleset().regulations().default_time_ms(), 1'800'000);      // 6.7a, in seconds
  EXPECT_EQ(req.ruleset().regulations().no_draw_offers_before_move(), 30);  // 9.1a
  EXPECT_TRUE(req.ruleset().regulations().arbiter_present());
  EXPECT_FALSE(req.ruleset().regulations().supervised());
  const Json j = Json::parse(run.out);
  EXPECT_EQ(j["event"]["event"], "open");
  EXPECT_EQ(j["event"]["time_control"], "5400+30");
}

TEST_F(EventCmdsTest, UsageErrorsSendNothingAndRefusalsExitTwoWithTheirCode) {
  EXPECT_EQ(Run({"create", "--edition", "2023", "--time-control", "5400"}).rc, 2);  // no --event
  EXPECT_EQ(Run({"create", "--event", "open", "--time-control", "5400"}).rc, 2);    // no edition
  GameRun bad = Run({"create", "--event", "open", "--edition", "1999", "--time-control", "5400"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("--edition"), std::string::npos) << bad.err;
  EXPECT_TRUE(fake_.create.event().empty());
  GameRun taken =
      Run({"create", "--event", "taken", "--edition", "2023", "--time-control", "5400", "--json"});
  EXPECT_EQ(taken.rc, 2);
  EXPECT_NE(taken.out.find("ALREADY_EXISTS"), std::string::npos) << taken.out;
}

TEST_F(EventCmdsTest, RoundSendsThePairingsFromJson) {
  GameRun run =
      Run({"round", "--event", "open", "--round", "3", "--command-id", "r3", "--scheduled-start-ms",
           "1700000000000", "--start", "--pairings",
           R"([{"white":"ann","white_name":"Ann","black":"bob"},)"
           R"({"board":2,"game":"g-2","white":"cid","black":"dan","black_name":"Dan"}])"});
  ASSERT_EQ(run.rc, 0) << run.err;
  const v1::CreateRoundRequest& req = fake_.round;
  EXPECT_EQ(req.round(), 3);
  EXPECT_EQ(req.command_id(), "r3");
  EXPECT_EQ(req.scheduled_start_ms(), 1'700'000'000'000);
  EXPECT_TRUE(req.start());
  ASSERT_EQ(req.pairings_size(), 2);
  EXPECT_EQ(req.pairings(0).white_id(), "ann");
  EXPECT_EQ(req.pairings(0).white_name(), "Ann");
  EXPECT_EQ(req.pairings(0).board(), 0);
  EXPECT_EQ(req.pairings(1).board(), 2);
  EXPECT_EQ(req.pairings(1).game_id(), "g-2");
  EXPECT_EQ(req.pairings(1).black_name(), "Dan");
  EXPECT_NE(run.out.find("board 1 open.r3.b1 ann-bob version 2"), std::string::npos) << run.out;
  // Pairings that are no JSON array, or no --command-id: nothing sent.
  fake_.round.Clear();
  EXPECT_EQ(Run({"round", "--event", "open", "--round", "1", "--command-id", "r1", "--pairings",
                 R"([{"board":"one"}])"})
                .rc,
            2);
  EXPECT_EQ(Run({"round", "--event", "open", "--round", "1", "--pairings", "[]"}).rc, 2);
  EXPECT_EQ(Run({"round", "--event", "open", "--round", "1", "--command-id", "r1", "--pairings",
                 "/no/such/file"})
                .rc,
            2);
  EXPECT_EQ(fake_.round.round(), 0);
}

TEST_F(EventCmdsTest, ResultsAndPgn) {
  GameRun run = Run({"results", "--event", "open", "--json"});
  ASSERT_EQ(run.rc, 0) << run.err;
  const Json j = Json::parse(run.out);
  EXPECT_EQ(j["rounds"][0]["games"][0]["result"], "1-0");
  EXPECT_EQ(j["rounds"][0]["games"][0]["white_points"], 1);
  EXPECT_EQ(j["rounds"][0]["games"][1]["pending"], true);
  run = Run({"results", "--event", "open", "--round", "1"});
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(fake_.results.round(), 1);
  EXPECT_NE(run.out.find("round 1 board 1 g1 - 1-0 (1-0)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("board 2 g2 - pending"), std::string::npos) << run.out;
  run = Run({"pgn", "--event", "open", "--round", "2"});
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(fake_.pgn.round(), 2);
  EXPECT_EQ(run.out, "[Event \"open\"]\n\n1-0\n");
  EXPECT_EQ(Run({"pgn", "--event", "open", "--round", "0"}).rc, 2);
}

// `game create --event ID` without --edition: the game joins the event, its rules left to it.
TEST_F(EventCmdsTest, GameCreateWithAnEventLeavesTheRulesToIt) {
  GameRun run = RunGame(server_.port(), {"create", "--game", "g1", "--white", "ann", "--black",
                                         "bob", "--event", "open", "--round", "1"});
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(fake_.game.event(), "open");
  EXPECT_FALSE(fake_.game.has_ruleset());
  EXPECT_TRUE(fake_.game.time_control().empty());
  // Without an event the edition and time control are still required.
  EXPECT_EQ(
      RunGame(server_.port(), {"create", "--game", "g2", "--white", "ann", "--black", "bob"}).rc,
      2);
  // With the event and explicit rules, they are sent (the server checks them against the event's).
  run = RunGame(server_.port(), {"create", "--game", "g3", "--white", "ann", "--black", "bob",
                                 "--event", "open", "--edition", "2023", "--time-control", "5400"});
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(fake_.game.ruleset().edition(), v1::EDITION_FIDE_2023);
  EXPECT_EQ(fake_.game.time_control(), "5400");
}

}  // namespace
}  // namespace arbiterctl
