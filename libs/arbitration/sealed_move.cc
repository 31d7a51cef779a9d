#include "libs/arbitration/sealed_move.h"

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

}  // namespace

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
  if (move_text.empty() || move_text.size() > 32) {
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
      seal::Encrypt(data_key, move_text, SealContext(game_id, game.version()));
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
  return std::optional<std::string>(*std::move(text));
}

}  // namespace arbitration
