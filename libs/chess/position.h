// A legal chess position (Articles 2-3), valid by construction: the only way in from outside is
// Position::FromSetup, which checks the setup and reports every problem with a stable code.
//
//   absl::StatusOr<Position> pos = Position::FromSetup(setup);
//   absl::Status st = pos->Play(Move(kE2, kE4));   // checked: the precise reason if illegal
//   pos->PlayUnchecked(move);                      // fast path for search; `move` must be legal
//
// The key() is the identity of 9.2: side to move, pieces on squares, castling rights, and the en
// passant square only when an en passant capture is actually legal.
#ifndef ARBITER_LIBS_CHESS_POSITION_H_
#define ARBITER_LIBS_CHESS_POSITION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "libs/base/error.h"
#include "libs/chess/bitboard.h"
#include "libs/chess/setup.h"
#include "libs/chess/types.h"

namespace chess {

// What is wrong with a setup. The names of the codes (SetupProblemCode) are stable API.
enum class SetupProblemKind {
  kNoKing,                 // a side has no king
  kTooManyKings,           // a side has more than one king
  kPawnOnBackRank,         // a pawn on the first or last rank
  kTooManyPieces,          // more than 16 pieces of one colour
  kTooManyPawns,           // more than 8 pawns of one colour
  kTooManyPromotedPieces,  // more pieces beyond the initial set than missing pawns could give
  kOppositeCheck,          // the side not to move is in check
  kImpossibleCheck,        // a check no legal last move could have given
  kBadCastlingRights,      // a castling right without the king and rook on their initial squares
  kBadEnPassant,           // an en passant square that no double pawn step could have produced
  kBadMoveCounters,        // negative half-move clock or move number below 1
};

struct SetupProblem {
  SetupProblemKind kind;
  std::string message;
};

// "ERR_SETUP_NO_KING", ...
absl::string_view SetupProblemCode(SetupProblemKind kind);

// Why a move is not legal (Article 3). The names (IllegalMoveReasonName) are stable API.
enum class IllegalMoveReason {
  kNone = 0,
  kNoPiece,               // no piece on the from square
  kNotYourPiece,          // the piece belongs to the opponent (1.1: players move alternately)
  kNotHowThePieceMoves,   // the geometry of the move is not that of the piece (3.2-3.8)
  kBlocked,               // a piece stands in the way (3.5)
  kOwnPieceOnTarget,      // the target square holds a piece of the same colour (3.1)
  kNothingToCapture,      // a pawn's diagonal move onto an empty square, not en passant (3.7c, d)
  kPromotionRequired,     // a pawn reaching the last rank must be exchanged (3.7e)
  kPromotionNotAllowed,   // a promotion piece given for a move that is not a promotion
  kLeavesKingInCheck,     // 3.9: the move would leave or put the own king in check
  kCastlingRightLost,     // 3.8a ii: the king or that rook has moved
  kCastlingBlocked,       // 3.8b: a piece stands between king and rook
  kCastlingOutOfCheck,    // 3.8b: the king is in check
  kCastlingThroughCheck,  // 3.8b: the king passes over an attacked square
  kCastlingIntoCheck,     // 3.8b / 3.9: the king's destination is attacked
  kNoLegalMoves,          // the game is over: checkmate or stalemate (5.1a, 5.2a)
};

// "NO_PIECE", "LEAVES_KING_IN_CHECK", ...
absl::string_view IllegalMoveReasonName(IllegalMoveReason reason);
// A sentence citing the article.
absl::string_view IllegalMoveReasonText(IllegalMoveReason reason);

// The payload under which an ERR_ILLEGAL_MOVE status carries its IllegalMoveReasonName.
inline constexpr absl::string_view kIllegalMoveReasonPayload = base::kIllegalMoveReasonPayload;
// The reason carried by a status from Position::Play, or kNone.
IllegalMoveReason IllegalReasonOf(const absl::Status& status);

struct MoveList;

class Position {
 public:
  // Every problem of `setup`, empty when it is a legal position.
  static std::vector<SetupProblem> Validate(const Setup& setup);
  // INVALID_ARGUMENT with code ERR_BAD_SETUP (the message lists every problem's code) unless valid.
  static absl::StatusOr<Position> FromSetup(const Setup& setup);
  static Position Initial();

  Setup ToSetup() const;

  Color side_to_move() const { return side_; }
  Piece PieceOn(Square s) const { return board_[s]; }
  Bitboard occupied() const { return by_type_[0]; }
  Bitboard pieces(Color c) const { return by_color_[Index(c)]; }
  Bitboard pieces(PieceType t) const { return by_type_[Index(t)]; }
  Bitboard pieces(Color c, PieceType t) const { return by_color_[Index(c)] & by_type_[Index(t)]; }
  Square KingSquare(Color c) const { return Lsb(pieces(c, PieceType::kKing)); }
  CastlingRights castling_rights() const { return castling_; }
  // The en passant target square, set only when an en passant capture is legal (9.2).
  Square ep_square() const { return ep_square_; }
  int halfmove_clock() const { return halfmove_clock_; }
  int fullmove_number() const { return fullmove_number_; }
  // The identity of the position for repetition (9.2), Zobrist-hashed.
  std::uint64_t key() const { return key_; }

  // Pieces of colour `by` that attack `s` given `occ` as the occupancy.
  Bitboard AttackersTo(Square s, Bitboard occ) const;
  bool IsAttackedBy(Square s, Color by) const {
    return (AttackersTo(s, occupied()) & pieces(by)) != 0;
  }
  Bitboard Checkers() const;
  bool InCheck() const { return Checkers() != 0; }

  std::vector<Move> LegalMoves() const;
  bool IsLegal(Move m) const;
  bool HasLegalMoves() const;
  bool IsCheckmate() const { return InCheck() && !HasLegalMoves(); }
  bool IsStalemate() const { return !InCheck() && !HasLegalMoves(); }
  // Dead by material alone (5.2b, 9.6) — never a false positive: K v K; K and one minor piece v K;
  // any number of bishops all on squares of one colour (both sides). Anything else is not claimed
  // dead here (deeper cases belong to libs/analysis).
  bool IsInsufficientMaterial() const;

  // The move from `from` to `to` as this position reads it: a king's two-square step is castling,
  // a pawn's diagonal step onto the en passant square is en passant. `promotion` kNone for none.
  Move MakeMove(Square from, Square to, PieceType promotion = PieceType::kNone) const;

  bool IsCapture(Move m) const {
    return m.kind() == Move::kEnPassant || (m.kind() != Move::kCastling && !IsNone(board_[m.to()]));
  }
  // A capture or a pawn move: resets the 50-move count (9.3).
  bool IsZeroing(Move m) const {
    return IsCapture(m) || TypeOf(board_[m.from()]) == PieceType::kPawn;
  }

  // kNone when legal; otherwise the first reason that applies.
  IllegalMoveReason Diagnose(Move m) const;
  // Checked: plays `m` if legal, else INVALID_ARGUMENT ERR_ILLEGAL_MOVE with the reason (payload
  // kIllegalMoveReasonPayload) and the position unchanged.
  absl::Status Play(Move m);
  // Unchecked: `m` must be legal here.
  void PlayUnchecked(Move m);

  friend bool operator==(const Position& a, const Position& b);

 private:
  Position() = default;
  void PutPiece(Piece p, Square s);
  void RemovePiece(Square s);
  void MovePiece(Square from, Square to);
  bool EnPassantCaptureLegal(Square ep) const;
  void SetEnPassantIfLegal(Square ep);
  std::uint64_t ComputeKey() const;

  Bitboard by_type_[kPieceTypeCount] = {};  // [0] = all pieces
  Bitboard by_color_[2] = {};
  Piece board_[64] = {};
  std::uint64_t key_ = 0;
  Color side_ = Color::kWhite;
  CastlingRights castling_ = kNoCastling;
  Square ep_square_ = kNoSquare;
  std::uint16_t halfmove_clock_ = 0;
  std::uint16_t fullmove_number_ = 1;
};

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_POSITION_H_
