// Fuzz target: the FEN reader and writer. Whatever the bytes, no crash; a FEN that parses must
// write back to a FEN that parses to the same position.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "libs/chess/fen.h"
#include "libs/chess/movegen.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<chess::Position> pos = chess::ParseFen(text);
  if (!pos.ok()) return 0;
  std::string fen = chess::ToFen(*pos);
  absl::StatusOr<chess::Position> again = chess::ParseFen(fen);
  if (!again.ok() || chess::ToFen(*again) != fen) std::abort();
  chess::MoveList list;
  chess::GenerateLegalMoves(*pos, &list);
  if (list.size != chess::CountLegalMoves(*pos)) std::abort();
  return 0;
}
