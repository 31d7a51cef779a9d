// The arbitration layer's error catalogue: each stable code with its canonical status code. Codes
// of the layers below (libs/chess: ERR_ILLEGAL_MOVE, ERR_BAD_SAN, ...; libs/clock; libs/store:
// ERR_VERSION_CONFLICT, ...) pass through unchanged. Clients match on the code, never the message.
#ifndef ARBITER_LIBS_ARBITRATION_ERRORS_H_
#define ARBITER_LIBS_ARBITRATION_ERRORS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace arbitration {

struct ErrorCode {
  absl::string_view code;
  absl::StatusCode status;
};

// Malformed: a missing or unknown field, a bad time control or FEN in a creation.
inline constexpr ErrorCode kErrBadArgument = {"ERR_BAD_ARGUMENT",
                                              absl::StatusCode::kInvalidArgument};
// The start position is already over (mate, stalemate, dead) or not a legal position.
inline constexpr ErrorCode kErrBadStartPosition = {"ERR_BAD_START_POSITION",
                                                   absl::StatusCode::kInvalidArgument};
// The game has not started (6.5) / has started already.
inline constexpr ErrorCode kErrGameNotStarted = {"ERR_GAME_NOT_STARTED",
                                                 absl::StatusCode::kFailedPrecondition};
inline constexpr ErrorCode kErrGameAlreadyStarted = {"ERR_GAME_ALREADY_STARTED",
                                                     absl::StatusCode::kFailedPrecondition};
// The game has ended: no move, offer or claim after it (5.1, 5.2, 6.9, ...).
inline constexpr ErrorCode kErrGameOver = {"ERR_GAME_OVER", absl::StatusCode::kFailedPrecondition};
// The game has not ended: nothing to confirm (8.7).
inline constexpr ErrorCode kErrGameNotOver = {"ERR_GAME_NOT_OVER",
                                              absl::StatusCode::kFailedPrecondition};
// A claim awaits the arbiter (10.2, D1): the clocks are stopped and play waits.
inline constexpr ErrorCode kErrAwaitingRuling = {"ERR_AWAITING_RULING",
                                                 absl::StatusCode::kFailedPrecondition};
// Not this player's move (moves; 9.2, 9.3, 10.2 claims are the player's on move).
inline constexpr ErrorCode kErrNotYourTurn = {"ERR_NOT_YOUR_TURN",
                                              absl::StatusCode::kFailedPrecondition};
// 6.6: the player is already present.
inline constexpr ErrorCode kErrAlreadyPresent = {"ERR_ALREADY_PRESENT",
                                                 absl::StatusCode::kFailedPrecondition};
// 9.1: no offer of the opponent's to answer / an offer is already pending.
inline constexpr ErrorCode kErrNoDrawOffer = {"ERR_NO_DRAW_OFFER",
                                              absl::StatusCode::kFailedPrecondition};
inline constexpr ErrorCode kErrDrawOfferPending = {"ERR_DRAW_OFFER_PENDING",
                                                   absl::StatusCode::kFailedPrecondition};
// The regulations forbid offers before a move number.
inline constexpr ErrorCode kErrDrawOfferTooEarly = {"ERR_DRAW_OFFER_TOO_EARLY",
                                                    absl::StatusCode::kFailedPrecondition};
// 12.5: the player has made as many offers as the regulations allow.
inline constexpr ErrorCode kErrTooManyDrawOffers = {"ERR_TOO_MANY_DRAW_OFFERS",
                                                    absl::StatusCode::kFailedPrecondition};
// A claim whose conditions do not hold (10.2: under two minutes, last period, flag up, not blitz;
// a time claim where flags count when observed).
inline constexpr ErrorCode kErrClaimNotAllowed = {"ERR_CLAIM_NOT_ALLOWED",
                                                  absl::StatusCode::kFailedPrecondition};
// No claim awaits a ruling / the ruling does not fit the claim (postpone under D1).
inline constexpr ErrorCode kErrNoPendingClaim = {"ERR_NO_PENDING_CLAIM",
                                                 absl::StatusCode::kFailedPrecondition};
inline constexpr ErrorCode kErrBadRuling = {"ERR_BAD_RULING", absl::StatusCode::kInvalidArgument};
// 8.7: the player has confirmed already; after both confirmed only an arbiter changes a result.
inline constexpr ErrorCode kErrAlreadyConfirmed = {"ERR_ALREADY_CONFIRMED",
                                                   absl::StatusCode::kFailedPrecondition};
// A recorded event that does not apply: a damaged log.
inline constexpr ErrorCode kErrCorruptLog = {"ERR_CORRUPT_LOG", absl::StatusCode::kInternal};

// A status carrying `code` and its canonical status.
absl::Status Error(const ErrorCode& code, absl::string_view message);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_ERRORS_H_
