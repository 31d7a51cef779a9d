// Redis closed to strangers: a real redis-server on loopback started as deployed (the `default`
// user off, the store's ACL user `arbiter` limited to the store's commands and keys, its password
// in a file), and the clock-authority server started with --store=redis://arbiter@host:port and
// --store_password_file:
// - the server works through the ACL user: clocks are created, started, pressed, and its
//   scheduler records a flag (functions, deadline index, TIME: every command the store sends);
// - a connection without AUTH is refused (NOAUTH), and so is the store without credentials;
// - FLUSHALL, CONFIG, KEYS, ... are refused to the store's user (NOPERM), and so is any code of
//   its own (EVAL, SCRIPT LOAD, FUNCTION LOAD): it calls the functions an administrator loaded;
// - a Redis without those functions stops the server at start (ERR_STORE_FUNCTIONS_MISSING);
// - a wrong password stops the server at start with ERR_STORE_AUTH naming the user, never the
//   password; a missing password file or a password in the URL with ERR_BAD_FLAG.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "libs/base/error.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/testing/redis_server.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "tests/integration/clock_process.h"

namespace {

namespace v1 = arbiter::v1;
using store::testing::RedisServer;

constexpr char kPassword[] = "correct-horse-battery-staple-0123456789";

std::string WriteFile(const std::string& name, const std::string& content) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  std::ofstream(path, std::ios::trunc) << content;
  return path;
}

class RedisAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisServer>> redis =
        RedisServer::Start({.acl_password = kPassword});
    ASSERT_TRUE(redis.ok()) << redis.status();
    redis_ = std::move(*redis);
    // As a Kubernetes Secret mounts it: the password and a newline.
    password_file_ = WriteFile("redis-password", absl::StrCat(kPassword, "\n"));
    binary_ = testing_util::FindRunfile("services/clock_authority/clock_authority_server");
  }
  std::string Url(const std::string& user) const {
    return absl::StrCat("redis://", user, user.empty() ? "" : "@", "127.0.0.1:", redis_->port());
  }
  std::vector<std::string> Flags(const std::string& store, const std::string& password_file) {
    std::vector<std::string> flags = {absl::StrCat("--store=", store), "--insecure_dev",
                                      "--metrics_address=none", "--shutdown_grace=0s"};
    if (!password_file.empty()) {
      flags.push_back(absl::StrCat("--store_password_file=", password_file));
    }
    return flags;
  }
  // The store in this process, as the server opens it (the URL with its password file).
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> OpenStore(const std::string& url) {
    absl::StatusOr<store::RedisConnectionOptions> connection = store::ParseRedisUrl(url);
    if (!connection.ok()) return connection.status();
    store::RedisGameStoreOptions options;
    options.connection = *connection;
    options.connection.connect_timeout = absl::Seconds(2);
    return store::RedisGameStore::Create(options);
  }

  std::unique_ptr<RedisServer> redis_;
  std::string password_file_;
  std::string binary_;
};

TEST_F(RedisAuthTest, TheServerWorksThroughTheAclUser) {
  auto server = testing_util::ServerProcess::Start(binary_, Flags(Url("arbiter"), password_file_));
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::ClockAuthority::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", (*server)->grpc_port()), grpc::InsecureChannelCredentials()));
  auto call = [&](auto&& rpc) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ClockResponse resp;
    grpc::Status st = rpc(&ctx, &resp);
    EXPECT_TRUE(st.ok()) << st.error_message() << "\n" << (*server)->Log();
    return resp;
  };
  v1::CreateClockRequest create;
  create.set_game_id("acl-1");
  create.set_time_control_human("G/0.05");  // 3 s each
  create.set_edition(v1::EDITION_FIDE_2005);
  create.set_game_type(v1::GAME_TYPE_STANDARD);
  call([&](grpc::ClientContext* ctx, v1::ClockResponse* r) {
    return stub->CreateClock(ctx, create, r);
  });
  v1::StartClockRequest start;
  start.set_game_id("acl-1");
  call([&](grpc::ClientContext* ctx, v1::ClockResponse* r) {
    return stub->StartClock(ctx, start, r);
  });
  v1::PressClockRequest press;
  press.set_game_id("acl-1");
  press.set_color(v1::COLOR_WHITE);
  const v1::ClockResponse pressed = call([&](grpc::ClientContext* ctx, v1::ClockResponse* r) {
    return stub->PressClock(ctx, press, r);
  });
  ASSERT_EQ(pressed.version(), 3);
  // Black's flag falls about 3 s later: the scheduler (claim script, TIME, the flag's append)
  // records it through the same user.
  v1::GetClockRequest get;
  get.set_game_id("acl-1");
  std::int64_t version = 0;
  const absl::Time deadline = absl::Now() + absl::Seconds(15);
  while (absl::Now() < deadline && version < 4) {
    absl::SleepFor(absl::Milliseconds(200));
    version = call([&](grpc::ClientContext* ctx, v1::ClockResponse* r) {
                return stub->GetClock(ctx, get, r);
              }).version();
  }
  EXPECT_EQ(version, 4) << "the flag was not recorded:\n" << (*server)->Log();
  // What the server wrote is under the store's keys (read as the test's admin).
  absl::StatusOr<std::string> deadlines = redis_->Command({"KEYS", "arbiter:*:log:acl-1"});
  ASSERT_TRUE(deadlines.ok()) << deadlines.status();
  EXPECT_NE(*deadlines, "");
  (*server)->Kill(SIGTERM);
}

TEST_F(RedisAuthTest, TheStoreInProcessWorksWithTheUrlAndPasswordFile) {
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      OpenStore(absl::StrCat(Url("arbiter"), "?password_file=", password_file_));
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::int64_t> now = (*store)->NowMs();
  EXPECT_TRUE(now.ok()) << now.status();
}

TEST_F(RedisAuthTest, AConnectionWithoutAuthIsRefused) {
  absl::StatusOr<std::string> ping = redis_->CommandAs({}, {"PING"});
  ASSERT_FALSE(ping.ok());
  EXPECT_TRUE(absl::StrContains(ping.status().message(), "NOAUTH")) << ping.status();
  absl::StatusOr<std::string> write = redis_->CommandAs({}, {"HSET", "arbiter:x", "f", "v"});
  EXPECT_FALSE(write.ok());
  // The store without credentials: UNAVAILABLE, ERR_STORE_AUTH.
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store = OpenStore(Url(""));
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::int64_t> now = (*store)->NowMs();
  EXPECT_EQ(now.status().code(), absl::StatusCode::kUnavailable) << now.status();
  EXPECT_EQ(base::ErrorCode(now.status()), "ERR_STORE_AUTH") << now.status();
}

TEST_F(RedisAuthTest, FlushallConfigAndOtherAdminCommandsAreRefusedToTheStoresUser) {
  ASSERT_TRUE(redis_->CommandAs(redis_->store_user(), {"HSET", "arbiter:keep", "f", "v"}).ok());
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"FLUSHALL"},
           {"FLUSHDB"},
           {"CONFIG", "SET", "appendfsync", "no"},
           {"CONFIG", "GET", "*"},
           {"KEYS", "*"},
           {"SHUTDOWN", "NOSAVE"},
           {"ACL", "SETUSER", "arbiter", "+@all"},
           {"DEL", "arbiter:keep"},
           {"EVAL", "return redis.call('FLUSHALL')", "0"},
           {"SCRIPT", "FLUSH"},
           {"EVALSHA", "0123456789012345678901234567890123456789", "0"},
           {"FUNCTION", "FLUSH"},
           {"REPLICAOF", "10.0.0.1", "6379"},
           {"MIGRATE", "10.0.0.1", "6379", "arbiter:keep", "0", "1000"},
           {"HSET", "elsewhere", "f", "v"}}) {
    absl::StatusOr<std::string> refused = redis_->CommandAs(redis_->store_user(), args);
    ASSERT_FALSE(refused.ok()) << args[0] << " was allowed";
    EXPECT_TRUE(absl::StrContains(refused.status().message(), "NOPERM"))
        << args[0] << ": " << refused.status();
  }
  // It runs no code of its own: no script is loaded, as a script or as a function.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"SCRIPT", "LOAD", "return redis.call('FLUSHALL')"},
           {"FUNCTION", "LOAD",
            "#!lua name=x\nredis.register_function('x', function() return 1 end)"}}) {
    absl::StatusOr<std::string> refused = redis_->CommandAs(redis_->store_user(), args);
    ASSERT_FALSE(refused.ok()) << args[0] << " was allowed";
    EXPECT_TRUE(absl::StrContains(refused.status().message(), "NOPERM")) << refused.status();
  }
  EXPECT_EQ(*redis_->Command({"HGET", "arbiter:keep", "f"}), "v");
  // The store's error for a refused command: UNAVAILABLE, ERR_STORE_AUTH (not "internal").
  store::RedisClient client({.port = redis_->port(),
                             .user = redis_->store_user().user,
                             .password = redis_->store_user().password});
  absl::StatusOr<store::RedisReplyPtr> reply = client.Command({"FLUSHALL"});
  ASSERT_TRUE(reply.ok()) << reply.status();
  absl::Status refused = client.ReplyStatus(**reply);
  EXPECT_EQ(base::ErrorCode(refused), "ERR_STORE_AUTH") << refused;
}

TEST_F(RedisAuthTest, AWrongPasswordStopsTheServerAtStart) {
  const std::string wrong = WriteFile("wrong-password", "not-the-password-42\n");
  auto server =
      testing_util::ServerProcess::Start(binary_, Flags(Url("arbiter"), wrong), absl::Seconds(20));
  ASSERT_FALSE(server.ok()) << "started with a wrong password";
  const std::string log(server.status().message());
  EXPECT_TRUE(absl::StrContains(log, "ERR_STORE_AUTH")) << log;
  EXPECT_TRUE(absl::StrContains(log, "WRONGPASS")) << log;
  EXPECT_TRUE(absl::StrContains(log, "'arbiter'")) << log;
  EXPECT_FALSE(absl::StrContains(log, "not-the-password-42")) << log;
  // In process: the same code, UNAVAILABLE.
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      OpenStore(absl::StrCat(Url("arbiter"), "?password_file=", wrong));
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::int64_t> now = (*store)->NowMs();
  EXPECT_EQ(now.status().code(), absl::StatusCode::kUnavailable) << now.status();
  EXPECT_EQ(base::ErrorCode(now.status()), "ERR_STORE_AUTH") << now.status();
}

// A Redis that answers without the store's functions (no administrator loaded them) stops the
// server at start with ERR_STORE_FUNCTIONS_MISSING naming the library; once they are loaded it
// starts.
TEST_F(RedisAuthTest, ARedisWithoutTheFunctionsStopsTheServerAtStart) {
  absl::StatusOr<std::unique_ptr<RedisServer>> bare =
      RedisServer::Start({.acl_password = kPassword, .load_functions = false});
  ASSERT_TRUE(bare.ok()) << bare.status();
  const std::string url = absl::StrCat("redis://arbiter@127.0.0.1:", (*bare)->port());
  auto server =
      testing_util::ServerProcess::Start(binary_, Flags(url, password_file_), absl::Seconds(20));
  ASSERT_FALSE(server.ok()) << "started without the store's functions";
  const std::string log(server.status().message());
  EXPECT_TRUE(absl::StrContains(log, "ERR_STORE_FUNCTIONS_MISSING")) << log;
  EXPECT_TRUE(absl::StrContains(log, "arbiter_v3")) << log;
  ASSERT_TRUE((*bare)->LoadFunctions().ok());
  server =
      testing_util::ServerProcess::Start(binary_, Flags(url, password_file_), absl::Seconds(20));
  EXPECT_TRUE(server.ok()) << server.status();
}

TEST_F(RedisAuthTest, BadCredentialFlagsStopTheServerAtStart) {
  // A user without a password file; a missing file; a password in the URL (never echoed).
  for (const auto& [store, file] : std::vector<std::pair<std::string, std::string>>{
           {Url("arbiter"), ""},
           {Url("arbiter"), "/nonexistent/redis-password"},
           {absl::StrCat("redis://arbiter:", kPassword, "@127.0.0.1:", redis_->port()), ""},
           {"memory", password_file_}}) {
    auto server = testing_util::ServerProcess::Start(binary_, Flags(store, file));
    ASSERT_FALSE(server.ok()) << store << " " << file;
    const std::string log(server.status().message());
    EXPECT_TRUE(absl::StrContains(log, "ERR_BAD_FLAG")) << log;
    EXPECT_FALSE(absl::StrContains(log, kPassword)) << log;
  }
}

}  // namespace
