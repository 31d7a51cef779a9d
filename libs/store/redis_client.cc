#include "libs/store/redis_client.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "libs/base/error.h"
#include "libs/store/game_store.h"

namespace store {

RedisReplyPtr SendAuth(redisContext* c, absl::string_view user, absl::string_view password) {
  std::vector<const char*> argv = {"AUTH"};
  std::vector<size_t> lens = {4};
  if (!user.empty()) {
    argv.push_back(user.data());
    lens.push_back(user.size());
  }
  argv.push_back(password.data());
  lens.push_back(password.size());
  return RedisReplyPtr(static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data())));
}
namespace {

// Error replies that mean "not now" rather than "wrong": a restarted Redis still loading its AOF,
// a long script, a replica or a failing disk (MISCONF), a full memory (OOM), a cluster in
// transition, an authentication that the deployment has not set up yet.
constexpr absl::string_view kTransientErrors[] = {"LOADING",  "BUSY",       "MASTERDOWN",
                                                  "READONLY", "TRYAGAIN",   "CLUSTERDOWN",
                                                  "MISCONF",  "NOREPLICAS", "OOM"};
// The credentials refused (a wrong password, a disabled user, none sent), or a command the ACL
// user may not run: the deployment's secret or ACL, not this request. UNAVAILABLE (the command did
// not run; it may once the deployment is fixed) with its own code, ERR_STORE_AUTH.
constexpr absl::string_view kAuthErrors[] = {"NOAUTH", "WRONGPASS", "NOPERM"};

std::string ErrorPrefix(absl::string_view message) {
  return std::string(message.substr(0, message.find(' ')));
}

absl::Status BadUrl(absl::string_view url, absl::string_view why) {
  return base::Error(base::kErrBadArgument, absl::StrCat("redis URL ", url, ": ", why));
}

}  // namespace

absl::StatusOr<std::string> ReadRedisPasswordFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return base::Error(base::kErrBadArgument,
                       absl::StrCat("password file ", path, ": ", std::strerror(errno)));
  }
  // A secret is 64 bytes or so: read a little more than the longest one accepted, no more.
  std::string text(8192, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  absl::string_view password = absl::StripAsciiWhitespace(text);
  if (password.empty()) {
    return base::Error(base::kErrBadArgument, absl::StrCat("password file ", path, " is empty"));
  }
  if (password.size() > 4096 || std::any_of(password.begin(), password.end(),
                                            [](char ch) { return ch == '\n' || ch == '\r'; })) {
    return base::Error(base::kErrBadArgument,
                       absl::StrCat("password file ", path,
                                    ": expected one line (the password), at most 4096 bytes"));
  }
  return std::string(password);
}

absl::StatusOr<RedisConnectionOptions> ParseRedisUrl(absl::string_view url) {
  absl::string_view rest = url;
  // First of all, as every other error echoes the URL: a password in it is refused unechoed.
  absl::string_view authority = rest.substr(0, rest.find('?'));
  if (size_t scheme = authority.find("://"); scheme != absl::string_view::npos) {
    authority.remove_prefix(scheme + 3);
  }
  if (size_t at = authority.rfind('@');
      at != absl::string_view::npos &&
      authority.substr(0, at).find(':') != absl::string_view::npos) {
    return base::Error(base::kErrBadArgument,
                       "redis URL: a password in the URL is refused (it would show in process "
                       "listings and logs): give it in a file (--store_password_file)");
  }
  if (!absl::ConsumePrefix(&rest, "redis://")) return BadUrl(url, "expected redis://");
  std::string password_file;
  if (size_t q = rest.find('?'); q != absl::string_view::npos) {
    for (absl::string_view param : absl::StrSplit(rest.substr(q + 1), '&', absl::SkipEmpty())) {
      if (!absl::ConsumePrefix(&param, "password_file=") || param.empty()) {
        return BadUrl(url, absl::StrCat("unknown parameter '", param,
                                        "' (the only one is password_file=PATH)"));
      }
      password_file = std::string(param);
    }
    rest = rest.substr(0, q);
  }
  RedisConnectionOptions options;
  if (size_t at = rest.rfind('@'); at != absl::string_view::npos) {
    absl::string_view user = rest.substr(0, at);  // no ':' (checked above)
    if (user.empty()) return BadUrl(url, "empty user before '@'");
    options.user = std::string(user);
    rest = rest.substr(at + 1);
  }
  if (rest.find('/') != absl::string_view::npos) {
    return BadUrl(url, "a database or path is not supported (the store uses database 0)");
  }
  std::string host(rest);
  if (absl::StartsWith(rest, "[")) {  // [::1]:6379
    size_t close = rest.find(']');
    if (close == absl::string_view::npos) return BadUrl(url, "unclosed '[' in the host");
    host = std::string(rest.substr(1, close - 1));
    rest = rest.substr(close + 1);
    if (!rest.empty() && !absl::ConsumePrefix(&rest, ":")) return BadUrl(url, "bad port");
    if (!rest.empty() &&
        (!absl::SimpleAtoi(rest, &options.port) || options.port <= 0 || options.port > 65535)) {
      return BadUrl(url, "bad port");
    }
  } else if (size_t colon = rest.rfind(':'); colon != absl::string_view::npos) {
    host = std::string(rest.substr(0, colon));
    if (!absl::SimpleAtoi(rest.substr(colon + 1), &options.port) || options.port <= 0 ||
        options.port > 65535) {
      return BadUrl(url, "bad port");
    }
  }
  if (host.empty()) return BadUrl(url, "needs a host");
  options.host = host;
  if (!password_file.empty()) {
    absl::StatusOr<std::string> password = ReadRedisPasswordFile(password_file);
    if (!password.ok()) return password.status();
    options.password = *std::move(password);
  } else if (!options.user.empty()) {
    return BadUrl(url, absl::StrCat("user '", options.user,
                                    "' without a password file (--store_password_file)"));
  }
  return options;
}

RedisClient::RedisClient(RedisConnectionOptions options)
    : options_(std::move(options)), address_(absl::StrCat(options_.host, ":", options_.port)) {}

RedisClient::~RedisClient() {
  std::vector<std::thread> lanes;
  {
    absl::MutexLock lock(&async_mu_);
    stopping_ = true;
    async_cv_.SignalAll();
    lanes.swap(lanes_);
  }
  for (std::thread& t : lanes) t.join();  // each lane sends what is queued, then stops
  absl::MutexLock lock(&mu_);
  for (redisContext* c : idle_) redisFree(c);
}

void RedisClient::CommandAsync(std::vector<std::string> args, ReplyCallback done) {
  if (options_.pipeline_lanes <= 0) {
    done(CommandAlone(args, absl::ZeroDuration()));
    return;
  }
  {
    absl::MutexLock lock(&async_mu_);
    if (!stopping_) {
      if (lanes_.empty()) {
        for (int i = 0; i < options_.pipeline_lanes; ++i) {
          lanes_.emplace_back([this] { LaneLoop(); });
        }
      }
      async_queue_.push_back({std::move(args), std::move(done)});
      // A busy lane looks at the queue before it sleeps: only an idle one needs waking.
      if (idle_lanes_ > 0) async_cv_.Signal();
      return;
    }
  }
  done(Unavailable("the client is shutting down"));
}

void RedisClient::LaneLoop() {
  std::vector<AsyncCommand> batch;
  while (true) {
    batch.clear();
    {
      absl::MutexLock lock(&async_mu_);
      while (async_queue_.empty() && !stopping_) {
        ++idle_lanes_;
        async_cv_.Wait(&async_mu_);
        --idle_lanes_;
      }
      if (async_queue_.empty()) return;  // stopping, and nothing left to send
      const size_t n = std::min<size_t>(async_queue_.size(), std::max(1, options_.max_batch));
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(async_queue_.front()));
        async_queue_.pop_front();
      }
    }
    std::vector<Pending> pending(batch.size());
    std::vector<Pending*> ptrs(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      pending[i].args = &batch[i].args;
      ptrs[i] = &pending[i];
    }
    RunBatch(ptrs);
    for (size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(pending[i].result));
  }
}

absl::Status RedisClient::Unavailable(absl::string_view what) const {
  return base::Unavailable(kErrStoreUnavailable, absl::StrCat("redis ", address_, ": ", what));
}

absl::Status RedisClient::ReplyStatus(const redisReply& reply) const {
  if (reply.type != REDIS_REPLY_ERROR) return absl::OkStatus();
  absl::string_view message(reply.str, reply.len);
  std::string prefix = ErrorPrefix(message);
  for (absl::string_view transient : kTransientErrors) {
    if (prefix == transient) return Unavailable(message);
  }
  for (absl::string_view auth : kAuthErrors) {
    if (prefix == auth) {
      return base::Error(
          kErrStoreAuth,
          absl::StrCat("redis ", address_, ": ", message,
                       options_.user.empty() ? std::string(" (as the default user)")
                                             : absl::StrCat(" (as user '", options_.user, "')")));
    }
  }
  if (prefix == "MOVED" || prefix == "ASK") {
    return base::Error(absl::StatusCode::kInternal, kErrStoreInternal,
                       absl::StrCat("redis ", address_, ": ", message,
                                    " (a cluster redirection: this client talks to one node)"));
  }
  return base::Error(absl::StatusCode::kInternal, kErrStoreInternal,
                     absl::StrCat("redis ", address_, ": ", message));
}

absl::StatusOr<redisContext*> RedisClient::Connect() {
  redisContext* c = redisConnectWithTimeout(options_.host.c_str(), options_.port,
                                            absl::ToTimeval(options_.connect_timeout));
  if (c == nullptr) return Unavailable("connect: out of memory");
  if (c->err != 0) {
    absl::Status status = Unavailable(absl::StrCat("connect: ", c->errstr));
    redisFree(c);
    return status;
  }
  if (redisSetTimeout(c, absl::ToTimeval(options_.command_timeout)) != REDIS_OK) {
    absl::Status status = Unavailable(absl::StrCat("set timeout: ", c->errstr));
    redisFree(c);
    return status;
  }
  // Keepalive finds a peer that vanished without a FIN (a node lost with its network).
  redisEnableKeepAlive(c);
  if (!options_.password.empty()) {
    RedisReplyPtr reply = SendAuth(c, options_.user, options_.password);
    absl::Status status =
        reply == nullptr ? Unavailable(absl::StrCat("AUTH: ", c->errstr)) : ReplyStatus(*reply);
    if (!status.ok()) {
      redisFree(c);
      return status;
    }
  }
  return c;
}

absl::StatusOr<RedisClient::Lease> RedisClient::Acquire() {
  {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !idle_.empty() || open_ < options_.pool_size;
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&ready), options_.command_timeout)) {
      return Unavailable(absl::StrCat("all ", options_.pool_size,
                                      " pooled connections stayed busy for ",
                                      absl::FormatDuration(options_.command_timeout)));
    }
    if (!idle_.empty()) {
      redisContext* c = idle_.back();
      idle_.pop_back();
      return Lease{c, true};
    }
    ++open_;  // reserve the slot; connect outside the lock
  }
  absl::StatusOr<redisContext*> c = Connect();
  if (!c.ok()) {
    absl::MutexLock lock(&mu_);
    --open_;
    return c.status();
  }
  return Lease{*c, false};
}

void RedisClient::Release(redisContext* context, bool healthy) {
  absl::MutexLock lock(&mu_);
  if (healthy) {
    idle_.push_back(context);
  } else {
    redisFree(context);
    --open_;
  }
}

void RedisClient::DiscardIdle() {
  absl::MutexLock lock(&mu_);
  for (redisContext* c : idle_) redisFree(c);
  open_ -= static_cast<int>(idle_.size());
  idle_.clear();
}

absl::StatusOr<RedisReplyPtr> RedisClient::Command(const std::vector<std::string>& args,
                                                   absl::Duration extra_timeout) {
  if (options_.pipeline_lanes > 0 && extra_timeout <= absl::ZeroDuration()) {
    return CommandPipelined(args);
  }
  return CommandAlone(args, extra_timeout);
}

absl::StatusOr<RedisReplyPtr> RedisClient::CommandPipelined(const std::vector<std::string>& args) {
  Pending mine;
  mine.args = &args;
  absl::MutexLock lock(&batch_mu_);
  queue_.push_back(&mine);
  while (true) {
    while (!mine.done && (queue_.empty() || leaders_ >= options_.pipeline_lanes)) {
      mine.cv.Wait(&batch_mu_);
    }
    if (mine.done) return std::move(mine.result);
    // Lead a batch: the oldest queued commands (this caller's own among them, or in a later one).
    ++leaders_;
    std::vector<Pending*> batch;
    const size_t n = std::min<size_t>(queue_.size(), std::max(1, options_.max_batch));
    batch.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    batch_mu_.Unlock();
    RunBatch(batch);
    batch_mu_.Lock();
    --leaders_;
    for (Pending* p : batch) {
      p->done = true;
      if (p != &mine) p->cv.Signal();
    }
    // Hand the lead on rather than keep it: this caller's reply is ready now.
    if (!queue_.empty()) queue_.front()->cv.Signal();
  }
}

void RedisClient::RunBatch(const std::vector<Pending*>& batch, absl::Duration extra_timeout) {
  auto fail_rest = [&](const absl::Status& status) {
    for (Pending* p : batch) {
      if (!p->answered) {
        p->result = status;
        p->answered = true;
      }
    }
  };
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<Lease> lease = Acquire();
    if (!lease.ok()) return fail_rest(lease.status());
    redisContext* c = lease->context;
    const bool longer = extra_timeout > absl::ZeroDuration();
    if (longer) redisSetTimeout(c, absl::ToTimeval(options_.command_timeout + extra_timeout));
    bool broken = false;
    for (Pending* p : batch) {
      if (p->answered) continue;
      argv.clear();
      lens.clear();
      for (const std::string& a : *p->args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
      }
      if (redisAppendCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
          REDIS_OK) {
        broken = true;
        break;
      }
    }
    errno = 0;
    for (Pending* p : batch) {
      if (broken || p->answered) continue;
      void* reply = nullptr;
      if (redisGetReply(c, &reply) != REDIS_OK || reply == nullptr) {
        broken = true;
        break;
      }
      p->result = RedisReplyPtr(static_cast<redisReply*>(reply));
      p->answered = true;
    }
    const int saved_errno = errno;
    if (!broken) {
      if (longer) redisSetTimeout(c, absl::ToTimeval(options_.command_timeout));
      Release(c, /*healthy=*/true);
      return;
    }
    const bool timed_out =
        c->err == REDIS_ERR_IO && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK);
    std::string error = c->errstr;
    Release(c, /*healthy=*/false);
    const std::string& first = *batch.front()->args->begin();
    if (timed_out) {
      return fail_rest(Unavailable(
          absl::StrCat(first, ": no reply within ",
                       absl::FormatDuration(options_.command_timeout + extra_timeout))));
    }
    // A pooled connection that broke most likely died with the server (a restart, a failover):
    // its idle siblings are as dead, so drop them, and send the commands not answered once more
    // on a new connection (every command here is safe to repeat; see the header).
    if (lease->reused && attempt == 0) {
      DiscardIdle();
      continue;
    }
    return fail_rest(Unavailable(absl::StrCat(first, ": ", error)));
  }
}

absl::StatusOr<RedisReplyPtr> RedisClient::CommandAlone(const std::vector<std::string>& args,
                                                        absl::Duration extra_timeout) {
  Pending mine;
  mine.args = &args;
  RunBatch({&mine}, extra_timeout);
  return std::move(mine.result);
}

}  // namespace store
