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
// - The tip: every append leaves a token naming it as the game's tip (in the same write; the
//   Redis store's is a digest of the command id, snapshot and events, so the same command decided
//   again with other timestamps is another tip), which ReadSnapshot returns (GameSnapshot.tip)
//   and the append's result carries (AppendResult.tip). A non-empty `expected_tip` must equal
//   it, else ERR_VERSION_CONFLICT as for a version mismatch: after a failover the promoted
//   replica may lack appends the old master had and reach the same version by others, so a
//   state read from the old master matches the version but not the tip. A game written before
//   tips were recorded has none: it matches only an empty expected tip (the caller reloads,
//   reads the empty tip and appends on the version alone). A create (expected_version 0) takes
//   no expected tip (ERR_BAD_ARGUMENT).
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
//   internal/validation.h.
// - A backend that is down or times out fails ERR_STORE_UNAVAILABLE (UNAVAILABLE). The append
//   may or may not have been applied; retrying it with the same command id resolves which.
// - Archive (event_log.h), the other write: a game that is over, at its current version, leaves the
//   live store atomically (snapshot, log, command records, deadline entry) for a short tombstone
//   (ReadTombstone); a repeat returns the first tombstone (`replayed`). Its id stays taken: a
//   create fails ERR_GAME_EXISTS, other appends and the reads ERR_GAME_ARCHIVED (NOT_FOUND).
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
//
// The contract is four interfaces, so that a user names only what it uses: the
// event log (event_log.h), the deadline index (deadline_index.h), the store's clock
// (store_clock.h) and the feed of every append by shard (game_feed.h). One backend implements
// all four: the append writes the deadline update and the feed entry in the same atomic write. The
// checks both backends make are libs/store/internal's.
#ifndef ARBITER_LIBS_STORE_GAME_STORE_H_
#define ARBITER_LIBS_STORE_GAME_STORE_H_

#include "absl/strings/string_view.h"
#include "libs/store/deadline_index.h"
#include "libs/store/errors.h"
#include "libs/store/event_log.h"
#include "libs/store/game_feed.h"
#include "libs/store/store_clock.h"

namespace store {

// The store's error codes are libs/store/errors.h's (ERR_VERSION_CONFLICT, ERR_GAME_EXISTS, ...).

class GameStore : public EventLog, public DeadlineIndex, public StoreClock, public GameFeed {
 public:
  ~GameStore() override = default;
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_GAME_STORE_H_
