#include "tests/e2e/cluster.h"

#include <signal.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace e2e {

absl::StatusOr<std::unique_ptr<Cluster>> Cluster::Start(ClusterOptions options) {
  std::unique_ptr<Cluster> c(new Cluster(std::move(options)));
  if (c->options_.start_redis) {
    absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> redis =
        store::testing::RedisServer::Start({.appendfsync = "always"});
    if (!redis.ok()) return redis.status();
    c->redis_ = std::move(*redis);
  }
  c->store_url_ = !c->options_.store_url.empty()
                      ? c->options_.store_url
                      : absl::StrCat("redis://127.0.0.1:", c->redis_->port());
  c->binary_ = testing_util::FindRunfile("services/arbiterd/arbiterd");
  if (c->binary_.empty()) {
    return absl::NotFoundError("services/arbiterd/arbiterd is not in the runfiles");
  }
  c->replicas_.resize(c->options_.replicas);
  c->ports_.assign(c->options_.replicas, 0);
  for (int i = 0; i < c->options_.replicas; ++i) {
    absl::Status s = c->RestartReplica(i);
    if (!s.ok()) return s;
  }
  return c;
}

std::vector<std::string> Cluster::FlagsOf(int i) const {
  std::vector<std::string> flags = {
      "--services=arbitration",
      absl::StrCat("--store=", store_url_),
      "--insecure_dev",
      "--metrics_address=none",
      absl::StrCat("--arbitration_replica_id=", replica_id(i)),
      // Sweeps fast enough that a dead or stopped replica's deadlines are taken over well within
      // a fault's measurement window (the defaults are 500 ms each).
      "--arbitration_sweep_interval=100ms",
      "--arbitration_sweep_grace=200ms",
      "--arbitration_engine_path=",  // no 10.2 claims here: no Stockfish
      "--shutdown_grace=0s",
  };
  // ServerProcess puts --grpc_address=127.0.0.1:0 first; the last occurrence of a flag wins, so a
  // restarted replica takes its old port back.
  if (ports_[i] != 0) flags.push_back(absl::StrCat("--grpc_address=127.0.0.1:", ports_[i]));
  flags.insert(flags.end(), options_.extra_flags.begin(), options_.extra_flags.end());
  return flags;
}

std::string Cluster::address(int i) const { return absl::StrCat("127.0.0.1:", ports_[i]); }

std::string Cluster::replica_id(int i) const { return absl::StrCat("R", i); }

pid_t Cluster::pid(int i) const { return replicas_[i] ? replicas_[i]->pid() : -1; }

void Cluster::Signal(int i, int signal) {
  if (!replicas_[i]) return;
  if (signal == SIGSTOP || signal == SIGCONT) {
    kill(replicas_[i]->pid(), signal);
    return;
  }
  replicas_[i]->Kill(signal);
  replicas_[i].reset();
}

absl::Status Cluster::RestartReplica(int i) {
  if (replicas_[i]) return absl::FailedPreconditionError("the replica is running");
  // A port just released may be refused for a moment (another process bound it, or the kernel
  // has not let it go): a few attempts.
  absl::Status last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    absl::StatusOr<std::unique_ptr<testing_util::ServerProcess>> p =
        testing_util::ServerProcess::Start(binary_, FlagsOf(i));
    if (p.ok()) {
      replicas_[i] = std::move(*p);
      ports_[i] = replicas_[i]->grpc_port();
      return absl::OkStatus();
    }
    last = p.status();
    absl::SleepFor(absl::Milliseconds(200));
  }
  return last;
}

std::string Cluster::LogTail(int i) const {
  if (!replicas_[i]) return "";
  std::string log = replicas_[i]->Log();
  return log.size() > 4000 ? log.substr(log.size() - 4000) : log;
}

}  // namespace e2e
