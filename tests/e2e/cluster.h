// The system under the fault suite: a redis-server (libs/store/redis.conf: AOF, appendfsync
// always) and N arbiterd replicas hosting the arbitration service on it, each a child process on
// its own loopback port, with its own --arbitration_replica_id. A replica keeps its port across a
// restart, so the clients' channels reach the new process without being told.
//
//   ASSIGN_OR_RETURN(auto cluster, Cluster::Start({.replicas = 2}));
//   cluster->Signal(0, SIGKILL);        // a crash
//   cluster->RestartReplica(0);         // same port, same replica id
//   cluster->Signal(1, SIGSTOP);  ...  cluster->Signal(1, SIGCONT);
//   cluster->redis().Stop(SIGKILL);  cluster->redis().Restart();   // replays the AOF
//
// Start, RestartReplica and the Redis restarts must run on the test's main thread (the children
// die with the thread that forked them, PR_SET_PDEATHSIG).
#ifndef ARBITER_TESTS_E2E_CLUSTER_H_
#define ARBITER_TESTS_E2E_CLUSTER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "libs/store/testing/redis_server.h"
#include "tests/integration/clock_process.h"

namespace e2e {

struct ClusterOptions {
  int replicas = 2;
  // The store URL the replicas get; "" = redis://127.0.0.1:<the started redis-server's port>.
  // (A Redis with Sentinel passes its redis+sentinel:// URL and starts no redis-server here.)
  std::string store_url;
  bool start_redis = true;
  // Flags added to every replica's (after the suite's own, so they win).
  std::vector<std::string> extra_flags;
};

class Cluster {
 public:
  static absl::StatusOr<std::unique_ptr<Cluster>> Start(ClusterOptions options);

  int replicas() const { return static_cast<int>(replicas_.size()); }
  // "127.0.0.1:<port>" of replica i (the same after a restart).
  std::string address(int i) const;
  std::string replica_id(int i) const;
  // The replica's process id, or -1 while it is down.
  pid_t pid(int i) const;
  bool up(int i) const { return replicas_[i] != nullptr; }

  // SIGKILL / SIGTERM end the process (reaped); SIGSTOP / SIGCONT pause and resume it.
  void Signal(int i, int signal);
  // Starts replica i again on its port (after SIGKILL or SIGTERM).
  absl::Status RestartReplica(int i);

  store::testing::RedisServer& redis() { return *redis_; }
  const std::string& store_url() const { return store_url_; }
  // The last lines of replica i's log (for failure messages); "" while it is down.
  std::string LogTail(int i) const;

 private:
  explicit Cluster(ClusterOptions options) : options_(std::move(options)) {}
  std::vector<std::string> FlagsOf(int i) const;

  ClusterOptions options_;
  std::unique_ptr<store::testing::RedisServer> redis_;
  std::string store_url_;
  std::string binary_;
  std::vector<std::unique_ptr<testing_util::ServerProcess>> replicas_;
  std::vector<int> ports_;
};

}  // namespace e2e

#endif  // ARBITER_TESTS_E2E_CLUSTER_H_
