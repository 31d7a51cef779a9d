#include "libs/chess/fen.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "libs/base/error.h"
#include "libs/chess/errors.h"

namespace chess {
namespace {

absl::Status FenError(size_t column, absl::string_view what) {
  return base::Error(chess::kErrBadFen, absl::StrCat("FEN column ", column + 1, ": ", what));
}

// Parses a non-negative decimal counter of at most 5 digits starting at `pos`.
bool ParseCounter(absl::string_view text, int* value) {
  if (text.empty() || text.size() > 5) return false;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *value = v;
  return true;
}

}  // namespace

absl::StatusOr<Setup> ParseFenSetup(absl::string_view fen) {
  Setup setup;
  size_t i = 0;
  if (fen.empty()) return FenError(0, "empty FEN");
  if (fen.size() > 128) return FenError(128, "FEN too long");
  // The space after the field just read (`after`) and the start of the field `next`.
  auto next_field = [&](absl::string_view after, absl::string_view next) -> absl::Status {
    if (i >= fen.size())
      return FenError(i, absl::StrCat("missing ", next, " field (after ", after, ")"));
    if (fen[i] != ' ') return FenError(i, absl::StrCat("expected a space after ", after));
    ++i;
    if (i >= fen.size()) return FenError(i, absl::StrCat("missing ", next, " field"));
    return absl::OkStatus();
  };
  // Field 1: placement, rank 8 first.
  int rank = 7, file = 0;
  for (;; ++i) {
    if (i >= fen.size()) return FenError(i, "the placement ends early");
    char c = fen[i];
    if (c == ' ') break;
    if (c == '/') {
      if (file != 8)
        return FenError(i, absl::StrCat("rank ", rank + 1, " has ", file, " squares, not 8"));
      if (rank == 0) return FenError(i, "more than 8 ranks");
      --rank;
      file = 0;
    } else if (c >= '1' && c <= '8') {
      if (i > 0 && fen[i - 1] >= '1' && fen[i - 1] <= '8')
        return FenError(i, "two digits in a row");
      file += c - '0';
      if (file > 8) return FenError(i, absl::StrCat("rank ", rank + 1, " has more than 8 squares"));
    } else {
      Piece p = PieceFromFenChar(c);
      if (IsNone(p))
        return FenError(i, absl::StrCat("'", absl::string_view(&c, 1), "' is not a piece letter"));
      if (file >= 8)
        return FenError(i, absl::StrCat("rank ", rank + 1, " has more than 8 squares"));
      setup.board[MakeSquare(file, rank)] = p;
      ++file;
    }
  }
  if (rank != 0 || file != 8)
    return FenError(i, "the placement must describe 8 ranks of 8 squares");
  ++i;
  // Field 2: side to move.
  if (i >= fen.size()) return FenError(i, "missing side to move");
  if (fen[i] == 'w') {
    setup.turn = Color::kWhite;
  } else if (fen[i] == 'b') {
    setup.turn = Color::kBlack;
  } else {
    return FenError(i, "side to move must be 'w' or 'b'");
  }
  ++i;
  // Field 3: castling.
  if (absl::Status st = next_field("the side to move", "castling"); !st.ok()) return st;
  if (fen[i] == '-') {
    ++i;
  } else {
    const char order[] = "KQkq";
    int next = 0;
    size_t start = i;
    while (i < fen.size() && fen[i] != ' ') {
      int k = next;
      while (k < 4 && order[k] != fen[i]) ++k;
      if (k == 4) return FenError(i, "castling field must be '-' or a subsequence of 'KQkq'");
      setup.castling = setup.castling | static_cast<CastlingRights>(1 << k);
      next = k + 1;
      ++i;
    }
    if (i == start) return FenError(i, "empty castling field");
  }
  // Field 4: en passant square.
  if (absl::Status st = next_field("the castling field", "en passant"); !st.ok()) return st;
  if (fen[i] == '-') {
    ++i;
  } else {
    auto sq = i + 1 < fen.size() ? ParseSquare(fen.substr(i, 2)) : std::nullopt;
    if (!sq.has_value()) return FenError(i, "en passant field must be '-' or a square");
    if (RankOf(*sq) != 2 && RankOf(*sq) != 5)
      return FenError(i, "en passant square must be on rank 3 or 6");
    setup.ep_square = *sq;
    i += 2;
  }
  if (i == fen.size()) return setup;  // four fields: counters default to 0 and 1
  if (fen[i] != ' ') return FenError(i, "expected a space after the en passant field");
  ++i;
  // Fields 5 and 6: half-move clock and move number.
  size_t space = fen.find(' ', i);
  if (space == absl::string_view::npos)
    return FenError(i, "missing move number after the half-move clock");
  if (!ParseCounter(fen.substr(i, space - i), &setup.halfmove_clock))
    return FenError(i, "half-move clock must be a number 0..99999");
  i = space + 1;
  if (!ParseCounter(fen.substr(i), &setup.fullmove_number) || setup.fullmove_number < 1) {
    return FenError(i, "move number must be a number 1..99999");
  }
  return setup;
}

absl::StatusOr<Position> ParseFen(absl::string_view fen) {
  absl::StatusOr<Setup> setup = ParseFenSetup(fen);
  if (!setup.ok()) return setup.status();
  return Position::FromSetup(*setup);
}

absl::StatusOr<Position> ParseFenOrStartpos(absl::string_view text) {
  if (text == "startpos") return Position::Initial();
  return ParseFen(text);
}

std::string ToFen(const Setup& s) {
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      Piece p = s.board[MakeSquare(file, rank)];
      if (IsNone(p)) {
        ++empty;
        continue;
      }
      if (empty) out += static_cast<char>('0' + empty);
      empty = 0;
      out += FenChar(p);
    }
    if (empty) out += static_cast<char>('0' + empty);
    if (rank) out += '/';
  }
  out += s.turn == Color::kWhite ? " w " : " b ";
  if (s.castling == kNoCastling) {
    out += '-';
  } else {
    if (s.castling & kWhiteKingSide) out += 'K';
    if (s.castling & kWhiteQueenSide) out += 'Q';
    if (s.castling & kBlackKingSide) out += 'k';
    if (s.castling & kBlackQueenSide) out += 'q';
  }
  out += ' ';
  out += s.ep_square == kNoSquare ? std::string("-") : std::string(SquareName(s.ep_square));
  absl::StrAppend(&out, " ", s.halfmove_clock, " ", s.fullmove_number);
  return out;
}

absl::StatusOr<Position> ParseFenTolerant(absl::string_view text) {
  std::vector<absl::string_view> fields = absl::StrSplit(text, ' ', absl::SkipWhitespace());
  if (fields.size() == 2 || fields.size() == 3) {
    constexpr absl::string_view kDefaults[] = {"-", "-"};  // castling, en passant
    std::string full = absl::StrJoin(fields, " ");
    for (size_t f = fields.size(); f < 4; ++f) absl::StrAppend(&full, " ", kDefaults[f - 2]);
    return ParseFen(full);
  }
  return ParseFenOrStartpos(text);
}

std::string ToFen(const Position& pos) { return ToFen(pos.ToSetup()); }

}  // namespace chess
