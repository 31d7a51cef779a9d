// An electronic board's feed: what each reported piece placement shows, given the game's position
// and the board's previous report. DGT LiveChess reports the whole placement on every change,
// lifted pieces missing; the board cannot see hands, so every change is the player to move's.
//
//   ASSIGN_OR_RETURN(Placement next,
//   ParsePlacement("rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR")); for (const Observation& o :
//   Observe(position, previous, next, /*clock_pressed=*/false)) ...
//
// Observations, in this order:
//   kResultSignal  both kings on the centre squares (DGT's convention): light d5/e4 1-0, dark
//                  d4/e5 0-1, one of each 1/2-1/2 (never a legal position: the four squares touch)
//   kTouched       a piece lifted from its square in the position (4.3: touched)
//   kReleased      a piece put back on its own square (still touched; 4.7: not a move)
//   kMove          the board is the position after a legal move (4.6, 4.7: the piece released on
//                  its new square; a capture once the captured piece is off and the capturing one
//                  released, either order; castling once the rook is released beside the king;
//                  promotion once the new piece stands on the square)
//   kIllegalStood  the clock was pressed on a board no legal move makes (7.4a)
//   kPromotionPiece  (asked for: 2023 4.4.4) a new piece of the player to move (one more of its
//                  kind than the position has) put on a square a legal promotion of his reaches:
//                  it has touched the promotion square, so the choice is final. The board sees a
//                  piece standing on the square, not a hand brushing it: a piece touched to the
//                  square and lifted again between two reports is not seen.
//                  Reported before the move it may complete in the same report.
#ifndef ARBITER_LIBS_ARBITRATION_BOARD_FEED_H_
#define ARBITER_LIBS_ARBITRATION_BOARD_FEED_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/chess/position.h"
#include "libs/laws/outcome.h"

namespace arbitration {

// A board's 64 squares (a1 = 0 ... h8 = 63).
struct Placement {
  std::array<chess::Piece, 64> squares{};
  friend bool operator==(const Placement& a, const Placement& b) { return a.squares == b.squares; }
  friend bool operator!=(const Placement& a, const Placement& b) { return !(a == b); }
};

// FEN's first field ("rnbqkbnr/pppppppp/8/..."); a whole FEN is accepted and its first field read.
// INVALID_ARGUMENT ERR_BAD_ARGUMENT unless 8 ranks of 8 squares with FEN letters and digits.
absl::StatusOr<Placement> ParsePlacement(absl::string_view text);
std::string PlacementText(const Placement& p);
Placement PlacementOf(const chess::Position& position);

struct Observation {
  enum class Kind { kResultSignal, kTouched, kReleased, kMove, kIllegalStood, kPromotionPiece };
  Kind kind = Kind::kTouched;
  chess::Square square = chess::Square(0);       // kTouched, kReleased, kPromotionPiece
  chess::Piece piece = chess::Piece::kNone;      // kTouched, kReleased, kPromotionPiece
  chess::Move move;                              // kMove
  laws::Result result = laws::Result::kOngoing;  // kResultSignal
};

// What `next` shows after `previous`, the game standing at `position`; kPromotionPiece only when
// `promotion_pieces` (the edition makes the choice final on touch, 2023 4.4.4).
std::vector<Observation> Observe(const chess::Position& position, const Placement& previous,
                                 const Placement& next, bool clock_pressed,
                                 bool promotion_pieces = false);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_BOARD_FEED_H_
