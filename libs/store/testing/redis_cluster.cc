#include "libs/store/testing/redis_cluster.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "libs/store/key_layout.h"

namespace store::testing {
namespace {

// The value of `field` in an INFO-style reply ("field:value" lines), or "".
std::string InfoField(const std::string& info, absl::string_view field) {
  for (absl::string_view line : absl::StrSplit(info, absl::ByAnyChar("\r\n"))) {
    if (absl::ConsumePrefix(&line, field) && absl::ConsumePrefix(&line, ":")) {
      return std::string(line);
    }
  }
  return "";
}

}  // namespace

RedisCluster::RedisCluster(RedisClusterOptions options) : options_(std::move(options)) {}

RedisCluster::~RedisCluster() = default;

absl::StatusOr<std::unique_ptr<RedisCluster>> RedisCluster::Start(RedisClusterOptions options) {
  if (options.masters < 1 || options.replicas_per_master < 0) {
    return absl::InvalidArgumentError("a cluster needs a master and no negative replicas");
  }
  std::unique_ptr<RedisCluster> cluster(new RedisCluster(std::move(options)));
  if (absl::Status s = cluster->StartAll(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), "\n", cluster->Logs()));
  }
  return cluster;
}

absl::Status RedisCluster::StartAll() {
  const int masters = options_.masters;
  const int total = masters * (1 + options_.replicas_per_master);
  RedisServerOptions node;
  node.acl_password = options_.acl_password;
  node.appendfsync = options_.appendfsync;
  if (!options_.acl_password.empty()) {
    node.replication_password = absl::StrCat("replication-", options_.acl_password);
    node.extra_args = {"--masteruser", "replica", "--masterauth", node.replication_password};
  }
  node.extra_args.insert(
      node.extra_args.end(),
      {"--cluster-enabled", "yes", "--cluster-node-timeout", absl::StrCat(options_.node_timeout_ms),
       // A replica whose master was away long still takes over: the
       // tests kill masters on purpose.
       "--cluster-replica-validity-factor", "0"});
  for (int i = 0; i < total; ++i) {
    absl::StatusOr<std::unique_ptr<RedisServer>> s = RedisServer::Start(node);
    if (!s.ok()) return s.status();
    nodes_.push_back(*std::move(s));
  }
  // The slots as `redis-cli --cluster create` divides them.
  const double per = static_cast<double>(kClusterSlots) / masters;
  long first = 0;
  double cursor = 0;
  for (int m = 0; m < masters; ++m) {
    long last = std::lround(cursor + per - 1);
    if (last > kClusterSlots || m == masters - 1) last = kClusterSlots - 1;
    if (last < first) last = first;
    absl::StatusOr<std::string> r =
        nodes_[m]->Command({"CLUSTER", "ADDSLOTSRANGE", absl::StrCat(first), absl::StrCat(last)});
    if (!r.ok()) return r.status();
    first = last + 1;
    cursor += per;
  }
  for (int i = 0; i < total; ++i) {
    // Distinct epochs, as redis-cli sets them: no collision to resolve before the cluster is ok.
    absl::StatusOr<std::string> r =
        nodes_[i]->Command({"CLUSTER", "SET-CONFIG-EPOCH", absl::StrCat(i + 1)});
    if (!r.ok()) return r.status();
  }
  for (int i = 1; i < total; ++i) {
    absl::StatusOr<std::string> r =
        nodes_[0]->Command({"CLUSTER", "MEET", "127.0.0.1", absl::StrCat(nodes_[i]->port())});
    if (!r.ok()) return r.status();
  }
  // Every node must know the master before it can replicate it.
  const absl::Time deadline = absl::Now() + options_.start_timeout;
  for (int i = masters; i < total; ++i) {
    absl::StatusOr<std::string> master = NodeId(i % masters);
    if (!master.ok()) return master.status();
    while (true) {
      absl::StatusOr<std::string> r = nodes_[i]->Command({"CLUSTER", "REPLICATE", *master});
      if (r.ok()) break;
      if (absl::Now() > deadline) return r.status();
      absl::SleepFor(absl::Milliseconds(50));
    }
  }
  return WaitUntilHealthy(deadline - absl::Now());
}

absl::StatusOr<std::string> RedisCluster::NodeId(int i) const {
  absl::StatusOr<std::string> id = nodes_[i]->Command({"CLUSTER", "MYID"});
  if (!id.ok()) return id.status();
  return std::string(absl::StripAsciiWhitespace(*id));
}

absl::StatusOr<int> RedisCluster::NodeIndexOfPort(int port) const {
  for (int i = 0; i < num_nodes(); ++i) {
    if (nodes_[i]->port() == port) return i;
  }
  return absl::NotFoundError(absl::StrCat("no node on port ", port));
}

absl::Status RedisCluster::WaitUntilHealthy(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string problem;
  while (true) {
    problem.clear();
    for (int i = 0; i < num_nodes() && problem.empty(); ++i) {
      if (!nodes_[i]->running()) continue;
      absl::StatusOr<std::string> info = nodes_[i]->Command({"CLUSTER", "INFO"});
      if (!info.ok()) {
        problem = std::string(info.status().message());
      } else if (InfoField(*info, "cluster_state") != "ok" ||
                 InfoField(*info, "cluster_slots_ok") != "16384" ||
                 InfoField(*info, "cluster_known_nodes") != absl::StrCat(num_nodes())) {
        problem = absl::StrCat("node ", i, ": ", *info);
      } else if (absl::StatusOr<std::string> role = nodes_[i]->Command({"ROLE"});
                 role.ok() && absl::StartsWith(*role, "slave") &&
                 !absl::StrContains(*role, "connected")) {
        problem = absl::StrCat("node ", i, " replicates, link not up: ", *role);
      }
    }
    if (problem.empty()) {
      // Every slot's master is running (a killed one may still be listed until its replica
      // takes over).
      bool all = true;
      for (int slot : {0, kClusterSlots / 2, kClusterSlots - 1}) {
        absl::StatusOr<int> m = MasterOf(slot);
        all = all && m.ok() && nodes_[*m]->running();
      }
      if (all) return absl::OkStatus();
      problem = "a slot's master is not running";
    }
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("cluster not healthy: ", problem));
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
}

absl::StatusOr<int> RedisCluster::MasterOf(int slot) const {
  for (int i = 0; i < num_nodes(); ++i) {
    if (!nodes_[i]->running()) continue;
    // Flattened: start, end, host, port, id, [replica host, port, id]..., per range.
    absl::StatusOr<std::string> slots = nodes_[i]->Command({"CLUSTER", "SLOTS"});
    if (!slots.ok()) continue;
    std::vector<std::string> words = absl::StrSplit(*slots, '\n');
    // The flattening loses the nesting; a range starts with two numbers then a host.
    for (size_t k = 0; k + 3 < words.size(); ++k) {
      int first = 0, last = 0, port = 0;
      if (absl::SimpleAtoi(words[k], &first) && absl::SimpleAtoi(words[k + 1], &last) &&
          !absl::SimpleAtoi(words[k + 2], &port) && absl::SimpleAtoi(words[k + 3], &port) &&
          first <= slot && slot <= last) {
        return NodeIndexOfPort(port);
      }
    }
  }
  return absl::UnavailableError(absl::StrCat("no running node names the master of slot ", slot));
}

absl::StatusOr<std::vector<long long>> RedisCluster::KeysPerNode() const {
  std::vector<long long> out(nodes_.size(), -1);
  for (int i = 0; i < num_nodes(); ++i) {
    if (!nodes_[i]->running()) continue;
    absl::StatusOr<std::string> role = nodes_[i]->Command({"ROLE"});
    if (!role.ok()) return role.status();
    if (!absl::StartsWith(*role, "master")) continue;
    absl::StatusOr<std::string> n = nodes_[i]->Command({"DBSIZE"});
    if (!n.ok()) return n.status();
    if (!absl::SimpleAtoi(*n, &out[i])) return absl::InternalError("DBSIZE: " + *n);
  }
  return out;
}

absl::Status RedisCluster::MoveSlots(int first, int last, int to) {
  absl::StatusOr<std::string> to_id = NodeId(to);
  if (!to_id.ok()) return to_id.status();
  const RedisCredentials admin = nodes_[to]->admin();
  for (int slot = first; slot <= last; ++slot) {
    absl::StatusOr<int> from = MasterOf(slot);
    if (!from.ok()) return from.status();
    if (*from == to) continue;
    absl::StatusOr<std::string> from_id = NodeId(*from);
    if (!from_id.ok()) return from_id.status();
    const std::string s = absl::StrCat(slot);
    RedisServer& source = *nodes_[*from];
    RedisServer& target = *nodes_[to];
    for (auto r : {target.Command({"CLUSTER", "SETSLOT", s, "IMPORTING", *from_id}),
                   source.Command({"CLUSTER", "SETSLOT", s, "MIGRATING", *to_id})}) {
      if (!r.ok()) return r.status();
    }
    while (true) {
      absl::StatusOr<std::string> keys = source.Command({"CLUSTER", "GETKEYSINSLOT", s, "100"});
      if (!keys.ok()) return keys.status();
      if (keys->empty()) break;
      std::vector<std::string> migrate = {"MIGRATE", "127.0.0.1", absl::StrCat(target.port()),
                                          "",        "0",         "5000"};
      if (!admin.user.empty()) {
        migrate.insert(migrate.end(), {"AUTH2", admin.user, admin.password});
      }
      migrate.push_back("KEYS");
      for (absl::string_view k : absl::StrSplit(*keys, '\n', absl::SkipEmpty())) {
        migrate.emplace_back(k);
      }
      absl::StatusOr<std::string> r = source.Command(migrate);
      if (!r.ok()) return r.status();
    }
    // The target first (it starts serving), then the source (it redirects), then the others.
    for (int i : {to, *from}) {
      absl::StatusOr<std::string> r = nodes_[i]->Command({"CLUSTER", "SETSLOT", s, "NODE", *to_id});
      if (!r.ok()) return r.status();
    }
    for (int i = 0; i < num_nodes(); ++i) {
      if (i == to || i == *from || !nodes_[i]->running()) continue;
      absl::StatusOr<std::string> role = nodes_[i]->Command({"ROLE"});
      if (role.ok() && absl::StartsWith(*role, "master")) {
        (void)nodes_[i]->Command({"CLUSTER", "SETSLOT", s, "NODE", *to_id});
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> RedisCluster::KillMasterOf(int slot) {
  absl::StatusOr<int> master = MasterOf(slot);
  if (!master.ok()) return master.status();
  if (absl::Status s = nodes_[*master]->Stop(SIGKILL); !s.ok()) return s;
  return *master;
}

absl::Status RedisCluster::Failover(int replica) {
  return nodes_[replica]->Command({"CLUSTER", "FAILOVER"}).status();
}

std::string RedisCluster::Url() const {
  std::vector<std::string> hosts;
  for (const auto& n : nodes_) hosts.push_back(absl::StrCat("127.0.0.1:", n->port()));
  return absl::StrCat("redis+cluster://", options_.acl_password.empty() ? "" : "arbiter@",
                      absl::StrJoin(hosts, ","));
}

RedisConnectionOptions RedisCluster::ConnectionOptions() const {
  RedisConnectionOptions o;
  for (const auto& n : nodes_) o.cluster_nodes.push_back({"127.0.0.1", n->port()});
  if (!options_.acl_password.empty()) {
    o.user = "arbiter";
    o.password = options_.acl_password;
  }
  return o;
}

std::string RedisCluster::Logs() const {
  std::string out;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    absl::StrAppend(&out, "--- node ", i, " (port ", nodes_[i]->port(), ")\n", nodes_[i]->LogTail(),
                    "\n");
  }
  return out;
}

}  // namespace store::testing
