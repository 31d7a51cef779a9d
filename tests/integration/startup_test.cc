// arbiterd as a process: it starts while Redis is down (the stateless services serve at
// once; the store-backed ones are NOT_SERVING and refuse calls with UNAVAILABLE ERR_NOT_READY until
// the store answers, retried in the background); readiness follows the store afterwards while
// liveness ("") does not; the health port serves health only; --grpc_max_connection_age closes
// client connections (GOAWAY), so that clients reconnect and rebalance.
#include <memory>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "libs/store/testing/redis_server.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "proto/arbiter/v1/common.pb.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "proto/google/rpc/error_details.pb.h"
#include "proto/google/rpc/status.pb.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"
#include "tests/integration/clock_process.h"

namespace {

namespace v1 = arbiter::v1;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;
using testing_util::FindRunfile;
using testing_util::ServerProcess;

std::shared_ptr<grpc::Channel> Plaintext(int port) {
  return grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials());
}

// The health port from the server's "serving" line.
int HealthPort(const ServerProcess& p) {
  std::smatch m;
  const std::string log = p.Log();
  if (!std::regex_search(log, m, std::regex("\"health_port\":\"([0-9]+)\""))) return 0;
  return std::stoi(m[1]);
}

// "SERVING", "NOT_SERVING", or the error of the Check.
std::string Health(const std::shared_ptr<grpc::Channel>& channel, const std::string& service) {
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
  HealthCheckRequest req;
  req.set_service(service);
  HealthCheckResponse resp;
  grpc::Status s = stub->Check(&ctx, req, &resp);
  if (!s.ok()) return absl::StrCat("error ", s.error_code());
  return HealthCheckResponse::ServingStatus_Name(resp.status());
}

// Polls until `service` reports `want` (at most 20 s); the last answer.
std::string AwaitHealth(const std::shared_ptr<grpc::Channel>& channel, const std::string& service,
                        const std::string& want) {
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  std::string got = Health(channel, service);
  while (got != want && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(100));
    got = Health(channel, service);
  }
  return got;
}

grpc::Status LegalMoves(const std::shared_ptr<grpc::Channel>& channel) {
  auto stub = v1::RulesValidation::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::LegalMovesRequest req;
  req.mutable_position()->set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  v1::LegalMovesResponse resp;
  return stub->LegalMoves(&ctx, req, &resp);
}

grpc::Status GetClock(const std::shared_ptr<grpc::Channel>& channel) {
  auto stub = v1::ClockAuthority::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::GetClockRequest req;
  req.set_game_id("startup-test-no-such-game");
  v1::ClockResponse resp;
  return stub->GetClock(&ctx, req, &resp);
}

constexpr char kClock[] = "arbiter.v1.ClockAuthority";
constexpr char kArbitration[] = "arbiter.v1.Arbitration";
constexpr char kRules[] = "arbiter.v1.RulesValidation";

// arbiterd started on a port where no Redis listens: a redis-server started with the options
// given (so that the test can bring it back), then stopped.
class StartedBeforeRedisTest : public ::testing::Test {
 protected:
  void StartBeforeRedis(store::testing::RedisServerOptions options = {}) {
    absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> redis =
        store::testing::RedisServer::Start(options);
    ASSERT_TRUE(redis.ok()) << redis.status();
    redis_ = std::move(*redis);
    ASSERT_TRUE(redis_->Stop(SIGTERM).ok());
    absl::StatusOr<std::unique_ptr<ServerProcess>> server = ServerProcess::Start(
        FindRunfile("services/arbiterd/arbiterd"),
        {"--insecure_dev", "--metrics_address=none", "--health_address=127.0.0.1:0",
         absl::StrCat("--store=redis://127.0.0.1:", redis_->port()), "--shutdown_grace=0s"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    health_port_ = HealthPort(*server_);
    ASSERT_NE(health_port_, 0) << server_->Log();
  }

  std::unique_ptr<store::testing::RedisServer> redis_;
  std::unique_ptr<ServerProcess> server_;  // stops before the redis-server
  int health_port_ = 0;
};

TEST_F(StartedBeforeRedisTest, ServesWithoutRedisAndConnectsWhenItComes) {
  // A port for Redis, then nothing listening on it while arbiterd starts.
  ASSERT_NO_FATAL_FAILURE(StartBeforeRedis());
  auto api = Plaintext(server_->grpc_port());
  auto health = Plaintext(health_port_);

  // The process is alive and the stateless services serve; the store-backed ones are not ready.
  EXPECT_EQ(Health(health, ""), "SERVING");
  EXPECT_EQ(Health(health, kRules), "SERVING");
  EXPECT_EQ(Health(health, kClock), "NOT_SERVING");
  EXPECT_EQ(Health(health, kArbitration), "NOT_SERVING");
  EXPECT_EQ(Health(api, kArbitration), "NOT_SERVING");  // the same statuses on both ports
  EXPECT_TRUE(LegalMoves(api).ok());
  grpc::Status refused = GetClock(api);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  // The stable code travels in the standard status details (grpc_status.h).
  google::rpc::Status details;
  ASSERT_TRUE(details.ParseFromString(refused.error_details()));
  google::rpc::ErrorInfo info;
  ASSERT_EQ(details.details_size(), 1);
  ASSERT_TRUE(details.details(0).UnpackTo(&info));
  EXPECT_EQ(info.reason(), "ERR_NOT_READY");
  EXPECT_EQ(info.domain(), "arbiter.v1");
  EXPECT_NE(refused.error_message().find("arbiter.v1.ClockAuthority is not serving yet"),
            std::string::npos)
      << refused.error_message();
  EXPECT_NE(refused.error_message().find(absl::StrCat("127.0.0.1:", redis_->port())),
            std::string::npos)
      << refused.error_message();
  // The health port serves health only.
  EXPECT_EQ(LegalMoves(health).error_code(), grpc::StatusCode::UNIMPLEMENTED);

  // Redis comes: the store-backed services connect and serve, without a restart.
  ASSERT_TRUE(redis_->Restart().ok());
  EXPECT_EQ(AwaitHealth(health, kClock, "SERVING"), "SERVING");
  EXPECT_EQ(AwaitHealth(health, kArbitration, "SERVING"), "SERVING");
  grpc::Status served = GetClock(api);
  EXPECT_EQ(served.error_code(), grpc::StatusCode::NOT_FOUND) << served.error_message();

  // A mutating call leaves one log line with the caller's request id, returned to the caller.
  {
    auto stub = v1::ClockAuthority::NewStub(api);
    grpc::ClientContext ctx;
    ctx.AddMetadata("x-request-id", "startup-test-req-1");
    v1::CreateClockRequest req;
    req.set_game_id("startup-test-game");
    req.set_time_control("300+2");
    req.set_edition(v1::EDITION_FIDE_2023);
    v1::ClockResponse resp;
    grpc::Status s = stub->CreateClock(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    auto echoed = ctx.GetServerInitialMetadata().find("x-request-id");
    ASSERT_NE(echoed, ctx.GetServerInitialMetadata().end());
    EXPECT_EQ(std::string(echoed->second.data(), echoed->second.size()), "startup-test-req-1");
    const std::regex line(
        "\\{[^\\n]*\"msg\":\"call\"[^\\n]*\"request_id\":\"startup-test-req-1\"[^\\n]*");
    std::smatch m;
    std::string log;
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    do {  // the log's own thread writes it within a few tens of milliseconds
      log = server_->Log();
    } while (!std::regex_search(log, m, line) && absl::Now() < deadline &&
             (absl::SleepFor(absl::Milliseconds(50)), true));
    ASSERT_FALSE(m.empty()) << log;
    const std::string text = m.str();
    EXPECT_NE(text.find("\"method\":\"/arbiter.v1.ClockAuthority/CreateClock\""), std::string::npos)
        << text;
    EXPECT_NE(text.find("\"game_id\":\"startup-test-game\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"subject\":\"insecure\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"role\":\"dev\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"code\":\"OK\""), std::string::npos) << text;
  }

  // Redis goes: readiness follows, liveness does not, the stateless services still serve.
  ASSERT_TRUE(redis_->Stop(SIGKILL).ok());
  EXPECT_EQ(AwaitHealth(health, kArbitration, "NOT_SERVING"), "NOT_SERVING");
  EXPECT_EQ(AwaitHealth(health, kClock, "NOT_SERVING"), "NOT_SERVING");
  EXPECT_EQ(Health(health, ""), "SERVING");
  EXPECT_EQ(Health(health, kRules), "SERVING");
  EXPECT_TRUE(LegalMoves(api).ok());
  ASSERT_TRUE(redis_->Restart().ok());
  EXPECT_EQ(AwaitHealth(health, kArbitration, "SERVING"), "SERVING");
  EXPECT_EQ(AwaitHealth(health, kClock, "SERVING"), "SERVING");
}

// A Redis that comes without the store's functions (no administrator loaded them) is not
// connected: the store-backed services stay NOT_SERVING and their calls say why (the library's
// name) until the functions are loaded, then serve without a restart.
TEST_F(StartedBeforeRedisTest, ARedisWithoutTheStoresFunctionsIsNotServedUntilTheyAreLoaded) {
  ASSERT_NO_FATAL_FAILURE(StartBeforeRedis({.load_functions = false}));
  auto api = Plaintext(server_->grpc_port());
  auto health = Plaintext(health_port_);

  ASSERT_TRUE(redis_->Restart().ok());
  // The background connection retries every second; three tries later still not connected.
  absl::SleepFor(absl::Seconds(3));
  EXPECT_EQ(Health(health, kClock), "NOT_SERVING");
  EXPECT_EQ(Health(health, kArbitration), "NOT_SERVING");
  grpc::Status refused = GetClock(api);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(refused.error_message().find("arbiter_v3"), std::string::npos)
      << refused.error_message();

  ASSERT_TRUE(redis_->LoadFunctions().ok());
  EXPECT_EQ(AwaitHealth(health, kClock, "SERVING"), "SERVING");
  EXPECT_EQ(AwaitHealth(health, kArbitration, "SERVING"), "SERVING");
  grpc::Status served = GetClock(api);
  EXPECT_EQ(served.error_code(), grpc::StatusCode::NOT_FOUND) << served.error_message();
}

// Waits up to `within` for the channel to leave READY; whether it did.
bool LeavesReady(const std::shared_ptr<grpc::Channel>& channel, absl::Duration within) {
  const auto deadline = absl::ToChronoTime(absl::Now() + within);
  grpc_connectivity_state state = channel->GetState(false);
  while (state == GRPC_CHANNEL_READY) {
    if (!channel->WaitForStateChange(state, deadline)) return false;
    state = channel->GetState(false);
  }
  return true;
}

TEST(StartupTest, ConnectionsAreClosedAfterTheirMaximumAge) {
  absl::StatusOr<std::unique_ptr<ServerProcess>> aged = ServerProcess::Start(
      FindRunfile("services/arbiterd/arbiterd"),
      {"--insecure_dev", "--metrics_address=none", "--services=rules_validation",
       "--grpc_max_connection_age=1s", "--grpc_max_connection_age_grace=1s"});
  ASSERT_TRUE(aged.ok()) << aged.status();
  absl::StatusOr<std::unique_ptr<ServerProcess>> unaged = ServerProcess::Start(
      FindRunfile("services/arbiterd/arbiterd"),
      {"--insecure_dev", "--metrics_address=none", "--services=rules_validation"});
  ASSERT_TRUE(unaged.ok()) << unaged.status();

  auto channel = Plaintext((*aged)->grpc_port());
  ASSERT_TRUE(LegalMoves(channel).ok());
  ASSERT_EQ(channel->GetState(false), GRPC_CHANNEL_READY);
  // GOAWAY after about a second (gRPC adds up to 10% of jitter): the channel leaves READY and a
  // later call reconnects.
  EXPECT_TRUE(LeavesReady(channel, absl::Seconds(10)));
  EXPECT_TRUE(LegalMoves(channel).ok());

  // Without the flag the same connection stays up.
  auto kept = Plaintext((*unaged)->grpc_port());
  ASSERT_TRUE(LegalMoves(kept).ok());
  EXPECT_FALSE(LeavesReady(kept, absl::Seconds(3)));
}

TEST(StartupTest, FailedAuthenticationsAreLoggedRateLimited) {
  absl::StatusOr<std::unique_ptr<ServerProcess>> server = ServerProcess::Start(
      FindRunfile("services/arbiterd/arbiterd"),
      {absl::StrCat("--auth_keys=", FindRunfile("libs/service/testdata/keys.json")),
       "--metrics_address=none", "--services=rules_validation"});
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::RulesValidation::NewStub(Plaintext((*server)->grpc_port()));
  constexpr int kCalls = 200;
  const absl::Time began = absl::Now();
  for (int i = 0; i < kCalls; ++i) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer not-a-token");
    v1::LegalMovesRequest req;
    v1::LegalMovesResponse resp;
    ASSERT_EQ(stub->LegalMoves(&ctx, req, &resp).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  // The whole seconds the calls touched, each allowing 10 lines.
  const int64_t seconds = absl::ToUnixSeconds(absl::Now()) - absl::ToUnixSeconds(began) + 1;
  const std::string log = (*server)->Log();
  int lines = 0;
  for (size_t at = log.find("\"msg\":\"authentication failed\""); at != std::string::npos;
       at = log.find("\"msg\":\"authentication failed\"", at + 1)) {
    ++lines;
  }
  // Written at once (warnings are synchronous), at most 10 in each second the calls spanned.
  EXPECT_GE(lines, 1) << log;
  EXPECT_LE(lines, 10 * seconds) << log;
  EXPECT_NE(log.find("\"method\":\"/arbiter.v1.RulesValidation/LegalMoves\""), std::string::npos)
      << log;
  EXPECT_NE(log.find("\"code\":\"ERR_UNAUTHENTICATED\""), std::string::npos) << log;
}

}  // namespace
