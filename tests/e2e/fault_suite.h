// The fault suite: simulated players play real games through the arbitration service
// of several arbiterd replicas (game_load.h) while faults are done one after the other, each
// followed by a quiet time in which it is measured; then every game's log is read back and
// checked against the ledger of acknowledgements (log_check.h), and a table of the faults and
// their recovery times is printed. The checks are gtest expectations:
//   acknowledged commands lost 0, applied twice 0, every flag once and at its instant, clocks
//   consistent with the log, every long game's commands acknowledged, a live replica's flags seen
//   on time, every fault hitting some command and every game it hit acknowledged again.
//
// Recovery time of a fault: from the fault to the first acknowledged command of every game it hit
// (a game one of whose commands failed with a transient code in the fault's window), and to the
// window's last such error.
#ifndef ARBITER_TESTS_E2E_FAULT_SUITE_H_
#define ARBITER_TESTS_E2E_FAULT_SUITE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tests/e2e/game_load.h"

namespace e2e {

enum class FaultKind {
  kReplicaKill,         // SIGKILL a replica, restarted (same port) a second later
  kReplicaStop,         // SIGSTOP a replica for 5 s, then SIGCONT
  kRedisKill,           // SIGKILL redis-server, started again on its directory (replays the AOF)
  kRedisTerm,           // the same after SIGTERM (a clean shutdown)
  kMasterKill,          // Sentinel: SIGKILL the master; a replica is promoted; the old one rejoins
  kMasterFailover,      // Sentinel: SENTINEL FAILOVER (the master demoted while it takes writes)
  kMasterSafeFailover,  // Sentinel: CLIENT PAUSE WRITE on the master, then SENTINEL FAILOVER
  kSlotMigration,       // Redis Cluster: slots moved between masters (SETSLOT + MIGRATE)
  kClusterMasterKill    // Redis Cluster: SIGKILL a master; its replica is promoted, it rejoins
};
const char* FaultName(FaultKind kind);

struct SuiteConfig {
  std::string form = "short";
  int replicas = 2;
  std::vector<FaultKind> plan;
  absl::Duration warmup = absl::Seconds(6);
  absl::Duration quiet = absl::Seconds(3);
  LoadOptions load;
  // The replicas' store; "" starts a redis-server (kRedisKill / kRedisTerm act on it).
  std::string store_url;
  // Does the Sentinel faults (kMasterKill, kMasterFailover) and the cluster's (kSlotMigration,
  // kClusterMasterKill), on the test's main thread, and returns once the new master serves.
  std::function<absl::Status(FaultKind)> sentinel_fault;
};

// What the suites on a replicated Redis share (Sentinel, Redis Cluster): the form ("short, <store>"
// or with E2E_LONG=1 "long, <store>"), the arbiterd replicas, quiet time, warm-up (the first flags
// fall before the first fault), run id (`run_prefix` and the time) and games, each overridable by
// its E2E_* variable (README.md).
SuiteConfig ReplicatedStoreConfig(const std::string& store, const std::string& run_prefix);

// Runs the suite (gtest expectations; call from a TEST on its main thread).
void RunFaultSuite(const SuiteConfig& config);

// E2E_LONG=1 (the long form) and the other E2E_* settings: see README.md.
int EnvInt(const char* name, int fallback);

}  // namespace e2e

#endif  // ARBITER_TESTS_E2E_FAULT_SUITE_H_
