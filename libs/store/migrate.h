// The one migration of a deployment's data from arbiter_v2's layout to the store's current one,
// run by an administrator (tools/store_migrate; the store's own ACL user may not SCAN or DUMP).
//
// The old layout is read by its own rule, kept here: every key of game G under the numeric hash
// tag {S}, S = DeadlineShard(G, 64) (`<prefix>{S}:game:G`, `:log:G`, `:cmd:G`, `:archived:G`,
// the shard's `:deadlines` and `:deadline-info`). Each key is copied byte for byte (DUMP, RESTORE)
// to the name the target store gives it (RedisGameStore::Key, ShardKey), so the copy follows the
// current key layout, whatever its hash tags; the store reads arbiter_v2's encoding as it was
// written (redis_scripts.h), and new appends to a migrated game are arbiter_v3 records. A key
// the target has already is left as it is, so a run that stopped midway is run again.
// The games index (game_store.h) is not filled here (its labels are the domain's): the report
// names every game copied, and tools/store_migrate lists each (GameStore::BackfillIndex) with the
// labels the arbitration derives from its log or tombstone.
#ifndef ARBITER_LIBS_STORE_MIGRATE_H_
#define ARBITER_LIBS_STORE_MIGRATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "libs/store/redis_client.h"
#include "libs/store/redis_game_store.h"

namespace store {

// The shards of arbiter_v2's layout: its hash tags were DeadlineShard(G, 64).
inline constexpr int kOldLayoutShards = 64;

struct MigrationReport {
  std::int64_t games = 0;      // live games copied
  std::int64_t archived = 0;   // tombstones copied
  std::int64_t keys = 0;       // keys written to the target
  std::int64_t present = 0;    // keys the target had already (an earlier run)
  std::int64_t deadlines = 0;  // deadline entries copied
  // Every game copied or found copied, live or archived, in no order: the games to list.
  std::vector<std::string> game_ids;
};

// Copies every game under `from_prefix` on `from` to `to` (the target store's keys; its client
// must be allowed RESTORE, ZADD and HSETNX: an administrator's). `to` may be a Redis Cluster's
// client: each key goes to the master of its slot. `from` is one Redis (it is SCANned) and needs
// SCAN, DUMP, ZSCORE and HGET.
absl::StatusOr<MigrationReport> MigrateFromV2(RedisClient& from, const std::string& from_prefix,
                                              RedisClient& to, const RedisGameStore& target);

// The ids of every game `store` holds on `redis` (one Redis, SCANned: not a cluster's client),
// live or archived, in no order: what the index's backfill walks for games the store wrote before
// it kept an index. Needs SCAN: an administrator's client.
absl::StatusOr<std::vector<std::string>> ScanStoredGames(RedisClient& redis,
                                                         const RedisGameStore& store);

}  // namespace store

#endif  // ARBITER_LIBS_STORE_MIGRATE_H_
