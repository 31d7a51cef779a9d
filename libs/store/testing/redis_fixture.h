// A test fixture with a redis-server of its own for each test (RedisServer, the shipped
// settings), started in SetUp. `Base` is the gtest base, e.g. ::testing::TestWithParam<int>; a
// derived SetUp calls this one first and returns on a fatal failure.
#ifndef ARBITER_LIBS_STORE_TESTING_REDIS_FIXTURE_H_
#define ARBITER_LIBS_STORE_TESTING_REDIS_FIXTURE_H_

#include <memory>
#include <utility>

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

}  // namespace store::testing

#endif  // ARBITER_LIBS_STORE_TESTING_REDIS_FIXTURE_H_
