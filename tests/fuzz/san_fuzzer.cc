// Fuzz target: the SAN/UCI reader. The first line is a FEN (or empty for the start position), the
// rest is read as a move; a move that parses must be legal and its SAN must read back to it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "libs/chess/fen.h"
#include "libs/chess/notation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t newline = text.find('\n');
  std::string fen = newline == std::string::npos ? "" : text.substr(0, newline);
  std::string move_text = newline == std::string::npos ? text : text.substr(newline + 1);
  absl::StatusOr<chess::Position> pos =
      fen.empty() ? absl::StatusOr<chess::Position>(chess::Position::Initial())
                  : chess::ParseFen(fen);
  if (!pos.ok()) return 0;
  absl::StatusOr<chess::Move> move = chess::ParseMove(*pos, move_text);
  if (!move.ok()) return 0;
  if (!pos->IsLegal(*move)) std::abort();
  for (chess::SanStyle style : {chess::SanStyle::kPgn, chess::SanStyle::kAppendixE}) {
    absl::StatusOr<chess::Move> back = chess::ParseSan(*pos, chess::ToSan(*pos, *move, style));
    if (!back.ok() || *back != *move) std::abort();
  }
  return 0;
}
