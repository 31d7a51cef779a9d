// The clock authority's own flags, shared by its binary and arbiterd (libs/service/flags.h has
// the flags every server takes, --store among them).
#include <string>

#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "services/clock_authority/host.h"

ABSL_FLAG(std::string, clock_replica_id, "",
          "clock authority: this replica's unique name in deadline leases (default host:pid)");
ABSL_FLAG(int, clock_workers, 32, "clock authority: calls served concurrently (store calls block)");
ABSL_FLAG(int, clock_max_watched_games, 4096,
          "clock authority: games this replica streams (WatchClock) at once, 1..10000 (one store "
          "watch per deadline shard serves them all)");
ABSL_FLAG(bool, flag_scheduler, true, "clock authority: run the flag scheduler in this process");
ABSL_FLAG(absl::Duration, flag_sweep_interval, absl::Milliseconds(5),
          "flag scheduler: how often every deadline shard is swept for due entries while sweeps "
          "find some (a replica died or lags)");
ABSL_FLAG(absl::Duration, flag_idle_sweep_interval, absl::Milliseconds(40),
          "flag scheduler: how often the shards are swept while sweeps find nothing");
ABSL_FLAG(absl::Duration, flag_peek_ahead, absl::Milliseconds(100),
          "flag scheduler: each sweep reads the deadlines due within this (more than "
          "--flag_idle_sweep_interval) and wakes up just after those of other replicas fall");
ABSL_FLAG(absl::Duration, flag_sweep_grace, absl::Milliseconds(3),
          "flag scheduler: another replica's deadline is taken once due for longer than this (the "
          "replica that set it fires it first)");
ABSL_FLAG(absl::Duration, flag_lease, absl::Milliseconds(50),
          "flag scheduler: how long a swept entry is leased before another replica may take it");
ABSL_FLAG(int, flag_workers, 16, "flag scheduler: concurrent flag checks");
ABSL_FLAG(int, deadline_shards, store::kDefaultDeadlineShards,
          "game store: deadline index shards; fixed for a deployment (it places the keys)");
ABSL_FLAG(int, redis_pool_size, 64, "game store: Redis connections for commands");
ABSL_FLAG(int, redis_pipeline_lanes, 4,
          "game store: concurrent commands are sent to Redis in batches, at most this many in "
          "flight (0: one command per connection and round trip)");
ABSL_FLAG(bool, redis_async_flow, true,
          "game store: with lanes, write each asynchronous command at once on one connection "
          "whose replies one thread reads (libs/store/redis_client.h); false: the lanes only");

namespace clock_authority_service {

ClockHostOptions ClockHostOptionsFromFlags() {
  ClockHostOptions o;
  o.replica_id = absl::GetFlag(FLAGS_clock_replica_id);
  o.service.workers = absl::GetFlag(FLAGS_clock_workers);
  o.service.max_watched_games = absl::GetFlag(FLAGS_clock_max_watched_games);
  o.run_scheduler = absl::GetFlag(FLAGS_flag_scheduler);
  o.scheduler.sweep_interval = absl::GetFlag(FLAGS_flag_sweep_interval);
  o.scheduler.idle_sweep_interval = absl::GetFlag(FLAGS_flag_idle_sweep_interval);
  o.scheduler.sweep_grace = absl::GetFlag(FLAGS_flag_sweep_grace);
  o.scheduler.peek_ahead = absl::GetFlag(FLAGS_flag_peek_ahead);
  o.scheduler.lease = absl::GetFlag(FLAGS_flag_lease);
  o.scheduler.workers = absl::GetFlag(FLAGS_flag_workers);
  o.deadline_shards = absl::GetFlag(FLAGS_deadline_shards);
  o.redis_pool_size = absl::GetFlag(FLAGS_redis_pool_size);
  o.redis_pipeline_lanes = absl::GetFlag(FLAGS_redis_pipeline_lanes);
  o.redis_async_flow = absl::GetFlag(FLAGS_redis_async_flow);
  return o;
}

}  // namespace clock_authority_service
