// The arbitration domain (a game): the stable error codes of this layer, each with its canonical
// status (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every
// code of every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_ARBITRATION_ERRORS_H_
#define ARBITER_LIBS_ARBITRATION_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/chess/errors.h"
#include "libs/clock/errors.h"
#include "libs/store/errors.h"

namespace arbitration {

using base::kErrBadArgument;           // this layer answers it too
using chess::kErrGameOver;             // this layer answers it too
using chessclock::kErrAlreadyPresent;  // this layer answers it too
using chessclock::kErrNotYourTurn;     // this layer answers it too
using store::kErrCorruptLog;           // this layer answers it too

// the player confirmed the result already (8.7)
inline constexpr base::ErrorSpec kErrAlreadyConfirmed{"ERR_ALREADY_CONFIRMED",
                                                      absl::StatusCode::kFailedPrecondition};
// a claim awaits the arbiter (10.2, D1): the clocks are stopped
inline constexpr base::ErrorSpec kErrAwaitingRuling{"ERR_AWAITING_RULING",
                                                    absl::StatusCode::kFailedPrecondition};
// a ruling that does not fit the claim (postpone under D1)
inline constexpr base::ErrorSpec kErrBadRuling{"ERR_BAD_RULING",
                                               absl::StatusCode::kInvalidArgument};
// the start position is already over (5.1, 5.2)
inline constexpr base::ErrorSpec kErrBadStartPosition{"ERR_BAD_START_POSITION",
                                                      absl::StatusCode::kInvalidArgument};
// the claim's conditions do not hold (10.2: under two minutes, last period, flag up, not blitz; B7)
inline constexpr base::ErrorSpec kErrClaimNotAllowed{"ERR_CLAIM_NOT_ALLOWED",
                                                     absl::StatusCode::kFailedPrecondition};
// an offer is pending already (9.1)
inline constexpr base::ErrorSpec kErrDrawOfferPending{"ERR_DRAW_OFFER_PENDING",
                                                      absl::StatusCode::kFailedPrecondition};
// the regulations allow no offers before this move
inline constexpr base::ErrorSpec kErrDrawOfferTooEarly{"ERR_DRAW_OFFER_TOO_EARLY",
                                                       absl::StatusCode::kFailedPrecondition};
// the game has started already
inline constexpr base::ErrorSpec kErrGameAlreadyStarted{"ERR_GAME_ALREADY_STARTED",
                                                        absl::StatusCode::kFailedPrecondition};
// the game has not ended: nothing to confirm (8.7)
inline constexpr base::ErrorSpec kErrGameNotOver{"ERR_GAME_NOT_OVER",
                                                 absl::StatusCode::kFailedPrecondition};
// the game has not started (6.5)
inline constexpr base::ErrorSpec kErrGameNotStarted{"ERR_GAME_NOT_STARTED",
                                                    absl::StatusCode::kFailedPrecondition};
// no draw offer of the opponent's is pending (9.1)
inline constexpr base::ErrorSpec kErrNoDrawOffer{"ERR_NO_DRAW_OFFER",
                                                 absl::StatusCode::kFailedPrecondition};
// no claim awaits a ruling
inline constexpr base::ErrorSpec kErrNoPendingClaim{"ERR_NO_PENDING_CLAIM",
                                                    absl::StatusCode::kFailedPrecondition};
// the player made as many offers as the regulations allow (12.5)
inline constexpr base::ErrorSpec kErrTooManyDrawOffers{"ERR_TOO_MANY_DRAW_OFFERS",
                                                       absl::StatusCode::kFailedPrecondition};

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_ERRORS_H_
