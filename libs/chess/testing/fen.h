// For tests: a position from its FEN in one call.
#ifndef ARBITER_LIBS_CHESS_TESTING_FEN_H_
#define ARBITER_LIBS_CHESS_TESTING_FEN_H_

#include "absl/strings/string_view.h"
#include "libs/chess/position.h"

namespace chess::testing {

// The position of `fen`: "startpos", a whole FEN, or one without its move counters (read as
// ParseFenTolerant reads it). A FEN that does not read fails the test and gives the initial
// position.
Position Fen(absl::string_view fen);

}  // namespace chess::testing

#endif  // ARBITER_LIBS_CHESS_TESTING_FEN_H_
