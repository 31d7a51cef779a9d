// The fault suite (fault_suite.h) on Redis Cluster: the arbiterd replicas' store is
// redis+cluster://... (libs/store/redis_client.h: each command routed to its slot's master,
// MOVED/ASK followed, the map re-learnt after a failover) with min_replica_acks=1, on three
// masters with a replica each (libs/store/testing/redis_cluster.h). Under the games:
//   cluster slots migrated    a third of the first master's shards (the slot of each one's hash
//                             tag) moved to the second master, as `redis-cli --cluster reshard`
//                             does: SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE;
//   cluster master SIGKILL    the master of slot 0 killed; its replica takes over after the node
//                             timeout (1 s); the old master is started again and rejoins as its
//                             replica (until then the promoted master has no replica to WAIT for).
// Then the same checks: nothing acknowledged lost, nothing applied twice, every flag once at its
// instant, clocks consistent with the log, and each fault's recovery time.
//
// Short form (under a minute): 2 arbiterd replicas, 16 + 8 game slots, one migration, one kill.
// Long form: E2E_LONG=1 (README.md).
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "libs/store/deadline_index.h"
#include "libs/store/key_layout.h"
#include "libs/store/testing/redis_cluster.h"
#include "tests/e2e/fault_suite.h"

namespace e2e {
namespace {

TEST(ClusterFaultSuite, SlotsMovedAndAMasterKilledLoseNoAcknowledgedCommandAndApplyNoneTwice) {
  const bool long_form = EnvInt("E2E_LONG", 0) != 0;
  absl::StatusOr<std::unique_ptr<store::testing::RedisCluster>> started =
      store::testing::RedisCluster::Start({.appendfsync = "always"});
  ASSERT_TRUE(started.ok()) << started.status();
  store::testing::RedisCluster& redis = **started;

  SuiteConfig config = ReplicatedStoreConfig("Redis Cluster", "e2ec");
  config.store_url = absl::StrCat(redis.Url(), "?min_replica_acks=1&replica_ack_timeout=500ms");
  const int rounds = EnvInt("E2E_ROUNDS", long_form ? 2 : 1);
  for (int round = 0; round < rounds; ++round) {
    config.plan.push_back(FaultKind::kSlotMigration);
    config.plan.push_back(FaultKind::kClusterMasterKill);
  }
  int migration = 0;
  config.sentinel_fault = [&redis, &migration](FaultKind kind) -> absl::Status {
    if (kind == FaultKind::kSlotMigration) {
      // Every third shard's slot among those the master of slot 0 serves, to the next master
      // (a round later, back again: the slots go where their master is now).
      absl::StatusOr<int> from = redis.MasterOf(0);
      if (!from.ok()) return from.status();
      const int offset = migration++;
      int moved = 0;
      for (int shard = offset % 3; shard < store::kDefaultDeadlineShards; shard += 3) {
        const int slot = store::KeySlot(store::ShardHashTag(shard, store::kDefaultDeadlineShards));
        absl::StatusOr<int> master = redis.MasterOf(slot);
        if (!master.ok()) return master.status();
        if (*master != *from) continue;
        int to = -1;
        for (int m = 1; m < redis.num_nodes() && to < 0; ++m) {
          absl::StatusOr<int> other = redis.MasterOf((slot + m * 5461) % store::kClusterSlots);
          if (other.ok() && *other != *from) to = *other;
        }
        if (to < 0) return absl::InternalError("no other master");
        if (absl::Status s = redis.MoveSlots(slot, slot, to); !s.ok()) return s;
        ++moved;
      }
      std::printf("moved %d shards' slots\n", moved);
      return absl::OkStatus();
    }
    absl::StatusOr<int> killed = redis.KillMasterOf(0);
    if (!killed.ok()) return killed.status();
    if (absl::Status s = redis.WaitUntilHealthy(absl::Seconds(30)); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(s.message(), "\n", redis.Logs()));
    }
    if (absl::Status s = redis.RestartNode(*killed); !s.ok()) return s;
    return redis.WaitUntilHealthy(absl::Seconds(30));
  };
  RunFaultSuite(config);
}

}  // namespace
}  // namespace e2e
