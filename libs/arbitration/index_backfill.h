// The games index for a game no append listed: one written before the store kept an index, or
// copied by tools/store_migrate. Its labels are what the append that next changed them would
// write (IndexLabelsOf): for a live game, those of the state its whole log folds to; for an
// archived one, what its tombstone keeps (status archived, the event and the result; the round
// and the players' ids went with the log).
#ifndef ARBITER_LIBS_ARBITRATION_INDEX_BACKFILL_H_
#define ARBITER_LIBS_ARBITRATION_INDEX_BACKFILL_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/store/event_log.h"

namespace arbitration {

// The labels of `game_id` as its log or its tombstone give them. ERR_GAME_NOT_FOUND for a game
// that neither exists nor is archived; INTERNAL ERR_CORRUPT_LOG for a log or tombstone that does
// not read.
absl::StatusOr<store::IndexLabels> StoredIndexLabels(store::EventLog& store,
                                                     absl::string_view game_id);

struct BackfillCount {
  std::int64_t listed = 0;         // listed by this call
  std::int64_t listed_before = 0;  // listed already (by an append or an earlier run): unchanged
};

// Lists each game under its StoredIndexLabels unless it is listed (store::EventLog::BackfillIndex),
// so a run stopped midway is run again. Stops at the first game whose labels or write fail.
absl::StatusOr<BackfillCount> BackfillIndex(store::EventLog& store,
                                            absl::Span<const std::string> game_ids);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_INDEX_BACKFILL_H_
