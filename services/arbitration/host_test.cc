// The host's Stop waits for the appends still in flight. The Redis store answers an append on its
// own thread, into the authority, its observers and the service's reply; a host torn down with a
// move in flight would have that answer run into destroyed objects.
#include "services/arbitration/host.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/service/testing/env_on_redis.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;

v1::Actor Platform() {
  v1::Actor platform;
  platform.set_subject("platform");
  platform.set_role("platform");
  return platform;
}

arbitration::Command WhiteMoves(const std::string& move) {
  arbitration::Command c;
  c.kind = arbitration::CommandKind::kMove;
  c.actor.set_subject("w");
  c.actor.set_role("player");
  c.side = chess::Color::kWhite;
  c.move = move;
  return c;
}

// A server with no auth, no metrics endpoint, on a memory store of its own.
service::ServerConfig InsecureOnMemory() {
  service::ServerConfig config;
  config.insecure_dev = true;
  config.metrics_address = "none";
  config.log_level = "warning";
  config.store = "memory";
  return config;
}

TEST(ArbitrationHost, StopWaitsForTheAppendsInFlightAndRefusesNewOnes) {
  absl::StatusOr<service::testing::EnvOnRedis> env = service::testing::StartEnvOnRedis();
  ASSERT_OK(env);
  ArbitrationHostOptions options;
  options.replica_id = "host-test";
  options.run_timers = false;
  options.deadline_shards = 4;
  options.engine_path = "";
  absl::StatusOr<std::unique_ptr<ArbitrationHost>> host =
      ArbitrationHost::Create(env->config, env->env.get(), options);
  ASSERT_OK(host);
  arbitration::GameAuthority* authority = (*host)->authority();
  v1::CreateGameRequest create =
      arbitration::testing::GameRequest({.edition = v1::EDITION_FIDE_2023, .time_control = "5400"});
  create.set_game_id("g");
  ASSERT_OK(authority->Create("g", create, Platform(), {}).status());
  arbitration::Command start;
  start.kind = arbitration::CommandKind::kStart;
  start.actor = Platform();
  ASSERT_OK(authority->Execute("g", start, {}).status());

  service::testing::ExpectStopWaitsForAppendInFlight(
      *env->redis, service::testing::ExecuteAsync(authority, "g", WhiteMoves("e4")),
      service::testing::ExecuteAsync(authority, "g", WhiteMoves("d4")), [&] { (*host)->Stop(); });
  host->reset();
}

// With --analysis_target the analyst is search-analysis's client: no search and no engine in
// this process. The caller must be authenticated as a service: no token key, no start (unless
// the server runs --insecure_dev).
TEST(ArbitrationHost, AnAnalysisTargetReplacesTheAnalysisInThisProcess) {
  const service::ServerConfig config = InsecureOnMemory();
  // Each host adds its service's policy rows: an environment of its own each.
  std::vector<std::unique_ptr<service::ServiceEnv>> envs;
  auto create = [&](const service::ServerConfig& c, const ArbitrationHostOptions& o) {
    absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
    EXPECT_OK(env);
    envs.push_back(*std::move(env));
    return ArbitrationHost::CreateUnconnected(c, envs.back().get(), o);
  };
  ArbitrationHostOptions options;
  options.run_timers = false;
  absl::StatusOr<std::unique_ptr<ArbitrationHost>> local = create(config, options);
  ASSERT_OK(local);
  EXPECT_NE(dynamic_cast<arbitration::LocalAnalyst*>(&(*local)->analyst()), nullptr);

  options.analysis_target = "127.0.0.1:1";
  absl::StatusOr<std::unique_ptr<ArbitrationHost>> apart = create(config, options);
  ASSERT_OK(apart);
  EXPECT_EQ(dynamic_cast<arbitration::LocalAnalyst*>(&(*apart)->analyst()), nullptr);

  service::ServerConfig secure = config;
  secure.insecure_dev = false;
  EXPECT_THAT(create(secure, options), ::base::HasErrorCode("ERR_BAD_FLAG"));
  options.analysis_call_deadline = absl::ZeroDuration();
  EXPECT_THAT(create(config, options), ::base::HasErrorCode("ERR_BAD_FLAG"));
}

// The state cache is sized by --arbitration_state_cache_games; a size that keeps no game is a
// mistake of the flags, refused at the start rather than served with every command a read.
TEST(ArbitrationHost, AStateCacheOfNoGameIsABadFlag) {
  const service::ServerConfig config = InsecureOnMemory();
  absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
  ASSERT_OK(env);
  ArbitrationHostOptions options;
  options.run_timers = false;
  options.state_cache_games = 0;
  absl::StatusOr<std::unique_ptr<ArbitrationHost>> host =
      ArbitrationHost::CreateUnconnected(config, env->get(), options);
  EXPECT_THAT(host, ::base::HasErrorCode("ERR_BAD_FLAG"));
  EXPECT_THAT(host.status().message(), ::testing::HasSubstr("--arbitration_state_cache_games"));
}

}  // namespace
}  // namespace arbitration_service
