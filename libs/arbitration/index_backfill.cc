#include "libs/arbitration/index_backfill.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/game_state.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/store/errors.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

absl::StatusOr<store::IndexLabels> StoredIndexLabels(store::EventLog& store,
                                                     absl::string_view game_id) {
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log =
      store.ReadEvents(game_id, 1, store::kHead);
  if (log.ok()) {
    std::vector<v1::ArbitrationEvent> events;
    events.reserve(log->size());
    for (const arbiter::v1::GameEvent& e : *log) {
      ASSIGN_OR_RETURN(events.emplace_back(), FromStoreEvent(e));
    }
    ASSIGN_OR_RETURN(GameState game, GameState::Replay(events));
    return IndexLabelsOf(game);
  }
  if (base::ErrorCode(log.status()) != store::kErrGameArchived) return log.status();
  ASSIGN_OR_RETURN(std::string tombstone, store.ReadTombstone(game_id));
  v1::ArchivedGame archived;
  if (!archived.ParseFromString(tombstone)) {
    return base::Error(store::kErrCorruptLog,
                       absl::StrCat("game \"", game_id, "\": its tombstone does not parse"));
  }
  return store::IndexLabels{.status = std::string(kListedArchived),
                            .event = archived.event(),
                            .result = archived.result()};
}

absl::StatusOr<BackfillCount> BackfillIndex(store::EventLog& store,
                                            absl::Span<const std::string> game_ids) {
  BackfillCount count;
  for (const std::string& game_id : game_ids) {
    ASSIGN_OR_RETURN(store::IndexLabels labels, StoredIndexLabels(store, game_id));
    ASSIGN_OR_RETURN(bool listed, store.BackfillIndex(game_id, labels));
    ++(listed ? count.listed : count.listed_before);
  }
  return count;
}

}  // namespace arbitration
