// The host's Stop waits for the appends still in flight. The Redis store answers an append on its
// own thread, into the authority, its observers and the service's reply; a host torn down with a
// press in flight would have that answer run into destroyed objects.
#include "services/clock_authority/host.h"

#include <functional>
#include <memory>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/clock_authority/testing/commands.h"
#include "libs/service/testing/env_on_redis.h"

namespace clock_authority_service {
namespace {

namespace v1 = arbiter::v1;

TEST(ClockAuthorityHost, StopWaitsForTheAppendsInFlightAndRefusesNewOnes) {
  absl::StatusOr<service::testing::EnvOnRedis> env = service::testing::StartEnvOnRedis();
  ASSERT_OK(env);
  ClockHostOptions options;
  options.replica_id = "host-test";
  options.run_scheduler = false;
  options.service.workers = 2;
  options.deadline_shards = 4;
  absl::StatusOr<std::unique_ptr<ClockAuthorityHost>> host =
      ClockAuthorityHost::Create(env->config, env->env.get(), options);
  ASSERT_OK(host);
  clock_authority::ClockAuthority* authority = (*host)->authority();
  ASSERT_OK(authority->Create(
      "g", clock_authority::testing::HumanClockRequest("G/5", v1::EDITION_FIDE_2023), {}));
  ASSERT_OK(authority->Execute("g", clock_authority::testing::Start(), {}));

  const service::testing::SendCommand press =
      service::testing::ExecuteAsync(authority, "g", clock_authority::testing::Press());
  service::testing::ExpectStopWaitsForAppendInFlight(*env->redis, press, press,
                                                     [&] { (*host)->Stop(); });
  host->reset();
}

}  // namespace
}  // namespace clock_authority_service
