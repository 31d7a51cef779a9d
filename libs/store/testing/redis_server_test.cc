#include "libs/store/testing/redis_server.h"

#include <csignal>

#include "gtest/gtest.h"

namespace store::testing {
namespace {

TEST(RedisServerTest, StartsWithAofOnAndSurvivesAKill) {
  absl::StatusOr<std::unique_ptr<RedisServer>> server = RedisServer::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  RedisServer& redis = **server;
  EXPECT_GT(redis.port(), 0);
  EXPECT_EQ(*redis.Command({"PING"}), "PONG");
  EXPECT_EQ(*redis.Command({"CONFIG", "GET", "appendonly"}), "appendonly\nyes");
  EXPECT_EQ(*redis.Command({"SET", "k", "v"}), "OK");
  ASSERT_TRUE(redis.Stop(SIGKILL).ok());
  EXPECT_FALSE(redis.running());
  EXPECT_FALSE(redis.Command({"PING"}).ok());
  ASSERT_TRUE(redis.Restart().ok()) << redis.LogTail();
  EXPECT_EQ(*redis.Command({"GET", "k"}), "v");  // replayed from the AOF
  EXPECT_FALSE(redis.Command({"NOSUCHCOMMAND"}).ok());
}

TEST(RedisServerTest, OverridesAppendfsync) {
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start({.appendfsync = "everysec"});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ(*(*server)->Command({"CONFIG", "GET", "appendfsync"}), "appendfsync\neverysec");
}

TEST(RedisServerTest, TwoServersGetTwoPorts) {
  absl::StatusOr<std::unique_ptr<RedisServer>> a = RedisServer::Start();
  absl::StatusOr<std::unique_ptr<RedisServer>> b = RedisServer::Start();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->port(), (*b)->port());
  EXPECT_NE((*a)->dir(), (*b)->dir());
}

}  // namespace
}  // namespace store::testing
