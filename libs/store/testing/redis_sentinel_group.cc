#include "libs/store/testing/redis_sentinel_group.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace store::testing {
namespace {

absl::StatusOr<std::string> MakeDir(absl::string_view what) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string pattern = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", what, ".XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp ", pattern, ": ", std::strerror(errno)));
  }
  return pattern;
}

// The value after `key` in a flattened key/value reply (RedisServer::Command), or "".
std::string Field(const std::string& flat, absl::string_view key) {
  std::vector<std::string> lines = absl::StrSplit(flat, '\n');
  for (size_t i = 0; i + 1 < lines.size(); i += 2) {
    if (lines[i] == key) return lines[i + 1];
  }
  return "";
}

}  // namespace

RedisSentinelGroup::RedisSentinelGroup(RedisSentinelGroupOptions options)
    : options_(std::move(options)) {}

RedisSentinelGroup::~RedisSentinelGroup() {
  // Sentinels first, so that they do not fail over while the data nodes go.
  for (auto& s : sentinels_) s->Stop(SIGKILL).IgnoreError();
  for (auto& n : nodes_) n->Stop(SIGKILL).IgnoreError();
}

std::string RedisSentinelGroup::replication_password() const {
  return options_.acl_password.empty() ? "" : absl::StrCat("replication-", options_.acl_password);
}

absl::StatusOr<std::unique_ptr<RedisSentinelGroup>> RedisSentinelGroup::Start(
    RedisSentinelGroupOptions options) {
  if (options.replicas < 1 || options.sentinels < 1) {
    return absl::InvalidArgumentError("a group needs at least one replica and one Sentinel");
  }
  std::unique_ptr<RedisSentinelGroup> group(new RedisSentinelGroup(std::move(options)));
  if (absl::Status s = group->StartAll(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), "\n", group->Logs()));
  }
  return group;
}

absl::Status RedisSentinelGroup::StartAll() {
  // Every data node may become a replica (a restarted old master is made one), so each gets the
  // replication user's credentials.
  std::vector<std::string> auth;
  if (!options_.acl_password.empty()) {
    auth = {"--masteruser", "replica", "--masterauth", replication_password()};
  }
  // Each data node gets a copy of redis.conf in its own directory: the Sentinels make a
  // reconfigured node rewrite its configuration file (CONFIG REWRITE), which must not be the
  // shared one (the next node started would come up as a replica of a stale address).
  const std::string shipped = FindRedisConf();
  if (shipped.empty()) return absl::InternalError("libs/store/redis.conf not found in runfiles");
  auto node_options = [&](const RedisServerOptions& base) -> absl::StatusOr<RedisServerOptions> {
    absl::StatusOr<std::string> dir = MakeDir("redis-node");
    if (!dir.ok()) return dir.status();
    RedisServerOptions o = base;
    o.dir = *dir;
    o.config_path = absl::StrCat(*dir, "/redis.conf");
    std::error_code ec;
    std::filesystem::copy_file(shipped, o.config_path, ec);
    if (ec) return absl::InternalError(absl::StrCat("copy redis.conf: ", ec.message()));
    return o;
  };
  RedisServerOptions data;
  data.acl_password = options_.acl_password;
  data.replication_password = replication_password();
  data.appendfsync = options_.appendfsync;
  data.extra_args = auth;
  auto clock_offset = [this](int node) -> std::string {
    return node < static_cast<int>(options_.clock_offsets.size()) ? options_.clock_offsets[node]
                                                                  : "";
  };
  absl::StatusOr<RedisServerOptions> master_options = node_options(data);
  if (!master_options.ok()) return master_options.status();
  master_options->clock_offset = clock_offset(0);
  absl::StatusOr<std::unique_ptr<RedisServer>> master = RedisServer::Start(*master_options);
  if (!master.ok()) return master.status();
  nodes_.push_back(*std::move(master));
  const std::string master_port = absl::StrCat(nodes_[0]->port());
  for (int i = 0; i < options_.replicas; ++i) {
    absl::StatusOr<RedisServerOptions> replica = node_options(data);
    if (!replica.ok()) return replica.status();
    replica->extra_args.insert(replica->extra_args.end(),
                               {"--replicaof", "127.0.0.1", master_port});
    replica->clock_offset = clock_offset(i + 1);
    absl::StatusOr<std::unique_ptr<RedisServer>> r = RedisServer::Start(*replica);
    if (!r.ok()) return r.status();
    nodes_.push_back(*std::move(r));
  }
  if (absl::Status s = WaitUntilReplicating(options_.start_timeout); !s.ok()) return s;
  const std::string& name = options_.master_name;
  for (int i = 0; i < options_.sentinels; ++i) {
    absl::StatusOr<std::string> dir = MakeDir("sentinel");
    if (!dir.ok()) return dir.status();
    const std::string conf = absl::StrCat(*dir, "/sentinel.conf");
    std::ofstream out(conf, std::ios::trunc);
    out << "sentinel monitor " << name << " 127.0.0.1 " << master_port << " "
        << options_.sentinels / 2 + 1 << "\n"
        << "sentinel down-after-milliseconds " << name << " " << options_.down_after_ms << "\n"
        << "sentinel failover-timeout " << name << " " << options_.failover_timeout_ms << "\n"
        << "sentinel parallel-syncs " << name << " 1\n";
    if (!options_.acl_password.empty()) {
      out << "sentinel auth-user " << name << " sentinel\n"
          << "sentinel auth-pass " << name << " " << replication_password() << "\n";
    }
    if (!options_.sentinel_password.empty()) {
      out << "requirepass " << options_.sentinel_password << "\n"
          << "sentinel sentinel-pass " << options_.sentinel_password << "\n";
    }
    out.close();
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", conf));
    RedisServerOptions sentinel;
    sentinel.requirepass = options_.sentinel_password;
    sentinel.config_path = conf;
    sentinel.dir = *dir;
    sentinel.sentinel = true;
    absl::StatusOr<std::unique_ptr<RedisServer>> s = RedisServer::Start(sentinel);
    if (!s.ok()) return s.status();
    sentinels_.push_back(*std::move(s));
  }
  return WaitUntilReady();
}

absl::Status RedisSentinelGroup::WaitUntilReplicating(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string waiting;
  while (absl::Now() < deadline) {
    waiting.clear();
    for (int i = 0; i < num_nodes(); ++i) {
      if (!nodes_[i]->running()) continue;
      absl::StatusOr<std::string> info = nodes_[i]->Command({"INFO", "replication"});
      if (!info.ok()) {
        waiting = absl::StrCat("node ", i, ": ", info.status().message());
        break;
      }
      if (absl::StrContains(*info, "role:master")) continue;
      if (!absl::StrContains(*info, "master_link_status:up")) {
        waiting = absl::StrCat("node ", i, "'s replication link is not up");
        break;
      }
    }
    if (waiting.empty()) return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError(absl::StrCat("replication: ", waiting));
}

absl::Status RedisSentinelGroup::WaitUntilReady() {
  const absl::Time deadline = absl::Now() + options_.start_timeout;
  std::string waiting;
  while (absl::Now() < deadline) {
    waiting.clear();
    for (int i = 0; i < static_cast<int>(sentinels_.size()) && waiting.empty(); ++i) {
      absl::StatusOr<std::string> m =
          sentinels_[i]->Command({"SENTINEL", "MASTER", options_.master_name});
      if (!m.ok()) {
        waiting = absl::StrCat("sentinel ", i, ": ", m.status().message());
      } else if (Field(*m, "num-slaves") != absl::StrCat(options_.replicas) ||
                 Field(*m, "num-other-sentinels") != absl::StrCat(sentinels_.size() - 1) ||
                 Field(*m, "flags") != "master") {
        waiting = absl::StrCat("sentinel ", i, " knows ", Field(*m, "num-slaves"), " replicas and ",
                               Field(*m, "num-other-sentinels"), " other sentinels, flags ",
                               Field(*m, "flags"));
      }
    }
    if (waiting.empty()) return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::DeadlineExceededError(absl::StrCat("sentinels not ready: ", waiting));
}

std::string RedisSentinelGroup::Url() const {
  std::vector<std::string> hosts;
  for (const auto& s : sentinels_) hosts.push_back(absl::StrCat("127.0.0.1:", s->port()));
  return absl::StrCat("redis+sentinel://", options_.acl_password.empty() ? "" : "arbiter@",
                      absl::StrJoin(hosts, ","), "/", options_.master_name);
}

RedisConnectionOptions RedisSentinelGroup::ConnectionOptions() const {
  RedisConnectionOptions o;
  o.sentinels = sentinel_addresses();
  o.master_name = options_.master_name;
  o.sentinel_password = options_.sentinel_password;
  if (!options_.acl_password.empty()) {
    o.user = "arbiter";
    o.password = options_.acl_password;
  }
  return o;
}

std::vector<RedisAddress> RedisSentinelGroup::sentinel_addresses() const {
  std::vector<RedisAddress> out;
  for (const auto& s : sentinels_) out.push_back({"127.0.0.1", s->port()});
  return out;
}

absl::StatusOr<std::string> RedisSentinelGroup::AskSentinel(
    const std::vector<std::string>& args) const {
  absl::Status last = absl::UnavailableError("no Sentinel running");
  for (const auto& s : sentinels_) {
    if (!s->running()) continue;
    absl::StatusOr<std::string> reply = s->Command(args);
    if (reply.ok()) return reply;
    last = reply.status();
  }
  return last;
}

absl::StatusOr<int> RedisSentinelGroup::NodeIndexOfPort(int port) const {
  for (int i = 0; i < num_nodes(); ++i) {
    if (nodes_[i]->port() == port) return i;
  }
  return absl::NotFoundError(absl::StrCat("no data node on port ", port));
}

absl::StatusOr<int> RedisSentinelGroup::MasterIndex() const {
  absl::StatusOr<std::string> addr =
      AskSentinel({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", options_.master_name});
  if (!addr.ok()) return addr.status();
  std::vector<std::string> parts = absl::StrSplit(*addr, '\n');
  int port = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &port)) {
    return absl::InternalError(absl::StrCat("unexpected master address: ", *addr));
  }
  return NodeIndexOfPort(port);
}

absl::StatusOr<int> RedisSentinelGroup::KillMaster() {
  absl::StatusOr<int> master = MasterIndex();
  if (!master.ok()) return master.status();
  if (absl::Status s = nodes_[*master]->Stop(SIGKILL); !s.ok()) return s;
  return *master;
}

absl::Status RedisSentinelGroup::Failover() {
  absl::StatusOr<std::string> reply = AskSentinel({"SENTINEL", "FAILOVER", options_.master_name});
  return reply.ok() ? absl::OkStatus() : reply.status();
}

absl::Status RedisSentinelGroup::SafeFailover(absl::Duration pause) {
  absl::StatusOr<int> master = MasterIndex();
  if (!master.ok()) return master.status();
  absl::StatusOr<std::string> paused = nodes_[*master]->Command(
      {"CLIENT", "PAUSE", absl::StrCat(absl::ToInt64Milliseconds(pause)), "WRITE"});
  if (!paused.ok()) return paused.status();
  return Failover();
}

absl::StatusOr<int> RedisSentinelGroup::WaitForNewMaster(int old_index, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string last = "no answer";
  while (absl::Now() < deadline) {
    absl::StatusOr<int> master = MasterIndex();
    if (!master.ok()) {
      last = std::string(master.status().message());
    } else if (*master == old_index) {
      last = "the Sentinels still name the old master";
    } else if (!nodes_[*master]->running()) {
      last = absl::StrCat("the Sentinels name node ", *master, ", which is down");
    } else {
      absl::StatusOr<std::string> role = nodes_[*master]->Command({"ROLE"});
      if (role.ok() && absl::StartsWith(*role, "master")) return *master;
      last = absl::StrCat("node ", *master, " is not master yet");
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("no new master within ", absl::FormatDuration(timeout), ": ", last));
}

std::string RedisSentinelGroup::Logs() const {
  std::string out;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    absl::StrAppend(&out, "--- node ", i, " (port ", nodes_[i]->port(), ")\n", nodes_[i]->LogTail(),
                    "\n");
  }
  for (size_t i = 0; i < sentinels_.size(); ++i) {
    absl::StrAppend(&out, "--- sentinel ", i, " (port ", sentinels_[i]->port(), ")\n",
                    sentinels_[i]->LogTail(), "\n");
  }
  return out;
}

}  // namespace store::testing
