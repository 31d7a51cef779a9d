#include "libs/chess/testing/fen.h"

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "libs/chess/fen.h"

namespace chess::testing {

Position Fen(absl::string_view fen) {
  absl::StatusOr<Position> p = fen == "startpos" ? Position::Initial() : ParseFenTolerant(fen);
  EXPECT_TRUE(p.ok()) << fen << ": " << p.status();
  return p.ok() ? *p : Position::Initial();
}

}  // namespace chess::testing
