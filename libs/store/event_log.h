// The event log of the game store (game_store.h has the whole contract): the append, the one
// write, atomic and idempotent by command id; the reads; the watch.
#ifndef ARBITER_LIBS_STORE_EVENT_LOG_H_
#define ARBITER_LIBS_STORE_EVENT_LOG_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "proto/arbiter/v1/store.pb.h"

namespace store {

// Limits that keep one command bounded. Ids are short and printable; game ids are restricted to
// [A-Za-z0-9._~:-] so a Redis key cannot be confused with a hash tag ('{', '}').
inline constexpr int kMaxIdLength = 128;
inline constexpr int kMaxEventsPerAppend = 64;
inline constexpr int kMaxEventBytes = 64 * 1024;
inline constexpr int kMaxSnapshotBytes = 1024 * 1024;
inline constexpr int kMaxFingerprintLength = 256;
inline constexpr int kMaxClaim = 1000;
// The longest WaitForEvents; a longer timeout counts as this.
inline constexpr absl::Duration kMaxWait = absl::Hours(1);
// The most games one WaitForAnyEvents watches.
inline constexpr int kMaxWatchedAtOnce = 10'000;

// ReadEvents' `to_version` for "up to the last event".
inline constexpr std::int64_t kHead = std::numeric_limits<std::int64_t>::max();

// What an append does to the game's flag deadline.
struct DeadlineUpdate {
  enum class Kind : std::uint8_t { kKeep, kSet, kClear, kBound };
  static DeadlineUpdate Keep() { return {}; }
  static DeadlineUpdate Set(std::int64_t deadline_ms) { return {Kind::kSet, deadline_ms}; }
  static DeadlineUpdate Clear() { return {Kind::kClear, 0}; }
  // The flag falls no earlier than `deadline_ms`: the entry is set to it when the game has none
  // or one due later, and kept otherwise (an entry due early is released by its claimant to the
  // next bound, game_store.h). Most appends then write no deadline at all.
  static DeadlineUpdate Bound(std::int64_t deadline_ms) { return {Kind::kBound, deadline_ms}; }

  Kind kind = Kind::kKeep;
  std::int64_t deadline_ms = 0;  // kSet, kBound: ms on the NowMs() time base
};

// The games index (game_store.h, "The games index"): labels the layer above gives a game, which
// the store keeps beside it and lists by, written by the append that changes them. The store reads
// no meaning into them; each is at most kMaxLabelLength bytes, and `status` is printable, without
// '|', and not empty.
inline constexpr int kMaxLabelLength = 256;
inline constexpr int kMaxIndexPage = 1000;

struct IndexLabels {
  std::string status;
  std::string event;
  std::string round;
  std::string white_id;
  std::string black_id;
  std::string result;
  friend bool operator==(const IndexLabels&, const IndexLabels&) = default;
};

// New labels for the game, and the status it was listed under ("" for a game not yet listed: a
// creation, or a game written before the index), which it leaves.
struct IndexUpdate {
  IndexLabels labels;
  std::string previous_status;
};

// A page of the index: the games with every given label (empty = any; `player` matches white_id or
// black_id), in the order of their ids, after `after` (exclusive; "" = from the first). The store
// looks at up to `limit` (1..kMaxIndexPage) ids and returns those that match, so a page may hold
// fewer than `limit` games while more follow: `next_after` is the last id looked at ("" = the end).
struct IndexQuery {
  std::string status;
  std::string event;
  std::string round;
  std::string player;
  std::string after;
  int limit = 50;
};
// Whether a game with `labels` answers `query`'s filters (not its page).
bool IndexMatches(const IndexLabels& labels, const IndexQuery& query);

struct IndexedGame {
  std::string game_id;
  IndexLabels labels;
  friend bool operator==(const IndexedGame&, const IndexedGame&) = default;
};
struct IndexPage {
  std::vector<IndexedGame> games;
  std::string next_after;
};

struct AppendRequest {
  std::string game_id;
  std::int64_t expected_version = 0;           // 0: create the game
  std::string command_id;                      // client-chosen, unique per command within the game
  std::vector<arbiter::v1::GameEvent> events;  // at least one
  arbiter::v1::GameSnapshot snapshot;          // the state after these events (required)
  DeadlineUpdate deadline;
  std::string fingerprint;  // optional identity of the command for retries (see above)
  // The game's tip as the caller saw it (GameSnapshot.tip of the snapshot it decided on, or
  // AppendResult.tip of its own last append); "" = compare the version only. Not part of the
  // command's identity: a retry may pass another one.
  std::string expected_tip;
  // Write the snapshot only when the game's version reaches a multiple of this (and at the
  // creation): between two, ReadSnapshot returns the last one written and ReadLatest the events
  // after it, which the reader applies. 1: every append writes it.
  int snapshot_every = 1;
  // The game's index labels when they change (a creation, a new status); nullopt: unchanged, and
  // the append writes nothing to the index.
  std::optional<IndexUpdate> index;
};

// The game as last written: a snapshot (at snapshot.version(), with the game's tip) and the
// events after it, up to the game's version.
struct LatestState {
  arbiter::v1::GameSnapshot snapshot;
  std::vector<arbiter::v1::GameEvent> tail;
};

struct AppendResult {
  std::int64_t first_version = 0;  // the version of the first appended event
  std::int64_t version = 0;        // the game's version after the append
  bool replayed = false;           // a retry answered from the record; nothing was written
  // The game's tip after this append (GameSnapshot.tip); "" for a replay (the game may have
  // moved on since).
  std::string tip;
  // The outcome; the tip is the store's token and not compared.
  friend bool operator==(const AppendResult& a, const AppendResult& b) {
    return a.first_version == b.first_version && a.version == b.version && a.replayed == b.replayed;
  }
};

// Archive: a game that is over leaves the live store once the platform holds its record
// (the store then keeps only the games in play, so that Redis's dataset, and with it the cost of
// each AOF rewrite, stays bounded). What stays is a short tombstone (the caller's summary: the
// final version, result and a digest of the record), so that the id is never used again and the
// record the platform keeps can be checked against it.
inline constexpr int kMaxTombstoneBytes = 1024;

struct ArchiveRequest {
  std::string game_id;
  std::int64_t expected_version = 0;  // the game's version now (> 0): nothing came after the
                                      // caller read it
  std::string tombstone;              // 1..kMaxTombstoneBytes bytes
  // The archived game's labels (status: the archived one); nullopt: the index is left as it is.
  std::optional<IndexUpdate> index;
};

struct ArchiveResult {
  std::string tombstone;  // as stored (the first archive's, for a repeated one)
  bool replayed = false;  // the game was archived before; nothing was written
  friend bool operator==(const ArchiveResult&, const ArchiveResult&) = default;
};

// A watcher's place in one game's log, and what came after it (WaitForAnyEvents).
struct WatchPosition {
  std::string game_id;
  std::int64_t after_version = 0;
};
struct GameEvents {
  std::string game_id;
  std::vector<arbiter::v1::GameEvent> events;
};

// One game's versions from_version..to_version (ReadEventsOfGames).
struct EventRange {
  std::string game_id;
  std::int64_t from_version = 1;
  std::int64_t to_version = kHead;
};

class EventLog {
 public:
  virtual ~EventLog() = default;

  // The write primitive; see the contract above.
  virtual absl::StatusOr<AppendResult> Append(const AppendRequest& request) = 0;

  // How many times the store has moved to another master (Redis through Sentinel: a failover
  // or a switch); 0 forever for a store with one copy. A caller that keeps states read from the
  // store drops them when it changes: the new master may have reached their versions by other
  // appends. (It is a hint read before deciding; the expected tip is what makes the append safe.)
  virtual std::uint64_t MasterEpoch() { return 0; }

  using AppendCallback = std::function<void(absl::StatusOr<AppendResult>)>;
  // Append without waiting: `done` runs once with what Append would return, on a thread of the
  // store's (the Redis store's I/O lanes), or on the caller's for a store that does not wait on
  // anything (the default: Append, then `done`). `done` must not block for long.
  virtual void AppendAsync(AppendRequest request, AppendCallback done) { done(Append(request)); }

  // The recorded result of a command id (replayed set), nullopt if it never appended; lets a
  // handler answer a retry before re-validating it against a newer state.
  virtual absl::StatusOr<std::optional<AppendResult>> LookupCommand(
      absl::string_view game_id, absl::string_view command_id) = 0;

  // The latest snapshot written (the game's latest unless appends passed snapshot_every > 1),
  // with the game's tip; ERR_GAME_NOT_FOUND if the game does not exist.
  virtual absl::StatusOr<arbiter::v1::GameSnapshot> ReadSnapshot(absl::string_view game_id) = 0;

  // The snapshot last written and the events after it (the game's state is the snapshot's with
  // them applied). The default reads both (a race with an append shows as a tip conflict at the
  // next append); the Redis store reads them in one call.
  virtual absl::StatusOr<LatestState> ReadLatest(absl::string_view game_id);

  // The events with from_version <= version <= to_version (from_version >= 1; kHead for "to the
  // end"), in order; empty when the range lies beyond the head. ERR_GAME_NOT_FOUND if the game
  // does not exist.
  virtual absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ReadEvents(
      absl::string_view game_id, std::int64_t from_version, std::int64_t to_version) = 0;
  // ReadEvents of each range, answered in their order, each as ReadEvents would answer it (an
  // error for one range leaves the others answered). A reader of many games' new events at once
  // (the firehose: the games one batch of the feed names) reads them together: the Redis store in
  // one round trip per master instead of one per game. By default, one by one.
  virtual std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> ReadEventsOfGames(
      const std::vector<EventRange>& ranges);

  // The watch: the events after `after_version` (up to max_events >= 1, in order), waiting up to
  // `timeout` (at most kMaxWait; zero: a poll) for the first one; empty if none came. A watcher
  // calls it in a loop with the last version it saw, and after a disconnect resumes the same way.
  // ERR_GAME_NOT_FOUND if the game does not exist.
  virtual absl::StatusOr<std::vector<arbiter::v1::GameEvent>> WaitForEvents(
      absl::string_view game_id, std::int64_t after_version, absl::Duration timeout,
      int max_events) = 0;

  // The watch of several games at once, all of one deadline shard (one Redis Cluster slot;
  // ERR_BAD_ARGUMENT otherwise): waits up to `timeout` (as above) until any of them has events
  // after its position, then returns those games' events (up to max_events each, in order; games
  // with none are left out; empty if none came). A game that does not exist has no events. One
  // blocked call (one connection) serves every watched game of a shard.
  virtual absl::StatusOr<std::vector<GameEvents>> WaitForAnyEvents(
      const std::vector<WatchPosition>& games, absl::Duration timeout, int max_events) = 0;

  // Archive (above): atomically removes the game's snapshot, log, command records and deadline
  // entry and stores `tombstone` in their place. A game at another version fails
  // ERR_VERSION_CONFLICT; an unknown one ERR_GAME_NOT_FOUND; an archived one returns its stored
  // tombstone with `replayed` (whatever the request). After it: appends fail ERR_GAME_ARCHIVED
  // (NOT_FOUND), or ERR_GAME_EXISTS for a create (expected_version 0); ReadSnapshot, ReadEvents and
  // WaitForEvents fail ERR_GAME_ARCHIVED; LookupCommand finds nothing; WaitForAnyEvents sees no
  // events for it. The default (test doubles) is UNIMPLEMENTED.
  virtual absl::StatusOr<ArchiveResult> Archive(const ArchiveRequest& request);

  // The tombstone of an archived game; ERR_GAME_NOT_FOUND for a game that is not archived
  // (whether or not it exists).
  virtual absl::StatusOr<std::string> ReadTombstone(absl::string_view game_id);

  // A page of the games index (IndexQuery); ERR_BAD_ARGUMENT for a limit out of range or a label
  // too long. The default (test doubles) is UNIMPLEMENTED.
  virtual absl::StatusOr<IndexPage> ListIndex(const IndexQuery& query);

  // The games index for a game written before it (or copied by tools/store_migrate), which no
  // append has listed: lists the game, live or archived, under `labels` (its status as its last
  // state has it; previous status none) unless it is listed already. A listed game's entry stands:
  // an append wrote it from a state at least as new as the caller's, and one that races with this
  // call either finds the entry (and moves it) or overwrites it. True when it wrote the entry,
  // false when the game was listed: running it again changes nothing. ERR_GAME_NOT_FOUND for a game
  // that neither exists nor is archived; ERR_BAD_ARGUMENT for labels an append's index update would
  // refuse. The default (test doubles) is UNIMPLEMENTED.
  virtual absl::StatusOr<bool> BackfillIndex(absl::string_view game_id, const IndexLabels& labels);
};

// Game ids are restricted to [A-Za-z0-9._~:-] and 1..kMaxIdLength characters (ERR_BAD_ARGUMENT):
// a Redis key cannot be confused with a hash tag.
absl::Status ValidateGameId(absl::string_view game_id);

}  // namespace store

#endif  // ARBITER_LIBS_STORE_EVENT_LOG_H_
