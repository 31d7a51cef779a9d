#include "libs/chess/notation.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "libs/base/error.h"
#include "libs/chess/errors.h"
#include "libs/chess/movegen.h"

namespace chess {
namespace {

absl::Status IllegalMove(absl::string_view text, IllegalMoveReason reason) {
  absl::Status status =
      base::Error(chess::kErrIllegalMove,
                  absl::StrCat("illegal move ", text, ": ", IllegalMoveReasonText(reason)));
  status.SetPayload(kIllegalMoveReasonPayload, absl::Cord(IllegalMoveReasonName(reason)));
  return status;
}

bool IsFile(char c) { return c >= 'a' && c <= 'h'; }
bool IsRank(char c) { return c >= '1' && c <= '8'; }

// A promotion piece: UCI's lower-case q r b n, or a capital in English or German (not the king).
PieceType PromotionFromChar(char c) {
  if (absl::string_view("qrbn").find(c) != absl::string_view::npos) c = absl::ascii_toupper(c);
  const PieceType type = PieceTypeFromLetter(c);
  return type == PieceType::kKing ? PieceType::kNone : type;
}

bool EndsWith(const std::string& s, absl::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
}

}  // namespace

std::string ToUci(Move m) {
  std::string out = absl::StrCat(SquareName(m.from()), SquareName(m.to()));
  if (m.is_promotion()) out += static_cast<char>(PieceLetter(m.promotion()) - 'A' + 'a');
  return out;
}

absl::StatusOr<Move> ParseUci(const Position& pos, absl::string_view text) {
  if ((text.size() != 4 && text.size() != 5) || !IsFile(text[0]) || !IsRank(text[1]) ||
      !IsFile(text[2]) || !IsRank(text[3])) {
    return base::Error(chess::kErrBadUci,
                       absl::StrCat("'", text, "' is not a UCI move (e.g. e2e4, e7e8q)"));
  }
  PieceType promotion = PieceType::kNone;
  if (text.size() == 5) {
    if (text[4] != 'q' && text[4] != 'r' && text[4] != 'b' && text[4] != 'n') {
      return base::Error(chess::kErrBadUci,
                         absl::StrCat("'", text, "': promotion must be q, r, b or n"));
    }
    promotion = PromotionFromChar(text[4]);
  }
  Move m =
      pos.MakeMove(*ParseSquare(text.substr(0, 2)), *ParseSquare(text.substr(2, 2)), promotion);
  IllegalMoveReason reason = pos.Diagnose(m);
  if (reason != IllegalMoveReason::kNone) return IllegalMove(text, reason);
  return m;
}

std::string ToSan(const Position& pos, Move m, SanStyle style, Letters letters) {
  const bool appendix_e = style == SanStyle::kAppendixE;
  std::string out;
  if (m.kind() == Move::kCastling) {
    const bool king_side = m.to() > m.from();
    out = appendix_e ? (king_side ? "0-0" : "0-0-0") : (king_side ? "O-O" : "O-O-O");
  } else {
    const PieceType type = TypeOf(pos.PieceOn(m.from()));
    const bool capture = pos.IsCapture(m);
    if (type == PieceType::kPawn) {
      if (capture) {
        out += static_cast<char>('a' + FileOf(m.from()));
        out += 'x';
      }
      absl::StrAppend(&out, SquareName(m.to()));
      if (m.is_promotion()) {
        if (!appendix_e) out += '=';
        out += PieceLetter(m.promotion(), letters);
      }
      if (m.kind() == Move::kEnPassant && appendix_e) out += " e.p.";
    } else {
      out += PieceLetter(type, letters);
      // Disambiguation (PGN 8.2.3.4, Appendix E9): file if it suffices, else rank, else both.
      MoveList list;
      GenerateLegalMoves(pos, &list);
      bool ambiguous = false, same_file = false, same_rank = false;
      for (Move other : list) {
        if (other == m || other.to() != m.to() || other.from() == m.from() ||
            TypeOf(pos.PieceOn(other.from())) != type) {
          continue;
        }
        ambiguous = true;
        if (FileOf(other.from()) == FileOf(m.from())) same_file = true;
        if (RankOf(other.from()) == RankOf(m.from())) same_rank = true;
      }
      if (ambiguous) {
        if (!same_file) {
          out += static_cast<char>('a' + FileOf(m.from()));
        } else if (!same_rank) {
          out += static_cast<char>('1' + RankOf(m.from()));
        } else {
          absl::StrAppend(&out, SquareName(m.from()));
        }
      }
      if (capture) out += 'x';
      absl::StrAppend(&out, SquareName(m.to()));
    }
  }
  Position after = pos;
  after.PlayUnchecked(m);
  if (after.InCheck()) {
    if (!after.HasLegalMoves()) {
      out += appendix_e ? "++" : "#";
    } else {
      out += '+';
    }
  }
  return out;
}

absl::StatusOr<Move> ParseSan(const Position& pos, absl::string_view text) {
  auto bad = [&](absl::string_view why) {
    return base::Error(chess::kErrBadSan,
                       absl::StrCat("'", text, "' is not a move in algebraic notation: ", why));
  };
  if (text.empty()) return bad("empty");
  if (text.size() > 16) return bad("too long");

  // Normalise: drop annotations and the markers people add or leave out.
  std::string s(text);
  while (!s.empty() && (s.back() == '!' || s.back() == '?' || s.back() == '+' || s.back() == '#'))
    s.pop_back();
  for (absl::string_view suffix : {"e.p.", "e. p.", "ep"}) {
    if (EndsWith(s, suffix)) {
      s.resize(s.size() - suffix.size());
      break;
    }
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && (s.back() == '+' || s.back() == '#')) s.pop_back();
  if (s.empty()) return bad("nothing but annotations");

  MoveList legal;
  GenerateLegalMoves(pos, &legal);

  // Castling: O-O, 0-0, O-O-O, 0-0-0.
  if (s == "O-O" || s == "0-0" || s == "O-O-O" || s == "0-0-0") {
    const bool king_side = s.size() == 3;
    const Square from = pos.side_to_move() == Color::kWhite ? kE1 : kE8;
    const Move m(from, static_cast<Square>(king_side ? from + 2 : from - 2), Move::kCastling);
    if (TypeOf(pos.PieceOn(from)) != PieceType::kKing ||
        ColorOf(pos.PieceOn(from)) != pos.side_to_move()) {
      return IllegalMove(text, IllegalMoveReason::kCastlingRightLost);
    }
    IllegalMoveReason reason = pos.Diagnose(m);
    if (reason != IllegalMoveReason::kNone) return IllegalMove(text, reason);
    return m;
  }

  std::string core;
  for (char c : s) {
    if (c == 'x' || c == ':' || c == '-' || c == '=' || c == '(' || c == ')' || c == '/') continue;
    core += c;
  }
  if (core.size() < 2) return bad("too short");

  // Promotion piece at the end (e8Q, e8=D, e8q).
  PieceType promotion = PieceType::kNone;
  if (!IsRank(core.back())) {
    promotion = PromotionFromChar(core.back());
    if (promotion == PieceType::kNone)
      return bad("it does not end in a square or a promotion piece");
    core.pop_back();
  }
  if (core.size() < 2 || !IsFile(core[core.size() - 2]) || !IsRank(core.back()))
    return bad("no destination square");
  const Square to = MakeSquare(core[core.size() - 2] - 'a', core.back() - '1');
  core.resize(core.size() - 2);

  PieceType type = PieceType::kPawn;
  size_t i = 0;
  if (i < core.size() && core[i] >= 'A' && core[i] <= 'Z') {
    type = PieceTypeFromLetter(core[i]);
    if (type == PieceType::kNone) return bad("unknown piece letter");
    ++i;
  }
  int from_file = -1, from_rank = -1;
  if (i < core.size() && IsFile(core[i])) from_file = core[i++] - 'a';
  if (i < core.size() && IsRank(core[i])) from_rank = core[i++] - '1';
  if (i != core.size()) return bad("unexpected characters");
  if (type != PieceType::kPawn && promotion != PieceType::kNone) return bad("only pawns promote");

  auto matches_from = [&](Square from) {
    return (from_file < 0 || FileOf(from) == from_file) &&
           (from_rank < 0 || RankOf(from) == from_rank);
  };
  Move found;
  int count = 0;
  for (Move m : legal) {
    if (m.to() != to || TypeOf(pos.PieceOn(m.from())) != type || !matches_from(m.from())) continue;
    if (m.kind() == Move::kCastling) continue;  // castling is written O-O, not Kg1
    if (m.promotion() != promotion) continue;
    found = m;
    ++count;
  }
  if (count == 1) return found;
  if (count > 1) {
    return base::Error(
        chess::kErrAmbiguousSan,
        absl::StrCat("'", text,
                     "' fits more than one legal move (Appendix E9: name the file or rank)"));
  }
  // No legal move: say why, if one piece of that kind could make the move but for the rules.
  IllegalMoveReason reason = IllegalMoveReason::kNotHowThePieceMoves;
  Bitboard candidates = pos.pieces(pos.side_to_move(), type);
  if (!candidates) reason = IllegalMoveReason::kNoPiece;
  while (candidates) {
    Square from = PopLsb(candidates);
    if (!matches_from(from)) continue;
    IllegalMoveReason r = pos.Diagnose(pos.MakeMove(from, to, promotion));
    if (r != IllegalMoveReason::kNotHowThePieceMoves && r != IllegalMoveReason::kNone) {
      reason = r;
      break;
    }
  }
  if (!pos.HasLegalMoves()) reason = IllegalMoveReason::kNoLegalMoves;
  return IllegalMove(text, reason);
}

absl::StatusOr<Move> ParseMove(const Position& pos, absl::string_view text) {
  const bool uci_shape = (text.size() == 4 || text.size() == 5) && IsFile(text[0]) &&
                         IsRank(text[1]) && IsFile(text[2]) && IsRank(text[3]) &&
                         (text.size() == 4 || (text[4] >= 'a' && text[4] <= 'z'));
  if (uci_shape) return ParseUci(pos, text);
  return ParseSan(pos, text);
}

MoveText SplitDrawOffer(absl::string_view text) {
  absl::string_view t = absl::StripTrailingAsciiWhitespace(text);
  if (absl::ConsumeSuffix(&t, "(=)")) {
    return {absl::StripTrailingAsciiWhitespace(t), true};
  }
  return {text, false};
}

}  // namespace chess
