#include "tools/arbiterctl/pgn_check.h"

#include <sstream>

#include "gtest/gtest.h"

namespace arbiterctl {
namespace {

TEST(PgnCheckTest, ReportsGameMoveAndReason) {
  const std::string pgn =
      "[Event \"ok\"]\n\n1. e4 e5 2. Nf3 1-0\n\n"
      "[Event \"illegal\"]\n\n1. e4 e5 2. Ke3 *\n\n"
      "[Event \"ambiguous\"]\n\n1. Nf3 d5 2. d3 d4 3. Nd2 *\n";
  std::ostringstream out;
  EXPECT_EQ(CheckPgn(pgn, false, out), 1);
  const std::string text = out.str();
  EXPECT_NE(text.find("game 2: ERR_ILLEGAL_MOVE: move 2. Ke3"), std::string::npos) << text;
  EXPECT_NE(text.find("game 3: ERR_AMBIGUOUS_SAN: move 3. Nd2"), std::string::npos) << text;
  EXPECT_NE(text.find("3 games, 2 with"), std::string::npos) << text;
  std::ostringstream ok;
  EXPECT_EQ(CheckPgn("1. e4 e5 *", true, ok), 0);
}

}  // namespace
}  // namespace arbiterctl
