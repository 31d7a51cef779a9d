// The service's side of Appendix A's secret: it seals the move (libs/seal) before the rulings see
// the command, and opens it for the commands that may open the envelope (A7, A9), so that the
// rulings stay pure and never hold a sealed move in clear before it is opened.
//
//   SealedMoves sealer(seal::MasterKey::FromFile(path));   // or std::nullopt: no key
//   ASSIGN_OR_RETURN(command.seal, sealer.Seal(game_id, game, "Nf3"));
//   ASSIGN_OR_RETURN(command.opened_move, sealer.Open(game_id, game));
//
// Without a key: FAILED_PRECONDITION ERR_SEAL_KEY_MISSING. A box that does not open with this
// key (another master key, a damaged log): INTERNAL ERR_SEAL_UNREADABLE.
#ifndef ARBITER_LIBS_ARBITRATION_SEALED_MOVE_H_
#define ARBITER_LIBS_ARBITRATION_SEALED_MOVE_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/arbitration/game_state.h"
#include "libs/seal/seal.h"

namespace arbitration {

// The box's plaintext: the move's text padded to one length, so that the box's size tells
// nothing of the move (every box of every move is kSealedPlaintextBytes + nonce + tag long): a
// format byte, the text's length, the text, zeros. Envelopes sealed before the padding hold the
// bare text (1 to kMaxSealedMoveBytes bytes, never kSealedPlaintextBytes) and open as they are.
inline constexpr std::size_t kMaxSealedMoveBytes = 32;
inline constexpr std::size_t kSealedPlaintextBytes = kMaxSealedMoveBytes + 2;
std::string PadSealedMove(absl::string_view move_text);
// The move's text of a box's plaintext, padded or bare; DATA_LOSS for a padded one that is not
// well formed.
absl::StatusOr<std::string> UnpadSealedMove(absl::string_view plaintext);

class SealedMoves {
 public:
  explicit SealedMoves(std::optional<seal::MasterKey> master) : master_(std::move(master)) {}

  bool configured() const { return master_.has_value(); }

  // The sealed box of `move_text` for game `game_id` at `game`'s version (Command::seal): the
  // game's data key unwrapped from its log, or a new one wrapped for its first seal.
  absl::StatusOr<v1::MoveSealed> Seal(absl::string_view game_id, const GameState& game,
                                      absl::string_view move_text) const;
  // The sealed move waiting in `game` in clear; nullopt when none waits.
  absl::StatusOr<std::optional<std::string>> Open(absl::string_view game_id,
                                                  const GameState& game) const;

 private:
  absl::StatusOr<std::string> DataKey(absl::string_view game_id, const GameState& game) const;

  std::optional<seal::MasterKey> master_;
};

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_SEALED_MOVE_H_
