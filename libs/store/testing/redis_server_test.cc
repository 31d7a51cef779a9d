#include "libs/store/testing/redis_server.h"

#include <csignal>
#include <string>
#include <vector>

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

// Authentication as deployed: nothing without AUTH, the store's user limited to the store's
// commands and keys, the test-only admin allowed everything; the same after a restart.
TEST(RedisServerTest, AclPasswordStartsWithTheStoresAclUser) {
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start({.acl_password = "pw-of-the-store"});
  ASSERT_TRUE(server.ok()) << server.status();
  RedisServer& redis = **server;
  EXPECT_EQ(redis.store_user().user, "arbiter");
  EXPECT_EQ(redis.store_user().password, "pw-of-the-store");
  absl::StatusOr<std::string> anonymous = redis.CommandAs({}, {"PING"});
  ASSERT_FALSE(anonymous.ok());
  EXPECT_NE(anonymous.status().message().find("NOAUTH"), absl::string_view::npos)
      << anonymous.status();
  absl::StatusOr<std::string> wrong = redis.CommandAs({"arbiter", "not-the-password"}, {"PING"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kPermissionDenied) << wrong.status();
  EXPECT_EQ(*redis.CommandAs(redis.store_user(), {"PING"}), "PONG");
  EXPECT_TRUE(redis.CommandAs(redis.store_user(), {"HSET", "arbiter:x", "f", "v"}).ok());
  // Outside its keys, or a command the store never sends: NOPERM.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"HSET", "other:x", "f", "v"},
                                             {"FLUSHALL"},
                                             {"FLUSHDB"},
                                             {"CONFIG", "SET", "appendonly", "no"},
                                             {"KEYS", "*"},
                                             {"DEBUG", "SLEEP", "0"},
                                             {"SHUTDOWN", "NOSAVE"},
                                             {"DEL", "arbiter:x"},
                                             {"EVAL", "return 1", "0"},
                                             {"SCRIPT", "FLUSH"},
                                             {"ACL", "SETUSER", "arbiter", "+@all"},
                                             {"SET", "arbiter:y", "v"}}) {
    absl::StatusOr<std::string> refused = redis.CommandAs(redis.store_user(), args);
    ASSERT_FALSE(refused.ok()) << args[0];
    // DEBUG is off for everyone (enable-debug-command no): refused before the ACL is consulted.
    if (args[0] != "DEBUG") {
      EXPECT_NE(refused.status().message().find("NOPERM"), absl::string_view::npos)
          << args[0] << ": " << refused.status();
    }
  }
  // A script may call only what the user may: loaded, but refused when run.
  absl::StatusOr<std::string> sha =
      redis.CommandAs(redis.store_user(), {"SCRIPT", "LOAD", "return redis.call('FLUSHALL')"});
  ASSERT_TRUE(sha.ok()) << sha.status();
  EXPECT_FALSE(redis.CommandAs(redis.store_user(), {"EVALSHA", *sha, "0"}).ok());
  EXPECT_EQ(*redis.Command({"HGET", "arbiter:x", "f"}), "v");                     // still there
  EXPECT_EQ(*redis.Command({"CONFIG", "GET", "appendonly"}), "appendonly\nyes");  // the admin
  ASSERT_TRUE(redis.Stop().ok());
  ASSERT_TRUE(redis.Restart().ok()) << redis.LogTail();
  EXPECT_FALSE(redis.CommandAs({}, {"PING"}).ok());
  EXPECT_EQ(*redis.CommandAs(redis.store_user(), {"HGET", "arbiter:x", "f"}), "v");
}

}  // namespace
}  // namespace store::testing
