#include "libs/chess/types.h"

namespace chess {
namespace {
constexpr char kSquareNames[] =
    "a1b1c1d1e1f1g1h1a2b2c2d2e2f2g2h2a3b3c3d3e3f3g3h3a4b4c4d4e4f4g4h4"
    "a5b5c5d5e5f5g5h5a6b6c6d6e6f6g6h6a7b7c7d7e7f7g7h7a8b8c8d8e8f8g8h8";
// The piece types' letters, indexed by PieceType (German: Bauer, Springer, Läufer, Turm, Dame,
// König).
constexpr absl::string_view kEnglishLetters = " PNBRQK";
constexpr absl::string_view kGermanLetters = " BSLTDK";
// FEN's letters of the piece types (Black's; White's in upper case), indexed by PieceType.
constexpr absl::string_view kFenLetters = " pnbrqk";
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
  return (letters == Letters::kEnglish ? kEnglishLetters : kGermanLetters)[Index(t)];
}

PieceType PieceTypeFromLetter(char c) {
  // From the knight on: pawns have no letter in SAN, so the German B (Bauer) is the bishop.
  for (absl::string_view letters : {kEnglishLetters, kGermanLetters}) {
    const size_t type = letters.find(c, Index(PieceType::kKnight));
    if (type != absl::string_view::npos) return static_cast<PieceType>(type);
  }
  return PieceType::kNone;
}

char FenChar(Piece p) {
  if (IsNone(p)) return ' ';
  char c = kFenLetters[Index(TypeOf(p))];
  return ColorOf(p) == Color::kWhite ? static_cast<char>(c - 'a' + 'A') : c;
}

Piece PieceFromFenChar(char c) {
  Color color = (c >= 'A' && c <= 'Z') ? Color::kWhite : Color::kBlack;
  char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  const size_t type = kFenLetters.find(lower, Index(PieceType::kPawn));
  if (type == absl::string_view::npos) return Piece::kNone;
  return MakePiece(color, static_cast<PieceType>(type));
}

}  // namespace chess
