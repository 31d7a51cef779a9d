#include "libs/service/store_opening.h"

#include <unistd.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/service/errors.h"
#include "libs/service/redis_store_metrics.h"
#include "libs/store/errors.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/redis_game_store.h"

namespace service {

bool StoreFailureIsTransient(const absl::Status& failure) {
  return failure.code() == absl::StatusCode::kUnavailable &&
         base::ErrorCode(failure) != store::kErrStoreAuth &&
         base::ErrorCode(failure) != store::kErrStoreFunctionsMissing;
}

absl::Status CheckStoreFunctions(store::GameStore* store) {
  auto* redis = dynamic_cast<store::RedisGameStore*>(store);
  return redis != nullptr ? redis->CheckFunctions() : absl::OkStatus();
}

std::string DefaultReplicaId() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return absl::StrCat(host[0] ? host : "host", ":", getpid());
}

absl::StatusOr<std::unique_ptr<store::GameStore>> OpenStore(absl::string_view spec,
                                                            const StoreOpeningOptions& options) {
  if (spec == "memory") {
    return std::unique_ptr<store::GameStore>(std::make_unique<store::MemoryGameStore>(
        store::MemoryGameStoreOptions{.num_deadline_shards = options.deadline_shards}));
  }
  if (!absl::StartsWith(spec, "redis://") && !absl::StartsWith(spec, "redis+sentinel://") &&
      !absl::StartsWith(spec, "redis+cluster://")) {
    return base::Error(kErrBadFlag,
                       absl::StrCat("--store: expected memory, redis://[user@]host:port, "
                                    "redis+sentinel://[user@]host:port,.../MASTER or "
                                    "redis+cluster://[user@]host:port,..., got ",
                                    spec.substr(0, spec.find('?')),
                                    absl::StrContains(spec, "password_file=")
                                        ? " (--store_password_file is for a redis:// store)"
                                        : ""));
  }
  // redis://[user@]host[:port][?password_file=PATH] (libs/store/redis_client.h): the password
  // file, which --store_password_file names, is read now, at start.
  absl::StatusOr<store::RedisConnectionOptions> connection = store::ParseRedisUrl(spec);
  if (!connection.ok()) {
    return base::Error(kErrBadFlag, absl::StrCat("--store: ", connection.status().message()));
  }
  store::RedisGameStoreOptions redis;
  redis.connection = *std::move(connection);
  redis.connection.pool_size = options.redis_pool_size;
  redis.connection.pipeline_lanes = options.redis_pipeline_lanes;
  redis.connection.async_flow = options.redis_async_flow;
  if (options.store_metrics != nullptr) {
    redis.connection.observer = RedisStoreMetrics(*options.store_metrics);
  }
  // The watch hub holds one blocked read per deadline shard with watched games.
  redis.max_watchers = options.deadline_shards;
  redis.key_prefix = options.redis_key_prefix;
  redis.num_deadline_shards = options.deadline_shards;
  redis.feed_retention = options.feed_retention;
  redis.event_codec = options.event_codec;
  redis.compact_events = options.compact_events;
  ASSIGN_OR_RETURN(std::unique_ptr<store::RedisGameStore> store,
                   store::RedisGameStore::Create(redis));
  return std::unique_ptr<store::GameStore>(std::move(store));
}

}  // namespace service
