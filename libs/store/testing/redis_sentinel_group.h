// Redis that fails over, for tests: a master, its replicas and three Sentinels, each a real
// redis-server started by the test on a free loopback port (the Sentinels as
// `redis-server sentinel.conf --sentinel`, which is what Debian's redis-sentinel runs). The data
// nodes use the shipped redis.conf (AOF, appendfsync always) like RedisServer; the Sentinels
// declare the master down after `down_after_ms` (1 s), so a failover takes a few seconds.
//
//   ASSIGN_OR_RETURN(auto group, RedisSentinelGroup::Start({.replicas = 1}));
//   store options: .connection = group->ConnectionOptions()   (or --store=group->Url())
//   ASSIGN_OR_RETURN(int killed, group->KillMaster());        // SIGKILL
//   ASSIGN_OR_RETURN(int now, group->WaitForNewMaster(killed, absl::Seconds(30)));
//   group->RestartNode(killed);                                // comes back as a replica
//   group->Failover();                                          // SENTINEL FAILOVER
//
// With `acl_password` the data nodes load the store's ACL (libs/store/redis-users.acl): the
// store authenticates as `arbiter` with that password, replicas replicate as user `replica` and
// the Sentinels talk to the data nodes as user `sentinel`, both with replication_password(). The
// Sentinels have no password unless `sentinel_password` is set (as the deployment does). Every
// process is killed with the test (RedisServer), and by the destructor. Call Start, RestartNode and
// the like from the test's main thread (see redis_server.h).
#ifndef ARBITER_LIBS_STORE_TESTING_REDIS_SENTINEL_GROUP_H_
#define ARBITER_LIBS_STORE_TESTING_REDIS_SENTINEL_GROUP_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "libs/store/redis_client.h"
#include "libs/store/testing/redis_server.h"

namespace store::testing {

struct RedisSentinelGroupOptions {
  int replicas = 1;   // data nodes besides the master
  int sentinels = 3;  // quorum: a majority of them
  std::string master_name = "arbiter";
  // "" : no authentication on the data nodes. Else: the store user's password (see above).
  std::string acl_password;
  std::string appendfsync;  // as RedisServerOptions::appendfsync, for every data node
  // The Sentinels' own password (requirepass, and sentinel-pass between them); "" for none.
  // ConnectionOptions carries it as sentinel_password.
  std::string sentinel_password;
  // Per data node (0: the first master, 1..: the replicas), RedisServerOptions::clock_offset:
  // e.g. {"", "+30s"} runs the replica's clock 30 s ahead. Missing entries: the machine's clock.
  std::vector<std::string> clock_offsets;
  int down_after_ms = 1000;
  int failover_timeout_ms = 3000;
  absl::Duration start_timeout = absl::Seconds(30);
};

class RedisSentinelGroup {
 public:
  // Starts the master, the replicas (replicaof the master) and the Sentinels, and waits until
  // every replica's link is up and every Sentinel knows the replicas and the other Sentinels
  // (so a failover can be authorised at once).
  static absl::StatusOr<std::unique_ptr<RedisSentinelGroup>> Start(
      RedisSentinelGroupOptions options = {});
  ~RedisSentinelGroup();
  RedisSentinelGroup(const RedisSentinelGroup&) = delete;
  RedisSentinelGroup& operator=(const RedisSentinelGroup&) = delete;

  // redis+sentinel://[arbiter@]127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/NAME, without the password
  // files: for arbiterd, write acl_password to a file and pass --store_password_file (and
  // sentinel_password as ?sentinel_password_file=PATH), plus --store_min_replica_acks=1; or use
  // ConnectionOptions in process.
  std::string Url() const;
  // The store's connection to the group: the Sentinels, the master's name and, with
  // acl_password, the store user and its password.
  RedisConnectionOptions ConnectionOptions() const;
  std::vector<RedisAddress> sentinel_addresses() const;
  const std::string& master_name() const { return options_.master_name; }
  std::string replication_password() const;

  // Data nodes: 0 is the first master; 1.. the first replicas.
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  RedisServer& node(int i) { return *nodes_[i]; }
  RedisServer& sentinel(int i) { return *sentinels_[i]; }
  // The node a Sentinel that answers names as master now (it may be down).
  absl::StatusOr<int> MasterIndex() const;

  // SIGKILL the current master (as MasterIndex names it): the index killed.
  absl::StatusOr<int> KillMaster();
  // SENTINEL FAILOVER: a Sentinel promotes a replica without the master being down. With two or
  // more replicas this can lose acknowledged writes (README.md, "Failover"): the master keeps
  // accepting writes, which the replica not yet reconfigured acknowledges, until the Sentinels
  // demote it.
  absl::Status Failover();
  // The planned switch that loses nothing: CLIENT PAUSE `pause` WRITE on the master (its writes
  // wait; the replicas catch up), then SENTINEL FAILOVER. Clients waiting on the old master time
  // out (command_timeout) and find the new one.
  absl::Status SafeFailover(absl::Duration pause = absl::Seconds(10));
  // Waits until the Sentinels name a node other than `old_index` as master and that node says
  // ROLE master: the index of the new master.
  absl::StatusOr<int> WaitForNewMaster(int old_index, absl::Duration timeout);
  // Waits until every running data node but the master has its replication link up.
  absl::Status WaitUntilReplicating(absl::Duration timeout);

  // A data node stopped and started again (same port and directory); a restarted old master
  // is made a replica by the Sentinels.
  absl::Status StopNode(int i, int signal = SIGTERM) { return nodes_[i]->Stop(signal); }
  absl::Status RestartNode(int i) { return nodes_[i]->Restart(); }

  // The last lines of every process's log, for failure messages.
  std::string Logs() const;

 private:
  explicit RedisSentinelGroup(RedisSentinelGroupOptions options);
  absl::Status StartAll();
  absl::Status WaitUntilReady();
  absl::StatusOr<std::string> AskSentinel(const std::vector<std::string>& args) const;
  absl::StatusOr<int> NodeIndexOfPort(int port) const;

  const RedisSentinelGroupOptions options_;
  std::vector<std::unique_ptr<RedisServer>> nodes_;
  std::vector<std::unique_ptr<RedisServer>> sentinels_;
};

}  // namespace store::testing

#endif  // ARBITER_LIBS_STORE_TESTING_REDIS_SENTINEL_GROUP_H_
