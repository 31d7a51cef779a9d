// What ends a game by the position alone, with no claim, under an edition (LAWS.md, "Editions":
// automatic draws): checkmate (5.1a), stalemate (5.2a), a dead position proved without search
// (5.2b / 9.6 in every edition: material, mate patterns, locked pawns; the 1997 appendices apply
// the Laws of their time, B2, and nothing in them removes the dead-position draw), and in 2023
// fivefold repetition (9.6.1) and 75 moves (9.6.2; mate on the last move takes precedence).
//
//   if (std::optional<AutomaticEnding> end = EndingOf(game, Edition::kFide2023)) ...
#ifndef ARBITER_LIBS_LAWS_AUTOMATIC_ENDING_H_
#define ARBITER_LIBS_LAWS_AUTOMATIC_ENDING_H_

#include <optional>
#include <string>

#include "libs/chess/game.h"
#include "libs/laws/edition.h"
#include "libs/laws/outcome.h"

namespace laws {

struct AutomaticEnding {
  Outcome outcome;
  std::string proof;  // for a dead position: the static argument
};

// nullopt while the game goes on by the position alone. The searches of libs/analysis (a dead
// position that only an exhaustive search proves) are the caller's: this never searches.
std::optional<AutomaticEnding> EndingOf(const chess::Game& game, laws::Edition edition);

}  // namespace laws

#endif  // ARBITER_LIBS_LAWS_AUTOMATIC_ENDING_H_
