// A game's history of positions, answering the questions the Laws ask of a history rather than of
// one position: threefold repetition (9.2), the fifty-move rule (9.3) and, for the 2023 edition,
// the automatic draws by fivefold repetition and 75 moves (9.6.1, 9.6.2).
//
//   Game game(Position::Initial());
//   RETURN_IF_ERROR(game.Play(move));
//   DrawClaim claim = game.ThreefoldClaim();  // claim.now, claim.by_moves
#ifndef ARBITER_LIBS_CHESS_GAME_H_
#define ARBITER_LIBS_CHESS_GAME_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "libs/chess/position.h"

namespace chess {

// Whether a draw can be claimed now (the position has arisen: 9.2b / 9.3b) and the legal moves
// with which the player to move can claim by declaring them (9.2a / 9.3a).
struct DrawClaim {
  bool now = false;
  std::vector<Move> by_moves;
  bool possible() const { return now || !by_moves.empty(); }
};

class Game {
 public:
  explicit Game(Position start);

  const Position& position() const { return positions_.back(); }
  const Position& start() const { return positions_.front(); }
  const std::vector<Move>& moves() const { return moves_; }
  // positions()[i] is the position before moves()[i]; positions().back() is the current one.
  const std::vector<Position>& positions() const { return positions_; }

  // Checked: ERR_ILLEGAL_MOVE with the reason, or FAILED_PRECONDITION ERR_GAME_OVER when the
  // position is checkmate or stalemate (5.1a, 5.2a end the game at once).
  absl::Status Play(Move m);

  // The game from the last capture or pawn move on (the positions that can still repeat): the same
  // answers as this game to every question of repetition (9.2, 9.6.1) and of the fifty- and
  // seventy-five-move rules, now and after further moves, at the cost of a short history.
  Game RepetitionWindow() const;

  // How often the current position has stood in this game, counting now (9.2).
  int RepetitionCount() const;
  // 9.2: the current position stands for at least the third time (now), or these legal moves
  // would make it so. Never while the game is over by checkmate or stalemate.
  DrawClaim ThreefoldClaim() const;
  // 9.3: the last 50 moves of each player had no capture and no pawn move (now), or these legal
  // moves would complete such 50 moves. A move that checkmates is not a claim: 5.1a ends the game.
  DrawClaim FiftyMoveClaim() const;
  // 2023 9.6.1: the same position has appeared at least five times.
  bool IsFivefoldRepetition() const;
  // 2023 9.6.2: at least 75 moves by each player without capture or pawn move, unless the last
  // move checkmated (checkmate takes precedence).
  bool IsSeventyFiveMoveRule() const;

 private:
  int CountOccurrences(const Position& pos) const;

  std::vector<Position> positions_;
  std::vector<Move> moves_;
};

// Same position in the sense of 9.2 (same player to move, same pieces on the same squares, same
// castling rights, same en passant possibility).
bool SamePositionForRepetition(const Position& a, const Position& b);

}  // namespace chess

#endif  // ARBITER_LIBS_CHESS_GAME_H_
