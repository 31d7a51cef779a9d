// The checks both backends make before touching state (ERR_BAD_ARGUMENT), and the records as they
// are stored. The store's own: visible only to libs/store.
#ifndef ARBITER_LIBS_STORE_INTERNAL_VALIDATION_H_
#define ARBITER_LIBS_STORE_INTERNAL_VALIDATION_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "libs/store/event_log.h"
#include "proto/arbiter/v1/store.pb.h"

namespace store::internal {

absl::Status ValidateAppendRequest(const AppendRequest& request);
// Archive's arguments: a valid game id, expected_version > 0, a tombstone of 1..kMaxTombstoneBytes.
absl::Status ValidateArchiveRequest(const ArchiveRequest& request);
// An index update's labels (event_log.h, IndexLabels) and a query of the index.
absl::Status ValidateIndexUpdate(const IndexUpdate& update);
absl::Status ValidateIndexQuery(const IndexQuery& query);

absl::Status ValidateClaim(int shard, int num_shards, std::int64_t lease_ms, int max,
                           absl::string_view owner);
absl::Status ValidateOwner(absl::string_view owner);
absl::Status ValidatePeek(int shard, int num_shards, int max);
absl::Status ValidateShard(int shard, int num_shards);
// WaitForEvents's arguments: a valid game id, after_version >= 0, max_events >= 1.
absl::Status ValidateWait(absl::string_view game_id, std::int64_t after_version, int max_events);
// WaitForAnyEvents's arguments: 1..kMaxWatchedAtOnce valid games, all in one shard, each once.
absl::Status ValidateWatch(const std::vector<WatchPosition>& games, int num_shards, int max_events);

// WaitForEvents as both backends answer it once the game is known to exist: the watch of it alone
// (WaitForAnyEvents), its events, or none at the timeout (one archived meanwhile has no more).
absl::StatusOr<std::vector<arbiter::v1::GameEvent>> WaitAsWatchOfOne(EventLog& store,
                                                                     absl::string_view game_id,
                                                                     std::int64_t after_version,
                                                                     absl::Duration timeout,
                                                                     int max_events);

// The answers both backends give about an archived game: ERR_GAME_ARCHIVED (reads, and an append
// to it), ERR_GAME_EXISTS (a create with its id).
absl::Status GameArchived(absl::string_view game_id);
// ERR_VERSION_CONFLICT (ABORTED): the game is at `current`, a write expected `expected`.
absl::Status VersionConflict(absl::string_view game_id, std::int64_t current,
                             std::int64_t expected);
// ERR_VERSION_CONFLICT (ABORTED): the game is at the expected version by another append than
// the expected tip (game_store.h, "The tip").
absl::Status TipConflict(absl::string_view game_id, std::int64_t version,
                         absl::string_view expected_tip);
absl::Status ArchivedGameExists(absl::string_view game_id);

// Whether an append writes its snapshot: at the creation, and when the game's version reaches or
// passes a multiple of request.snapshot_every (AppendRequest).
bool WritesSnapshot(const AppendRequest& request);

// The events and snapshot as they are stored: versions and command id filled in.
std::vector<arbiter::v1::GameEvent> StampedEvents(const AppendRequest& request);
arbiter::v1::GameSnapshot StampedSnapshot(const AppendRequest& request);

}  // namespace store::internal

#endif  // ARBITER_LIBS_STORE_INTERNAL_VALIDATION_H_
