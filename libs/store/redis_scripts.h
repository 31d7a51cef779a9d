// The Redis game store's functions: their names, keys, arguments and replies. Their code is the
// Lua library redis_functions.lua (`#!lua name=arbiter_v3`), which an administrator loads into
// Redis (FUNCTION LOAD REPLACE: at deployment, README.md "Functions"); the store only calls them
// (FCALL, FCALL_RO), and its ACL user may send nothing else that runs code, so whoever holds its
// password cannot run a script of their own (a busy loop would stall Redis: BUSY).
// Each function touches only keys that share one hash tag, the game's deadline shard, so it runs
// on Redis Cluster as on one node; each runs atomically and validates everything before its
// first write.
//
// Keys (P = key prefix, S = DeadlineShard(game id), G = game id):
//   P{S}:game:G       hash   s = serialized GameSnapshot as last written, sv = its version,
//                            b = the Bloom filter of the command ids up to sv (below),
//                            u = the callers' scopes and the names its records name (below)
//                            (arbiter_v2's games: v = version, t = tip, and s at v)
//   P{S}:log:G        stream one entry per append, ID "<last version>-<number of events>",
//                            field r = the record (below); arbiter_v2's: one entry per event,
//                            ID "<version>-0", field e = serialized GameEvent
//   P{S}:cmd:G        hash   arbiter_v2's command records: command id ->
//   "<first>|<last>|<identity>"
//                            (read only; arbiter_v3's are in the log's records)
//   P{S}:deadlines    zset   game id -> when its entry is next due (deadline, or end of lease)
//   P{S}:deadline-info hash  game id -> "<deadline>|<set at version>|<claims>|<lease
//   until>|<owner>"; and '' -> the feed's epoch (below)
//   P{S}:archived:G   hash   t = tombstone: the game was archived (kArchive), and its game, log
//                            and cmd keys and deadline entry are gone
//   P{S}:feed         stream the shard's feed (game_feed.h): one entry per append, ID
//                            "1-<sequence>" (one more each, numbered by Redis: XADD 1-*; the
//                            first after the library is loaded starts an epoch: epoch * 2^36;
//                            replicated, not in the AOF: redis_functions.lua), one
//                            field: game id = "<last version>" ("-<number of events>" after it
//                            when more than one; entries written before: fields g = game id,
//                            v = "<last version>-<number of events>"); trimmed to about the
//                            retention by an XTRIM MAXLEN ~ on every 128th entry
//   P{S}:index        hash   the games index (game_store.h): game id -> its labels, packed as
//                            "<status>|" then "<length>:<label>" for event, round, white id,
//                            black id and result (written only when they change; old games from
//                            their next change, or by the backfill: kBackfill, store_migrate)
//   P{S}:index:all    zset   every listed game of the shard, score 0 (in the order of the ids)
//   P{S}:index:status:<status>, P{S}:index:event:<event>, P{S}:index:player:<id>
//                     zset   the listed games with that status, event, player (either colour);
//                            a game leaves only its previous status's set (event and players do
//                            not change); an archived game stays listed under status "archived"
//
// Records (arbiter_v3): the command id, either one byte of its length and the id, or, for a
// client's id scoped to its caller ("u:<32 hex>/<client id>", command_ids.h), the byte 255, the
// scope's place in field u of the game's hash (from 1; each entry one byte of length and the
// scope, added by the append that first names it, at most 250), one byte of the rest's length and
// the rest; 8 bytes, the command's
// identity (SHA-1 of the fingerprint, or of the request's content, truncated); then the events in
// the compact encoding of internal/record.h (no type URL for the known envelopes, no version, no
// command id, instants as differences). The game's version is the last entry's; its tip the SHA-1
// of the last record (a v2 entry's: field t of the game's hash). The command ids: an append
// compares its own with those of the records after the snapshot, one by one, and with a Bloom
// filter of those up to it (field b of the game's hash, 128 bytes, written with the snapshot);
// only the filter's "maybe" (about 1 in 60 at 100 ids) reads the older records. So an id is
// recognised however old, and a common append reads at most snapshot_every - 1 records, and none
// when the client that made every append since the snapshot vouches that the id is none of
// theirs (ARGV[12] of kAppend) and the game is at the snapshot, version and tip it names. A
// name the game's records repeat (a move's actor, internal/record.h kNamed) is kept in the same
// list as the scopes, and a record names it by its place there (kAppend's ARGV[14]).
#ifndef ARBITER_LIBS_STORE_REDIS_SCRIPTS_H_
#define ARBITER_LIBS_STORE_REDIS_SCRIPTS_H_

namespace store::redis_scripts {

// The library and the version of its functions this server calls. A change to any function is a
// new version (library and function names), loaded beside the old one: servers of both versions
// then run side by side during a rolling upgrade. An argument that the older function ignores and
// the newer one does without (kAppend's ARGV[12]) is not such a change: either server runs with
// either function. Nor is one the store sends only to a library that says it takes it (kAppend's
// ARGV[14], sent only once kNames answered).
inline constexpr char kLibrary[] = "arbiter_v3";

// KEYS: game, log, cmd, deadlines, deadline-info, archived, feed (the shard's).
// ARGV: game id, command id, fingerprint ("" for none), expected tip ("" for none), expected
//   version, deadline kind ("keep"|"set"|"clear"|"bound"), deadline ms, snapshot ("": not
//   written by this append), number of events, the events (internal/record.h), the feed's
//   retention in entries ("0": no feed entry; not part of the command's identity), and the
//   snapshot version the caller vouches for ("" for none; not part of the identity): none of the
//   records after the snapshot at that version holds this command id, so when the game's snapshot
//   is at that version and its last entry at the expected version with the expected tip, they are
//   not read (only the store's client sends it, from its own appends: RedisGameStore::Vouch).
// Returns {"OK", first version, version, tip}, {"REPLAY"|"REUSED", first version, version},
// {"EXISTS"|"CONFLICT", version},
// {"TIP", version} (at the expected version by another append than the expected tip),
// {"NOT_FOUND"} or {"ARCHIVED"} (the game was archived; checked only when it has no version, so
// an append to a live game pays nothing for it).
// With the games index (only when the game's labels change, AppendRequest::index; an ordinary
// move sends none of it): KEYS[7] the shard's feed (as without the index), KEYS[8] the
// index hash, KEYS[9] index:all, KEYS[10] the previous status's set (the new one's for a game not
// listed yet), KEYS[11] the new status's set, KEYS[12..] the event's and the players' sets;
// ARGV[11] the feed's retention and ARGV[12] the vouched snapshot (as without the index), ARGV[13]
// the packed labels ("" with ARGV[14] and no index).
// ARGV[14] (only to a library that answers kNames): the names the events hold inline that the
// game's list keeps (internal/record.h, EncodeEvents): each becomes its place in field u (added
// there if new; left inline when the list is full). Not part of the command's identity: it says
// where the events, which are, hold the names.
inline constexpr char kAppend[] = "arbiter_v3_append";

// FCALL_RO. KEYS: a shard's feed, its deadline-info. Returns the sequence its next entry takes
// (FeedHead): one past its last, or, when it is the first since the library was loaded, the first
// of the shard's next epoch (redis_functions.lua: the feed is replicated but not written to the
// AOF, and numbers on past what a restart lost; the epoch is field '' of deadline-info).
inline constexpr char kFeedHead[] = "arbiter_v3_feed_head";

// FCALL_RO. KEYS: game, log, cmd. ARGV: command id. Returns {first version, version} or {}.
inline constexpr char kLookup[] = "arbiter_v3_lookup";

// KEYS: game, log, cmd, deadlines, deadline-info, archived, feed (as kAppend's; no feed entry).
// ARGV: game id, expected version, tombstone; with the index (ArchiveRequest::index), KEYS[8..]
// as kAppend's and ARGV[4] the packed labels (status: archived).
// Returns {"OK"}, {"REPLAY", stored tombstone} (archived before), {"CONFLICT", version} or
// {"NOT_FOUND"}.
inline constexpr char kArchive[] = "arbiter_v3_archive";

// KEYS: game, archived, then the index's keys as kAppend's KEYS[8..] (the previous status's set
// the new one's). ARGV: game id, packed labels. Lists a game no append has listed (written before
// the index, or copied by the migration), live or archived: returns 1 when written, 0 when the game
// was listed already (its entry stands), -1 when it neither exists nor is archived.
inline constexpr char kBackfill[] = "arbiter_v3_backfill";

// KEYS: deadlines, deadline-info. ARGV: now ms, lease until ms, max, owner.
// Returns {game id, info, game id, info, ...} of the entries now leased to owner.
inline constexpr char kClaim[] = "arbiter_v3_claim";

// KEYS: deadlines, deadline-info. ARGV: game id, owner, claimable at ms. Returns 1 or 0.
inline constexpr char kRelease[] = "arbiter_v3_release";

// FCALL_RO. KEYS: one of the index's sets, the index hash. ARGV: after ("" = from the first),
// limit. Returns {game id, packed labels ("" if none), ...}: the set's first `limit` ids after
// `after`, in order.
inline constexpr char kList[] = "arbiter_v3_list";

// FCALL_RO, no keys, no arguments: the library's name (kLibrary). The store calls it at start
// (RedisGameStore::CheckFunctions) to tell a Redis without the library from one that is down.
inline constexpr char kVersion[] = "arbiter_v3_version";

// FCALL_RO, no keys, no arguments: 1, from a library whose kAppend places names (its ARGV[14]).
// A library loaded before answers "Function not found", and the store then sends no names
// (RedisGameStore::CheckFunctions).
inline constexpr char kNames[] = "arbiter_v3_names";

}  // namespace store::redis_scripts

#endif  // ARBITER_LIBS_STORE_REDIS_SCRIPTS_H_
