// The Redis store's failover metrics, on the server's Prometheus registry (the alerting rules
// use these names):
//
//   arbiter_store_master_switches_total       counter: the store moved to a new master
//                                             (a Sentinel failover followed)
//   arbiter_store_failover_in_progress        gauge: 1 while no writable master is known (a
//                                             failover under way, or Redis down), else 0; the
//                                             sum over the stores of the process (arbiterd
//                                             hosting the clock and arbitration: up to 2)
//   arbiter_store_replica_ack_failures_total  counter: appends not acknowledged by
//                                             min_replica_acks replicas within the timeout
//                                             (reported UNAVAILABLE, retried by the caller)
//
//   options.connection.observer = service::RedisStoreMetrics(registry);
#ifndef ARBITER_LIBS_SERVICE_REDIS_STORE_METRICS_H_
#define ARBITER_LIBS_SERVICE_REDIS_STORE_METRICS_H_

#include <memory>

#include "libs/store/redis_client.h"
#include "prometheus/registry.h"

namespace service {

// An observer for one store (RedisConnectionOptions::observer) that counts into `registry`'s
// families, made on first use (a second store on the same registry shares them).
std::shared_ptr<store::RedisFailoverObserver> RedisStoreMetrics(prometheus::Registry& registry);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_REDIS_STORE_METRICS_H_
