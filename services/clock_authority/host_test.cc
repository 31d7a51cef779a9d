// The host's Stop waits for the appends still in flight. The Redis store answers an append on its
// own thread, into the authority, its observers and the service's reply; a host torn down with a
// press in flight would have that answer run into destroyed objects.
#include "services/clock_authority/host.h"

#include <functional>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/clock_authority/testing/commands.h"
#include "libs/store/testing/redis_server.h"

namespace clock_authority_service {
namespace {

namespace v1 = arbiter::v1;

TEST(ClockAuthorityHost, StopWaitsForTheAppendsInFlightAndRefusesNewOnes) {
  absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> redis =
      store::testing::RedisServer::Start();
  ASSERT_OK(redis);
  service::ServerConfig config;
  config.insecure_dev = true;
  config.metrics_address = "none";
  config.log_level = "warning";
  config.store = absl::StrCat("redis://127.0.0.1:", (*redis)->port());
  absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
  ASSERT_OK(env);
  ClockHostOptions options;
  options.replica_id = "host-test";
  options.run_scheduler = false;
  options.service.workers = 2;
  options.deadline_shards = 4;
  absl::StatusOr<std::unique_ptr<ClockAuthorityHost>> host =
      ClockAuthorityHost::Create(config, env->get(), options);
  ASSERT_OK(host);
  clock_authority::ClockAuthority* authority = (*host)->authority();
  ASSERT_OK(authority->Create(
      "g", clock_authority::testing::HumanClockRequest("G/5", v1::EDITION_FIDE_2023), {}));
  ASSERT_OK(authority->Execute("g", clock_authority::testing::Start(), {}));

  // Redis stops answering: the press (on the cached state) is sent and waits for its reply.
  ASSERT_OK((*redis)->Pause());
  const auto inline_offload = [](std::function<void()> work) { work(); };
  absl::Notification answered;
  authority->ExecuteAsync(
      "g", clock_authority::testing::Press(), {}, inline_offload,
      [&](absl::StatusOr<clock_authority::CommandResult>) { answered.Notify(); });
  std::thread resume([&] {
    absl::SleepFor(absl::Milliseconds(300));
    EXPECT_OK((*redis)->Resume());
  });
  (*host)->Stop();
  // Stop returned only once the answer had come (before, it returned at once, and the answer
  // later ran into the destroyed authority).
  EXPECT_TRUE(answered.HasBeenNotified());
  resume.join();
  // Nothing more is sent once stopped: a late command is refused, not left in flight.
  absl::Notification refused;
  authority->ExecuteAsync("g", clock_authority::testing::Press(), {}, inline_offload,
                          [&](absl::StatusOr<clock_authority::CommandResult> r) {
                            EXPECT_FALSE(r.ok());
                            refused.Notify();
                          });
  EXPECT_TRUE(refused.HasBeenNotified());
  host->reset();
}

}  // namespace
}  // namespace clock_authority_service
