#include "libs/store/redis_client.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
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

namespace {

// host[:port] or [v6]:port, with `default_port` when none is given.
absl::StatusOr<RedisAddress> ParseHostPort(absl::string_view url, absl::string_view rest,
                                           int default_port) {
  RedisAddress a{std::string(rest), default_port};
  if (absl::StartsWith(rest, "[")) {  // [::1]:6379
    size_t close = rest.find(']');
    if (close == absl::string_view::npos) return BadUrl(url, "unclosed '[' in the host");
    a.host = std::string(rest.substr(1, close - 1));
    rest = rest.substr(close + 1);
    if (!rest.empty() && !absl::ConsumePrefix(&rest, ":")) return BadUrl(url, "bad port");
    if (!rest.empty() && (!absl::SimpleAtoi(rest, &a.port) || a.port <= 0 || a.port > 65535)) {
      return BadUrl(url, "bad port");
    }
  } else if (size_t colon = rest.rfind(':'); colon != absl::string_view::npos) {
    a.host = std::string(rest.substr(0, colon));
    if (!absl::SimpleAtoi(rest.substr(colon + 1), &a.port) || a.port <= 0 || a.port > 65535) {
      return BadUrl(url, "bad port");
    }
  }
  if (a.host.empty()) return BadUrl(url, "needs a host");
  return a;
}

}  // namespace

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
  bool sentinel = false;
  if (absl::ConsumePrefix(&rest, "redis+sentinel://")) {
    sentinel = true;
  } else if (!absl::ConsumePrefix(&rest, "redis://")) {
    return BadUrl(url, "expected redis:// or redis+sentinel://");
  }
  RedisConnectionOptions options;
  std::string password_file;
  std::string sentinel_password_file;
  if (size_t q = rest.find('?'); q != absl::string_view::npos) {
    for (absl::string_view param : absl::StrSplit(rest.substr(q + 1), '&', absl::SkipEmpty())) {
      absl::string_view value = param;
      if (absl::ConsumePrefix(&value, "password_file=") && !value.empty()) {
        password_file = std::string(value);
      } else if (absl::ConsumePrefix(&value, "sentinel_password_file=") && !value.empty()) {
        if (!sentinel) return BadUrl(url, "sentinel_password_file is for redis+sentinel://");
        sentinel_password_file = std::string(value);
      } else if (absl::ConsumePrefix(&value, "min_replica_acks=")) {
        if (!absl::SimpleAtoi(value, &options.min_replica_acks) || options.min_replica_acks < 0 ||
            options.min_replica_acks > 16) {
          return BadUrl(url, "min_replica_acks must be in 0..16");
        }
      } else if (absl::ConsumePrefix(&value, "replica_ack_timeout=")) {
        if (!absl::ParseDuration(value, &options.replica_ack_timeout) ||
            options.replica_ack_timeout < absl::Milliseconds(1) ||
            options.replica_ack_timeout > absl::Seconds(10)) {
          return BadUrl(url, "replica_ack_timeout must be a duration in 1ms..10s (e.g. 100ms)");
        }
      } else {
        return BadUrl(url, absl::StrCat("unknown parameter '", param,
                                        "' (known: password_file, sentinel_password_file, "
                                        "min_replica_acks, replica_ack_timeout)"));
      }
    }
    rest = rest.substr(0, q);
  }
  if (size_t at = rest.rfind('@'); at != absl::string_view::npos) {
    absl::string_view user = rest.substr(0, at);  // no ':' (checked above)
    if (user.empty()) return BadUrl(url, "empty user before '@'");
    options.user = std::string(user);
    rest = rest.substr(at + 1);
  }
  if (sentinel) {
    size_t slash = rest.find('/');
    if (slash == absl::string_view::npos || slash + 1 == rest.size()) {
      return BadUrl(url, "expected redis+sentinel://host:port,.../MASTER_NAME");
    }
    options.master_name = std::string(rest.substr(slash + 1));
    if (options.master_name.find_first_of("/ ") != std::string::npos) {
      return BadUrl(url, "bad master name");
    }
    for (absl::string_view one : absl::StrSplit(rest.substr(0, slash), ',')) {
      absl::StatusOr<RedisAddress> a = ParseHostPort(url, one, 26379);
      if (!a.ok()) return a.status();
      options.sentinels.push_back(*std::move(a));
    }
    // host/port stay at their defaults: unused with Sentinel.
  } else {
    if (rest.find('/') != absl::string_view::npos) {
      return BadUrl(url, "a database or path is not supported (the store uses database 0)");
    }
    absl::StatusOr<RedisAddress> a = ParseHostPort(url, rest, 6379);
    if (!a.ok()) return a.status();
    options.host = a->host;
    options.port = a->port;
  }
  if (!password_file.empty()) {
    absl::StatusOr<std::string> password = ReadRedisPasswordFile(password_file);
    if (!password.ok()) return password.status();
    options.password = *std::move(password);
  } else if (!options.user.empty()) {
    return BadUrl(url, absl::StrCat("user '", options.user,
                                    "' without a password file (--store_password_file)"));
  }
  if (!sentinel_password_file.empty()) {
    absl::StatusOr<std::string> password = ReadRedisPasswordFile(sentinel_password_file);
    if (!password.ok()) return password.status();
    options.sentinel_password = *std::move(password);
  }
  return options;
}

RedisClient::RedisClient(RedisConnectionOptions options)
    : options_(std::move(options)),
      fixed_address_(absl::StrCat(options_.host, ":", options_.port)),
      wait_acks_(absl::StrCat(options_.min_replica_acks)),
      wait_ms_(absl::StrCat(
          std::max<std::int64_t>(1, absl::ToInt64Milliseconds(options_.replica_ack_timeout)))) {}

RedisClient::~RedisClient() {
  // The flow first: what it hands to the lanes as it stops (a broken connection's commands) still
  // finds them running.
  std::thread reader;
  {
    absl::MutexLock lock(&async_mu_);
    reader.swap(flow_reader_);
  }
  if (reader.joinable()) {
    {
      absl::MutexLock lock(&flow_mu_);
      flow_stopping_ = true;  // also ends the reader's wait to reconnect
      // Nothing awaits a reply: wake the reader from its read now rather than at its timeout.
      if (flow_ != nullptr && flow_in_flight_.empty()) ::shutdown(flow_->fd, SHUT_RDWR);
    }
    reader.join();  // it answers what is in flight, then stops
  }
  std::vector<std::thread> lanes;
  {
    absl::MutexLock lock(&async_mu_);
    stopping_ = true;
    async_cv_.SignalAll();
    lanes.swap(lanes_);
  }
  for (std::thread& t : lanes) t.join();  // each lane sends what is queued, then stops
  absl::MutexLock lock(&mu_);
  for (const Idle& c : idle_) redisFree(c.context);
}

std::string RedisClient::address() const {
  if (!uses_sentinel()) return fixed_address_;
  absl::MutexLock lock(&master_mu_);
  if (master_known_) return absl::StrCat(master_.host, ":", master_.port);
  return absl::StrCat(options_.master_name, "@sentinel");
}

void RedisClient::CommandAsync(std::vector<std::string> args, ReplyCallback done,
                               Durability durability) {
  if (options_.pipeline_lanes <= 0) {
    done(CommandAlone(args, absl::ZeroDuration(), durability));
    return;
  }
  if (FlowAsync(args, done, durability)) return;
  LaneAsync(std::move(args), std::move(done), durability);
}

void RedisClient::LaneAsync(std::vector<std::string> args, ReplyCallback done,
                            Durability durability) {
  {
    absl::MutexLock lock(&async_mu_);
    if (!stopping_) {
      if (lanes_.empty()) {
        for (int i = 0; i < options_.pipeline_lanes; ++i) {
          lanes_.emplace_back([this] { LaneLoop(); });
        }
        if (options_.async_flow) flow_reader_ = std::thread([this] { FlowLoop(); });
      }
      async_queue_.push_back({std::move(args), std::move(done), durability});
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
      pending[i].durability = batch[i].durability;
      ptrs[i] = &pending[i];
    }
    RunBatch(ptrs);
    for (size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(pending[i].result));
  }
}

absl::Status RedisClient::Unavailable(absl::string_view what) const {
  return base::Unavailable(kErrStoreUnavailable, absl::StrCat("redis ", address(), ": ", what));
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
          absl::StrCat("redis ", address(), ": ", message,
                       options_.user.empty() ? std::string(" (as the default user)")
                                             : absl::StrCat(" (as user '", options_.user, "')")));
    }
  }
  if (prefix == "MOVED" || prefix == "ASK") {
    return base::Error(absl::StatusCode::kInternal, kErrStoreInternal,
                       absl::StrCat("redis ", address(), ": ", message,
                                    " (a cluster redirection: this client talks to one node)"));
  }
  return base::Error(absl::StatusCode::kInternal, kErrStoreInternal,
                     absl::StrCat("redis ", address(), ": ", message));
}

absl::StatusOr<redisContext*> RedisClient::ConnectTo(const RedisAddress& at, absl::string_view user,
                                                     absl::string_view password) {
  const std::string where = absl::StrCat(at.host, ":", at.port);
  redisContext* c =
      redisConnectWithTimeout(at.host.c_str(), at.port, absl::ToTimeval(options_.connect_timeout));
  if (c == nullptr) return Unavailable(absl::StrCat("connect ", where, ": out of memory"));
  if (c->err != 0) {
    absl::Status status = Unavailable(absl::StrCat("connect ", where, ": ", c->errstr));
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
  if (!password.empty()) {
    RedisReplyPtr reply = SendAuth(c, user, password);
    absl::Status status = reply == nullptr
                              ? Unavailable(absl::StrCat("AUTH at ", where, ": ", c->errstr))
                              : ReplyStatus(*reply);
    if (!status.ok()) {
      redisFree(c);
      return status;
    }
  }
  return c;
}

absl::StatusOr<RedisAddress> RedisClient::DiscoverMaster() {
  std::vector<std::string> tried;
  for (const RedisAddress& sentinel : options_.sentinels) {
    const std::string where = absl::StrCat("sentinel ", sentinel.host, ":", sentinel.port);
    absl::StatusOr<redisContext*> s = ConnectTo(sentinel, "", options_.sentinel_password);
    if (!s.ok()) {
      tried.push_back(std::string(s.status().message()));
      continue;
    }
    RedisReplyPtr reply(static_cast<redisReply*>(
        redisCommand(*s, "SENTINEL get-master-addr-by-name %s", options_.master_name.c_str())));
    RedisAddress candidate;
    std::string problem;
    if (reply == nullptr) {
      problem = (*s)->errstr;
    } else if (reply->type == REDIS_REPLY_NIL) {
      problem = absl::StrCat("does not monitor '", options_.master_name, "'");
    } else if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
               reply->element[0]->type != REDIS_REPLY_STRING ||
               reply->element[1]->type != REDIS_REPLY_STRING ||
               !absl::SimpleAtoi(absl::string_view(reply->element[1]->str, reply->element[1]->len),
                                 &candidate.port)) {
      problem = reply->type == REDIS_REPLY_ERROR ? std::string(reply->str, reply->len)
                                                 : "an unreadable reply";
    } else {
      candidate.host = std::string(reply->element[0]->str, reply->element[0]->len);
    }
    redisFree(*s);
    if (!problem.empty()) {
      tried.push_back(absl::StrCat(where, ": ", problem));
      continue;
    }
    // A Sentinel may still name the old master (it has not seen the failover yet), and a
    // restarted old master says "master" until the Sentinels reconfigure it; ROLE at least
    // refuses a demoted one. The writes' WAIT catches the rest (a master without replicas).
    const std::string at = absl::StrCat(candidate.host, ":", candidate.port);
    absl::StatusOr<redisContext*> m = ConnectTo(candidate, options_.user, options_.password);
    if (!m.ok()) {
      tried.push_back(absl::StrCat(where, " names ", at, ": ", m.status().message()));
      continue;
    }
    RedisReplyPtr role(static_cast<redisReply*>(redisCommand(*m, "ROLE")));
    std::string role_name = role == nullptr                   ? std::string("no reply")
                            : role->type == REDIS_REPLY_ERROR ? std::string(role->str, role->len)
                            : (role->type == REDIS_REPLY_ARRAY && role->elements > 0 &&
                               role->element[0]->type == REDIS_REPLY_STRING)
                                ? std::string(role->element[0]->str, role->element[0]->len)
                                : std::string("an unreadable ROLE reply");
    redisFree(*m);
    if (role_name == "master") return candidate;
    tried.push_back(absl::StrCat(where, " names ", at, ", whose ROLE is ", role_name));
  }
  return base::Unavailable(kErrStoreUnavailable, absl::StrCat("redis ", options_.master_name,
                                                              "@sentinel: no master found (",
                                                              absl::StrJoin(tried, "; "), ")"));
}

absl::StatusOr<std::pair<RedisAddress, std::uint64_t>> RedisClient::Master() {
  if (!uses_sentinel()) return std::make_pair(RedisAddress{options_.host, options_.port}, 0);
  {
    absl::MutexLock lock(&master_mu_);
    if (master_known_) return std::make_pair(master_, master_epoch_);
  }
  // One caller asks the Sentinels; the others wait for its answer a little (connect_timeout),
  // not for a whole round of Sentinels that may not answer: the writes fail fast meanwhile.
  if (!discover_mu_.TryLock()) {
    absl::MutexLock lock(&master_mu_);
    master_mu_.AwaitWithTimeout(absl::Condition(&master_known_), options_.connect_timeout);
    if (master_known_) return std::make_pair(master_, master_epoch_);
    // Not Unavailable(): it reads the address under master_mu_, held here.
    return base::Unavailable(kErrStoreUnavailable,
                             absl::StrCat("redis ", options_.master_name,
                                          "@sentinel: no master known yet (the Sentinels are "
                                          "being asked)"));
  }
  struct Unlock {
    absl::Mutex* mu;
    ~Unlock() { mu->Unlock(); }
  } discovering{&discover_mu_};
  {
    // Another caller may have found it while this one waited.
    absl::MutexLock lock(&master_mu_);
    if (master_known_) return std::make_pair(master_, master_epoch_);
  }
  // While no master is found, the Sentinels are asked at most every backoff_ (50 ms doubling to
  // 500 ms): a failover takes a second or more, and every caller would otherwise ask.
  if (absl::Now() < next_discovery_) return last_discovery_error_;
  absl::StatusOr<RedisAddress> found = DiscoverMaster();
  if (!found.ok()) {
    backoff_ = std::clamp(backoff_ * 2, options_.rediscover_backoff,
                          std::max(options_.rediscover_backoff, options_.rediscover_backoff_max));
    next_discovery_ = absl::Now() + backoff_;
    last_discovery_error_ = found.status();
    if (options_.observer) options_.observer->OnFailoverInProgress(true);
    return found.status();
  }
  backoff_ = absl::ZeroDuration();
  next_discovery_ = absl::InfinitePast();
  bool switched = false;
  std::pair<RedisAddress, std::uint64_t> out;
  {
    absl::MutexLock lock(&master_mu_);
    const std::string at = absl::StrCat(found->host, ":", found->port);
    switched = !last_master_.empty() && last_master_ != at;
    // Counted before the first command goes to the new master, so a caller that reads it
    // after that command's reply sees the switch.
    if (switched) master_switches_.fetch_add(1);
    last_master_ = at;
    master_ = *found;
    master_known_ = true;
    out = {master_, master_epoch_};
  }
  if (options_.observer) {
    if (switched) options_.observer->OnMasterSwitch();
    options_.observer->OnFailoverInProgress(false);
  }
  return out;
}

void RedisClient::ForgetMaster(std::uint64_t epoch) {
  if (!uses_sentinel()) return;
  {
    absl::MutexLock lock(&master_mu_);
    if (!master_known_ || epoch != master_epoch_) return;  // already forgotten (and maybe found)
    master_known_ = false;
    ++master_epoch_;
  }
  {
    // The flow's connection to that master is as useless: its reader closes it.
    absl::MutexLock lock(&flow_mu_);
    if (flow_ != nullptr && flow_epoch_ == epoch && !flow_broken_) {
      flow_broken_ = true;
      ::shutdown(flow_->fd, SHUT_RDWR);
    }
  }
  // Connections to the old master are useless now; those in use are dropped when released.
  DiscardIdle();
  if (options_.observer) options_.observer->OnFailoverInProgress(true);
}

absl::StatusOr<RedisClient::Lease> RedisClient::Connect() {
  ASSIGN_OR_RETURN(auto master, Master());
  absl::StatusOr<redisContext*> c = ConnectTo(master.first, options_.user, options_.password);
  if (!c.ok()) {
    // Unreachable: with Sentinel, perhaps a failover; look for the master again next time.
    if (absl::IsUnavailable(c.status()) && base::ErrorCode(c.status()) == kErrStoreUnavailable) {
      ForgetMaster(master.second);
    }
    return c.status();
  }
  return Lease{*c, false, master.second};
}

absl::StatusOr<RedisClient::Lease> RedisClient::Acquire() {
  std::uint64_t epoch = 0;
  if (uses_sentinel()) {
    absl::MutexLock lock(&master_mu_);
    epoch = master_epoch_;
  }
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
    while (!idle_.empty()) {
      Idle c = idle_.back();
      idle_.pop_back();
      if (c.epoch == epoch) return Lease{c.context, true, c.epoch};
      redisFree(c.context);  // opened to a master since forgotten
      --open_;
    }
    ++open_;  // reserve the slot; connect outside the lock
  }
  absl::StatusOr<Lease> c = Connect();
  if (!c.ok()) {
    absl::MutexLock lock(&mu_);
    --open_;
    return c.status();
  }
  return c;
}

void RedisClient::Release(const Lease& lease, bool healthy) {
  if (healthy && uses_sentinel()) {
    absl::MutexLock lock(&master_mu_);
    healthy = master_known_ && lease.epoch == master_epoch_;
  }
  absl::MutexLock lock(&mu_);
  if (healthy) {
    idle_.push_back({lease.context, lease.epoch});
  } else {
    redisFree(lease.context);
    --open_;
  }
}

void RedisClient::DiscardIdle() {
  absl::MutexLock lock(&mu_);
  for (const Idle& c : idle_) redisFree(c.context);
  open_ -= static_cast<int>(idle_.size());
  idle_.clear();
}

absl::StatusOr<RedisReplyPtr> RedisClient::Command(const std::vector<std::string>& args,
                                                   absl::Duration extra_timeout,
                                                   Durability durability) {
  if (options_.pipeline_lanes > 0 && extra_timeout <= absl::ZeroDuration()) {
    return CommandPipelined(args, durability);
  }
  return CommandAlone(args, extra_timeout, durability);
}

absl::StatusOr<RedisReplyPtr> RedisClient::CommandPipelined(const std::vector<std::string>& args,
                                                            Durability durability) {
  Pending mine;
  mine.args = &args;
  mine.durability = durability;
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

namespace {

// Error replies after which the connection's server is not (or no longer) the master: a demoted
// master (READONLY), a replica cut off from its master (MASTERDOWN). The command did not run.
bool NotTheMaster(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ERROR) return false;
  const std::string prefix = ErrorPrefix(absl::string_view(reply.str, reply.len));
  return prefix == "READONLY" || prefix == "MASTERDOWN";
}

}  // namespace

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
    // One WAIT after the batch's commands covers every durable one among them: it waits for
    // the replicas to reach the connection's last write.
    bool wait = false;
    for (Pending* p : batch) {
      if (p->answered) continue;
      wait = wait || (p->durability == Durability::kReplicated && options_.min_replica_acks > 0);
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
    if (wait && !broken) {
      const char* wait_argv[] = {"WAIT", wait_acks_.c_str(), wait_ms_.c_str()};
      const size_t wait_lens[] = {4, wait_acks_.size(), wait_ms_.size()};
      broken = redisAppendCommandArgv(c, 3, wait_argv, wait_lens) != REDIS_OK;
    }
    errno = 0;
    std::vector<Pending*> read;  // answered by this attempt
    bool not_master = false;
    for (Pending* p : batch) {
      if (broken || p->answered) continue;
      void* reply = nullptr;
      if (redisGetReply(c, &reply) != REDIS_OK || reply == nullptr) {
        broken = true;
        break;
      }
      p->result = RedisReplyPtr(static_cast<redisReply*>(reply));
      p->answered = true;
      read.push_back(p);
      not_master = not_master || NotTheMaster(**p->result);
    }
    long long acks = -1;  // the WAIT's reply
    if (wait && !broken) {
      void* reply = nullptr;
      if (redisGetReply(c, &reply) != REDIS_OK || reply == nullptr) {
        broken = true;
      } else {
        RedisReplyPtr r(static_cast<redisReply*>(reply));
        acks = r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
      }
    }
    const int saved_errno = errno;
    if (wait) {
      // Not acknowledged by enough replicas in time (or the WAIT's reply lost): a failover now
      // could lose what this batch wrote, so no durable command of it is reported done.
      const bool short_of_acks = broken || acks < options_.min_replica_acks;
      bool counted = false;
      for (Pending* p : read) {
        if (p->durability != Durability::kReplicated || !short_of_acks) continue;
        if ((*p->result)->type == REDIS_REPLY_ERROR) continue;  // refused: nothing written
        if (!counted && options_.observer) options_.observer->OnReplicaAckFailure();
        counted = true;
        p->result = Unavailable(
            absl::StrCat(*p->args->begin(), ": acknowledged by ", std::max(0LL, acks), " of ",
                         options_.min_replica_acks, " replica(s) within ",
                         absl::FormatDuration(options_.replica_ack_timeout),
                         " (it may or may not survive a failover; retry the same command)"));
      }
      // Perhaps a master that lost its replicas to a failover: check with the Sentinels.
      if (short_of_acks && !broken) not_master = true;
    }
    if (!broken && !not_master) {
      if (longer) redisSetTimeout(c, absl::ToTimeval(options_.command_timeout));
      Release(*lease, /*healthy=*/true);
      return;
    }
    if (!broken) {
      // READONLY or MASTERDOWN: the server is not the master (any more). Those commands did
      // not run: forget the master and send them once more, to the one the Sentinels name now.
      bool resend = false;
      for (Pending* p : read) {
        if (p->result.ok() && NotTheMaster(**p->result) && uses_sentinel() && attempt == 0) {
          p->answered = false;
          resend = true;
        }
      }
      Release(*lease, /*healthy=*/false);
      ForgetMaster(lease->epoch);
      if (resend) continue;
      return;
    }
    const bool timed_out =
        c->err == REDIS_ERR_IO && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK);
    std::string error = c->errstr;
    Release(*lease, /*healthy=*/false);
    const std::string& first = *batch.front()->args->begin();
    if (timed_out) {
      ForgetMaster(lease->epoch);
      return fail_rest(Unavailable(
          absl::StrCat(first, ": no reply within ",
                       absl::FormatDuration(options_.command_timeout + extra_timeout))));
    }
    // A pooled connection that broke most likely died with the server (a restart, a failover):
    // its idle siblings are as dead, so drop them, and send the commands not answered once more
    // on a new connection (every command here is safe to repeat; see the header).
    if (lease->reused && attempt == 0) {
      DiscardIdle();
      ForgetMaster(lease->epoch);
      continue;
    }
    ForgetMaster(lease->epoch);
    return fail_rest(Unavailable(absl::StrCat(first, ": ", error)));
  }
}

bool RedisClient::flow_ready() {
  absl::MutexLock lock(&flow_mu_);
  return flow_ != nullptr && !flow_broken_ && !flow_stopping_;
}

bool RedisClient::FlowAsync(std::vector<std::string>& args, ReplyCallback& done,
                            Durability durability) {
  if (!options_.async_flow) return false;
  // A replicated write waits for its WAIT, which the lanes send after a batch.
  if (durability == Durability::kReplicated && options_.min_replica_acks > 0) return false;
  absl::InlinedVector<const char*, 16> argv;
  absl::InlinedVector<size_t, 16> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  char* command = nullptr;
  const long long length =
      redisFormatCommandArgv(&command, static_cast<int>(argv.size()), argv.data(), lens.data());
  if (length < 0) return false;
  absl::MutexLock lock(&flow_mu_);
  if (flow_ == nullptr || flow_broken_ || flow_stopping_ ||
      flow_in_flight_.size() >= static_cast<size_t>(std::max(1, options_.max_flow_in_flight))) {
    redisFreeCommand(command);
    return false;
  }
  flow_in_flight_.push_back({std::move(args), std::move(done), durability, absl::Now()});
  // The socket is blocking, with the command timeout (redisSetTimeout): a write waits only when
  // Redis stopped reading for long. A failed or partial write leaves the stream unusable: the
  // reader closes it and hands this command and those before it to the lanes.
  for (long long sent = 0; sent < length;) {
    const ssize_t n =
        ::send(flow_->fd, command + sent, static_cast<size_t>(length - sent), MSG_NOSIGNAL);
    if (n > 0) {
      sent += n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      flow_broken_ = true;
      ::shutdown(flow_->fd, SHUT_RDWR);
      break;
    }
  }
  redisFreeCommand(command);
  return true;
}

void RedisClient::BreakFlow(const absl::Status& failure, bool forget_master) {
  redisContext* c = nullptr;
  std::uint64_t epoch = 0;
  std::deque<FlowCommand> pending;
  {
    absl::MutexLock lock(&flow_mu_);
    c = flow_;
    epoch = flow_epoch_;
    flow_ = nullptr;
    flow_broken_ = false;
    pending.swap(flow_in_flight_);
  }
  if (c != nullptr) redisFree(c);
  if (forget_master) ForgetMaster(epoch);
  // A command may have run without its reply reaching us: sending it again is safe (see the
  // header). A timeout is not retried, as on the lanes: the caller hears of it.
  for (FlowCommand& p : pending) {
    if (!failure.ok()) {
      p.done(failure);
    } else {
      LaneAsync(std::move(p.args), std::move(p.done), p.durability);
    }
  }
}

void RedisClient::FlowLoop() {
  char buffer[16 * 1024];
  absl::Duration backoff = options_.rediscover_backoff;
  while (true) {
    redisContext* c = nullptr;
    bool broken = false;
    {
      absl::MutexLock lock(&flow_mu_);
      if (flow_stopping_ && flow_in_flight_.empty()) break;
      c = flow_;
      broken = flow_broken_;
    }
    if (broken) {
      BreakFlow(absl::OkStatus(), /*forget_master=*/false);
      continue;
    }
    if (c == nullptr) {
      // Connect (with Sentinel, to the master it names now); meanwhile the lanes send everything.
      absl::StatusOr<Lease> lease = Connect();
      absl::MutexLock lock(&flow_mu_);
      if (flow_stopping_) {
        if (lease.ok()) redisFree(lease->context);
        break;
      }
      if (!lease.ok()) {
        flow_mu_.AwaitWithTimeout(absl::Condition(&flow_stopping_), backoff);
        backoff = std::min(backoff * 2, std::max(options_.rediscover_backoff, absl::Seconds(1)));
        continue;
      }
      backoff = options_.rediscover_backoff;
      flow_ = lease->context;
      flow_epoch_ = lease->epoch;
      flow_broken_ = false;
      continue;
    }
    const ssize_t n = ::recv(c->fd, buffer, sizeof(buffer), 0);
    if (n > 0) {
      bool out_of_step = redisReaderFeed(c->reader, buffer, static_cast<size_t>(n)) != REDIS_OK;
      bool not_master = false;
      while (!out_of_step && !not_master) {
        void* reply = nullptr;
        if (redisReaderGetReply(c->reader, &reply) != REDIS_OK) {
          out_of_step = true;  // not the protocol: nothing read from here on can be trusted
          break;
        }
        if (reply == nullptr) break;  // the rest of a reply is still on its way
        RedisReplyPtr r(static_cast<redisReply*>(reply));
        FlowCommand command;
        {
          absl::MutexLock lock(&flow_mu_);
          if (flow_in_flight_.empty()) {
            out_of_step = true;  // a reply to no command
            break;
          }
          command = std::move(flow_in_flight_.front());
          flow_in_flight_.pop_front();
        }
        if (NotTheMaster(*r)) {
          // It did not run: the lanes send it again, after asking the Sentinels (RunBatch).
          not_master = true;
          LaneAsync(std::move(command.args), std::move(command.done), command.durability);
          break;
        }
        command.done(std::move(r));
      }
      if (out_of_step || not_master) BreakFlow(absl::OkStatus(), /*forget_master=*/true);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // No byte for a command timeout (the socket's receive timeout): idle, or stuck.
      absl::Status stuck;
      {
        absl::MutexLock lock(&flow_mu_);
        if (!flow_in_flight_.empty() &&
            absl::Now() - flow_in_flight_.front().sent >= options_.command_timeout) {
          stuck =
              Unavailable(absl::StrCat(flow_in_flight_.front().args.front(), ": no reply within ",
                                       absl::FormatDuration(options_.command_timeout)));
        }
      }
      if (!stuck.ok()) BreakFlow(stuck, /*forget_master=*/true);
      continue;
    }
    {
      // Closed by us to stop, with nothing awaiting a reply: not a sign of a failover.
      absl::MutexLock lock(&flow_mu_);
      if (flow_stopping_ && flow_in_flight_.empty()) break;
    }
    // Closed by the server (a restart, a failover) or by us (a failed write).
    BreakFlow(absl::OkStatus(), /*forget_master=*/true);
  }
  redisContext* c = nullptr;
  {
    absl::MutexLock lock(&flow_mu_);
    c = flow_;
    flow_ = nullptr;
  }
  if (c != nullptr) redisFree(c);
}

absl::StatusOr<RedisReplyPtr> RedisClient::CommandAlone(const std::vector<std::string>& args,
                                                        absl::Duration extra_timeout,
                                                        Durability durability) {
  Pending mine;
  mine.args = &args;
  mine.durability = durability;
  RunBatch({&mine}, extra_timeout);
  return std::move(mine.result);
}

}  // namespace store
