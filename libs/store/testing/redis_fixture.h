// Test fixtures on a real redis-server. WithRedisServer: a redis-server of its own for each test
// (RedisServer, the shipped settings), started in SetUp. `Base` is the gtest base, e.g.
// ::testing::TestWithParam<int>; a derived SetUp calls this one first and returns on a fatal
// failure.
#ifndef ARBITER_LIBS_STORE_TESTING_REDIS_FIXTURE_H_
#define ARBITER_LIBS_STORE_TESTING_REDIS_FIXTURE_H_

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "libs/store/testing/redis_server.h"

namespace store::testing {

template <typename Base = ::testing::Test>
class WithRedisServer : public Base {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisServer>> server = RedisServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  std::unique_ptr<RedisServer> server_;
};

// Redis servers for a whole test binary (one per options given; by default one with the shipped
// settings), started from the main thread before the first test (redis_server.h) and stopped
// after the last. A test file registers it once:
//   [[maybe_unused]] ::testing::Environment* const kRedis =
//       ::testing::AddGlobalTestEnvironment(new store::testing::RedisEnvironment);
class RedisEnvironment : public ::testing::Environment {
 public:
  explicit RedisEnvironment(std::vector<RedisServerOptions> servers = {RedisServerOptions{}})
      : options_(std::move(servers)) {}
  void SetUp() override {
    for (const RedisServerOptions& options : options_) {
      absl::StatusOr<std::unique_ptr<RedisServer>> server = RedisServer::Start(options);
      ASSERT_TRUE(server.ok()) << server.status();
      servers().push_back(std::move(*server));
    }
  }
  void TearDown() override { servers().clear(); }
  // The i-th server (in the order of the options), or null if it did not start.
  static RedisServer* server(size_t i = 0) {
    return i < servers().size() ? servers()[i].get() : nullptr;
  }

 private:
  static std::vector<std::unique_ptr<RedisServer>>& servers() {
    static auto* started = new std::vector<std::unique_ptr<RedisServer>>();
    return *started;
  }
  const std::vector<RedisServerOptions> options_;
};

}  // namespace store::testing

#endif  // ARBITER_LIBS_STORE_TESTING_REDIS_FIXTURE_H_
