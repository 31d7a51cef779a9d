#include "libs/service/redis_store_metrics.h"

#include <array>
#include <atomic>

#include "libs/service/metric_families.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"

namespace service {
namespace {

enum Counter { kSwitches, kAckFailures, kCounters };
constexpr MetricSpec kCounterSpecs[kCounters] = {
    {"arbiter_store_master_switches_total",
     "Times the store moved to a new Redis master (a Sentinel failover followed)."},
    {"arbiter_store_replica_ack_failures_total",
     "Appends not acknowledged by enough Redis replicas in time (reported UNAVAILABLE)."},
};

// Both stores of a process (the clock's and the games') make an observer on the one registry:
// it merges a family registered again under the same name (InsertBehavior::Merge), and Add
// returns the existing series for the same (empty) labels, so they share the series.
class PrometheusFailoverObserver final : public store::RedisFailoverObserver {
 public:
  explicit PrometheusFailoverObserver(prometheus::Registry& registry)
      : counters_(AddMetrics<prometheus::Counter>(registry, kCounterSpecs)),
        failover_(AddMetric<prometheus::Gauge>(
            registry, "arbiter_store_failover_in_progress",
            "1 while a store of this process knows no writable Redis master (a failover under "
            "way, or Redis down), else 0.")) {}

  void OnMasterSwitch() override { counters_[kSwitches]->Increment(); }
  void OnFailoverInProgress(bool in_progress) override {
    // Only changes move the shared gauge, so it sums the stores' states.
    if (in_progress_.exchange(in_progress) == in_progress) return;
    if (in_progress) {
      failover_.Increment();
    } else {
      failover_.Decrement();
    }
  }
  void OnReplicaAckFailure() override { counters_[kAckFailures]->Increment(); }

 private:
  const std::array<prometheus::Counter*, kCounters> counters_;
  prometheus::Gauge& failover_;
  std::atomic<bool> in_progress_ = false;
};

}  // namespace

std::shared_ptr<store::RedisFailoverObserver> RedisStoreMetrics(prometheus::Registry& registry) {
  return std::make_shared<PrometheusFailoverObserver>(registry);
}

}  // namespace service
