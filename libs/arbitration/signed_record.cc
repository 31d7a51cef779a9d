#include "libs/arbitration/signed_record.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/laws/outcome.h"
#include "libs/record/errors.h"
#include "libs/store/errors.h"

namespace arbitration {

namespace v1 = arbiter::v1;

std::string DigestEncoding(const v1::ArbitrationEvent& event) {
  v1::ArbitrationEvent seen = event;
  if (seen.has_move_sealed()) {
    // Appendix A: the sealed box and the wrapped key are for nobody (WatchGame clears them), so
    // the digest is one a reader of the log can recompute.
    seen.mutable_move_sealed()->clear_box();
    seen.mutable_move_sealed()->clear_wrapped_key();
  }
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    seen.SerializeToCodedStream(&coded);
  }
  return out;
}

std::string LogDigest(const std::vector<v1::ArbitrationEvent>& events) {
  std::vector<std::string> encoded;
  encoded.reserve(events.size());
  for (const v1::ArbitrationEvent& e : events) encoded.push_back(DigestEncoding(e));
  return record::LogSha256(encoded);
}

absl::StatusOr<RecordSigner> RecordSigner::Create(record::SigningKey key,
                                                  record::KeyRing rotated_out) {
  record::KeyRing published;
  RETURN_IF_ERROR(published.Add(key.public_key()));
  for (const record::PublicKey& old : rotated_out.keys()) RETURN_IF_ERROR(published.Add(old));
  return RecordSigner(std::move(key), std::move(published));
}

absl::StatusOr<SignedGameRecord> RecordSigner::Sign(store::EventLog& log, absl::string_view game_id,
                                                    const GameState& game, std::int64_t version,
                                                    std::int64_t now_ms) const {
  if (game.status() != GameStatus::kEnded) {
    return base::Error(kErrGameNotOver,
                       "only the record of a game that is over is signed: this one goes on");
  }
  ASSIGN_OR_RETURN(std::vector<v1::GameEvent> stored, log.ReadEvents(game_id, 1, version));
  if (static_cast<std::int64_t>(stored.size()) != version) {
    return base::Error(store::kErrCorruptLog,
                       absl::StrCat("game \"", game_id, "\": its log holds ", stored.size(),
                                    " events, its state is at version ", version));
  }
  std::vector<v1::ArbitrationEvent> events;
  events.reserve(stored.size());
  for (const v1::GameEvent& e : stored) {
    ASSIGN_OR_RETURN(v1::ArbitrationEvent event, FromStoreEvent(e));
    events.push_back(std::move(event));
  }
  record::RecordToSign r;
  // The record a platform and the players read: 12.2 keeps the search's advice for the arbiter.
  r.pgn = ExportPgn(game, PgnExportOptions{});
  if (!r.pgn.empty() && r.pgn.back() != '\n') r.pgn.push_back('\n');  // the block starts a line
  r.game_id = std::string(game_id);
  r.version = version;
  r.result = std::string(laws::ResultText(game.outcome().result));
  r.signed_at_ms = now_ms;
  r.log_sha256 = LogDigest(events);
  SignedGameRecord out;
  ASSIGN_OR_RETURN(out.block, record::SignBlock(r, key_));
  out.text = absl::StrCat(r.pgn, record::RenderBlock(out.block));
  return out;
}

v1::RecordSignature SignatureOf(const record::SignatureBlock& block) {
  v1::RecordSignature s;
  s.set_key_id(block.key_id);
  s.set_signed_at_ms(block.signed_at_ms);
  s.set_pgn_sha256(block.pgn_sha256);
  s.set_log_sha256(block.log_sha256);
  s.set_signature(block.signature);
  return s;
}

std::string SignatureBlockOf(const v1::ArchivedGame& archived) {
  if (!archived.has_record_signature()) return "";
  const v1::RecordSignature& s = archived.record_signature();
  return record::RenderBlock({.game_id = archived.game_id(),
                              .version = archived.version(),
                              .result = archived.result(),
                              .signed_at_ms = s.signed_at_ms(),
                              .key_id = s.key_id(),
                              .pgn_sha256 = s.pgn_sha256(),
                              .log_sha256 = s.log_sha256(),
                              .signature = s.signature()});
}

absl::StatusOr<RecordAnswer> SignedRecordOf(
    GameAuthority& authority, absl::string_view game_id, const RecordSigner* signer,
    const std::function<absl::Status(absl::string_view event)>& may_act) {
  RecordAnswer out;
  absl::StatusOr<CommandResult> now = authority.Get(game_id);
  if (!now.ok()) {
    if (base::ErrorCode(now.status()) != store::kErrGameArchived) return now.status();
    ASSIGN_OR_RETURN(std::string tombstone, authority.store()->ReadTombstone(game_id));
    v1::ArchivedGame archived;
    if (!archived.ParseFromString(tombstone)) {
      return base::Error(store::kErrCorruptLog,
                         absl::StrCat("game \"", game_id, "\": its tombstone does not parse"));
    }
    RETURN_IF_ERROR(may_act(archived.event()));
    out.signature_block = SignatureBlockOf(archived);
    if (out.signature_block.empty()) {
      return base::Error(record::kErrRecordSigningOff,
                         "the game was archived without a record signing key: its tombstone "
                         "keeps no signature");
    }
    out.archived = true;
    return out;
  }
  RETURN_IF_ERROR(may_act(now->game->created().event()));
  if (signer == nullptr) {
    return base::Error(record::kErrRecordSigningOff,
                       "this server has no record signing key (--record_signing_key)");
  }
  ASSIGN_OR_RETURN(
      SignedGameRecord signed_record,
      signer->Sign(*authority.store(), game_id, *now->game, now->version, now->now_ms));
  out.signature_block = record::RenderBlock(signed_record.block);
  out.record = std::move(signed_record.text);
  return out;
}

}  // namespace arbitration
