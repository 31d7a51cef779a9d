// The client's connections: the pool, the master (fixed, or found through Sentinel), a command
// (or a batch) on one pooled connection with its WAIT, and the error vocabulary of the replies.
// Pipelining across callers (lanes, the flow) is redis_pipeline.cc's; the URL, redis_url.cc's.
#include "libs/store/redis_client.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/store/game_store.h"
#include "libs/store/internal/redis_replies.h"

namespace store {

using internal::ErrorPrefix;
using internal::NotTheMaster;

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

}  // namespace

namespace internal {

std::string ErrorPrefix(absl::string_view message) {
  return std::string(message.substr(0, message.find(' ')));
}

bool NotTheMaster(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ERROR) return false;
  const std::string prefix = ErrorPrefix(absl::string_view(reply.str, reply.len));
  return prefix == "READONLY" || prefix == "MASTERDOWN";
}

}  // namespace internal

RedisClient::RedisClient(RedisConnectionOptions options)
    : options_(std::move(options)),
      fixed_address_(absl::StrCat(options_.host, ":", options_.port)),
      wait_acks_(absl::StrCat(options_.min_replica_acks)),
      wait_ms_(absl::StrCat(
          std::max<std::int64_t>(1, absl::ToInt64Milliseconds(options_.replica_ack_timeout)))) {}

RedisClient::~RedisClient() {
  // Cluster: the retry thread, then the masters' clients (whose callbacks, while they stop, answer
  // what would need a retry as UNAVAILABLE).
  std::thread retry;
  {
    absl::MutexLock lock(&retry_mu_);
    retry_stopping_ = true;
    retry_cv_.SignalAll();
    retry.swap(retry_thread_);
  }
  if (retry.joinable()) retry.join();
  std::vector<std::pair<std::string, std::unique_ptr<RedisClient>>> nodes;
  {
    absl::MutexLock lock(&cluster_mu_);
    masters_.clear();
    nodes.swap(nodes_);
  }
  nodes.clear();
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
  if (uses_cluster()) {
    absl::MutexLock lock(&cluster_mu_);
    if (!slot_master_.empty() && slot_master_[0] >= 0) {
      const RedisAddress& a = master_addresses_[static_cast<size_t>(slot_master_[0])];
      return absl::StrCat(a.host, ":", a.port);
    }
    const RedisAddress& seed = options_.cluster_nodes.front();
    return absl::StrCat(seed.host, ":", seed.port, "@cluster");
  }
  if (!uses_sentinel()) return fixed_address_;
  absl::MutexLock lock(&master_mu_);
  if (master_known_) return absl::StrCat(master_.host, ":", master_.port);
  return absl::StrCat(options_.master_name, "@sentinel");
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
    return base::Error(
        absl::StatusCode::kInternal, kErrStoreInternal,
        absl::StrCat("redis ", address(), ": ", message,
                     uses_cluster() ? " (the slot kept moving for the whole command timeout)"
                                    : " (a cluster redirection: a Redis Cluster node needs "
                                      "--store=redis+cluster://...)"));
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
  if (uses_cluster()) return ClusterCommand(args, extra_timeout, durability);
  if (options_.pipeline_lanes > 0 && extra_timeout <= absl::ZeroDuration()) {
    return CommandPipelined(args, durability);
  }
  return CommandAlone(args, extra_timeout, durability);
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
    // One WAIT after the batch's commands covers every durable one among them: it waits for
    // the replicas to reach the connection's last write.
    bool wait = false;
    for (Pending* p : batch) {
      if (p->answered) continue;
      wait = wait || (p->durability == Durability::kReplicated && options_.min_replica_acks > 0);
      if (p->asking && redisAppendCommand(c, "ASKING") != REDIS_OK) {
        broken = true;
        break;
      }
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
      if (p->asking) {
        // ASKING's own +OK: the command's reply follows.
        if (redisGetReply(c, &reply) != REDIS_OK || reply == nullptr) {
          broken = true;
          break;
        }
        freeReplyObject(reply);
        reply = nullptr;
      }
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

absl::StatusOr<RedisReplyPtr> RedisClient::CommandAlone(const std::vector<std::string>& args,
                                                        absl::Duration extra_timeout,
                                                        Durability durability) {
  Pending mine;
  mine.args = &args;
  mine.durability = durability;
  RunBatch({&mine}, extra_timeout);
  return std::move(mine.result);
}

std::vector<absl::StatusOr<RedisReplyPtr>> RedisClient::CommandBatch(
    const std::vector<std::vector<std::string>>& commands) {
  if (uses_cluster()) return ClusterCommandBatch(commands);
  std::vector<absl::StatusOr<RedisReplyPtr>> out;
  out.reserve(commands.size());
  if (commands.empty()) return out;
  std::vector<Pending> pending(commands.size());
  std::vector<Pending*> batch;
  batch.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    pending[i].args = &commands[i];
    batch.push_back(&pending[i]);
  }
  RunBatch(batch);
  for (Pending& p : pending) out.push_back(std::move(p.result));
  return out;
}

absl::StatusOr<RedisReplyPtr> RedisClient::CommandAsking(const std::vector<std::string>& args,
                                                         Durability durability) {
  Pending mine;
  mine.args = &args;
  mine.durability = durability;
  mine.asking = true;
  RunBatch({&mine});
  return std::move(mine.result);
}

}  // namespace store
