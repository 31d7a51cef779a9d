// The game store a server opens, named by --store, for every service a process hosts (the clock
// authority's and arbitration's hosts open theirs here, each under its own key prefix): memory, or
// Redis (one address, or Sentinel) with the failover metrics on the server's registry.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<store::GameStore> store,
//                    service::OpenStore(config.store, {.redis_key_prefix = "arbiter:games:"}));
//   RETURN_IF_ERROR(service::CheckStoreFunctions(store.get()));  // before serving
#ifndef ARBITER_LIBS_SERVICE_STORE_OPENING_H_
#define ARBITER_LIBS_SERVICE_STORE_OPENING_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/store/deadline_index.h"
#include "libs/store/event_codec.h"
#include "libs/store/game_store.h"
#include "prometheus/registry.h"

namespace service {

struct StoreOpeningOptions {
  int deadline_shards = store::kDefaultDeadlineShards;  // fixed for a deployment
  int redis_pool_size = 64;
  int redis_pipeline_lanes = 4;  // RedisConnectionOptions::pipeline_lanes
  bool redis_async_flow = true;  // RedisConnectionOptions::async_flow
  std::string redis_key_prefix = "arbiter:";
  // The entries each shard's feed keeps (store/game_feed.h); 0: the appends write no feed.
  std::int64_t feed_retention = store::kFeedRetention;
  // The events' compact form in a Redis store (RedisGameStoreOptions::event_codec,
  // compact_events); null: bodies as their bytes.
  std::shared_ptr<const store::EventCodec> event_codec;
  bool compact_events = true;
  // The registry the Redis store's failover metrics go to (redis_store_metrics.h); null: none.
  prometheus::Registry* store_metrics = nullptr;
};

// "memory" or "redis://[user@]host[:port][?password_file=PATH]" (store::ParseRedisUrl; the
// password file is read here, at start), or "redis+sentinel://...". INVALID_ARGUMENT ERR_BAD_FLAG
// otherwise.
absl::StatusOr<std::unique_ptr<store::GameStore>> OpenStore(absl::string_view spec,
                                                            const StoreOpeningOptions& options);

// Whether a failure to reach the store may mend by itself (Redis down, starting, loading): every
// UNAVAILABLE but ERR_STORE_AUTH, a refusal of the credentials, and ERR_STORE_FUNCTIONS_MISSING,
// a Redis no administrator prepared, which a retry does not mend (at start the server exits on
// them; later, connecting in the background, it stays NOT_SERVING and tries again).
bool StoreFailureIsTransient(const absl::Status& failure);

// For a Redis store, whether Redis has the store's functions (RedisGameStore::CheckFunctions):
// a connecting host checks it before serving, so that a Redis without them is reported as such
// and not by every write. OK for other stores.
absl::Status CheckStoreFunctions(store::GameStore* store);

// "hostname:pid": a replica's name in deadline leases when its flag names none.
std::string DefaultReplicaId();

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_STORE_OPENING_H_
