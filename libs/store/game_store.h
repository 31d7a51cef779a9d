// The game store: every game is an append-only log of events plus a snapshot derived from it
// (ARCHITECTURE.md, "A game is an event log"), and every write, from any service or replica, is
// one primitive: "append these events if the game is still at version N" (compare-and-set).
// Two implementations satisfy this one contract (testing/game_store_contract.cc runs the same
// suite on both): RedisGameStore (redis_game_store.h) and MemoryGameStore (memory_game_store.h).
//
//   AppendRequest req{.game_id = "g42", .expected_version = 0, .command_id = "create-g42"};
//   req.events.push_back(created_event);                  // body + schema_version
//   req.snapshot = snapshot_after;                          // state + schema_version
//   req.deadline = DeadlineUpdate::Set(start_ms + 5'400'000);
//   ASSIGN_OR_RETURN(AppendResult r, store.Append(req));  // r.version == 1
//
// Append, the one write:
// - Atomic: the events, the new snapshot, the command record and the deadline update are all
//   written or none is. Version N+1.. are the appended events; the result's `version` is the
//   game's version after the append (= the last event's version).
// - expected_version 0 creates the game; a game that exists already fails ERR_GAME_EXISTS
//   (ALREADY_EXISTS). expected_version N > 0 on a game at another version fails
//   ERR_VERSION_CONFLICT (ABORTED: the caller lost the race, reloads and decides again); on a
//   game that does not exist, ERR_GAME_NOT_FOUND (NOT_FOUND). Of concurrent writers at one
//   version exactly one wins.
// - Idempotent by command id (per game, kept as long as the game): a command id that already
//   appended returns that original result with `replayed` set and writes nothing, even if the
//   game has moved on since. Its identity is `fingerprint` when the caller gives one (e.g. a hash
//   of the platform's request, when a retry re-derives events with new timestamps), otherwise the
//   request's content (expected_version, events, snapshot, deadline). The same id with another
//   identity fails ERR_COMMAND_ID_REUSED as FAILED_PRECONDITION: the request would be valid
//   against a store that had not seen the id, so it is the store's state, not its form, that
//   refuses it. A command that failed left no record and may be retried as it is.
// - The store fills GameEvent.version/command_id and GameSnapshot.version; everything else is
//   stored as given. Malformed requests fail ERR_BAD_ARGUMENT (INVALID_ARGUMENT), see
//   ValidateAppendRequest.
// - A backend that is down or times out fails ERR_STORE_UNAVAILABLE (UNAVAILABLE). The append
//   may or may not have been applied; retrying it with the same command id resolves which.
//
// Reads: ReadSnapshot (one round trip), ReadEvents (a range of versions), WaitForEvents (the
// watch: events after a version, blocking up to a timeout, so a watcher that lost its stream
// resumes from the last version it saw, missing and repeating nothing).
//
// The flag-deadline index (for the clock authority, ARCHITECTURE.md: "Clock state is a pure
// function of the log"): each game has at most one deadline (when the running player's flag
// falls), set or cleared by the append that changes it, in the same atomic write. Games are spread
// over NumDeadlineShards() shards by DeadlineShard(game_id). A replica takes due entries with
// ClaimDueDeadlines, which leases them to it: a leased entry is not due again until its lease
// ends, so a replica killed midway loses nothing (another claims the entry after the lease) and
// replicas do not duplicate work while it lasts. Exactly-once flagging comes from the append, not
// the lease: the claimant reads the snapshot and appends the flag event at that version with
// DeadlineUpdate::Clear() and a command id derived from (game, version), e.g. "flag:g42:17", with
// that id as fingerprint (replicas' events may differ in recorded_at_ms); a second replica doing
// the same gets the original result back (replayed) or ERR_VERSION_CONFLICT, never a second flag.
// All replicas must compare deadlines on one time base: NowMs() (Redis TIME for the Redis store).
#ifndef ARBITER_LIBS_STORE_GAME_STORE_H_
#define ARBITER_LIBS_STORE_GAME_STORE_H_

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

// Stable error codes (libs/base/error.h) of the store.
inline constexpr absl::string_view kErrVersionConflict = "ERR_VERSION_CONFLICT";  // ABORTED
inline constexpr absl::string_view kErrGameExists = "ERR_GAME_EXISTS";            // ALREADY_EXISTS
inline constexpr absl::string_view kErrGameNotFound = "ERR_GAME_NOT_FOUND";       // NOT_FOUND
inline constexpr absl::string_view kErrCommandIdReused =
    "ERR_COMMAND_ID_REUSED";                                              // FAILED_PRECOND.
inline constexpr absl::string_view kErrBadArgument = "ERR_BAD_ARGUMENT";  // INVALID_ARGUMENT
inline constexpr absl::string_view kErrStoreUnavailable = "ERR_STORE_UNAVAILABLE";  // UNAVAILABLE
// The backend answered something the store cannot read (a bug or foreign data): INTERNAL.
inline constexpr absl::string_view kErrStoreInternal = "ERR_STORE_INTERNAL";

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

// The number of deadline shards unless configured. Fixed for a deployment: a game's Redis keys are
// placed by its shard, so changing it moves every game (see README.md).
inline constexpr int kDefaultDeadlineShards = 64;

// ReadEvents' `to_version` for "up to the last event".
inline constexpr std::int64_t kHead = std::numeric_limits<std::int64_t>::max();

// What an append does to the game's flag deadline.
struct DeadlineUpdate {
  enum class Kind : std::uint8_t { kKeep, kSet, kClear };
  static DeadlineUpdate Keep() { return {}; }
  static DeadlineUpdate Set(std::int64_t deadline_ms) { return {Kind::kSet, deadline_ms}; }
  static DeadlineUpdate Clear() { return {Kind::kClear, 0}; }

  Kind kind = Kind::kKeep;
  std::int64_t deadline_ms = 0;  // kSet: when the flag falls, ms on the NowMs() time base
};

struct AppendRequest {
  std::string game_id;
  std::int64_t expected_version = 0;           // 0: create the game
  std::string command_id;                      // client-chosen, unique per command within the game
  std::vector<arbiter::v1::GameEvent> events;  // at least one
  arbiter::v1::GameSnapshot snapshot;          // the state after these events (required)
  DeadlineUpdate deadline;
  std::string fingerprint;  // optional identity of the command for retries (see above)
};

struct AppendResult {
  std::int64_t first_version = 0;  // the version of the first appended event
  std::int64_t version = 0;        // the game's version after the append
  bool replayed = false;           // a retry answered from the record; nothing was written
  friend bool operator==(const AppendResult&, const AppendResult&) = default;
};

// A game's entry in the deadline index.
struct Deadline {
  std::string game_id;
  std::int64_t deadline_ms = 0;     // when the running player's flag falls
  std::int64_t set_at_version = 0;  // the version of the append that set it
  std::int64_t claims = 0;          // how often it was claimed since it was set
  std::int64_t lease_until_ms = 0;  // 0 when not leased
  std::string owner;                // the last claimant, "" when not leased
  friend bool operator==(const Deadline&, const Deadline&) = default;
};

// An entry of the deadline index as the index orders it: when it is next due.
struct DueEntry {
  std::string game_id;
  std::int64_t due_ms = 0;  // the deadline, or the end of the entry's lease
  friend bool operator==(const DueEntry&, const DueEntry&) = default;
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

class GameStore {
 public:
  virtual ~GameStore() = default;

  // The write primitive; see the contract above.
  virtual absl::StatusOr<AppendResult> Append(const AppendRequest& request) = 0;

  using AppendCallback = std::function<void(absl::StatusOr<AppendResult>)>;
  // Append without waiting: `done` runs once with what Append would return, on a thread of the
  // store's (the Redis store's I/O lanes), or on the caller's for a store that does not wait on
  // anything (the default: Append, then `done`). `done` must not block for long.
  virtual void AppendAsync(AppendRequest request, AppendCallback done) { done(Append(request)); }

  // The recorded result of a command id (replayed set), nullopt if it never appended; lets a
  // handler answer a retry before re-validating it against a newer state.
  virtual absl::StatusOr<std::optional<AppendResult>> LookupCommand(
      absl::string_view game_id, absl::string_view command_id) = 0;

  // The latest snapshot; ERR_GAME_NOT_FOUND if the game does not exist.
  virtual absl::StatusOr<arbiter::v1::GameSnapshot> ReadSnapshot(absl::string_view game_id) = 0;

  // The events with from_version <= version <= to_version (from_version >= 1; kHead for "to the
  // end"), in order; empty when the range lies beyond the head. ERR_GAME_NOT_FOUND if the game
  // does not exist.
  virtual absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ReadEvents(
      absl::string_view game_id, std::int64_t from_version, std::int64_t to_version) = 0;

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

  // The deadline index (see above).
  virtual int NumDeadlineShards() const = 0;
  virtual absl::StatusOr<std::optional<Deadline>> GetDeadline(absl::string_view game_id) = 0;
  // Leases up to `max` entries of `shard` that are due (deadline <= now_ms, or a lease that ended
  // by now_ms) to `owner` until now_ms + lease_ms, earliest first, and returns them. `owner` names
  // one replica uniquely (e.g. pod name and pid).
  virtual absl::StatusOr<std::vector<Deadline>> ClaimDueDeadlines(int shard, std::int64_t now_ms,
                                                                  std::int64_t lease_ms, int max,
                                                                  absl::string_view owner) = 0;
  // Reads, without claiming, up to `max` entries of `shard` next due by `until_ms` (deadline, or
  // the end of a lease), earliest first. A replica times its claims of the shard by it: it learns
  // when other replicas' deadlines fall and claims them just after, if they are still there.
  virtual absl::StatusOr<std::vector<DueEntry>> PeekDeadlines(int shard, std::int64_t until_ms,
                                                              int max) = 0;
  // The number of entries in `shard` (games with a pending flag or default, whoever set it): for
  // the operator's count of live clocks across every replica.
  virtual absl::StatusOr<std::int64_t> CountDeadlines(int shard) = 0;
  // Gives back an entry `owner` claimed, due again at claimable_at_ms (a claimant that finds the
  // flag not yet fallen). False, with no change, if the entry is gone or another replica has
  // claimed it since.
  virtual absl::StatusOr<bool> ReleaseDeadline(absl::string_view game_id, absl::string_view owner,
                                               std::int64_t claimable_at_ms) = 0;

  // The store's time, ms since the Unix epoch: the one time base of all replicas.
  virtual absl::StatusOr<std::int64_t> NowMs() = 0;
};

// The deadline shard of a game: FNV-1a (64-bit) of the id modulo num_shards. Stable across
// builds and machines: it places a game's Redis keys.
int DeadlineShard(absl::string_view game_id, int num_shards);

// The checks both implementations make before touching state (ERR_BAD_ARGUMENT).
absl::Status ValidateGameId(absl::string_view game_id);
absl::Status ValidateAppendRequest(const AppendRequest& request);
absl::Status ValidateClaim(int shard, int num_shards, std::int64_t lease_ms, int max,
                           absl::string_view owner);
absl::Status ValidateOwner(absl::string_view owner);
absl::Status ValidatePeek(int shard, int num_shards, int max);
absl::Status ValidateShard(int shard, int num_shards);
// WaitForAnyEvents's arguments: 1..kMaxWatchedAtOnce valid games, all in one shard, each once.
absl::Status ValidateWatch(const std::vector<WatchPosition>& games, int num_shards, int max_events);

// The events and snapshot as they are stored: versions and command id filled in.
std::vector<arbiter::v1::GameEvent> StampedEvents(const AppendRequest& request);
arbiter::v1::GameSnapshot StampedSnapshot(const AppendRequest& request);

}  // namespace store

#endif  // ARBITER_LIBS_STORE_GAME_STORE_H_
