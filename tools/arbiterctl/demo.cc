#include "tools/arbiterctl/demo.h"

#include <ostream>
#include <string>
#include <vector>

#include "libs/base/error.h"
#include "libs/chess/fen.h"
#include "libs/chess/game.h"
#include "libs/chess/notation.h"
#include "libs/chess/perft.h"

namespace arbiterctl {

int RunDemo(std::ostream& out) {
  chess::Game game(chess::Position::Initial());
  out << "Arbiter demo: the rules core applies the Laws to a game.\n\n";
  // Moves as a player might write them: SAN, German letters, UCI, and one illegal attempt.
  const std::vector<std::string> moves = {"e4",   "e5",   "Sf3", "Nc6",  "Bc4",  "Nf6",
                                          "Ng5",  "O-O",  "d5",  "exd5", "Nxd5", "Nxf7",
                                          "Kxf7", "Qf3+", "Nb4", "Ke6",  "Nc3",  "e2e4"};
  for (const std::string& text : moves) {
    // A copy: Play below adds a position to the game, which may move the one a reference held.
    const chess::Position pos = game.position();
    absl::StatusOr<chess::Move> move = chess::ParseMove(pos, text);
    absl::Status status = move.ok() ? game.Play(*move) : move.status();
    out << "  " << pos.fullmove_number()
        << (pos.side_to_move() == chess::Color::kWhite ? ". " : "... ") << text;
    if (status.ok()) {
      out << "  -> legal, recorded as " << chess::ToSan(pos, *move) << " (Appendix E: "
          << chess::ToSan(pos, *move, chess::SanStyle::kAppendixE, chess::Letters::kGerman) << ")";
      if (game.position().InCheck()) out << ", check";
      out << "\n";
    } else {
      out << "  -> REFUSED " << base::ErrorCode(status) << ": " << status.message() << "\n";
    }
  }
  out << "\nPosition: " << chess::ToFen(game.position()) << "\n\n";

  out << "Threefold repetition (9.2): the knights go back and forth.\n";
  chess::Game rep(chess::Position::Initial());
  for (const char* san : {"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"}) {
    rep.Play(*chess::ParseSan(rep.position(), san)).IgnoreError();
  }
  chess::DrawClaim claim = rep.ThreefoldClaim();
  out << "  after 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1, Black may claim a draw by declaring";
  for (chess::Move m : claim.by_moves) out << " " << chess::ToSan(rep.position(), m);
  out << " (9.2a)\n\n";

  out << "Perft (move generator check), start position depth 4: "
      << chess::Perft(chess::Position::Initial(), 4) << " nodes (expected 197281)\n";
  return 0;
}

}  // namespace arbiterctl
