// The rules core: positions, moves, notation: the stable error codes of this layer, each with its
// canonical status (issue 11.4). Clients match on the code, never on the message; docs/ERRORS.md
// lists every code of every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_CHESS_ERRORS_H_
#define ARBITER_LIBS_CHESS_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace chess {

// the SAN fits more than one legal move (Appendix E)
inline constexpr base::ErrorSpec kErrAmbiguousSan{"ERR_AMBIGUOUS_SAN",
                                                  absl::StatusCode::kInvalidArgument};
// text that is no FEN; the message names the column
inline constexpr base::ErrorSpec kErrBadFen{"ERR_BAD_FEN", absl::StatusCode::kInvalidArgument};
// text that is no PGN; the message names line and column
inline constexpr base::ErrorSpec kErrBadPgn{"ERR_BAD_PGN", absl::StatusCode::kInvalidArgument};
// text that is no move in algebraic notation
inline constexpr base::ErrorSpec kErrBadSan{"ERR_BAD_SAN", absl::StatusCode::kInvalidArgument};
// a placement no legal game can have; the message lists every ERR_SETUP_* problem
inline constexpr base::ErrorSpec kErrBadSetup{"ERR_BAD_SETUP", absl::StatusCode::kInvalidArgument};
// text that is no UCI move
inline constexpr base::ErrorSpec kErrBadUci{"ERR_BAD_UCI", absl::StatusCode::kInvalidArgument};
// the game has ended (5.1, 5.2, 6.9, ...): no move after it
inline constexpr base::ErrorSpec kErrGameOver{"ERR_GAME_OVER",
                                              absl::StatusCode::kFailedPrecondition};
// the move is not legal here (Articles 3, 3.9); ErrorInfo carries the reason
inline constexpr base::ErrorSpec kErrIllegalMove{"ERR_ILLEGAL_MOVE",
                                                 absl::StatusCode::kInvalidArgument};
// a setup problem (generic) (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetup{"ERR_SETUP", absl::StatusCode::kInvalidArgument};
// castling rights without the king and rook on their squares (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupBadCastlingRights{"ERR_SETUP_BAD_CASTLING_RIGHTS",
                                                            absl::StatusCode::kInvalidArgument};
// an en passant square no last move could make (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupBadEnPassant{"ERR_SETUP_BAD_EN_PASSANT",
                                                       absl::StatusCode::kInvalidArgument};
// move counters that contradict the position (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupBadMoveCounters{"ERR_SETUP_BAD_MOVE_COUNTERS",
                                                          absl::StatusCode::kInvalidArgument};
// a check no last move could give (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupImpossibleCheck{"ERR_SETUP_IMPOSSIBLE_CHECK",
                                                          absl::StatusCode::kInvalidArgument};
// a side has no king (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupNoKing{"ERR_SETUP_NO_KING",
                                                 absl::StatusCode::kInvalidArgument};
// the side not to move is in check (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupOppositeCheck{"ERR_SETUP_OPPOSITE_CHECK",
                                                        absl::StatusCode::kInvalidArgument};
// a pawn on the first or eighth rank (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupPawnOnBackRank{"ERR_SETUP_PAWN_ON_BACK_RANK",
                                                         absl::StatusCode::kInvalidArgument};
// a side has more than one king (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupTooManyKings{"ERR_SETUP_TOO_MANY_KINGS",
                                                       absl::StatusCode::kInvalidArgument};
// a side has more than 8 pawns (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupTooManyPawns{"ERR_SETUP_TOO_MANY_PAWNS",
                                                       absl::StatusCode::kInvalidArgument};
// a side has more than 16 men (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupTooManyPieces{"ERR_SETUP_TOO_MANY_PIECES",
                                                        absl::StatusCode::kInvalidArgument};
// more pieces than promotions could give (in ERR_BAD_SETUP)
inline constexpr base::ErrorSpec kErrSetupTooManyPromotedPieces{
    "ERR_SETUP_TOO_MANY_PROMOTED_PIECES", absl::StatusCode::kInvalidArgument};

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_ERRORS_H_
