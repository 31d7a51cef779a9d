#include "libs/arbitration/sealed_move.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/errors.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"

namespace arbitration {
namespace {

absl::Status Missing() {
  return Error(kErrSealKeyMissing,
               "the server has no seal key (--seal_key_file): moves cannot be sealed or opened "
               "(Appendix A)");
}

absl::Status Unreadable(absl::string_view what) {
  // Never the box or the key: only that it does not open.
  return Error(kErrSealUnreadable, absl::StrCat("the sealed move does not open: ", what));
}

constexpr char kPaddedFormat = '\x01';

}  // namespace

std::string PadSealedMove(absl::string_view move_text) {
  std::string out(kSealedPlaintextBytes, '\0');
  out[0] = kPaddedFormat;
  out[1] = static_cast<char>(move_text.size());
  move_text.copy(out.data() + 2, std::min(move_text.size(), kMaxSealedMoveBytes));
  return out;
}

absl::StatusOr<std::string> UnpadSealedMove(absl::string_view plaintext) {
  if (plaintext.size() != kSealedPlaintextBytes) return std::string(plaintext);  // bare (old)
  const std::size_t length = static_cast<unsigned char>(plaintext[1]);
  if (plaintext[0] != kPaddedFormat || length == 0 || length > kMaxSealedMoveBytes) {
    return absl::DataLossError("a padded sealed move that is not well formed");
  }
  return std::string(plaintext.substr(2, length));
}

absl::StatusOr<std::string> SealedMoves::DataKey(absl::string_view game_id,
                                                 const GameState& game) const {
  const GameState::Adjournment& a = game.adjournment();
  if (!a.key_id.empty() && a.key_id != master_->id()) {
    return Unreadable(absl::StrCat("the game's key was wrapped by seal key ", a.key_id,
                                   "; this server has ", master_->id()));
  }
  absl::StatusOr<std::string> key = master_->Unwrap(a.wrapped_key, game_id);
  if (!key.ok()) return Unreadable("the game's data key does not unwrap");
  return key;
}

absl::StatusOr<v1::MoveSealed> SealedMoves::Seal(absl::string_view game_id, const GameState& game,
                                                 absl::string_view move_text) const {
  if (!master_) return Missing();
  if (move_text.empty() || move_text.size() > kMaxSealedMoveBytes) {
    return Error(kErrBadArgument, "seal_move: the move as written, 1 to 32 bytes");
  }
  v1::MoveSealed out;
  std::string data_key;
  if (game.adjournment().wrapped_key.empty()) {
    // The game's first seal: a new data key, kept in the log only wrapped.
    data_key = seal::NewDataKey();
    absl::StatusOr<std::string> wrapped = master_->Wrap(data_key, game_id);
    if (!wrapped.ok()) return Unreadable(wrapped.status().message());
    out.set_wrapped_key(*std::move(wrapped));
    out.set_key_id(master_->id());
  } else {
    ASSIGN_OR_RETURN(data_key, DataKey(game_id, game));
  }
  absl::StatusOr<std::string> box =
      seal::Encrypt(data_key, PadSealedMove(move_text), SealContext(game_id, game.version()));
  if (!box.ok()) return Unreadable(box.status().message());
  out.set_box(*std::move(box));
  out.set_bound_version(game.version());
  return out;
}

absl::StatusOr<std::optional<std::string>> SealedMoves::Open(absl::string_view game_id,
                                                             const GameState& game) const {
  const std::optional<v1::MoveSealed>& sealed = game.adjournment().sealed;
  if (!sealed) return std::optional<std::string>();
  if (!master_) return Missing();
  ASSIGN_OR_RETURN(std::string data_key, DataKey(game_id, game));
  absl::StatusOr<std::string> text =
      seal::Decrypt(data_key, sealed->box(), SealContext(game_id, sealed->bound_version()));
  if (!text.ok()) return Unreadable("the box does not open (damaged, or bound elsewhere)");
  absl::StatusOr<std::string> move = UnpadSealedMove(*text);
  if (!move.ok()) return Unreadable(move.status().message());
  return std::optional<std::string>(*std::move(move));
}

}  // namespace arbitration
