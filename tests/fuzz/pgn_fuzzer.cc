// Fuzz target: the PGN reader, replay and writer. No crash; a file that parses and replays must
// write back to text that parses to the same number of moves.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "libs/chess/pgn.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1 << 16) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  chess::PgnReadOptions options;
  options.max_games = 64;
  absl::StatusOr<std::vector<chess::PgnGame>> games = chess::ParsePgn(text, options);
  if (!games.ok()) return 0;
  for (chess::PgnGame& game : *games) {
    if (!chess::ReplayGame(&game).ok()) continue;
    absl::StatusOr<std::vector<chess::PgnGame>> again = chess::ParsePgn(chess::WritePgn(game));
    if (!again.ok() || again->size() != 1 || (*again)[0].moves.size() != game.moves.size())
      std::abort();
  }
  return 0;
}
