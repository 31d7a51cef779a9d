#include "libs/service/testing/env_on_redis.h"

#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/status_macros.h"
#include "libs/base/status_matchers.h"

namespace service::testing {

absl::StatusOr<EnvOnRedis> StartEnvOnRedis() {
  EnvOnRedis out;
  ASSIGN_OR_RETURN(out.redis, store::testing::RedisServer::Start());
  out.config.insecure_dev = true;
  out.config.metrics_address = "none";
  out.config.log_level = "warning";
  out.config.store = absl::StrCat("redis://127.0.0.1:", out.redis->port());
  ASSIGN_OR_RETURN(out.env, ServiceEnv::Create(out.config));
  return out;
}

void ExpectStopWaitsForAppendInFlight(store::testing::RedisServer& redis,
                                      const SendCommand& in_flight, const SendCommand& after_stop,
                                      const std::function<void()>& stop) {
  // Redis stops answering: the command (on the cached state) is sent and waits for its reply.
  ASSERT_OK(redis.Pause());
  absl::Notification answered;
  in_flight([&](bool) { answered.Notify(); });
  std::thread resume([&] {
    absl::SleepFor(absl::Milliseconds(300));
    EXPECT_OK(redis.Resume());
  });
  stop();
  // Stop returned only once the answer had come (before, it returned at once, and the answer
  // later ran into the destroyed authority).
  EXPECT_TRUE(answered.HasBeenNotified());
  resume.join();
  // Nothing more is sent once stopped: a late command is refused, not left in flight.
  absl::Notification refused;
  after_stop([&](bool ok) {
    EXPECT_FALSE(ok);
    refused.Notify();
  });
  EXPECT_TRUE(refused.HasBeenNotified());
}

}  // namespace service::testing
