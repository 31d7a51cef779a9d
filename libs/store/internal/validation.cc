#include "libs/store/internal/validation.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/store/deadline_index.h"
#include "libs/store/game_store.h"

namespace store::internal {
namespace {

absl::Status Bad(absl::string_view message) {
  return base::InvalidArgument(kErrBadArgument, message);
}

absl::Status ValidatePrintableId(absl::string_view what, absl::string_view id) {
  if (id.empty() || id.size() > kMaxIdLength) {
    return Bad(absl::StrCat(what, " must have 1 to ", kMaxIdLength, " characters"));
  }
  for (char c : id) {
    if (c < 0x20 || c > 0x7e) return Bad(absl::StrCat(what, " must be printable ASCII"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateOwner(absl::string_view owner) { return ValidatePrintableId("owner", owner); }

absl::Status ValidateAppendRequest(const AppendRequest& request) {
  if (absl::Status s = ValidateGameId(request.game_id); !s.ok()) return s;
  if (absl::Status s = ValidatePrintableId("command id", request.command_id); !s.ok()) return s;
  if (request.expected_version < 0) return Bad("expected version must be >= 0");
  if (!request.expected_tip.empty()) {
    if (request.expected_version == 0) return Bad("a create has no expected tip");
    if (absl::Status s = ValidatePrintableId("expected tip", request.expected_tip); !s.ok()) {
      return s;
    }
  }
  if (request.events.empty()) return Bad("an append needs at least one event");
  if (request.events.size() > kMaxEventsPerAppend) {
    return Bad(absl::StrCat("at most ", kMaxEventsPerAppend, " events per append"));
  }
  for (size_t i = 0; i < request.events.size(); ++i) {
    const arbiter::v1::GameEvent& e = request.events[i];
    if (e.schema_version() == 0) return Bad(absl::StrCat("event ", i, " has no schema version"));
    if (e.body().type_url().empty()) return Bad(absl::StrCat("event ", i, " has no body"));
    if (e.ByteSizeLong() > kMaxEventBytes) {
      return Bad(absl::StrCat("event ", i, " is larger than ", kMaxEventBytes, " bytes"));
    }
  }
  if (request.snapshot.schema_version() == 0) return Bad("the snapshot has no schema version");
  if (request.snapshot.state().type_url().empty()) return Bad("the snapshot has no state");
  if (request.snapshot.ByteSizeLong() > kMaxSnapshotBytes) {
    return Bad(absl::StrCat("the snapshot is larger than ", kMaxSnapshotBytes, " bytes"));
  }
  if (request.deadline.kind == DeadlineUpdate::Kind::kSet && request.deadline.deadline_ms < 0) {
    return Bad("a deadline must be >= 0 ms");
  }
  if (request.deadline.kind == DeadlineUpdate::Kind::kBound && request.deadline.deadline_ms < 0) {
    return Bad("a deadline must be >= 0 ms");
  }
  if (request.snapshot_every < 1) return Bad("snapshot_every must be >= 1");
  if (request.fingerprint.size() > kMaxFingerprintLength) {
    return Bad(absl::StrCat("a fingerprint has at most ", kMaxFingerprintLength, " bytes"));
  }
  if (request.index.has_value()) return ValidateIndexUpdate(*request.index);
  return absl::OkStatus();
}

namespace {

// A status names a key of the Redis index and heads its packed labels ("<status>|...").
absl::Status ValidateStatusLabel(absl::string_view what, absl::string_view status) {
  if (status.size() > kMaxLabelLength) return Bad(absl::StrCat(what, " is too long"));
  for (char c : status) {
    if (c <= 0x20 || c > 0x7e || c == '|') {
      return Bad(absl::StrCat(what, " must be printable ASCII without spaces or '|'"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateLabels(const IndexLabels& l) {
  for (const std::string* v : {&l.event, &l.round, &l.white_id, &l.black_id, &l.result}) {
    if (v->size() > kMaxLabelLength) {
      return Bad(absl::StrCat("an index label has at most ", kMaxLabelLength, " bytes"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateIndexUpdate(const IndexUpdate& update) {
  if (update.labels.status.empty()) return Bad("an index update needs a status");
  if (absl::Status s = ValidateStatusLabel("status", update.labels.status); !s.ok()) return s;
  if (absl::Status s = ValidateStatusLabel("previous status", update.previous_status); !s.ok()) {
    return s;
  }
  return ValidateLabels(update.labels);
}

absl::Status ValidateIndexQuery(const IndexQuery& query) {
  if (query.limit < 1 || query.limit > kMaxIndexPage) {
    return Bad(absl::StrCat("an index page looks at 1 to ", kMaxIndexPage, " games"));
  }
  if (!query.after.empty()) {
    if (absl::Status s = ValidateGameId(query.after); !s.ok()) return s;
  }
  if (absl::Status s = ValidateStatusLabel("status", query.status); !s.ok()) return s;
  return ValidateLabels({.event = query.event,
                         .round = query.round,
                         .white_id = query.player,
                         .black_id = query.player});
}

bool WritesSnapshot(const AppendRequest& request) {
  const std::int64_t every = request.snapshot_every;
  const std::int64_t before = request.expected_version;
  const auto after = before + static_cast<std::int64_t>(request.events.size());
  return before == 0 || every <= 1 || after / every > before / every;
}

absl::Status ValidateArchiveRequest(const ArchiveRequest& request) {
  if (absl::Status s = ValidateGameId(request.game_id); !s.ok()) return s;
  if (request.expected_version <= 0) return Bad("an archive's expected version must be > 0");
  if (request.tombstone.empty() || request.tombstone.size() > kMaxTombstoneBytes) {
    return Bad(absl::StrCat("a tombstone must have 1 to ", kMaxTombstoneBytes, " bytes"));
  }
  if (request.index.has_value()) return ValidateIndexUpdate(*request.index);
  return absl::OkStatus();
}

absl::Status GameArchived(absl::string_view game_id) {
  return base::Error(
      kErrGameArchived,
      absl::StrCat("game \"", game_id, "\" is archived (its record left the live store)"));
}

absl::Status VersionConflict(absl::string_view game_id, std::int64_t current,
                             std::int64_t expected) {
  return base::Aborted(kErrVersionConflict, absl::StrCat("game ", game_id, " is at version ",
                                                         current, ", not ", expected));
}

absl::Status TipConflict(absl::string_view game_id, std::int64_t version,
                         absl::string_view expected_tip) {
  return base::Aborted(
      kErrVersionConflict,
      absl::StrCat("game ", game_id, " is at version ", version, " by another append than ",
                   expected_tip, " (the master changed since it was read)"));
}

absl::Status ArchivedGameExists(absl::string_view game_id) {
  return base::Error(
      kErrGameExists,
      absl::StrCat("game ", game_id, " existed and was archived: its id is not used again"));
}

absl::Status ValidateShard(int shard, int num_shards) {
  if (shard < 0 || shard >= num_shards) {
    return Bad(absl::StrCat("shard ", shard, " is not in [0, ", num_shards, ")"));
  }
  return absl::OkStatus();
}

absl::Status ValidateClaim(int shard, int num_shards, std::int64_t lease_ms, int max,
                           absl::string_view owner) {
  if (absl::Status st = ValidateShard(shard, num_shards); !st.ok()) return st;
  if (lease_ms <= 0) return Bad("a lease must be > 0 ms");
  if (max <= 0 || max > kMaxClaim) return Bad(absl::StrCat("max must be in [1, ", kMaxClaim, "]"));
  return ValidateOwner(owner);
}

absl::Status ValidateWait(absl::string_view game_id, std::int64_t after_version, int max_events) {
  if (absl::Status st = ValidateGameId(game_id); !st.ok()) return st;
  if (after_version < 0) return Bad("after_version must be >= 0");
  if (max_events < 1) return Bad("max_events must be >= 1");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<arbiter::v1::GameEvent>> WaitAsWatchOfOne(EventLog& store,
                                                                     absl::string_view game_id,
                                                                     std::int64_t after_version,
                                                                     absl::Duration timeout,
                                                                     int max_events) {
  absl::StatusOr<std::vector<GameEvents>> got =
      store.WaitForAnyEvents({{std::string(game_id), after_version}}, timeout, max_events);
  if (!got.ok()) return got.status();
  if (got->empty()) return std::vector<arbiter::v1::GameEvent>();
  return std::move(got->front().events);
}

absl::Status ValidateWatch(const std::vector<WatchPosition>& games, int num_shards,
                           int max_events) {
  if (games.empty() || static_cast<int>(games.size()) > kMaxWatchedAtOnce) {
    return Bad(
        absl::StrCat("watch 1 to ", kMaxWatchedAtOnce, " games at once, not ", games.size()));
  }
  if (max_events < 1) return Bad("max_events must be >= 1");
  const int shard = DeadlineShard(games.front().game_id, num_shards);
  absl::flat_hash_set<absl::string_view> seen;
  for (const WatchPosition& g : games) {
    if (absl::Status st = ValidateGameId(g.game_id); !st.ok()) return st;
    if (g.after_version < 0) return Bad("after_version must be >= 0");
    if (DeadlineShard(g.game_id, num_shards) != shard) {
      return Bad(absl::StrCat("games ", games.front().game_id, " and ", g.game_id,
                              " are in different shards: watch each shard on its own"));
    }
    if (!seen.insert(g.game_id).second) return Bad(absl::StrCat("game ", g.game_id, " twice"));
  }
  return absl::OkStatus();
}

absl::Status ValidatePeek(int shard, int num_shards, int max) {
  if (absl::Status st = ValidateShard(shard, num_shards); !st.ok()) return st;
  if (max <= 0 || max > kMaxClaim) return Bad(absl::StrCat("max must be in [1, ", kMaxClaim, "]"));
  return absl::OkStatus();
}

std::vector<arbiter::v1::GameEvent> StampedEvents(const AppendRequest& request) {
  std::vector<arbiter::v1::GameEvent> events = request.events;
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].set_version(request.expected_version + 1 + static_cast<std::int64_t>(i));
    events[i].set_command_id(request.command_id);
  }
  return events;
}

arbiter::v1::GameSnapshot StampedSnapshot(const AppendRequest& request) {
  arbiter::v1::GameSnapshot snapshot = request.snapshot;
  snapshot.set_version(request.expected_version + static_cast<std::int64_t>(request.events.size()));
  return snapshot;
}

}  // namespace store::internal
