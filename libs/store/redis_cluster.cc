// Redis Cluster (redis_client.h, "Redis Cluster"): the slot map, one client per master, and the
// redirections (MOVED, ASK) and refusals for now (TRYAGAIN, CLUSTERDOWN) a command may meet while
// slots move or a master fails over.
#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "libs/base/error.h"
#include "libs/store/game_store.h"
#include "libs/store/internal/redis_replies.h"
#include "libs/store/key_layout.h"
#include "libs/store/redis_client.h"

namespace store {
namespace {

using internal::ErrorPrefix;

constexpr absl::Duration kFirstRetryBackoff = absl::Milliseconds(10);
constexpr absl::Duration kMaxRetryBackoff = absl::Milliseconds(200);

// The argument that names the command's slot, or -1 for a command without a key. The store's
// commands: FCALL/FCALL_RO <function> <numkeys> <keys...> <args...> (every key of one call in
// one slot), XREAD ... STREAMS <keys...> <ids...> (one shard's streams: one slot), and single-key
// commands with the key first (HGET, XRANGE, ZRANGEBYSCORE, ...). TIME, PING, ROLE, WAIT have
// none.
int KeyIndex(const std::vector<std::string>& args) {
  if (args.empty()) return -1;
  const std::string name = absl::AsciiStrToUpper(args[0]);
  if (name == "FCALL" || name == "FCALL_RO" || name == "EVALSHA" || name == "EVAL") {
    int keys = 0;
    return args.size() > 3 && absl::SimpleAtoi(args[2], &keys) && keys > 0 ? 3 : -1;
  }
  if (name == "XREAD" || name == "XREADGROUP") {
    for (size_t i = 1; i + 1 < args.size(); ++i) {
      if (absl::AsciiStrToUpper(args[i]) == "STREAMS") return static_cast<int>(i + 1);
    }
    return -1;
  }
  if (name == "TIME" || name == "PING" || name == "ROLE" || name == "WAIT" || name == "INFO" ||
      name == "CLUSTER" || name == "FUNCTION" || name == "ASKING") {
    return -1;
  }
  return args.size() > 1 ? 1 : -1;
}

int SlotOf(const std::vector<std::string>& args) {
  const int key = KeyIndex(args);
  return key < 0 ? 0 : KeySlot(args[static_cast<size_t>(key)]);
}

// A redirection: MOVED|ASK <slot> <host>:<port>.
struct Redirect {
  bool ask = false;
  int slot = 0;
  RedisAddress to;
};

std::optional<Redirect> ParseRedirect(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ERROR) return std::nullopt;
  std::vector<absl::string_view> words =
      absl::StrSplit(absl::string_view(reply.str, reply.len), ' ', absl::SkipEmpty());
  if (words.size() != 3 || (words[0] != "MOVED" && words[0] != "ASK")) return std::nullopt;
  Redirect r;
  r.ask = words[0] == "ASK";
  const size_t colon = words[2].rfind(':');
  if (!absl::SimpleAtoi(words[1], &r.slot) || r.slot < 0 || r.slot >= kClusterSlots ||
      colon == absl::string_view::npos ||
      !absl::SimpleAtoi(words[2].substr(colon + 1), &r.to.port)) {
    return std::nullopt;
  }
  r.to.host = std::string(words[2].substr(0, colon));
  return r;
}

// What a reply asks of the router.
enum class Next { kDone, kRedirect, kRetryLater, kRelearn };

Next Classify(const absl::StatusOr<RedisReplyPtr>& reply) {
  if (!reply.ok()) {
    // The node did not answer (down, killed, a failover): the map may be out of date. An
    // authentication or ACL refusal is the deployment's, the same on every node.
    return base::ErrorCode(reply.status()) == kErrStoreUnavailable ? Next::kRelearn : Next::kDone;
  }
  const redisReply& r = **reply;
  if (r.type != REDIS_REPLY_ERROR) return Next::kDone;
  const std::string prefix = ErrorPrefix(absl::string_view(r.str, r.len));
  if (prefix == "MOVED" || prefix == "ASK") return Next::kRedirect;
  // TRYAGAIN: a multi-key command whose keys a migration has split (it did not run);
  // CLUSTERDOWN: the cluster cannot serve the slot now (a master lost, its replica not promoted
  // yet); LOADING: a restarted node reading its AOF.
  if (prefix == "TRYAGAIN" || prefix == "CLUSTERDOWN" || prefix == "LOADING") {
    return Next::kRetryLater;
  }
  // A master demoted by a failover: the command did not run; the map names the new one.
  if (prefix == "READONLY" || prefix == "MASTERDOWN") return Next::kRelearn;
  return Next::kDone;
}

}  // namespace

RedisClient* RedisClient::Node(const RedisAddress& at) {
  const std::string name = absl::StrCat(at.host, ":", at.port);
  for (auto& [n, client] : nodes_) {
    if (n == name) return client.get();
  }
  RedisConnectionOptions node = options_;
  node.cluster_nodes.clear();
  node.host = at.host;
  node.port = at.port;
  // The cluster client reports master switches; its nodes' clients would not know one.
  node.observer = nullptr;
  nodes_.emplace_back(name, std::make_unique<RedisClient>(std::move(node)));
  return nodes_.back().second.get();
}

absl::Status RedisClient::RefreshSlots(bool force) {
  absl::MutexLock refreshing(&refresh_mu_);
  if (!force && absl::Now() - last_refresh_ < options_.rediscover_backoff) {
    return absl::OkStatus();  // another caller just did
  }
  last_refresh_ = absl::Now();
  std::vector<RedisAddress> ask;
  {
    absl::MutexLock lock(&cluster_mu_);
    ask = master_addresses_;
  }
  ask.insert(ask.end(), options_.cluster_nodes.begin(), options_.cluster_nodes.end());
  std::vector<std::string> tried;
  for (const RedisAddress& at : ask) {
    const std::string where = absl::StrCat(at.host, ":", at.port);
    absl::StatusOr<redisContext*> c = ConnectTo(at, options_.user, options_.password);
    if (!c.ok()) {
      tried.push_back(std::string(c.status().message()));
      continue;
    }
    RedisReplyPtr reply(static_cast<redisReply*>(redisCommand(*c, "CLUSTER SLOTS")));
    std::vector<int> slots(kClusterSlots, -1);
    std::vector<RedisAddress> masters;
    std::string problem;
    if (reply == nullptr) {
      problem = (*c)->errstr;
    } else if (reply->type != REDIS_REPLY_ARRAY) {
      problem = reply->type == REDIS_REPLY_ERROR ? std::string(reply->str, reply->len)
                                                 : "an unreadable CLUSTER SLOTS reply";
    } else {
      // [start, end, [host, port, id, ...] (the master), [replica]...] per range.
      for (size_t i = 0; i < reply->elements && problem.empty(); ++i) {
        const redisReply& range = *reply->element[i];
        if (range.type != REDIS_REPLY_ARRAY || range.elements < 3 ||
            range.element[0]->type != REDIS_REPLY_INTEGER ||
            range.element[1]->type != REDIS_REPLY_INTEGER ||
            range.element[2]->type != REDIS_REPLY_ARRAY || range.element[2]->elements < 2 ||
            range.element[2]->element[0]->type != REDIS_REPLY_STRING ||
            range.element[2]->element[1]->type != REDIS_REPLY_INTEGER) {
          problem = "an unreadable CLUSTER SLOTS reply";
          break;
        }
        const long long first = range.element[0]->integer;
        const long long last = range.element[1]->integer;
        RedisAddress master{
            std::string(range.element[2]->element[0]->str, range.element[2]->element[0]->len),
            static_cast<int>(range.element[2]->element[1]->integer)};
        // An empty host: the node asked does not know its own address; it is the one asked.
        if (master.host.empty() || master.host == "?") master.host = at.host;
        if (first < 0 || last >= kClusterSlots || first > last) {
          problem = "a slot range out of 0..16383";
          break;
        }
        int index = -1;
        for (size_t m = 0; m < masters.size(); ++m) {
          if (masters[m].host == master.host && masters[m].port == master.port) {
            index = static_cast<int>(m);
          }
        }
        if (index < 0) {
          index = static_cast<int>(masters.size());
          masters.push_back(master);
        }
        for (long long s = first; s <= last; ++s) slots[static_cast<size_t>(s)] = index;
      }
    }
    redisFree(*c);
    if (problem.empty() && masters.empty()) problem = "no slot is served";
    if (!problem.empty()) {
      tried.push_back(absl::StrCat(where, ": ", problem));
      continue;
    }
    bool switched = false;
    {
      absl::MutexLock lock(&cluster_mu_);
      // A failover or a master added or removed changes the set of masters; slots moving
      // between the same masters (a reshard) carry their data and change nothing a cache holds.
      auto names = [](const std::vector<RedisAddress>& list) {
        std::vector<std::string> out;
        for (const RedisAddress& a : list) out.push_back(absl::StrCat(a.host, ":", a.port));
        std::sort(out.begin(), out.end());
        return out;
      };
      switched = !master_addresses_.empty() && names(master_addresses_) != names(masters);
      std::vector<RedisClient*> clients;
      for (const RedisAddress& m : masters) clients.push_back(Node(m));
      masters_ = std::move(clients);
      master_addresses_ = std::move(masters);
      slot_master_ = std::move(slots);
      if (switched) master_switches_.fetch_add(1);
    }
    if (options_.observer) {
      if (switched) options_.observer->OnMasterSwitch();
      options_.observer->OnFailoverInProgress(false);
    }
    return absl::OkStatus();
  }
  if (options_.observer) options_.observer->OnFailoverInProgress(true);
  return base::Unavailable(
      kErrStoreUnavailable,
      absl::StrCat("redis cluster: no node gave the slot map (", absl::StrJoin(tried, "; "), ")"));
}

absl::StatusOr<RedisClient*> RedisClient::NodeForSlot(int slot) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    {
      absl::MutexLock lock(&cluster_mu_);
      if (!slot_master_.empty() && slot_master_[static_cast<size_t>(slot)] >= 0) {
        return masters_[static_cast<size_t>(slot_master_[static_cast<size_t>(slot)])];
      }
      if (attempt == 1) break;
    }
    absl::Status learned = RefreshSlots(/*force=*/false);
    if (!learned.ok()) return learned;
  }
  return base::Unavailable(kErrStoreUnavailable,
                           absl::StrCat("redis cluster: no master serves slot ", slot));
}

absl::StatusOr<RedisReplyPtr> RedisClient::ClusterCommand(const std::vector<std::string>& args,
                                                          absl::Duration extra_timeout,
                                                          Durability durability) {
  const int slot = SlotOf(args);
  const absl::Time give_up = absl::Now() + options_.command_timeout + extra_timeout;
  absl::Duration backoff = kFirstRetryBackoff;
  std::optional<RedisAddress> ask;  // an ASK redirection to follow once
  absl::StatusOr<RedisReplyPtr> reply = Unavailable("not sent");
  while (true) {
    RedisClient* node = nullptr;
    if (ask.has_value()) {
      absl::MutexLock lock(&cluster_mu_);
      node = Node(*ask);
    } else {
      absl::StatusOr<RedisClient*> found = NodeForSlot(slot);
      if (!found.ok()) {
        reply = found.status();
        if (absl::Now() + backoff >= give_up) return reply;
        absl::SleepFor(backoff);
        backoff = std::min(backoff * 2, kMaxRetryBackoff);
        continue;
      }
      node = *found;
    }
    reply = ask.has_value() ? node->CommandAsking(args, durability)
                            : node->Command(args, extra_timeout, durability);
    ask.reset();
    const Next next = Classify(reply);
    if (next == Next::kDone) return reply;
    if (next == Next::kRedirect) {
      std::optional<Redirect> r = ParseRedirect(**reply);
      if (!r.has_value()) return reply;
      if (r->ask) {
        // The slot is being migrated and this key is already at the target: ASKING lets the
        // target serve this one command; the map stays as it is.
        ask = r->to;
      } else {
        // The slot has a new master for good: use it now, and learn the rest of the map.
        NoteMoved(r->slot, r->to);
        (void)RefreshSlots(/*force=*/false);
      }
      if (absl::Now() >= give_up) return reply;
      continue;
    }
    if (next == Next::kRelearn) (void)RefreshSlots(/*force=*/false);
    if (absl::Now() + backoff >= give_up) return reply;
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, kMaxRetryBackoff);
  }
}

void RedisClient::ClusterCommandAsync(std::vector<std::string> args, ReplyCallback done,
                                      Durability durability) {
  auto retry = std::make_shared<ClusterRetry>();
  retry->slot = SlotOf(args);
  retry->args = std::move(args);
  retry->done = std::move(done);
  retry->durability = durability;
  retry->give_up = absl::Now() + options_.command_timeout;
  retry->backoff = kFirstRetryBackoff;
  ClusterDispatch(std::move(retry));
}

void RedisClient::ClusterDispatch(std::shared_ptr<ClusterRetry> retry) {
  RedisClient* node = nullptr;
  {
    absl::MutexLock lock(&cluster_mu_);
    if (!slot_master_.empty() && slot_master_[static_cast<size_t>(retry->slot)] >= 0) {
      node = masters_[static_cast<size_t>(slot_master_[static_cast<size_t>(retry->slot)])];
    }
  }
  if (node == nullptr) {
    // No map yet (the first command) or a slot nobody serves: the retry thread learns it.
    retry->relearn = true;
    return ScheduleRetry(std::move(retry), absl::ZeroDuration());
  }
  // The node's lanes or flow answer; the router's work on the reply never sleeps there.
  node->CommandAsync(
      retry->args,
      [this, retry](absl::StatusOr<RedisReplyPtr> reply) mutable {
        ClusterAnswer(std::move(retry), std::move(reply));
      },
      retry->durability);
}

void RedisClient::ClusterAnswer(std::shared_ptr<ClusterRetry> retry,
                                absl::StatusOr<RedisReplyPtr> reply) {
  const Next next = Classify(reply);
  if (next == Next::kDone || absl::Now() >= retry->give_up) return retry->done(std::move(reply));
  if (next == Next::kRedirect) {
    std::optional<Redirect> r = ParseRedirect(**reply);
    if (!r.has_value()) return retry->done(std::move(reply));
    if (r->ask) {
      retry->ask = r->to;
    } else {
      NoteMoved(r->slot, r->to);
      retry->relearn = true;
    }
    return ScheduleRetry(std::move(retry), absl::ZeroDuration());
  }
  retry->relearn = next == Next::kRelearn;
  const absl::Duration delay = retry->backoff;
  retry->backoff = std::min(retry->backoff * 2, kMaxRetryBackoff);
  if (absl::Now() + delay >= retry->give_up) return retry->done(std::move(reply));
  ScheduleRetry(std::move(retry), delay);
}

void RedisClient::ScheduleRetry(std::shared_ptr<ClusterRetry> retry, absl::Duration delay) {
  {
    absl::MutexLock lock(&retry_mu_);
    if (!retry_stopping_) {
      retry_queue_.emplace(absl::Now() + delay, std::move(retry));
      retry_cv_.Signal();
      if (!retry_thread_.joinable()) retry_thread_ = std::thread([this] { ClusterRetryLoop(); });
      return;
    }
  }
  retry->done(Unavailable("the client is shutting down"));
}

void RedisClient::ClusterRetryLoop() {
  while (true) {
    std::shared_ptr<ClusterRetry> retry;
    {
      absl::MutexLock lock(&retry_mu_);
      while (true) {
        if (retry_queue_.empty()) {
          if (retry_stopping_) return;
          retry_cv_.Wait(&retry_mu_);
          continue;
        }
        const absl::Time due = retry_queue_.begin()->first;
        // Stopping: what is queued is tried at once, not after its backoff.
        if (retry_stopping_ || due <= absl::Now()) break;
        retry_cv_.WaitWithDeadline(&retry_mu_, due);
      }
      retry = std::move(retry_queue_.begin()->second);
      retry_queue_.erase(retry_queue_.begin());
    }
    if (retry->relearn) {
      retry->relearn = false;
      (void)RefreshSlots(/*force=*/false);
    }
    if (retry->ask.has_value()) {
      RedisClient* node = nullptr;
      {
        absl::MutexLock lock(&cluster_mu_);
        node = Node(*retry->ask);
      }
      retry->ask.reset();
      absl::StatusOr<RedisReplyPtr> reply = node->CommandAsking(retry->args, retry->durability);
      ClusterAnswer(std::move(retry), std::move(reply));
      continue;
    }
    ClusterDispatch(std::move(retry));
  }
}

void RedisClient::NoteMoved(int slot, const RedisAddress& to) {
  absl::MutexLock lock(&cluster_mu_);
  RedisClient* node = Node(to);
  int index = -1;
  for (size_t m = 0; m < masters_.size(); ++m) {
    if (masters_[m] == node) index = static_cast<int>(m);
  }
  if (index < 0) {
    index = static_cast<int>(masters_.size());
    masters_.push_back(node);
    master_addresses_.push_back(to);
  }
  if (slot_master_.empty()) slot_master_.assign(kClusterSlots, -1);
  slot_master_[static_cast<size_t>(slot)] = index;
}

std::vector<absl::StatusOr<RedisReplyPtr>> RedisClient::ClusterCommandBatch(
    const std::vector<std::vector<std::string>>& commands) {
  std::vector<absl::StatusOr<RedisReplyPtr>> out;
  out.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) out.push_back(Unavailable("not sent"));
  // The commands by the master of their slot now; a slot nobody serves yet goes alone below.
  std::vector<std::pair<RedisClient*, std::vector<size_t>>> by_master;
  std::vector<size_t> alone;
  for (size_t i = 0; i < commands.size(); ++i) {
    absl::StatusOr<RedisClient*> node = NodeForSlot(SlotOf(commands[i]));
    if (!node.ok()) {
      alone.push_back(i);
      continue;
    }
    auto group = std::find_if(by_master.begin(), by_master.end(),
                              [&](const auto& g) { return g.first == *node; });
    if (group == by_master.end()) {
      by_master.push_back({*node, {}});
      group = by_master.end() - 1;
    }
    group->second.push_back(i);
  }
  for (auto& [node, indices] : by_master) {
    std::vector<std::vector<std::string>> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(commands[i]);
    std::vector<absl::StatusOr<RedisReplyPtr>> replies = node->CommandBatch(batch);
    for (size_t k = 0; k < indices.size(); ++k) {
      if (Classify(replies[k]) == Next::kDone) {
        out[indices[k]] = std::move(replies[k]);
      } else {
        alone.push_back(indices[k]);
      }
    }
  }
  // A slot moving, a master failing over: each such command as Command would send it.
  for (size_t i : alone)
    out[i] = ClusterCommand(commands[i], absl::ZeroDuration(), Durability::kNone);
  return out;
}

absl::Status RedisClient::CommandOnEveryMaster(const std::vector<std::string>& args) {
  if (!uses_cluster()) {
    absl::StatusOr<RedisReplyPtr> reply = Command(args);
    if (!reply.ok()) return reply.status();
    return ReplyStatus(**reply);
  }
  if (absl::Status learned = RefreshSlots(/*force=*/false); !learned.ok()) return learned;
  std::vector<RedisClient*> masters;
  {
    absl::MutexLock lock(&cluster_mu_);
    masters = masters_;
  }
  for (RedisClient* m : masters) {
    absl::StatusOr<RedisReplyPtr> reply = m->Command(args);
    if (!reply.ok()) return reply.status();
    if (absl::Status st = m->ReplyStatus(**reply); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace store
