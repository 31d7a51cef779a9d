// What the hosts' tests share: a service environment whose store is a redis-server started for the
// test, and the check that a host's Stop waits for the append still in flight (the Redis store
// answers it on its own thread, into the authority, its observers and the service's reply; a host
// torn down before would have that answer run into destroyed objects).
//
//   absl::StatusOr<service::testing::EnvOnRedis> env = service::testing::StartEnvOnRedis();
//   ASSERT_OK(env);
//   auto host = *MyHost::Create(env->config, env->env.get(), options);
//   service::testing::ExpectStopWaitsForAppendInFlight(*env->redis, send, send, [&] { host->Stop();
//   });
#ifndef ARBITER_LIBS_SERVICE_TESTING_ENV_ON_REDIS_H_
#define ARBITER_LIBS_SERVICE_TESTING_ENV_ON_REDIS_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "libs/service/server.h"
#include "libs/store/testing/redis_server.h"

namespace service::testing {

struct EnvOnRedis {
  std::unique_ptr<store::testing::RedisServer> redis;
  ServerConfig config;  // insecure, no metrics exposer, store = the redis-server
  std::unique_ptr<ServiceEnv> env;
};

// Starts a redis-server and a ServiceEnv on it.
absl::StatusOr<EnvOnRedis> StartEnvOnRedis();

// Sends one command without waiting (`send`: its callback runs with whether it succeeded).
using SendCommand = std::function<void(std::function<void(bool ok)> answered)>;

// A SendCommand of an authority's ExecuteAsync (arbitration's or the clock's) of `command` on
// `game_id`, its work run on the caller's thread.
template <typename Authority, typename Command>
SendCommand ExecuteAsync(Authority* authority, std::string game_id, Command command) {
  return [=](std::function<void(bool)> answered) {
    authority->ExecuteAsync(
        game_id, command, {}, [](std::function<void()> work) { work(); },
        [answered](const auto& result) { answered(result.ok()); });
  };
}

// With Redis paused, sends `in_flight` and stops the host (`stop`) while Redis resumes 300 ms
// later; expects that Stop returned only once the command was answered, and that `after_stop`,
// sent once stopped, is refused at once rather than left in flight.
void ExpectStopWaitsForAppendInFlight(store::testing::RedisServer& redis,
                                      const SendCommand& in_flight, const SendCommand& after_stop,
                                      const std::function<void()>& stop);

}  // namespace service::testing

#endif  // ARBITER_LIBS_SERVICE_TESTING_ENV_ON_REDIS_H_
