#include "libs/store/testing/redis_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "libs/store/redis_client.h"

namespace store::testing {
namespace {

absl::Status Internal(absl::string_view message) { return absl::InternalError(message); }

// Binds 127.0.0.1:port (0: any) and returns the port bound, released again at once.
absl::StatusOr<int> BindLoopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Internal(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    absl::Status s = Internal(absl::StrCat("bind 127.0.0.1:", port, ": ", std::strerror(errno)));
    close(fd);
    return s;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

// A port the kernel just handed out for 127.0.0.1 and that nobody listens on. Another process
// could take it before redis-server binds it; Start then fails with the log saying so. A cluster
// node also listens on its bus port, 10000 above its own (so its own must be at most 55535): that
// one must be free as well.
absl::StatusOr<int> FreeLoopbackPort(bool cluster_node) {
  constexpr int kBusOffset = 10000;
  for (int attempt = 0; attempt < 64; ++attempt) {
    absl::StatusOr<int> port = BindLoopback(0);
    if (!port.ok() || !cluster_node) return port;
    if (*port + kBusOffset > 65535) continue;
    if (BindLoopback(*port + kBusOffset).ok()) return port;
  }
  return Internal("no free loopback port for a cluster node and its bus port");
}

bool Exists(const std::string& path) { return !path.empty() && access(path.c_str(), R_OK) == 0; }

void FlattenReply(const redisReply& r, std::vector<std::string>& out) {
  switch (r.type) {
    case REDIS_REPLY_INTEGER:
      out.push_back(absl::StrCat(r.integer));
      break;
    case REDIS_REPLY_NIL:
      out.push_back("(nil)");
      break;
    case REDIS_REPLY_ARRAY:
      for (size_t i = 0; i < r.elements; ++i) FlattenReply(*r.element[i], out);
      break;
    default:
      out.emplace_back(r.str, r.len);
  }
}

constexpr char kAdminUser[] = "admin";
constexpr char kStoreUser[] = "arbiter";
constexpr char kFunctionsUser[] = "functions";

// AUTH [user] password on `c`: "" when accepted, else the reason.
std::string Authenticate(redisContext* c, const RedisCredentials& who) {
  if (who.user.empty() && who.password.empty()) return "";
  store::RedisReplyPtr reply = store::SendAuth(c, who.user, who.password);
  if (reply == nullptr) return absl::StrCat("AUTH: ", c->errstr);
  if (reply->type == REDIS_REPLY_ERROR) return std::string(reply->str, reply->len);
  return "";
}

std::string FindStoreFile(const std::string& name) {
  const std::string rel = absl::StrCat("arbiter/libs/store/", name);
  for (const char* env : {"TEST_SRCDIR", "RUNFILES_DIR"}) {
    if (const char* dir = std::getenv(env); dir != nullptr) {
      if (std::string p = absl::StrCat(dir, "/", rel); Exists(p)) return p;
    }
  }
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    if (std::string p = absl::StrCat(exe.string(), ".runfiles/", rel); Exists(p)) return p;
  }
  // `bazel run` starts in the runfiles' workspace directory.
  if (std::string p = absl::StrCat("libs/store/", name); Exists(p)) {
    return std::filesystem::absolute(p).string();
  }
  return "";
}

}  // namespace

std::string FindRedisConf() { return FindStoreFile("redis.conf"); }

std::string FindRedisUsersAcl() { return FindStoreFile("redis-users.acl"); }

std::string FindRedisFunctions() { return FindStoreFile("redis_functions.lua"); }

RedisCredentials RedisServer::store_user() const {
  if (options_.acl_password.empty()) return {};
  return {kStoreUser, options_.acl_password};
}

RedisCredentials RedisServer::admin() const {
  if (options_.acl_password.empty()) return {"", options_.requirepass};
  return {kAdminUser, absl::StrCat("admin-of-", port_, "-", options_.acl_password)};
}

RedisCredentials RedisServer::functions_loader() const {
  if (options_.acl_password.empty()) return admin();
  return {kFunctionsUser, absl::StrCat("functions-", options_.acl_password)};
}

absl::Status RedisServer::LoadFunctions() const {
  const std::string path = FindRedisFunctions();
  std::ifstream in(path);
  if (path.empty() || !in) {
    return Internal("libs/store/redis_functions.lua not found: add it to the target's data");
  }
  std::stringstream library;
  library << in.rdbuf();
  absl::StatusOr<std::string> loaded =
      CommandAs(functions_loader(), {"FUNCTION", "LOAD", "REPLACE", library.str()});
  if (!loaded.ok()) {
    return Internal(absl::StrCat("FUNCTION LOAD ", path, ": ", loaded.status().message()));
  }
  return absl::OkStatus();
}

absl::Status RedisServer::WriteAclFile() const {
  const std::string rules_path = FindRedisUsersAcl();
  std::ifstream rules(rules_path);
  if (rules_path.empty() || !rules) {
    return Internal("libs/store/redis-users.acl not found: add it to the target's data");
  }
  if ((options_.acl_password + options_.replication_password).find_first_of(" \t\r\n") !=
      std::string::npos) {
    return Internal("acl_password: no whitespace (an ACL file splits on it)");
  }
  std::ofstream out(absl::StrCat(dir_, "/users.acl"), std::ios::trunc);
  std::string line;
  bool found = false;
  while (std::getline(rules, line)) {
    if (absl::StartsWith(line, absl::StrCat("user ", kStoreUser, " "))) {
      absl::StrAppend(&line, " >", options_.acl_password);
      found = true;
    } else if (absl::StartsWith(line, absl::StrCat("user ", kFunctionsUser, " "))) {
      absl::StrAppend(&line, " >", functions_loader().password);
    } else if (!options_.replication_password.empty() &&
               (absl::StartsWith(line, "user replica ") ||
                absl::StartsWith(line, "user sentinel "))) {
      absl::StrAppend(&line, " >", options_.replication_password);
    }
    out << line << "\n";
  }
  out << "user " << kAdminUser << " on >" << admin().password << " ~* &* +@all\n";
  out.close();
  if (!found) return Internal(absl::StrCat(rules_path, " has no line for user ", kStoreUser));
  if (!out) return Internal(absl::StrCat("cannot write ", dir_, "/users.acl"));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<RedisServer>> RedisServer::Start(RedisServerOptions options) {
  if (options.config_path.empty()) options.config_path = FindRedisConf();
  if (!Exists(options.config_path)) {
    return Internal("libs/store/redis.conf not found: add it to the target's data");
  }
  std::string dir = options.dir;
  bool own_dir = false;
  if (dir.empty()) {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/redis.XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      return Internal(absl::StrCat("mkdtemp ", pattern, ": ", std::strerror(errno)));
    }
    dir = pattern;
    own_dir = true;
  }
  absl::Status last = absl::OkStatus();
  const bool cluster_node = absl::c_linear_search(options.extra_args, "--cluster-enabled");
  for (int attempt = 0; attempt < 3; ++attempt) {  // the free port may be taken meanwhile
    absl::StatusOr<int> port = FreeLoopbackPort(cluster_node);
    if (!port.ok()) return port.status();
    std::unique_ptr<RedisServer> server(new RedisServer(options, dir, own_dir, *port));
    last = server->Spawn();
    if (last.ok()) last = server->WaitUntilReady();
    const bool replica = absl::c_linear_search(options.extra_args, "--replicaof");
    if (last.ok() && options.load_functions && !options.sentinel && !replica) {
      last = server->LoadFunctions();
    }
    if (last.ok()) return server;
    server->own_dir_ = false;  // the next attempt reuses the directory
    server->Stop(SIGKILL).IgnoreError();
  }
  return last;
}

std::string FindLibTcmalloc() {
  for (const char* path : {"/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4",
                           "/usr/lib/aarch64-linux-gnu/libtcmalloc_minimal.so.4"}) {
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

std::string FindLibFaketime() {
  for (const char* path : {"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                           "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
                           "/usr/lib/faketime/libfaketime.so.1"}) {
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

RedisServer::RedisServer(RedisServerOptions options, std::string dir, bool own_dir, int port)
    : options_(std::move(options)), dir_(std::move(dir)), own_dir_(own_dir), port_(port) {}

RedisServer::~RedisServer() {
  if (running()) Stop(SIGKILL).IgnoreError();
  if (own_dir_ && std::getenv("TEST_TMPDIR") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

absl::Status RedisServer::Spawn() {
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::string> args = {options_.binary, options_.config_path};
  if (options_.sentinel) args.push_back("--sentinel");
  args.insert(args.end(), {"--port", absl::StrCat(port_), "--bind", "127.0.0.1", "--dir", dir_,
                           "--logfile", absl::StrCat(dir_, "/redis.log"), "--daemonize", "no"});
  if (!options_.sentinel) args.insert(args.end(), {"--appendonly", "yes"});
  if (!options_.acl_password.empty()) {
    if (absl::Status s = WriteAclFile(); !s.ok()) return s;
    args.insert(args.end(), {"--aclfile", absl::StrCat(dir_, "/users.acl")});
  }
  if (!options_.appendfsync.empty()) {
    args.insert(args.end(), {"--appendfsync", options_.appendfsync});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The child's environment, built here too (setenv after fork is not async-signal-safe).
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  if (!options_.clock_offset.empty()) {
    const std::string faketime = FindLibFaketime();
    if (faketime.empty()) {
      return Internal(
          "a clock offset needs libfaketime (apt-get install faketime: tools/setup.sh)");
    }
    // Debian's redis-server allocates with jemalloc, whose start calls clock_gettime while
    // libfaketime is still starting (it recurses, and the server dies before its first log
    // line): another allocator preloaded before it, tcmalloc (gperftools, which tools/setup.sh
    // installs), keeps jemalloc out of it.
    const std::string allocator = FindLibTcmalloc();
    env.push_back(absl::StrCat("LD_PRELOAD=", allocator.empty() ? "" : allocator + " ", faketime));
    env.push_back(absl::StrCat("FAKETIME=", options_.clock_offset));
    env.push_back("FAKETIME_DONT_FAKE_MONOTONIC=1");
    env.push_back("FAKETIME_NO_CACHE=1");
  }
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string fallback = "/usr/bin/redis-server";
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return Internal(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, STDIN_FILENO);
      dup2(devnull, STDOUT_FILENO);
    }
    execvpe(argv[0], argv.data(), envp.data());
    execve(fallback.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  pid_ = pid;
  return absl::OkStatus();
}

absl::Status RedisServer::WaitUntilReady() {
  const absl::Time deadline = absl::Now() + options_.start_timeout;
  std::string last_error = "no answer";
  while (absl::Now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Internal(absl::StrCat("redis-server exited (status ", status, ") on port ", port_,
                                   "; log:\n", LogTail()));
    }
    redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, {0, 200'000});
    if (c != nullptr && c->err == 0) {
      redisSetTimeout(c, {1, 0});
      if (std::string refused = Authenticate(c, admin()); !refused.empty()) {
        last_error = refused;  // e.g. LOADING
        redisFree(c);
        absl::SleepFor(absl::Milliseconds(5));
        continue;
      }
      auto* reply = static_cast<redisReply*>(redisCommand(c, "PING"));
      if (reply != nullptr) {
        const bool pong = reply->type == REDIS_REPLY_STATUS && std::string(reply->str) == "PONG";
        last_error = std::string(reply->str, reply->len);  // e.g. LOADING while reading the AOF
        freeReplyObject(reply);
        if (pong) {
          redisFree(c);
          return absl::OkStatus();
        }
      }
    } else if (c != nullptr) {
      last_error = c->errstr;
    }
    if (c != nullptr) redisFree(c);
    absl::SleepFor(absl::Milliseconds(5));
  }
  return Internal(absl::StrCat("redis-server on port ", port_, " did not answer PING within ",
                               absl::FormatDuration(options_.start_timeout), " (", last_error,
                               "); log:\n", LogTail()));
}

absl::Status RedisServer::Stop(int signal) {
  if (!running()) return absl::OkStatus();
  kill(pid_, SIGCONT);  // a paused server cannot act on SIGTERM
  kill(pid_, signal);
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (true) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) break;
    if (absl::Now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
  pid_ = -1;
  return absl::OkStatus();
}

absl::Status RedisServer::Restart() {
  if (running()) return absl::FailedPreconditionError("Restart needs a stopped server");
  if (absl::Status s = Spawn(); !s.ok()) return s;
  return WaitUntilReady();
}

absl::Status RedisServer::Pause() {
  if (!running() || kill(pid_, SIGSTOP) != 0) return Internal("cannot pause redis-server");
  return absl::OkStatus();
}

absl::Status RedisServer::Resume() {
  if (!running() || kill(pid_, SIGCONT) != 0) return Internal("cannot resume redis-server");
  return absl::OkStatus();
}

absl::StatusOr<std::string> RedisServer::Command(const std::vector<std::string>& args) const {
  return CommandAs(admin(), args);
}

absl::StatusOr<std::string> RedisServer::CommandAs(const RedisCredentials& who,
                                                   const std::vector<std::string>& args) const {
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, {2, 0});
  if (c == nullptr || c->err != 0) {
    std::string error = c != nullptr ? c->errstr : "out of memory";
    if (c != nullptr) redisFree(c);
    return absl::UnavailableError(absl::StrCat("connect 127.0.0.1:", port_, ": ", error));
  }
  redisSetTimeout(c, {10, 0});
  if (std::string refused = Authenticate(c, who); !refused.empty()) {
    redisFree(c);
    return absl::PermissionDeniedError(refused);
  }
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()));
  if (reply == nullptr) {
    std::string error = c->errstr;
    redisFree(c);
    return absl::UnavailableError(absl::StrCat(args[0], ": ", error));
  }
  absl::StatusOr<std::string> out;
  if (reply->type == REDIS_REPLY_ERROR) {
    out = Internal(std::string(reply->str, reply->len));
  } else {
    std::vector<std::string> lines;
    FlattenReply(*reply, lines);
    out = absl::StrJoin(lines, "\n");
  }
  freeReplyObject(reply);
  redisFree(c);
  return out;
}

std::string RedisServer::LogTail() const {
  std::ifstream in(absl::StrCat(dir_, "/redis.log"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<std::string> lines = absl::StrSplit(ss.str(), '\n');
  const size_t keep = 20;
  if (lines.size() > keep) lines.erase(lines.begin(), lines.end() - keep);
  return absl::StrJoin(lines, "\n");
}

}  // namespace store::testing
