// A real redis-server for tests and benchmarks, started and stopped by the test itself: a free
// loopback port, a private data directory, the shipped persistence settings (libs/store/redis.conf,
// AOF on) unless told otherwise. Nothing depends on a server started by hand.
//
//   ASSIGN_OR_RETURN(auto redis, RedisServer::Start());
//   store options: .host = "127.0.0.1", .port = redis->port()
//   redis->Stop(SIGKILL);   // a crash: only what reached the AOF survives
//   redis->Restart();       // same port and directory: replays the AOF
//
// The server is killed with the process that started it (PR_SET_PDEATHSIG, tied to the thread
// that called Start or Restart: call them from the test's main thread) and by the destructor.
#ifndef ARBITER_LIBS_STORE_TESTING_REDIS_SERVER_H_
#define ARBITER_LIBS_STORE_TESTING_REDIS_SERVER_H_

#include <sys/types.h>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace store::testing {

struct RedisServerOptions {
  // The redis-server binary (looked up on PATH, then /usr/bin).
  std::string binary = "redis-server";
  // The configuration file; "" finds libs/store/redis.conf in the runfiles.
  std::string config_path;
  // Overrides the config's appendfsync when set: "always", "everysec" or "no".
  std::string appendfsync;
  // The data directory; "" makes a fresh one under $TEST_TMPDIR (or /tmp).
  std::string dir;
  absl::Duration start_timeout = absl::Seconds(20);
  // Authentication as deployed: when set, the server starts with an ACL file in its data
  // directory made from the store's rules (libs/store/redis-users.acl: the `default` user off,
  // the store's user `arbiter` limited to the commands the store sends and keys arbiter:*) with
  // this password for `arbiter`, plus a test-only `admin` user allowed everything, which
  // Command and the readiness check use. Unauthenticated connections get NOAUTH.
  std::string acl_password;
  // With acl_password: the password of the ACL users `replica` and `sentinel` (redis-users.acl:
  // what a replica's link and a Sentinel may send); "" leaves them without one (unusable).
  std::string replication_password;
  // Appended to the command line (e.g. {"--replicaof", "127.0.0.1", "6379"}).
  std::vector<std::string> extra_args;
  // Runs `redis-server <config_path> --sentinel` (a Sentinel: config_path is its sentinel.conf,
  // which it rewrites; nothing of redis.conf, no AOF). RedisSentinelGroup sets this.
  bool sentinel = false;
  // Without acl_password: the password of the `default` user (a Sentinel's `requirepass`, which
  // its configuration file sets); Command and the readiness check send `AUTH <password>`.
  std::string requirepass;
  // Loads the store's function library (libs/store/redis_functions.lua) once started, as the
  // deployment's administrator does (FUNCTION LOAD REPLACE; with acl_password as the ACL user
  // `functions` of redis-users.acl, the deployment's loader). Not on a replica (--replicaof in
  // extra_args: it gets the library from its master) nor a Sentinel, and not again on Restart
  // (Redis keeps functions in its AOF). false: a Redis no administrator has prepared.
  bool load_functions = true;
  // A clock that is off: "" runs the server on the machine's clock; "+30s" / "-30s" (libfaketime's
  // FAKETIME offset syntax) preloads libfaketime so that its clock, and so Redis TIME, is that far
  // ahead or behind (its monotonic clock is left alone). For the time base across a failover to a
  // master whose clock is off (the package faketime, tools/setup.sh).
  std::string clock_offset;
};

// Whom a command is sent as: AUTH user password on the new connection, or nothing when both
// are empty.
struct RedisCredentials {
  std::string user;
  std::string password;
};

class RedisServer {
 public:
  // Starts redis-server on 127.0.0.1 and a free port and waits until it answers PING.
  static absl::StatusOr<std::unique_ptr<RedisServer>> Start(RedisServerOptions options = {});
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  bool running() const { return pid_ > 0; }

  // Sends `signal` (SIGTERM: a clean shutdown that flushes the AOF; SIGKILL: a crash) and waits
  // for the process to end (SIGKILL after 10 s).
  absl::Status Stop(int signal = SIGTERM);
  // Starts again on the same port and directory after Stop and waits for PING (the AOF is loaded).
  absl::Status Restart();
  // SIGSTOP / SIGCONT: a server that accepts connections but answers nothing.
  absl::Status Pause();
  absl::Status Resume();

  // One command on a new connection; the reply as text (integers in decimal, nil as "(nil)",
  // arrays flattened one element a line). An error reply is an INTERNAL status. With
  // acl_password, sent as the admin user (admin()).
  absl::StatusOr<std::string> Command(const std::vector<std::string>& args) const;
  // The same as `who` (an AUTH refusal is a PERMISSION_DENIED status with Redis's reply).
  absl::StatusOr<std::string> CommandAs(const RedisCredentials& who,
                                        const std::vector<std::string>& args) const;

  // The store's ACL user and its password (acl_password), and the test-only admin; both empty
  // without acl_password.
  RedisCredentials store_user() const;
  RedisCredentials admin() const;
  // Who loads the function library: with acl_password the ACL user `functions` (allowed only
  // FUNCTION LOAD, PING and ROLE), else admin().
  RedisCredentials functions_loader() const;
  // FUNCTION LOAD REPLACE of libs/store/redis_functions.lua as functions_loader().
  absl::Status LoadFunctions() const;

  // The last lines of the server's log, for failure messages.
  std::string LogTail() const;

 private:
  RedisServer(RedisServerOptions options, std::string dir, bool own_dir, int port);
  absl::Status Spawn();
  absl::Status WaitUntilReady();
  // Writes <dir>/users.acl from the store's rules and the passwords (acl_password set).
  absl::Status WriteAclFile() const;

  const RedisServerOptions options_;
  const std::string dir_;
  bool own_dir_;  // made by Start: removed by the destructor unless under TEST_TMPDIR
  const int port_;
  pid_t pid_ = -1;
};

// The shipped configuration in the runfiles of the running binary, or "" if not found.
std::string FindRedisConf();
// The store's ACL rules (libs/store/redis-users.acl) in the runfiles, or "" if not found.
std::string FindRedisUsersAcl();
// The store's function library (libs/store/redis_functions.lua) in the runfiles, or "".
std::string FindRedisFunctions();
// libfaketime's library (the Debian package faketime), or "" if it is not installed.
std::string FindLibFaketime();
// tcmalloc's (gperftools), preloaded with libfaketime (redis_server.cc says why), or "".
std::string FindLibTcmalloc();

}  // namespace store::testing

#endif  // ARBITER_LIBS_STORE_TESTING_REDIS_SERVER_H_
