#include "libs/chess/game.h"

#include "libs/base/error.h"
#include "libs/chess/errors.h"
#include "libs/chess/movegen.h"

namespace chess {

bool SamePositionForRepetition(const Position& a, const Position& b) {
  if (a.key() != b.key()) return false;
  // The key is a hash: confirm exactly, so a collision can never make a false claim correct.
  for (PieceType t : {PieceType::kPawn, PieceType::kKnight, PieceType::kBishop, PieceType::kRook,
                      PieceType::kQueen, PieceType::kKing}) {
    if (a.pieces(t) != b.pieces(t)) return false;
  }
  return a.pieces(Color::kWhite) == b.pieces(Color::kWhite) &&
         a.side_to_move() == b.side_to_move() && a.castling_rights() == b.castling_rights() &&
         a.ep_square() == b.ep_square();
}

Game::Game(Position start) { positions_.push_back(std::move(start)); }

absl::Status Game::Play(Move m) {
  const Position& current = position();
  if (!current.HasLegalMoves()) {
    return base::Error(chess::kErrGameOver, current.InCheck()
                                                ? "the game has ended by checkmate (5.1a)"
                                                : "the game has ended by stalemate (5.2a)");
  }
  Position next = current;
  if (absl::Status st = next.Play(m); !st.ok()) return st;
  moves_.push_back(current.MakeMove(m.from(), m.to(), m.promotion()));
  positions_.push_back(std::move(next));
  return absl::OkStatus();
}

Game Game::RepetitionWindow() const {
  // As far back as CountOccurrences looks.
  const size_t reach =
      std::min(positions_.size(), static_cast<size_t>(position().halfmove_clock()) + 2);
  Game window(positions_[positions_.size() - reach]);
  window.positions_.assign(positions_.end() - reach, positions_.end());
  window.moves_.assign(moves_.end() - (reach - 1), moves_.end());
  return window;
}

int Game::CountOccurrences(const Position& pos) const {
  int count = 0;
  // Only positions since the last capture or pawn move can repeat (the half-move clock bounds the
  // search); castling-right changes are caught by the comparison itself.
  const int n = static_cast<int>(positions_.size());
  const int reach = std::min(n, static_cast<int>(position().halfmove_clock()) + 2);
  for (int i = n - 1; i >= n - reach; --i) {
    if (SamePositionForRepetition(positions_[i], pos)) ++count;
  }
  return count;
}

int Game::RepetitionCount() const { return CountOccurrences(position()); }

DrawClaim Game::ThreefoldClaim() const {
  DrawClaim claim;
  const Position& current = position();
  if (!current.HasLegalMoves()) return claim;
  claim.now = RepetitionCount() >= 3;
  MoveList list;
  GenerateLegalMoves(current, &list);
  for (Move m : list) {
    Position next = current;
    next.PlayUnchecked(m);
    if (current.IsZeroing(m)) continue;  // the position after it is new
    if (next.InCheck() && !next.HasLegalMoves()) continue;
    if (CountOccurrences(next) >= 2) claim.by_moves.push_back(m);
  }
  return claim;
}

DrawClaim Game::FiftyMoveClaim() const {
  DrawClaim claim;
  const Position& current = position();
  if (!current.HasLegalMoves()) return claim;
  claim.now = current.halfmove_clock() >= 100;
  if (current.halfmove_clock() >= 99) {
    MoveList list;
    GenerateLegalMoves(current, &list);
    for (Move m : list) {
      if (current.IsZeroing(m)) continue;
      Position next = current;
      next.PlayUnchecked(m);
      if (next.InCheck() && !next.HasLegalMoves()) continue;  // 5.1a: mate ends the game first
      claim.by_moves.push_back(m);
    }
  }
  return claim;
}

bool Game::IsFivefoldRepetition() const { return RepetitionCount() >= 5; }

bool Game::IsSeventyFiveMoveRule() const {
  const Position& current = position();
  return current.halfmove_clock() >= 150 && !current.IsCheckmate();
}

}  // namespace chess
