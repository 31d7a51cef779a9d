#include "libs/store/testing/redis_server.h"

#include <csignal>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
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
  EXPECT_EQ(*redis.Command({"HGET", "arbiter:x", "f"}), "v");                     // still there
  EXPECT_EQ(*redis.Command({"CONFIG", "GET", "appendonly"}), "appendonly\nyes");  // the admin
  ASSERT_TRUE(redis.Stop().ok());
  ASSERT_TRUE(redis.Restart().ok()) << redis.LogTail();
  EXPECT_FALSE(redis.CommandAs({}, {"PING"}).ok());
  EXPECT_EQ(*redis.CommandAs(redis.store_user(), {"HGET", "arbiter:x", "f"}), "v");
}

// The store's password runs no code of its own on Redis: a script that loops (or flushes) is
// refused before it runs, whether sent as EVAL, loaded with SCRIPT LOAD for EVALSHA, or loaded
// as a function; the store's functions, which the loader user put there at start, it may call,
// also after a restart (they are in the AOF). Redis stays responsive: no BUSY.
TEST(RedisServerTest, TheStoresUserCallsTheLoadedFunctionsAndRunsNoCodeOfItsOwn) {
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start({.acl_password = "pw-of-the-store"});
  ASSERT_TRUE(server.ok()) << server.status();
  RedisServer& redis = **server;
  const std::string loop = "local n = 0 while true do n = n + 1 end";
  const std::string busy_library =
      "#!lua name=stall\nredis.register_function('stall', function() " + loop + " end)";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"EVAL", loop, "0"},
           {"EVAL_RO", loop, "0"},
           {"SCRIPT", "LOAD", loop},
           {"SCRIPT", "LOAD", "return redis.call('FLUSHALL')"},
           {"EVALSHA", "0123456789012345678901234567890123456789", "0"},
           {"EVALSHA_RO", "0123456789012345678901234567890123456789", "0"},
           {"SCRIPT", "FLUSH"},
           {"SCRIPT", "KILL"},
           {"FUNCTION", "LOAD", busy_library},
           {"FUNCTION", "LOAD", "REPLACE", busy_library},
           {"FUNCTION", "DELETE", "arbiter_v3"},
           {"FUNCTION", "FLUSH"},
           {"FUNCTION", "RESTORE", "x"},
           {"FUNCTION", "KILL"},
           {"FUNCTION", "LIST"},
           {"FUNCTION", "DUMP"}}) {
    absl::StatusOr<std::string> refused = redis.CommandAs(redis.store_user(), args);
    ASSERT_FALSE(refused.ok()) << absl::StrJoin(args, " ");
    EXPECT_NE(refused.status().message().find("NOPERM"), absl::string_view::npos)
        << absl::StrJoin(args, " ") << ": " << refused.status();
  }
  // The loader may load (and nothing else: not call, not flush, not touch a key).
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"FCALL", "arbiter_v3_version", "0"},
                                             {"FUNCTION", "FLUSH"},
                                             {"FUNCTION", "DELETE", "arbiter_v3"},
                                             {"EVAL", "return 1", "0"},
                                             {"HGET", "arbiter:x", "f"},
                                             {"FLUSHALL"}}) {
    absl::StatusOr<std::string> refused = redis.CommandAs(redis.functions_loader(), args);
    ASSERT_FALSE(refused.ok()) << absl::StrJoin(args, " ");
    EXPECT_NE(refused.status().message().find("NOPERM"), absl::string_view::npos)
        << absl::StrJoin(args, " ") << ": " << refused.status();
  }
  EXPECT_EQ(*redis.Command({"PING"}), "PONG");  // nothing is running
  EXPECT_EQ(*redis.CommandAs(redis.store_user(), {"FCALL_RO", "arbiter_v3_version", "0"}),
            "arbiter_v3");
  EXPECT_EQ(*redis.CommandAs(redis.store_user(), {"FCALL", "arbiter_v3_version", "0"}),
            "arbiter_v3");
  EXPECT_NE(redis.Command({"FUNCTION", "LIST"})->find("arbiter_v3_append"), std::string::npos);
  ASSERT_TRUE(redis.Stop(SIGKILL).ok());
  ASSERT_TRUE(redis.Restart().ok()) << redis.LogTail();
  EXPECT_EQ(*redis.CommandAs(redis.store_user(), {"FCALL_RO", "arbiter_v3_version", "0"}),
            "arbiter_v3");
}

// Without load_functions the server is as Redis starts: no library (what the store's check at
// start reports, redis_failure_test); LoadFunctions loads it, and again (REPLACE) harmlessly.
TEST(RedisServerTest, LoadFunctionsLoadsTheLibraryOnDemand) {
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start({.load_functions = false});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_FALSE((*server)->Command({"FCALL_RO", "arbiter_v3_version", "0"}).ok());
  ASSERT_TRUE((*server)->LoadFunctions().ok());
  ASSERT_TRUE((*server)->LoadFunctions().ok());
  EXPECT_EQ(*(*server)->Command({"FCALL_RO", "arbiter_v3_version", "0"}), "arbiter_v3");
}

}  // namespace
}  // namespace store::testing
