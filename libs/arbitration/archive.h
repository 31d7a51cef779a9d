// Archiving a game that is over (ArchiveGame in proto/arbiter/v1/arbitration.proto):
// once the platform holds the record, the game leaves the live store and only its tombstone stays
// (store::EventLog::Archive). Redis then holds the games in play, so its dataset, and with it the
// work of every AOF rewrite (a fork that writes the whole dataset, then the old files deleted),
// stays bounded however many games a season plays.
//
// The tombstone is an ArchivedGame: the final version, result, termination and article, the
// event the game belongs to, and the SHA-256 of the record as an arbiter exports it (the PGN with
// clocks, comments and advice), so that the copy the platform keeps can be checked against what
// Arbiter ruled. Only a game that is over is archived (ERR_GAME_NOT_OVER otherwise): a game in
// play, awaiting a ruling or adjourned still needs its log.
#ifndef ARBITER_LIBS_ARBITRATION_ARCHIVE_H_
#define ARBITER_LIBS_ARBITRATION_ARCHIVE_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/signed_record.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

struct ArchiveOutcome {
  arbiter::v1::ArchivedGame archived;
  bool replayed = false;  // archived before: the first archive's tombstone
  // Archived now with a signer: the signed record (its signature is the tombstone's too).
  std::string signed_record;
};

// The tombstone of `game` (over), archived now by `actor`.
absl::StatusOr<arbiter::v1::ArchivedGame> TombstoneOf(absl::string_view game_id,
                                                      const GameState& game, std::int64_t now_ms,
                                                      const arbiter::v1::Actor& actor);

// Archives the game. `may_act` is asked first with the game's event (a token bound to
// one event acts only on its games), also for a game archived before (its tombstone's event).
// A game that changed between the read and the archive (a confirmation, an arbiter's result)
// fails ERR_VERSION_CONFLICT (ABORTED): the caller retries. With a `signer`, the record is signed
// at the archived version and the tombstone keeps the signature (signed_record.h).
absl::StatusOr<ArchiveOutcome> Archive(
    GameAuthority& authority, absl::string_view game_id, const arbiter::v1::Actor& actor,
    const std::function<absl::Status(absl::string_view event)>& may_act,
    const RecordSigner* signer = nullptr);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_ARCHIVE_H_
