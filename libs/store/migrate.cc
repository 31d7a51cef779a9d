#include "libs/store/migrate.h"

#include <functional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/store/game_store.h"

namespace store {
namespace {

absl::string_view Str(const redisReply& r) { return absl::string_view(r.str, r.len); }

absl::Status Unreadable(absl::string_view what) {
  return base::Error(absl::StatusCode::kInternal, kErrStoreInternal,
                     absl::StrCat("migration: unreadable ", what));
}

// arbiter_v2's name of a key of game G, or of its shard's index.
std::string OldKey(const std::string& prefix, absl::string_view kind, absl::string_view game_id) {
  return absl::StrCat(prefix, "{", DeadlineShard(game_id, kOldLayoutShards), "}:", kind, ":",
                      game_id);
}
std::string OldShardKey(const std::string& prefix, absl::string_view kind,
                        absl::string_view game_id) {
  return absl::StrCat(prefix, "{", DeadlineShard(game_id, kOldLayoutShards), "}:", kind);
}

absl::StatusOr<RedisReplyPtr> Run(RedisClient& client, const std::vector<std::string>& args) {
  ASSIGN_OR_RETURN(RedisReplyPtr reply, client.Command(args));
  RETURN_IF_ERROR(client.ReplyStatus(*reply));
  return reply;
}

// A layout's name of the key of `kind` of a game.
using KeyName = std::function<std::string(absl::string_view kind, absl::string_view game_id)>;

// The game ids with a key of `kind` under `prefix` (SCAN over `<prefix>{*}:<kind>:*`) that
// `name` gives that key: only the keys of that layout's rule (a key under another tag is not its).
absl::Status ScanGames(RedisClient& from, const std::string& prefix, absl::string_view kind,
                       const KeyName& name, absl::flat_hash_set<std::string>& out) {
  const std::string pattern = absl::StrCat(prefix, "{*}:", kind, ":*");
  std::string cursor = "0";
  do {
    ASSIGN_OR_RETURN(RedisReplyPtr reply,
                     Run(from, {"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"}));
    if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
        reply->element[0]->type != REDIS_REPLY_STRING ||
        reply->element[1]->type != REDIS_REPLY_ARRAY) {
      return Unreadable("SCAN reply");
    }
    cursor = std::string(Str(*reply->element[0]));
    const redisReply& keys = *reply->element[1];
    for (size_t i = 0; i < keys.elements; ++i) {
      const absl::string_view key = Str(*keys.element[i]);
      const std::string infix = absl::StrCat("}:", kind, ":");
      const size_t at = key.find(infix);
      if (at == absl::string_view::npos) continue;
      const std::string game(key.substr(at + infix.size()));
      if (ValidateGameId(game).ok() && name(kind, game) == key) out.insert(game);
    }
  } while (cursor != "0");
  return absl::OkStatus();
}

// DUMP `from_key`, RESTORE it as `to_key` unless the target has it: the number of keys written.
absl::Status CopyKey(RedisClient& from, const std::string& from_key, RedisClient& to,
                     const std::string& to_key, MigrationReport& report) {
  ASSIGN_OR_RETURN(RedisReplyPtr dump, Run(from, {"DUMP", from_key}));
  if (dump->type == REDIS_REPLY_NIL) return absl::OkStatus();
  if (dump->type != REDIS_REPLY_STRING) return Unreadable(absl::StrCat("DUMP of ", from_key));
  ASSIGN_OR_RETURN(RedisReplyPtr restored,
                   to.Command({"RESTORE", to_key, "0", std::string(Str(*dump))}));
  if (restored->type == REDIS_REPLY_ERROR && absl::StartsWith(Str(*restored), "BUSYKEY")) {
    ++report.present;
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(to.ReplyStatus(*restored));
  ++report.keys;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MigrationReport> MigrateFromV2(RedisClient& from, const std::string& from_prefix,
                                              RedisClient& to, const RedisGameStore& target) {
  MigrationReport report;
  absl::flat_hash_set<std::string> live, archived;
  const KeyName old_key = [&](absl::string_view kind, absl::string_view game) {
    return OldKey(from_prefix, kind, game);
  };
  RETURN_IF_ERROR(ScanGames(from, from_prefix, "game", old_key, live));
  RETURN_IF_ERROR(ScanGames(from, from_prefix, "archived", old_key, archived));
  report.game_ids.assign(archived.begin(), archived.end());
  report.game_ids.insert(report.game_ids.end(), live.begin(), live.end());
  for (const std::string& game : archived) {
    RETURN_IF_ERROR(CopyKey(from, OldKey(from_prefix, "archived", game), to,
                            target.Key("archived", game), report));
    ++report.archived;
  }
  for (const std::string& game : live) {
    for (const char* kind : {"game", "log", "cmd"}) {
      RETURN_IF_ERROR(
          CopyKey(from, OldKey(from_prefix, kind, game), to, target.Key(kind, game), report));
    }
    ++report.games;
    // The game's flag deadline: its entry in the index and what the entry says.
    ASSIGN_OR_RETURN(RedisReplyPtr due,
                     Run(from, {"ZSCORE", OldShardKey(from_prefix, "deadlines", game), game}));
    ASSIGN_OR_RETURN(RedisReplyPtr info,
                     Run(from, {"HGET", OldShardKey(from_prefix, "deadline-info", game), game}));
    if (due->type == REDIS_REPLY_NIL || info->type == REDIS_REPLY_NIL) continue;
    if (due->type != REDIS_REPLY_STRING || info->type != REDIS_REPLY_STRING) {
      return Unreadable(absl::StrCat("deadline entry of game ", game));
    }
    const int shard = DeadlineShard(game, target.NumDeadlineShards());
    ASSIGN_OR_RETURN(RedisReplyPtr set_info,
                     Run(to, {"HSETNX", target.ShardKey("deadline-info", shard), game,
                              std::string(Str(*info))}));
    if (set_info->type == REDIS_REPLY_INTEGER && set_info->integer == 1) {
      RETURN_IF_ERROR(
          Run(to, {"ZADD", target.ShardKey("deadlines", shard), std::string(Str(*due)), game})
              .status());
      ++report.deadlines;
    }
  }
  return report;
}

absl::StatusOr<std::vector<std::string>> ScanStoredGames(RedisClient& redis,
                                                         const RedisGameStore& store) {
  if (redis.uses_cluster()) {
    return base::Error(absl::StatusCode::kInvalidArgument, kErrBadArgument,
                       "a cluster's games are scanned master by master: name one master");
  }
  // The store's prefix: what comes before the hash tag of any of its keys.
  const std::string sample = store.Key("game", "x");
  const std::string prefix = sample.substr(0, sample.find('{'));
  const KeyName key = [&](absl::string_view kind, absl::string_view game) {
    return store.Key(kind, game);
  };
  absl::flat_hash_set<std::string> games;
  RETURN_IF_ERROR(ScanGames(redis, prefix, "game", key, games));
  RETURN_IF_ERROR(ScanGames(redis, prefix, "archived", key, games));
  return std::vector<std::string>(games.begin(), games.end());
}

}  // namespace store
