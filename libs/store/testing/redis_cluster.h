// A Redis Cluster for tests: masters and their replicas, each a real redis-server started by the
// test on a free loopback port with the shipped redis.conf (AOF, appendfsync always) and
// `--cluster-enabled yes`, formed as `redis-cli --cluster create ... --cluster-replicas 1` forms
// one (equal contiguous slot ranges, each master with its replicas), with the store's function
// library loaded on every node (FUNCTION LOAD runs per node; a replica also gets its master's by
// replication). A master that stops answering for `node_timeout_ms` is replaced by its replica.
//
//   ASSIGN_OR_RETURN(auto cluster, RedisCluster::Start());     // 3 masters + 3 replicas
//   store options: .connection = cluster->ConnectionOptions()  (or --store=cluster->Url())
//   cluster->MoveSlots(0, 99, /*to=*/1);                      // a reshard, under load
//   cluster->KillMaster(0); cluster->WaitUntilHealthy(...);      // its replica takes over
//
// With `acl_password` every node loads the store's ACL (libs/store/redis-users.acl): the store
// authenticates as `arbiter`, replicas replicate as `replica`, and the harness's own commands
// (forming the cluster, migrating slots) run as the test-only admin user. Call Start and the
// node operations from the test's main thread (see redis_server.h).
#ifndef ARBITER_LIBS_STORE_TESTING_REDIS_CLUSTER_H_
#define ARBITER_LIBS_STORE_TESTING_REDIS_CLUSTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "libs/store/redis_client.h"
#include "libs/store/testing/redis_server.h"

namespace store::testing {

struct RedisClusterOptions {
  int masters = 3;
  int replicas_per_master = 1;
  // "": no authentication. Else the store user's password (see above).
  std::string acl_password;
  std::string appendfsync;  // as RedisServerOptions::appendfsync, for every node
  // How long a master may be silent before its replica is promoted (cluster-node-timeout).
  int node_timeout_ms = 1000;
  absl::Duration start_timeout = absl::Seconds(30);
};

class RedisCluster {
 public:
  // Starts every node, assigns the slots, introduces the nodes (CLUSTER MEET), makes the
  // replicas (CLUSTER REPLICATE) and waits until every node says cluster_state:ok and every
  // replica's link is up.
  static absl::StatusOr<std::unique_ptr<RedisCluster>> Start(RedisClusterOptions options = {});
  ~RedisCluster();
  RedisCluster(const RedisCluster&) = delete;
  RedisCluster& operator=(const RedisCluster&) = delete;

  // redis+cluster://[arbiter@]127.0.0.1:P0,127.0.0.1:P1,... (every node a seed), without the
  // password file: for arbiterd, write acl_password to a file (--store_password_file).
  std::string Url() const;
  // The store's connection: every node as seed and, with acl_password, the store user.
  RedisConnectionOptions ConnectionOptions() const;

  // Nodes: 0..masters-1 were started as masters, the rest as their replicas (node m + masters*k
  // replicates master m). A failover swaps the roles; MasterOf asks the cluster.
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  RedisServer& node(int i) { return *nodes_[i]; }
  // The node serving `slot` as master now (asking the running nodes), or an error.
  absl::StatusOr<int> MasterOf(int slot) const;
  // The number of keys each running master holds (DBSIZE), by node index (-1: not a master).
  absl::StatusOr<std::vector<long long>> KeysPerNode() const;

  // Moves slots first..last to the master `to` as `redis-cli --cluster reshard` does: for each
  // slot, SETSLOT IMPORTING/MIGRATING, MIGRATE of its keys in batches, SETSLOT NODE on every
  // master. Commands meanwhile get ASK or TRYAGAIN and follow.
  absl::Status MoveSlots(int first, int last, int to);
  // SIGKILL the master of `slot`: the index killed. Its replica is promoted after
  // node_timeout_ms (WaitUntilHealthy).
  absl::StatusOr<int> KillMasterOf(int slot);
  // CLUSTER FAILOVER on `replica`: a planned switch (the master pauses its clients until the
  // replica has caught up, so nothing acknowledged is lost).
  absl::Status Failover(int replica);
  // Waits until every running node says cluster_state:ok and every slot has a running master.
  absl::Status WaitUntilHealthy(absl::Duration timeout);
  // Starts a stopped node again (same port and directory); it rejoins as a replica.
  absl::Status RestartNode(int i) { return nodes_[i]->Restart(); }

  // The last lines of every node's log, for failure messages.
  std::string Logs() const;

 private:
  explicit RedisCluster(RedisClusterOptions options);
  absl::Status StartAll();
  absl::StatusOr<std::string> NodeId(int i) const;
  absl::StatusOr<int> NodeIndexOfPort(int port) const;

  const RedisClusterOptions options_;
  std::vector<std::unique_ptr<RedisServer>> nodes_;
};

}  // namespace store::testing

#endif  // ARBITER_LIBS_STORE_TESTING_REDIS_CLUSTER_H_
