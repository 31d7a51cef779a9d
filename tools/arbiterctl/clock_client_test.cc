// `arbiterctl clock ...` against an in-process clock authority on loopback: the commands, their
// JSON (the fields of `clock simulate` plus version and the flag event), watch until a flag that
// the server fires by itself, and the error exits.
#include "tools/arbiterctl/clock_client.h"

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "libs/service/server.h"
#include "nlohmann/json.hpp"
#include "services/clock_authority/host.h"
#include "tools/arbiterctl/clock_simulate.h"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;

class ClockClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    service::ServerConfig config;
    config.insecure_dev = true;
    config.grpc_address = "127.0.0.1:0";
    config.metrics_address = "none";
    config.shutdown_grace = absl::Milliseconds(1);
    config.log_level = "warning";
    env_ = service::ServiceEnv::Create(config)->release();
    clock_authority_service::ClockHostOptions options;
    options.replica_id = "ctl-test";
    options.service.workers = 4;
    host_ = clock_authority_service::ClockAuthorityHost::Create(config, env_, options)->release();
    server_ = service::Server::Start(config, env_, {host_->hosted()})->release();
    host_->Start();
  }
  static void TearDownTestSuite() {
    server_->Shutdown();
    delete server_;
    host_->Stop();
    delete host_;
    delete env_;
  }

  // Runs `arbiterctl --server=... clock <words...>`; flags as "--name=value" or "--name value".
  int Run(const std::vector<std::string>& words, std::string* out, std::string* err = nullptr) {
    ClientArgs args;
    args.flags["server"] = absl::StrCat("127.0.0.1:", server_->port());
    args.positional.push_back("clock");
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string& w = words[i];
      if (w.rfind("--", 0) != 0) {
        args.positional.push_back(w);
      } else if (size_t eq = w.find('='); eq != std::string::npos) {
        args.flags[w.substr(2, eq - 2)] = w.substr(eq + 1);
      } else if (w == "--json") {
        args.flags["json"] = "true";
      } else {
        args.flags[w.substr(2)] = words[++i];
      }
    }
    std::ostringstream o, e;
    const int rc = RunClockClient(args, o, e);
    *out = o.str();
    if (err != nullptr) *err = e.str();
    return rc;
  }
  Json RunJson(const std::vector<std::string>& words, int want_rc = 0) {
    std::string out, err;
    std::vector<std::string> w = words;
    w.push_back("--json");
    EXPECT_EQ(Run(w, &out, &err), want_rc) << out << err;
    Json j = Json::parse(out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << out;
    return j;
  }

  static service::ServiceEnv* env_;
  static clock_authority_service::ClockAuthorityHost* host_;
  static service::Server* server_;
};
service::ServiceEnv* ClockClientTest::env_ = nullptr;
clock_authority_service::ClockAuthorityHost* ClockClientTest::host_ = nullptr;
service::Server* ClockClientTest::server_ = nullptr;

TEST_F(ClockClientTest, CommandsPrintTheClockWithTheFieldsOfSimulate) {
  Json created = RunJson(
      {"create", "--game", "c1", "--time-control", "40/5400+30:1800+30", "--edition", "fide2001"});
  EXPECT_EQ(created["version"], 1);
  EXPECT_EQ(created["status"], "not_started");
  EXPECT_EQ(created["speed"], "standard");
  EXPECT_EQ(created["white_ms"], 5'400'000);
  RunJson({"start", "--game", "c1"});
  Json pressed = RunJson({"press", "--game", "c1", "--color", "white", "--command-id", "m1"});
  EXPECT_EQ(pressed["moves"]["white"], 1);
  EXPECT_EQ(pressed["running"], "black");
  EXPECT_EQ(pressed["replayed"], false);
  Json again = RunJson({"press", "--game", "c1", "--color", "white", "--command-id", "m1"});
  EXPECT_EQ(again["replayed"], true);
  EXPECT_EQ(again["version"], 3);
  Json adjusted = RunJson(
      {"adjust", "--game", "c1", "--side", "black", "--delta-ms", "120000", "--reason", "7.4b"});
  EXPECT_EQ(adjusted["version"], 4);
  Json got = RunJson({"get", "--game", "c1"});
  EXPECT_EQ(got["version"], 4);
  EXPECT_TRUE(got["flag_event"].is_null());
  EXPECT_TRUE(got["deadline_ms"].is_number());

  // Every field `clock simulate` reports, in the same order, then the live clock's own.
  Json simulated = Json::parse(SimulateClockLine(
      R"({"time_control": "40/5400+30:1800+30", "edition": "fide2001",
          "events": [{"at_ms": 0, "type": "start"}], "query_ms": 1000})"));
  std::vector<std::string> sim_keys, got_keys;
  for (auto it = simulated.begin(); it != simulated.end(); ++it) sim_keys.push_back(it.key());
  nlohmann::ordered_json ordered = nlohmann::ordered_json::parse([&] {
    std::string out;
    Run({"get", "--game", "c1", "--json"}, &out);
    return out;
  }());
  for (auto it = ordered.begin(); it != ordered.end(); ++it) got_keys.push_back(it.key());
  for (const std::string& k : sim_keys) {
    EXPECT_NE(std::find(got_keys.begin(), got_keys.end(), k), got_keys.end()) << k;
  }
  for (const char* k : {"version", "flag_event", "server_time_ms", "game_id", "decision"}) {
    EXPECT_NE(std::find(got_keys.begin(), got_keys.end(), k), got_keys.end()) << k;
  }

  std::string text;
  EXPECT_EQ(Run({"get", "--game", "c1"}, &text), 0);
  EXPECT_NE(text.find("c1 v4 running, black to move"), std::string::npos) << text;
}

TEST_F(ClockClientTest, WatchSeesTheFlagTheServerFires) {
  RunJson({"create", "--game", "f1", "--time-control", "G/0.005", "--edition", "2005",
           "--game-type", "standard"});
  RunJson({"start", "--game", "f1"});
  std::string out;
  ASSERT_EQ(
      Run({"watch", "--game", "f1", "--until", "flag", "--json", "--timeout_ms", "5000"}, &out), 0);
  std::vector<std::string> lines = absl::StrSplit(out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << out;
  Json started = Json::parse(lines[1]);
  Json flag = Json::parse(lines[2]);
  EXPECT_EQ(flag["event"]["type"], "flag_fell");
  EXPECT_EQ(flag["event"]["fell_at_ms"], started["event"]["at_ms"].get<std::int64_t>() + 300);
  EXPECT_EQ(flag["event"]["counts"], true);
  Json got = RunJson({"get", "--game", "f1"});
  EXPECT_EQ(got["flag_event"]["fell_at_ms"], flag["event"]["fell_at_ms"]);
  EXPECT_EQ(got["flag_event"]["side"], "white");
  // 6.10: the clock records the fall, not a win; the result follows from the position.
  EXPECT_EQ(got["decision"]["result"], "RESULT_UNSPECIFIED");
  EXPECT_EQ(got["decision"]["kind"], "flag_fell");
  EXPECT_EQ(got["decision"]["flagged"], "white");
  EXPECT_EQ(got["white_ms"], 0);
  // Resumed after the start: the flag only.
  ASSERT_EQ(Run({"watch", "--game", "f1", "--after-version", "2", "--count", "1"}, &out), 0);
  EXPECT_NE(out.find("v3 flag_fell"), std::string::npos) << out;
}

TEST_F(ClockClientTest, ErrorsExitTwoWithTheStableCode) {
  Json missing = RunJson({"get", "--game", "nope"}, 2);
  EXPECT_EQ(missing["error"]["code"], "ERR_CLOCK_NOT_FOUND");
  EXPECT_EQ(missing["error"]["grpc_code"], "NOT_FOUND");
  std::string out, err;
  EXPECT_EQ(Run({"adjust", "--game", "x", "--side", "green", "--delta-ms", "5"}, &out, &err), 2);
  EXPECT_NE(err.find("--side must be white or black"), std::string::npos) << err;
  EXPECT_EQ(Run({"create", "--game", "x", "--time-control", "300"}, &out, &err), 2);
  EXPECT_NE(err.find("--edition"), std::string::npos) << err;
  EXPECT_EQ(Run({"press"}, &out, &err), 2);
  EXPECT_NE(err.find("--game ID is required"), std::string::npos);
  RunJson({"create", "--game", "e1", "--time-control", "300", "--edition", "fide2023"});
  EXPECT_EQ(Run({"press", "--game", "e1"}, &out, &err), 2);
  EXPECT_NE(err.find("FAILED_PRECONDITION ERR_CLOCK_NOT_STARTED"), std::string::npos) << err;
}

TEST_F(ClockClientTest, ARefusedClaimExitsOne) {
  RunJson({"create", "--game", "b1", "--time-control", "180", "--edition", "fide2001"});  // blitz
  RunJson({"start", "--game", "b1"});
  std::string out;
  EXPECT_EQ(Run({"claim", "--game", "b1", "--color", "black"}, &out), 1);
  EXPECT_NE(out.find("claim refused (B7)"), std::string::npos) << out;
}

}  // namespace
}  // namespace arbiterctl
