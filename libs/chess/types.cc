#include "libs/chess/types.h"

namespace chess {
namespace {
constexpr char kSquareNames[] =
    "a1b1c1d1e1f1g1h1a2b2c2d2e2f2g2h2a3b3c3d3e3f3g3h3a4b4c4d4e4f4g4h4"
    "a5b5c5d5e5f5g5h5a6b6c6d6e6f6g6h6a7b7c7d7e7f7g7h7a8b8c8d8e8f8g8h8";
}  // namespace

std::optional<Square> ParseSquare(absl::string_view text) {
  if (text.size() != 2 || text[0] < 'a' || text[0] > 'h' || text[1] < '1' || text[1] > '8') {
    return std::nullopt;
  }
  return MakeSquare(text[0] - 'a', text[1] - '1');
}

absl::string_view SquareName(Square s) {
  if (!IsValid(s)) return "-";
  return absl::string_view(kSquareNames + 2 * s, 2);
}

char PieceLetter(PieceType t, Letters letters) {
  static constexpr char kEnglish[] = " PNBRQK";
  static constexpr char kGerman[] = " BSLTDK";  // Bauer, Springer, Läufer, Turm, Dame, König
  return (letters == Letters::kEnglish ? kEnglish : kGerman)[Index(t)];
}

PieceType PieceTypeFromLetter(char c) {
  switch (c) {
    case 'K':
      return PieceType::kKing;
    case 'Q':
    case 'D':
      return PieceType::kQueen;
    case 'R':
    case 'T':
      return PieceType::kRook;
    case 'B':
    case 'L':
      return PieceType::kBishop;
    case 'N':
    case 'S':
      return PieceType::kKnight;
    default:
      return PieceType::kNone;
  }
}

char FenChar(Piece p) {
  static constexpr char kLetters[] = " pnbrqk";
  if (IsNone(p)) return ' ';
  char c = kLetters[Index(TypeOf(p))];
  return ColorOf(p) == Color::kWhite ? static_cast<char>(c - 'a' + 'A') : c;
}

Piece PieceFromFenChar(char c) {
  Color color = (c >= 'A' && c <= 'Z') ? Color::kWhite : Color::kBlack;
  char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  PieceType t = PieceType::kNone;
  switch (lower) {
    case 'p':
      t = PieceType::kPawn;
      break;
    case 'n':
      t = PieceType::kKnight;
      break;
    case 'b':
      t = PieceType::kBishop;
      break;
    case 'r':
      t = PieceType::kRook;
      break;
    case 'q':
      t = PieceType::kQueen;
      break;
    case 'k':
      t = PieceType::kKing;
      break;
    default:
      return Piece::kNone;
  }
  return MakePiece(color, t);
}

}  // namespace chess
