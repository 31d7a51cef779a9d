// The GameStore on Redis (the contract is game_store.h; the keys and scripts are in
// redis_scripts.h, the persistence settings in README.md and redis.conf).
// - Append is one FCALL of a Redis function (redis_scripts.h, loaded by an administrator, not by
//   the store: its ACL user cannot run code of its own): the command-id check, the
//   compare-and-set on the version, the events (XADD to the game's stream), the snapshot, the
//   command record and the deadline index are one atomic step. With AOF on, Redis logs the
//   function's effects as one MULTI/EXEC block, which a restart replays whole or (a torn tail)
//   not at all.
// - Every key of a game carries the hash tag of its deadline shard (key_layout.h: the shards'
//   tags are spread evenly over the cluster's slots), the index's sorted set too, so each script
//   touches one slot: the layout works on Redis Cluster, where the client routes each command to
//   the master of its key's slot (redis_client.h, "Cluster").
// - WaitForEvents is XREAD BLOCK on the game's stream, WaitForAnyEvents on a shard's games'
//   streams (one slot), on a separate pool (max_watchers) so watchers cannot starve writers of
//   connections.
// - Redis unreachable or slow: ERR_STORE_UNAVAILABLE naming the address after at most
//   connect_timeout or command_timeout; the store reconnects on its own (redis_client.h).
// - Sentinel and replicas (connection.sentinels, connection.min_replica_acks; README.md,
//   "Failover"): the store follows the master through a failover, and an append acknowledged
//   with min_replica_acks = 1 is on a replica too, so it survives losing the master.
// - Authentication (connection.user / password, from --store and --store_password_file): AUTH on
//   every new connection; a refusal is ERR_STORE_AUTH (redis_client.h, README.md).
//
//   ASSIGN_OR_RETURN(auto store, RedisGameStore::Create({.connection = {.port = 6379}}));
#ifndef ARBITER_LIBS_STORE_REDIS_GAME_STORE_H_
#define ARBITER_LIBS_STORE_REDIS_GAME_STORE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "libs/store/event_codec.h"
#include "libs/store/game_store.h"
#include "libs/store/redis_client.h"

namespace store {

struct RedisGameStoreOptions {
  RedisConnectionOptions connection;
  int max_watchers = 64;  // connections for WaitForEvents, each held while it blocks
  // Prepended to every key, so several deployments (or tests) can share one Redis.
  std::string key_prefix = "arbiter:";
  int num_deadline_shards = kDefaultDeadlineShards;  // fixed for a deployment
  // The entries each shard's feed keeps (game_feed.h; about: Redis trims whole nodes). 0: the
  // appends write no feed (what a feed costs, measured: README.md), and ReadFeed sees nothing.
  std::int64_t feed_retention = kFeedRetention;
  // The events' layer's compact form of its bodies (event_codec.h; README.md, "The record of an
  // append"): appends keep the bodies it encodes in its form, and reads expand them. Null: every
  // body as its bytes, and a record with a compact body cannot be read (ERR_STORE_INTERNAL).
  std::shared_ptr<const EventCodec> event_codec;
  // false: appends keep every body as its bytes while reads still expand compact ones, for a
  // rolling upgrade from a release whose readers have no codec (they would fail on a compact
  // record, ERR_STORE_INTERNAL): off until every replica reads them, then on.
  bool compact_events = true;
  // connection.min_replica_acks > 0: an append is reported done only once that many replicas
  // have it (WAIT, see redis_client.h); otherwise UNAVAILABLE, and the caller retries it.
};

class RedisGameStore final : public GameStore {
 public:
  // Checks the options; connects lazily, so a service can start while Redis is still down.
  static absl::StatusOr<std::unique_ptr<RedisGameStore>> Create(RedisGameStoreOptions options);

  // Whether Redis has the store's functions (redis_scripts.h: FCALL_RO of kVersion): OK, or
  // ERR_STORE_FUNCTIONS_MISSING when Redis answers without them (no administrator loaded
  // redis_functions.lua: README.md, "Functions"), or ERR_STORE_UNAVAILABLE / ERR_STORE_AUTH
  // when it does not answer or refuses. The game and clock hosts call it when they connect
  // (services/clock_authority/host.h); each call that needs a function answers the same error
  // while the library is missing.
  // It also learns whether the library keeps a game's names once (README.md, "The game's names");
  // until a call finds it does, appends keep every name in its record.
  absl::Status CheckFunctions();

  absl::StatusOr<AppendResult> Append(const AppendRequest& request) override;
  // Sent by the client's lanes (RedisClient::CommandAsync); `done` runs on a lane thread.
  void AppendAsync(AppendRequest request, AppendCallback done) override;
  absl::StatusOr<std::optional<AppendResult>> LookupCommand(absl::string_view game_id,
                                                            absl::string_view command_id) override;
  absl::StatusOr<arbiter::v1::GameSnapshot> ReadSnapshot(absl::string_view game_id) override;
  // HMGET and XRANGE (and, when no event follows the snapshot, XREVRANGE for the tip): no
  // function, so reads go on while the library is missing.
  absl::StatusOr<LatestState> ReadLatest(absl::string_view game_id) override;
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ReadEvents(absl::string_view game_id,
                                                                 std::int64_t from_version,
                                                                 std::int64_t to_version) override;
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> WaitForEvents(absl::string_view game_id,
                                                                    std::int64_t after_version,
                                                                    absl::Duration timeout,
                                                                    int max_events) override;
  // Each range's XRANGE and the game's scopes (HGET), all in one batch
  // (RedisClient::CommandBatch): a round trip per master, whatever the number of games.
  std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> ReadEventsOfGames(
      const std::vector<EventRange>& ranges) override;
  // One FCALL of the archive function (redis_scripts.h), waiting for the replicas as an append.
  absl::StatusOr<ArchiveResult> Archive(const ArchiveRequest& request) override;
  absl::StatusOr<std::string> ReadTombstone(absl::string_view game_id) override;
  // Every shard's page of the index (one FCALL_RO each, sent together through the client's lanes:
  // on a cluster each master gets its shards' calls in one batch), merged in the order of the ids.
  absl::StatusOr<IndexPage> ListIndex(const IndexQuery& query) override;
  // One FCALL (redis_scripts.h, kBackfill): the check and the write are one atomic step, so an
  // append to the game runs wholly before or after it.
  absl::StatusOr<bool> BackfillIndex(absl::string_view game_id, const IndexLabels& labels) override;
  int NumDeadlineShards() const override { return options_.num_deadline_shards; }
  absl::StatusOr<std::optional<Deadline>> GetDeadline(absl::string_view game_id) override;
  absl::StatusOr<std::vector<Deadline>> ClaimDueDeadlines(int shard, std::int64_t now_ms,
                                                          std::int64_t lease_ms, int max,
                                                          absl::string_view owner) override;
  // One XREAD BLOCK over the games' streams (on the watch pool).
  absl::StatusOr<std::vector<GameEvents>> WaitForAnyEvents(const std::vector<WatchPosition>& games,
                                                           absl::Duration timeout,
                                                           int max_events) override;
  // One ZRANGEBYSCORE per shard, sent together (RedisClient::CommandBatch): a round trip per
  // master.
  std::vector<absl::StatusOr<std::vector<DueEntry>>> PeekDeadlinesOfShards(
      const std::vector<int>& shards, std::int64_t until_ms, int max) override;
  absl::StatusOr<std::int64_t> CountDeadlines(int shard) override;  // ZCARD
  absl::StatusOr<std::vector<DueEntry>> PeekDeadlines(int shard, std::int64_t until_ms,
                                                      int max) override;
  absl::StatusOr<bool> ReleaseDeadline(absl::string_view game_id, absl::string_view owner,
                                       std::int64_t claimable_at_ms) override;
  // Redis TIME; through Sentinel, on the time base that survives a failover: the master's TIME
  // minus the skew recorded for that master (below).
  absl::StatusOr<std::int64_t> NowMs() override;
  // The feeds' last IDs (XINFO STREAM is more; XREVRANGE COUNT 1 per shard, pipelined).
  absl::StatusOr<FeedPosition> FeedHead() override;
  // One XREAD (BLOCK) over every shard's feed on one Redis; on a cluster (keys in different
  // slots), one XREAD per shard sent at once through the masters' pipelines, and, while none has
  // news, again after a short pause that grows from 2 to 50 ms.
  absl::StatusOr<std::vector<FeedEntry>> ReadFeed(const FeedPosition& from, int max_per_shard,
                                                  absl::Duration wait) override;
  // The writers' client's master switches (RedisClient::master_switches).
  std::uint64_t MasterEpoch() override { return client_.master_switches(); }

  // The key of `kind` ("game", "log", "cmd", "archived") of a game, or of its shard's index
  // ("deadlines", "deadline-info" with an empty game id); see redis_scripts.h.
  std::string Key(absl::string_view kind, absl::string_view game_id) const;
  std::string ShardKey(absl::string_view kind, int shard) const;

 private:
  explicit RedisGameStore(RedisGameStoreOptions options);
  // FCALL of one of the library's functions (redis_scripts.h). A Redis without the library
  // answers ERR_STORE_FUNCTIONS_MISSING (FunctionsMissing).
  // kReplicated (appends): the reply waits for the replicas (connection.min_replica_acks).
  // The peek at a shard's index (ZRANGEBYSCORE) and what its reply says.
  std::vector<std::string> PeekCommand(int shard, std::int64_t until_ms, int max) const;
  absl::StatusOr<std::vector<DueEntry>> PeekOutcome(const redisReply& reply) const;
  absl::StatusOr<RedisReplyPtr> Call(const char* function, const std::vector<std::string>& keys,
                                     const std::vector<std::string>& args,
                                     Durability durability = Durability::kNone);
  // The error for "ERR Function not found", or OK for any other reply.
  absl::Status FunctionsMissing(const absl::StatusOr<RedisReplyPtr>& reply) const;
  // Whether a command failed as an FCALL of a function Redis does not have (the status the
  // client made of "ERR Function not found").
  static bool NoSuchFunction(const absl::Status& status);
  struct ScriptArgs {
    std::vector<std::string> keys;
    std::vector<std::string> args;
  };
  // FCALL function numkeys keys... args...
  static std::vector<std::string> FcallCommand(const char* function, std::vector<std::string> keys,
                                               std::vector<std::string> args);
  // The append function's keys and arguments for `request` (`vouched`: its ARGV[12], below), and
  // what its reply means.
  ScriptArgs AppendArgs(const AppendRequest& request, std::string vouched) const;
  absl::StatusOr<AppendResult> AppendOutcome(const AppendRequest& request,
                                             absl::StatusOr<RedisReplyPtr> sent);
  // A command whose error reply is an error status.
  absl::StatusOr<RedisReplyPtr> Run(RedisClient& client, const std::vector<std::string>& args,
                                    absl::Duration extra_timeout = absl::ZeroDuration());
  // The XRANGE of a game's log that holds versions from_version..to_version (ReadEvents).
  std::vector<std::string> RangeCommand(absl::string_view game_id, std::int64_t from_version,
                                        std::int64_t to_version) const;
  static absl::Status ValidateRange(absl::string_view game_id, std::int64_t from_version);
  absl::Status GameNotFound(absl::string_view game_id) const;
  absl::Status Corrupt(absl::string_view what) const;
  // OK if the game exists, otherwise Missing's error.
  absl::Status CheckExists(absl::string_view game_id);
  // The error for a game that is not live: ERR_GAME_ARCHIVED if it was archived, otherwise
  // ERR_GAME_NOT_FOUND (one more round trip, only on a miss).
  absl::Status Missing(absl::string_view game_id);
  // The keys of kAppend and kArchive: game, log, cmd, deadlines, deadline-info, archived, feed.
  std::vector<std::string> GameKeys(absl::string_view game_id) const;
  // The games index's keys and argument (redis_scripts.h) an append or archive carrying `update`
  // adds: keys from KEYS[8] (after GameKeys), the packed labels.
  void AddIndexKeys(absl::string_view game_id, const IndexUpdate& update,
                    std::vector<std::string>& keys) const;
  // The events of game_id's log entries, those with from_version <= version <= to_version. A
  // record with a scoped command id or a placed name needs the game's list (field u): `scopes`
  // when the caller read it (ReadLatest, with the snapshot) and it holds every place the entries
  // name, else read once (HGET, after the entries, so it holds them all), only when a record
  // needs it.
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ParseEntries(absl::string_view game_id,
                                                                   const redisReply& entries,
                                                                   std::int64_t from_version,
                                                                   std::int64_t to_version,
                                                                   absl::string_view scopes = "");
  // One entry's events: a record (field "r") or arbiter_v2's serialized event ("e").
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ParseEntry(const redisReply& id,
                                                                 const redisReply& field,
                                                                 const redisReply& value,
                                                                 absl::string_view scopes);
  // FCALL_RO of one of the library's read functions.
  absl::StatusOr<RedisReplyPtr> CallReadOnly(const char* function, std::vector<std::string> keys,
                                             std::vector<std::string> args);
  // Every command at once through the client's pipelines (CommandAsync), each reply in order.
  std::vector<absl::StatusOr<RedisReplyPtr>> RunAll(RedisClient& client,
                                                    std::vector<std::vector<std::string>> commands);
  // FeedHead from each shard's last entry, on a library without kFeedHead (redis_scripts.h).
  absl::StatusOr<FeedPosition> FeedHeadOfLastEntries();
  // The entries of one shard's feed in an XREAD or XRANGE reply, checked against `next` (the
  // first must be it: ERR_FEED_POSITION_EXPIRED otherwise; the entries end before a jump of the
  // numbering, which the next read then finds).
  absl::Status ParseFeed(int shard, std::int64_t next, const redisReply& entries,
                         std::vector<FeedEntry>* out);
  absl::StatusOr<Deadline> ParseDeadline(absl::string_view game_id, absl::string_view info);

  // Redis TIME of the master that answered, and that master's address ("" when it cannot be told:
  // the client moved meanwhile).
  absl::StatusOr<std::pair<std::int64_t, std::string>> MasterTime();
  // The skew recorded for `master` (the hash `<prefix>time-skew`, field = its address): the first
  // replica to see it records `skew_ms` (HSETNX), every one reads the recorded value.
  absl::StatusOr<std::int64_t> RecordedSkew(const std::string& master, std::int64_t skew_ms);

  // What this client's own appends tell it of a game's records after its last snapshot, which the
  // append function compares a command id with (redis_functions.lua, `vouched`): after a
  // creation or an append that wrote the snapshot, each further append of this client at the
  // version and tip the last one left adds its command id. Only while the game is at `version`
  // with `tip` does it say anything, and the function checks both, and the snapshot's version,
  // before it takes the client's word that a new command id is none of them.
  struct KnownTail {
    std::int64_t snapshot_version = 0;
    std::int64_t version = 0;
    std::string tip;
    std::vector<std::size_t> ids;  // hashes of the records' command ids (a collision: no word)
  };
  // The snapshot version `request` may vouch for ("" when this client cannot say).
  std::string Vouch(const AppendRequest& request);
  // Whether the library answered kNames (CheckFunctions).
  void LearnNames(const absl::Status& answer);
  // What `request`'s outcome teaches (anything but a new append: forget the game).
  void Learn(const AppendRequest& request, const absl::StatusOr<AppendResult>& result);
  // Games known at most: past it the table starts over (a game unknown is only read in full).
  static constexpr size_t kMaxKnownTails = 131'072;
  absl::Mutex tails_mu_;
  absl::flat_hash_map<std::string, KnownTail> tails_ ABSL_GUARDED_BY(tails_mu_);

  // Whether the library places names (redis_scripts.h, kNames): learnt by CheckFunctions, off
  // until then, so a store never sends a name to a library that would keep the argument as an
  // index's labels.
  std::atomic<bool> library_places_names_{false};

  const RedisGameStoreOptions options_;
  const std::vector<std::string> shard_tags_;  // ShardHashTag of each shard (key_layout.h)
  RedisClient client_;
  RedisClient watch_client_;

  // The time base (NowMs): the master the skew is for, the skew, and the last reading with the
  // monotonic instant it was taken at, which estimates the time base when the master changes.
  absl::Mutex time_mu_;
  std::string time_master_ ABSL_GUARDED_BY(time_mu_);
  std::int64_t skew_ms_ ABSL_GUARDED_BY(time_mu_) = 0;
  std::optional<std::pair<std::int64_t, std::chrono::steady_clock::time_point>> last_reading_
      ABSL_GUARDED_BY(time_mu_);
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_REDIS_GAME_STORE_H_
