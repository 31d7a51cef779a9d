#include "libs/arbitration/archive.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/base/error.h"
#include "libs/base/sha256.h"
#include "libs/base/status_macros.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"
#include "libs/store/errors.h"

namespace arbitration {
namespace {

namespace v1 = arbiter::v1;

// A game archived before: its stored tombstone, to a caller who may act on its event.
absl::StatusOr<ArchiveOutcome> ArchivedBefore(
    absl::string_view game_id, const std::string& tombstone,
    const std::function<absl::Status(absl::string_view event)>& may_act) {
  ArchiveOutcome out;
  if (!out.archived.ParseFromString(tombstone)) {
    return base::Error(store::kErrCorruptLog,
                       absl::StrCat("game \"", game_id, "\": its tombstone does not parse"));
  }
  RETURN_IF_ERROR(may_act(out.archived.event()));
  out.replayed = true;
  return out;
}

}  // namespace

absl::StatusOr<v1::ArchivedGame> TombstoneOf(absl::string_view game_id, const GameState& game,
                                             std::int64_t now_ms, const v1::Actor& actor) {
  if (game.status() != GameStatus::kEnded) {
    return base::Error(kErrGameNotOver,
                       "only a game that is over is archived: this one still needs its log");
  }
  // Its result is not final until analysis answers (or the arbiter sets it): the log and its
  // deadline entry, which asks again, must stay.
  if (game.review_awaits_analysis()) {
    return base::Error(kErrGameNotOver,
                       "the game's review waits for search-analysis: it is archived once settled");
  }
  v1::ArchivedGame a;
  a.set_game_id(std::string(game_id));
  a.set_version(game.version());
  a.set_result(std::string(laws::ResultText(game.outcome().result)));
  a.set_termination(laws::ToProto(game.outcome().termination));
  a.set_article(game.outcome().article);
  a.set_event(game.created().event());
  PgnExportOptions record;
  record.include_advice = true;  // the whole record, as an arbiter reads it (12.2)
  a.set_record_sha256(base::Sha256Hex(ExportPgn(game, record)));
  a.set_archived_at_ms(now_ms);
  *a.mutable_archived_by() = actor;
  return a;
}

absl::StatusOr<ArchiveOutcome> Archive(
    GameAuthority& authority, absl::string_view game_id, const v1::Actor& actor,
    const std::function<absl::Status(absl::string_view event)>& may_act,
    const RecordSigner* signer) {
  store::GameStore& store = *authority.store();
  // The cached state first (the archive is a compare-and-set at its version, so a stale one only
  // loses the race), then, after a lost race, the store's.
  for (bool cached : {true, false}) {
    absl::StatusOr<CommandResult> now =
        cached ? authority.GetCached(game_id) : authority.Get(game_id);
    if (!now.ok()) {
      if (base::ErrorCode(now.status()) != store::kErrGameArchived) return now.status();
      ASSIGN_OR_RETURN(std::string tombstone, store.ReadTombstone(game_id));
      return ArchivedBefore(game_id, tombstone, may_act);
    }
    RETURN_IF_ERROR(may_act(now->game->created().event()));
    ASSIGN_OR_RETURN(v1::ArchivedGame tombstone,
                     TombstoneOf(game_id, *now->game, now->now_ms, actor));
    std::optional<SignedGameRecord> signed_record;
    if (signer != nullptr) {
      ASSIGN_OR_RETURN(signed_record,
                       signer->Sign(store, game_id, *now->game, now->version, now->now_ms));
      *tombstone.mutable_record_signature() = SignatureOf(signed_record->block);
    }
    store::ArchiveRequest request;
    request.game_id = std::string(game_id);
    request.expected_version = now->version;
    request.tombstone = tombstone.SerializeAsString();
    // The index lists it as archived from the same write (the archive's own, atomic).
    store::IndexUpdate listed{.labels = IndexLabelsOf(*now->game)};
    listed.previous_status = std::move(listed.labels.status);
    listed.labels.status = std::string(kListedArchived);
    request.index = std::move(listed);
    absl::StatusOr<store::ArchiveResult> stored = store.Archive(request);
    if (!stored.ok()) {
      if (cached && base::ErrorCode(stored.status()) == store::kErrVersionConflict) continue;
      return stored.status();
    }
    authority.Forget(game_id);
    if (stored->replayed) {
      // Archived by another caller between the read and the write: its tombstone stands.
      return ArchivedBefore(game_id, stored->tombstone, may_act);
    }
    ArchiveOutcome out;
    out.archived = std::move(tombstone);
    if (signed_record.has_value()) out.signed_record = std::move(signed_record->text);
    return out;
  }
  return base::Error(store::kErrVersionConflict,
                     absl::StrCat("game \"", game_id, "\" changed while it was archived: retry"));
}

}  // namespace arbitration
