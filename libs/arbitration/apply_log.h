// What every part of GameState::Apply shares (game_state.cc and the *_state.cc files of each
// family of events): the error of a log that does not apply, and an event's side.
#ifndef ARBITER_LIBS_ARBITRATION_APPLY_LOG_H_
#define ARBITER_LIBS_ARBITRATION_APPLY_LOG_H_

#include <array>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "libs/arbitration/errors.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/types.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {

// DATA_LOSS ERR_CORRUPT_LOG: an event the state cannot take.
inline absl::Status CorruptLog(absl::string_view what) {
  return Error(kErrCorruptLog, absl::StrCat("the game's log does not apply: ", what));
}

inline std::optional<chess::Color> SideOf(arbiter::v1::Color color) { return laws::ColorOf(color); }

// The side `what` names; DATA_LOSS ERR_CORRUPT_LOG when it names none ("<what> without a colour").
inline absl::StatusOr<chess::Color> SideOr(arbiter::v1::Color color, absl::string_view what) {
  std::optional<chess::Color> side = laws::ColorOf(color);
  if (!side) return CorruptLog(absl::StrCat(what, " without a colour"));
  return *side;
}

// The sides an event records as absent (6.7, A10), by index (chess::Index).
template <typename Colors>
absl::StatusOr<std::array<bool, 2>> AbsentSides(const Colors& absent) {
  std::array<bool, 2> out{};
  for (int c : absent) {
    ASSIGN_OR_RETURN(chess::Color side,
                     SideOr(static_cast<arbiter::v1::Color>(c), "an absent side"));
    out[chess::Index(side)] = true;
  }
  return out;
}

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_APPLY_LOG_H_
