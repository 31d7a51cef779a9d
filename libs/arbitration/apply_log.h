// What every part of GameState::Apply shares (game_state.cc and the *_state.cc files of each
// family of events): the error of a log that does not apply, and an event's side.
#ifndef ARBITER_LIBS_ARBITRATION_APPLY_LOG_H_
#define ARBITER_LIBS_ARBITRATION_APPLY_LOG_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "libs/arbitration/errors.h"
#include "libs/base/error.h"
#include "libs/chess/types.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {

// DATA_LOSS ERR_CORRUPT_LOG: an event the state cannot take.
inline absl::Status CorruptLog(absl::string_view what) {
  return Error(kErrCorruptLog, absl::StrCat("the game's log does not apply: ", what));
}

inline std::optional<chess::Color> SideOf(arbiter::v1::Color color) { return laws::ColorOf(color); }

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_APPLY_LOG_H_
