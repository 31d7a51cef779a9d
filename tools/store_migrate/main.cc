// store_migrate: the one migration of a deployment's Redis data from arbiter_v2's layout to the
// store's current one (libs/store/migrate.h), run by an administrator once the new functions are
// loaded and before the new servers take writes:
//
//   store_migrate --from=redis://admin@old:6379?password_file=/secrets/admin \
//                 --to=redis://admin@new:6379?password_file=/secrets/admin
//
// or into a Redis Cluster (each key goes to the master of its slot under the store's hash tags):
//
//   store_migrate --from=redis://admin@old:6379?password_file=/secrets/admin \
//                 --to=redis+cluster://cluster-admin@redis-0.redis:6379,...?password_file=...
//
// Both URLs as --store takes them (libs/store/redis_client.h, ParseRedisUrl), with a user allowed
// SCAN, DUMP, ZSCORE, HGET (from) and RESTORE, HSETNX, ZADD, FCALL_RO, and for the index XRANGE,
// HGET, EXISTS, FCALL, HSET, ZREM (to; on a cluster also CLUSTER SLOTS and ASKING; with --reindex
// SCAN): not the store's own user. arbiter_v2 ran on one Redis only, so
// --from is never a cluster. The store's function library must be loaded on the target first, on
// every master of a cluster (FUNCTION LOAD runs per node: tools/local_cluster.sh and the
// deployment's Redis pods do it at start); a target without it is refused before anything is
// copied (ERR_STORE_FUNCTIONS_MISSING naming the master). Then every game copied is listed in the
// games index with the labels its log (or tombstone) gives, as the append that next changed them
// would write them (libs/arbitration/index_backfill.h); a game listed already keeps its entry.
// Prints one JSON line with the counts; exit 1 on an error (a run that stopped midway is run
// again: what was copied or listed is left as it is).
//
// Games the store itself wrote before it kept an index are listed with --reindex and no --from:
//
//   store_migrate --reindex --to=redis://admin@redis:6379?password_file=/secrets/admin
//
// which SCANs the target for the store's games (one Redis: on a cluster, run it once per master
// with that master's redis:// URL; each game's keys and index entry share its master).
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "libs/arbitration/index_backfill.h"
#include "libs/arbitration/move_codec.h"
#include "libs/store/migrate.h"
#include "libs/store/redis_client.h"
#include "libs/store/redis_game_store.h"

ABSL_FLAG(std::string, from, "", "the old layout's Redis (redis:// or redis+sentinel:// URL)");
ABSL_FLAG(std::string, from_prefix, "arbiter:", "the old layout's key prefix");
ABSL_FLAG(std::string, to, "",
          "the new store's Redis (redis://, redis+sentinel:// or redis+cluster:// URL), with the "
          "store's function library loaded (on every master of a cluster)");
ABSL_FLAG(std::string, to_prefix, "arbiter:", "the new store's key prefix (--redis_key_prefix)");
ABSL_FLAG(int, to_shards, store::kDefaultDeadlineShards,
          "the new store's deadline shards (--deadline_shards): the hash tags of its keys");
ABSL_FLAG(bool, reindex, false,
          "without --from: list in the games index every game of --to that no append listed (games "
          "the store wrote before it kept an index); one Redis, not a cluster's URL");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "copies a deployment's games from arbiter_v2's key layout (one Redis) to the store's current "
      "one, on one Redis or a Redis Cluster; load the store's function library on the target "
      "first (on every master of a cluster)");
  absl::ParseCommandLine(argc, argv);
  auto fail = [](const absl::Status& status) {
    std::fprintf(stderr, "store_migrate: %s\n", status.ToString().c_str());
    return 1;
  };
  const bool reindex_only = absl::GetFlag(FLAGS_reindex) && absl::GetFlag(FLAGS_from).empty();
  absl::StatusOr<store::RedisConnectionOptions> from =
      store::ParseRedisUrl(absl::GetFlag(FLAGS_from));
  if (!reindex_only && !from.ok()) return fail(from.status());
  if (!reindex_only && !from->cluster_nodes.empty()) {
    return fail(absl::InvalidArgumentError(
        "--from: arbiter_v2's layout was on one Redis (redis:// or redis+sentinel://), not a "
        "cluster"));
  }
  absl::StatusOr<store::RedisConnectionOptions> to = store::ParseRedisUrl(absl::GetFlag(FLAGS_to));
  if (!to.ok()) return fail(to.status());
  store::RedisGameStoreOptions options;
  options.connection = *to;
  options.key_prefix = absl::GetFlag(FLAGS_to_prefix);
  options.num_deadline_shards = absl::GetFlag(FLAGS_to_shards);
  // The games' moves in the arbitration's compact form, as its servers read and write them.
  options.event_codec = arbitration::CompactMoveCodec();
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> target =
      store::RedisGameStore::Create(options);
  if (!target.ok()) return fail(target.status());
  // Migrated games are served by the functions: a target without them (on any master) would
  // hold games nobody can append to.
  if (absl::Status loaded = (*target)->CheckFunctions(); !loaded.ok()) return fail(loaded);
  store::RedisClient sink(*to);
  if (reindex_only) {
    absl::StatusOr<std::vector<std::string>> games = store::ScanStoredGames(sink, **target);
    if (!games.ok()) return fail(games.status());
    absl::StatusOr<arbitration::BackfillCount> listed =
        arbitration::BackfillIndex(**target, *games);
    if (!listed.ok()) return fail(listed.status());
    std::printf("{\"games\": %zu, \"listed\": %lld, \"listed_before\": %lld}\n", games->size(),
                static_cast<long long>(listed->listed),
                static_cast<long long>(listed->listed_before));
    return 0;
  }
  store::RedisClient source(*from);
  absl::StatusOr<store::MigrationReport> report =
      store::MigrateFromV2(source, absl::GetFlag(FLAGS_from_prefix), sink, **target);
  if (!report.ok()) return fail(report.status());
  absl::StatusOr<arbitration::BackfillCount> listed =
      arbitration::BackfillIndex(**target, report->game_ids);
  if (!listed.ok()) return fail(listed.status());
  std::printf(
      "{\"games\": %lld, \"archived\": %lld, \"keys\": %lld, \"present\": %lld, \"deadlines\": "
      "%lld, \"listed\": %lld, \"listed_before\": %lld}\n",
      static_cast<long long>(report->games), static_cast<long long>(report->archived),
      static_cast<long long>(report->keys), static_cast<long long>(report->present),
      static_cast<long long>(report->deadlines), static_cast<long long>(listed->listed),
      static_cast<long long>(listed->listed_before));
  return 0;
}
