// The failover metrics' names and what moves them (the alerting rules depend on the names).
#include "libs/service/redis_store_metrics.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/text_serializer.h"

namespace service {
namespace {

using ::testing::HasSubstr;

std::string Scrape(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

TEST(RedisStoreMetricsTest, CountsSwitchesFailoversAndMissedAcks) {
  prometheus::Registry registry;
  std::shared_ptr<store::RedisFailoverObserver> clock = RedisStoreMetrics(registry);
  std::shared_ptr<store::RedisFailoverObserver> games = RedisStoreMetrics(registry);  // shares them
  EXPECT_THAT(Scrape(registry), HasSubstr("arbiter_store_failover_in_progress 0"));
  clock->OnFailoverInProgress(true);
  clock->OnFailoverInProgress(true);  // no change: counted once
  EXPECT_THAT(Scrape(registry), HasSubstr("arbiter_store_failover_in_progress 1"));
  games->OnFailoverInProgress(true);
  EXPECT_THAT(Scrape(registry), HasSubstr("arbiter_store_failover_in_progress 2"));
  clock->OnFailoverInProgress(false);
  games->OnFailoverInProgress(false);
  games->OnFailoverInProgress(false);
  EXPECT_THAT(Scrape(registry), HasSubstr("arbiter_store_failover_in_progress 0"));
  clock->OnMasterSwitch();
  games->OnMasterSwitch();
  clock->OnReplicaAckFailure();
  const std::string text = Scrape(registry);
  EXPECT_THAT(text, HasSubstr("arbiter_store_master_switches_total 2"));
  EXPECT_THAT(text, HasSubstr("arbiter_store_replica_ack_failures_total 1"));
}

}  // namespace
}  // namespace service
