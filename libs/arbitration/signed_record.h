// The game's record as Arbiter signs it (libs/record, docs/RECORDS.md): the PGN a platform and
// the players read (clocks, claims and rulings as comments, without the search's advice, which
// 12.2 keeps for the arbiter), the digest of the game's event log, and the game's id, version
// and result, under the server's Ed25519 key.
//
// The log's digest is over the events as WatchGame gives them to an arbiter (each
// arbiter.v1.ArbitrationEvent in version order, in protobuf's deterministic encoding, the sealed
// move's box and wrapped key cleared as WatchGame clears them for everyone), framed as
// record::LogSha256 frames them, so that whoever holds the log can recompute it.
#ifndef ARBITER_LIBS_ARBITRATION_SIGNED_RECORD_H_
#define ARBITER_LIBS_ARBITRATION_SIGNED_RECORD_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/game_state.h"
#include "libs/record/record.h"
#include "libs/store/event_log.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

// An event as the log's digest reads it (above).
std::string DigestEncoding(const arbiter::v1::ArbitrationEvent& event);

// The log's digest (above) of a game's events as WatchGame gives them, in version order from 1.
std::string LogDigest(const std::vector<arbiter::v1::ArbitrationEvent>& events);

struct SignedGameRecord {
  std::string text;  // the PGN and the block
  record::SignatureBlock block;
};

// The server's signing key and the public keys it publishes (its own first, then those rotated
// out).
class RecordSigner {
 public:
  // `rotated_out`: the public keys of records signed before (--record_public_keys).
  static absl::StatusOr<RecordSigner> Create(record::SigningKey key, record::KeyRing rotated_out);

  const record::SigningKey& key() const { return key_; }
  const record::KeyRing& published() const { return published_; }

  // The signed record of `game` (over: ERR_GAME_NOT_OVER otherwise) at `version`, its log read
  // from `log` (versions 1..version), signed at `now_ms`.
  absl::StatusOr<SignedGameRecord> Sign(store::EventLog& log, absl::string_view game_id,
                                        const GameState& game, std::int64_t version,
                                        std::int64_t now_ms) const;

 private:
  RecordSigner(record::SigningKey key, record::KeyRing published)
      : key_(std::move(key)), published_(std::move(published)) {}

  record::SigningKey key_;
  record::KeyRing published_;
};

// The tombstone's part of a signed record (the block's fields ArchivedGame does not hold), and
// the block again from a tombstone that kept it ("" when it kept none: archived without a key).
arbiter::v1::RecordSignature SignatureOf(const record::SignatureBlock& block);
std::string SignatureBlockOf(const arbiter::v1::ArchivedGame& archived);

// What GetSignedRecord answers: for a game in the store (over), its record signed now; for an
// archived game, the signature block its tombstone kept (its PGN left with the log).
struct RecordAnswer {
  std::string record;           // the PGN and the block; "" for an archived game
  std::string signature_block;  // the block alone
  bool archived = false;
};

// The answer for `game_id`. `may_act` is asked first with the game's event (a token bound to one
// event reads only its games). FAILED_PRECONDITION ERR_RECORD_SIGNING_OFF without a `signer` (or
// for a game archived without one), ERR_GAME_NOT_OVER for a game that goes on.
absl::StatusOr<RecordAnswer> SignedRecordOf(
    GameAuthority& authority, absl::string_view game_id, const RecordSigner* signer,
    const std::function<absl::Status(absl::string_view event)>& may_act);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_SIGNED_RECORD_H_
