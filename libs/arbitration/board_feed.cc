#include "libs/arbitration/board_feed.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"

namespace arbitration {
namespace {

using chess::Color;
using chess::Piece;
using chess::PieceType;
using chess::Square;

absl::Status Bad(absl::string_view why) {
  return base::Error(base::kErrBadArgument, absl::StrCat("placement: ", why));
}

bool Centre(Square s) {
  const int f = chess::FileOf(s), r = chess::RankOf(s);
  return (f == 3 || f == 4) && (r == 3 || r == 4);
}

bool Light(Square s) { return (chess::FileOf(s) + chess::RankOf(s)) % 2 == 1; }

// DGT's result signal: both kings on the centre squares.
std::optional<laws::Result> ResultSignal(const Placement& p) {
  std::optional<Square> white, black;
  for (int s = 0; s < 64; ++s) {
    if (p.squares[s] == chess::MakePiece(Color::kWhite, PieceType::kKing)) white = Square(s);
    if (p.squares[s] == chess::MakePiece(Color::kBlack, PieceType::kKing)) black = Square(s);
  }
  if (!white || !black || !Centre(*white) || !Centre(*black)) return std::nullopt;
  if (Light(*white) && Light(*black)) return laws::Result::kWhiteWins;
  if (!Light(*white) && !Light(*black)) return laws::Result::kBlackWins;
  return laws::Result::kDraw;
}

}  // namespace

absl::StatusOr<Placement> ParsePlacement(absl::string_view text) {
  const size_t space = text.find(' ');
  if (space != absl::string_view::npos) text = text.substr(0, space);
  Placement p;
  int rank = 7, file = 0;
  for (char c : text) {
    if (c == '/') {
      if (file != 8) return Bad(absl::StrCat("rank ", rank + 1, " does not have 8 squares"));
      if (--rank < 0) return Bad("more than 8 ranks");
      file = 0;
    } else if (c >= '1' && c <= '8') {
      file += c - '0';
      if (file > 8) return Bad(absl::StrCat("rank ", rank + 1, " has more than 8 squares"));
    } else {
      const Piece piece = chess::PieceFromFenChar(c);
      if (chess::IsNone(piece)) return Bad(absl::StrCat("'", std::string(1, c), "' is no piece"));
      if (file >= 8) return Bad(absl::StrCat("rank ", rank + 1, " has more than 8 squares"));
      p.squares[chess::MakeSquare(file++, rank)] = piece;
    }
  }
  if (rank != 0 || file != 8) return Bad("8 ranks of 8 squares are required");
  return p;
}

std::string PlacementText(const Placement& p) {
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      const Piece piece = p.squares[chess::MakeSquare(file, rank)];
      if (chess::IsNone(piece)) {
        ++empty;
        continue;
      }
      if (empty > 0) out.push_back(static_cast<char>('0' + empty));
      empty = 0;
      out.push_back(chess::FenChar(piece));
    }
    if (empty > 0) out.push_back(static_cast<char>('0' + empty));
    if (rank > 0) out.push_back('/');
  }
  return out;
}

Placement PlacementOf(const chess::Position& position) {
  Placement p;
  for (int s = 0; s < 64; ++s) p.squares[s] = position.PieceOn(Square(s));
  return p;
}

std::vector<Observation> Observe(const chess::Position& position, const Placement& previous,
                                 const Placement& next, bool clock_pressed, bool promotion_pieces) {
  std::vector<Observation> out;
  if (std::optional<laws::Result> signal = ResultSignal(next)) {
    // Recorded once, when the kings arrive there.
    if (ResultSignal(previous) != signal) {
      Observation o;
      o.kind = Observation::Kind::kResultSignal;
      o.result = *signal;
      out.push_back(o);
    }
    return out;
  }
  const Placement standing = PlacementOf(position);
  for (int i = 0; i < 64; ++i) {
    const Square s = Square(i);
    const Piece was = previous.squares[i], is = next.squares[i];
    if (was == is) continue;
    // A piece lifted from its square in the position: touched (4.3). A piece lifted again from a
    // square it was put on during the move is in the player's hand already.
    if (!chess::IsNone(was) && standing.squares[i] == was) {
      out.push_back({.kind = Observation::Kind::kTouched, .square = s, .piece = was});
    }
    // Put back on its own square: released, still touched.
    if (!chess::IsNone(is) && standing.squares[i] == is) {
      out.push_back({.kind = Observation::Kind::kReleased, .square = s, .piece = is});
    }
  }
  // Pieces of both colours lifted in one report: the own piece counts as touched first (4.3c).
  std::stable_partition(out.begin(), out.end(), [&](const Observation& o) {
    return o.kind != Observation::Kind::kTouched ||
           chess::ColorOf(o.piece) == position.side_to_move();
  });
  if (next == standing) return out;
  if (promotion_pieces) {
    // 2023 4.4.4 with 4.6.2 (pawn and new piece in either order): a piece the position does not
    // have, arrived on a square where a legal promotion of the player to move ends, is the
    // promotion's piece, and it has touched the promotion square.
    const auto count = [](const Placement& p, Piece piece) {
      return std::count(p.squares.begin(), p.squares.end(), piece);
    };
    const std::vector<chess::Move> legal = position.LegalMoves();
    for (int i = 0; i < 64; ++i) {
      const Piece is = next.squares[i];
      if (chess::IsNone(is) || previous.squares[i] == is) continue;
      if (chess::ColorOf(is) != position.side_to_move()) continue;
      if (count(next, is) <= count(standing, is)) continue;
      const bool promotes_here = std::any_of(legal.begin(), legal.end(), [&](chess::Move m) {
        return m.is_promotion() && m.to() == Square(i) && m.promotion() == chess::TypeOf(is);
      });
      if (!promotes_here) continue;
      Observation o;
      o.kind = Observation::Kind::kPromotionPiece;
      o.square = Square(i);
      o.piece = is;
      out.push_back(o);
    }
  }
  // 4.6 / 4.7: the board is the position after a legal move: the move is made.
  for (chess::Move m : position.LegalMoves()) {
    chess::Position after = position;
    after.PlayUnchecked(m);
    if (PlacementOf(after) == next) {
      Observation o;
      o.kind = Observation::Kind::kMove;
      o.move = m;
      out.push_back(o);
      return out;
    }
  }
  if (clock_pressed) {
    Observation o;
    o.kind = Observation::Kind::kIllegalStood;
    out.push_back(o);
  }
  return out;
}

}  // namespace arbitration
