// The vocabulary of the board (Articles 2 and 3): colours, piece types, squares, files, ranks,
// castling rights and the compact Move value. Everything here is a small value type with constexpr
// helpers; nothing allocates.
#ifndef ARBITER_LIBS_CHESS_TYPES_H_
#define ARBITER_LIBS_CHESS_TYPES_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace chess {

// 1.1: White moves first. kWhite == 0 so a Color indexes per-side arrays.
enum class Color : std::uint8_t { kWhite = 0, kBlack = 1 };

constexpr Color operator~(Color c) { return static_cast<Color>(static_cast<int>(c) ^ 1); }
constexpr int Index(Color c) { return static_cast<int>(c); }
constexpr absl::string_view ColorName(Color c) { return c == Color::kWhite ? "white" : "black"; }

// 2.2. Numbered so that kNoPieceType == 0 and the rest index per-type arrays from 1.
enum class PieceType : std::uint8_t { kNone, kPawn, kKnight, kBishop, kRook, kQueen, kKing };
constexpr int Index(PieceType t) { return static_cast<int>(t); }
inline constexpr int kPieceTypeCount = 7;  // including kNone

// A coloured piece, or none. Layout: bit 3 = colour, bits 0-2 = type; kNoPiece == 0.
enum class Piece : std::uint8_t { kNone = 0 };
constexpr Piece MakePiece(Color c, PieceType t) {
  return static_cast<Piece>((Index(c) << 3) | Index(t));
}
constexpr PieceType TypeOf(Piece p) { return static_cast<PieceType>(static_cast<int>(p) & 7); }
constexpr Color ColorOf(Piece p) { return static_cast<Color>(static_cast<int>(p) >> 3); }
constexpr bool IsNone(Piece p) { return p == Piece::kNone; }

// Squares a1 = 0 ... h8 = 63, file-major within a rank (a1, b1, ..., h1, a2, ...).
enum Square : std::uint8_t {
  // clang-format off
  kA1, kB1, kC1, kD1, kE1, kF1, kG1, kH1,
  kA2, kB2, kC2, kD2, kE2, kF2, kG2, kH2,
  kA3, kB3, kC3, kD3, kE3, kF3, kG3, kH3,
  kA4, kB4, kC4, kD4, kE4, kF4, kG4, kH4,
  kA5, kB5, kC5, kD5, kE5, kF5, kG5, kH5,
  kA6, kB6, kC6, kD6, kE6, kF6, kG6, kH6,
  kA7, kB7, kC7, kD7, kE7, kF7, kG7, kH7,
  kA8, kB8, kC8, kD8, kE8, kF8, kG8, kH8,
  // clang-format on
  kNoSquare = 64,
};
inline constexpr int kSquareCount = 64;

constexpr Square MakeSquare(int file, int rank) { return static_cast<Square>(rank * 8 + file); }
constexpr int FileOf(Square s) { return s & 7; }
constexpr int RankOf(Square s) { return s >> 3; }
// The rank as seen from `c`'s side: a1..h1 is rank 0 for White, rank 7 for Black.
constexpr int RelativeRank(Color c, Square s) {
  return c == Color::kWhite ? RankOf(s) : 7 - RankOf(s);
}
constexpr Square Flip(Square s) { return static_cast<Square>(s ^ 56); }
constexpr bool IsValid(Square s) { return s < 64; }

// Castling rights (3.8a ii): one bit per king side / queen side per colour.
enum CastlingRights : std::uint8_t {
  kNoCastling = 0,
  kWhiteKingSide = 1,
  kWhiteQueenSide = 2,
  kBlackKingSide = 4,
  kBlackQueenSide = 8,
  kAllCastling = 15,
};
constexpr CastlingRights operator|(CastlingRights a, CastlingRights b) {
  return static_cast<CastlingRights>(static_cast<int>(a) | static_cast<int>(b));
}
constexpr CastlingRights operator&(CastlingRights a, CastlingRights b) {
  return static_cast<CastlingRights>(static_cast<int>(a) & static_cast<int>(b));
}
constexpr CastlingRights operator~(CastlingRights a) {
  return static_cast<CastlingRights>(~static_cast<int>(a) & 15);
}

// A move in 16 bits:
//   bits  0-5   from square
//   bits  6-11  to square (for castling: the king's destination, e.g. e1g1)
//   bits 12-13  promotion piece: 0 knight, 1 bishop, 2 rook, 3 queen (only with kPromotion)
//   bits 14-15  kind: 0 normal, 1 promotion, 2 en passant, 3 castling
// The null value (0) is a1a1, never a legal move.
class Move {
 public:
  enum Kind : std::uint16_t { kNormal = 0, kPromotion = 1, kEnPassant = 2, kCastling = 3 };

  constexpr Move() = default;
  constexpr Move(Square from, Square to, Kind kind = kNormal,
                 PieceType promotion = PieceType::kKnight)
      : bits_(static_cast<std::uint16_t>(
            from | (to << 6) |
            ((kind == kPromotion ? Index(promotion) - Index(PieceType::kKnight) : 0) << 12) |
            (kind << 14))) {}

  static constexpr Move FromBits(std::uint16_t bits) {
    Move m;
    m.bits_ = bits;
    return m;
  }

  constexpr Square from() const { return static_cast<Square>(bits_ & 63); }
  constexpr Square to() const { return static_cast<Square>((bits_ >> 6) & 63); }
  constexpr Kind kind() const { return static_cast<Kind>(bits_ >> 14); }
  constexpr bool is_promotion() const { return kind() == kPromotion; }
  // kNone unless this is a promotion.
  constexpr PieceType promotion() const {
    return is_promotion() ? static_cast<PieceType>(((bits_ >> 12) & 3) + Index(PieceType::kKnight))
                          : PieceType::kNone;
  }
  constexpr std::uint16_t bits() const { return bits_; }
  constexpr bool is_null() const { return bits_ == 0; }

  friend constexpr bool operator==(Move a, Move b) { return a.bits_ == b.bits_; }
  friend constexpr bool operator!=(Move a, Move b) { return a.bits_ != b.bits_; }

 private:
  std::uint16_t bits_ = 0;
};

// Square names: "e4". Returns nullopt unless exactly a file letter a-h and a rank digit 1-8.
std::optional<Square> ParseSquare(absl::string_view text);
// Writes "e4" into a 2-character result.
absl::string_view SquareName(Square s);

// Piece letters in English (K Q R B N) and German (K D T L S, Appendix E2).
enum class Letters { kEnglish, kGerman };
char PieceLetter(PieceType t, Letters letters = Letters::kEnglish);
// Accepts the English and the German capital letters (they don't collide). kNone if neither.
PieceType PieceTypeFromLetter(char c);
// FEN letters: upper case White, lower case Black.
char FenChar(Piece p);
Piece PieceFromFenChar(char c);

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_TYPES_H_
