// The fault suite on one Redis (fault_suite.h): arbiterd replicas killed and stopped, Redis killed
// (and, in the long form, shut down) and started again from its AOF, under real games.
//
// Short form (the test suite, ~30 s): 2 replicas, 16 long + 8 flag game slots, one round of
// replica SIGKILL, replica SIGSTOP 5 s, Redis SIGKILL. Long form (by hand, README.md): E2E_LONG=1,
// 3 replicas, 96 + 32 slots, E2E_ROUNDS (2) rounds of every fault, E2E_QUIET_S (10) s after each.
#include "tests/e2e/fault_suite.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace e2e {
namespace {

TEST(FaultSuite, NoAcknowledgedCommandLostOrAppliedTwiceAndEveryFlagOnceAtItsInstant) {
  const bool long_form = EnvInt("E2E_LONG", 0) != 0;
  SuiteConfig config;
  config.form = long_form ? "long" : "short";
  config.replicas = EnvInt("E2E_REPLICAS", long_form ? 3 : 2);
  config.quiet = absl::Seconds(EnvInt("E2E_QUIET_S", long_form ? 10 : 3));
  config.warmup = absl::Seconds(long_form ? 8 : 6);
  config.load.run_id = absl::StrCat("e2e", UnixMs() % 1000000);
  config.load.long_games = EnvInt("E2E_LONG_GAMES", long_form ? 96 : 16);
  config.load.flag_games = EnvInt("E2E_FLAG_GAMES", long_form ? 32 : 8);
  const int rounds = EnvInt("E2E_ROUNDS", long_form ? 2 : 1);
  for (int round = 0; round < rounds; ++round) {
    config.plan.push_back(FaultKind::kReplicaKill);
    config.plan.push_back(FaultKind::kReplicaStop);
    config.plan.push_back(FaultKind::kRedisKill);
    if (long_form) config.plan.push_back(FaultKind::kRedisTerm);
  }
  RunFaultSuite(config);
}

}  // namespace
}  // namespace e2e
