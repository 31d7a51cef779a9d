#include "libs/chess/pgn.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"

namespace chess {
namespace {

using ::base::HasErrorCode;
using ::testing::HasSubstr;

constexpr char kTwoGames[] = R"([Event "Test"]
[Site "Berlin"]
[White "A \"quoted\" name"]
[Black "B"]
[Result "1-0"]
[TimeControl "40/5400+30:1800+30"]

% an escape line that readers ignore
{Opening comment} 1. e4 {[%clk 1:29:55]} e5 {[%clk 1:29:50.5]} 2. Nf3 $1 Nc6 (2... d6 3. d4) 3. Bb5!?
a6 ; a rest-of-line comment
4. Ba4 Nf6 5. O-O 1-0

[Event "Second"]
[SetUp "1"]
[FEN "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"]

1. exd6 e.p. Kd7 2. Kd2 Kxd6 1/2-1/2
)";

TEST(PgnTest, ReadsTagsCommentsNagsVariationsClocks) {
  absl::StatusOr<std::vector<PgnGame>> games = ParsePgn(kTwoGames);
  ASSERT_OK(games);
  ASSERT_EQ(games->size(), 2u);
  const PgnGame& g = (*games)[0];
  EXPECT_EQ(g.Tag("White"), "A \"quoted\" name");
  EXPECT_EQ(g.Tag("TimeControl"), "40/5400+30:1800+30");
  EXPECT_EQ(g.result, "1-0");
  ASSERT_EQ(g.moves.size(), 9u);
  EXPECT_EQ(g.leading_comments.size(), 1u);
  EXPECT_EQ(g.moves[0].clock_ms, 5395000);
  EXPECT_EQ(g.moves[1].clock_ms, 5390500);
  EXPECT_EQ(g.moves[2].nags, std::vector<int>{1});
  ASSERT_EQ(g.moves[3].variations.size(), 1u);
  EXPECT_EQ(g.moves[3].variations[0].size(), 2u);
  EXPECT_EQ(g.moves[4].san, "Bb5");
  EXPECT_EQ(g.moves[4].nags, std::vector<int>{5});
  EXPECT_EQ(g.moves[5].comments.size(), 1u);
  for (PgnGame& game : *games) EXPECT_OK(ReplayGame(&game));
  EXPECT_EQ((*games)[1].result, "1/2-1/2");
}

TEST(PgnTest, SkipsVariationsWhenAsked) {
  PgnReadOptions options;
  options.keep_variations = false;
  absl::StatusOr<std::vector<PgnGame>> games = ParsePgn(kTwoGames, options);
  ASSERT_OK(games);
  EXPECT_TRUE((*games)[0].moves[3].variations.empty());
}

TEST(PgnTest, SyntaxErrorsHaveLineAndColumn) {
  absl::StatusOr<std::vector<PgnGame>> games = ParsePgn("[Event \"x\"]\n\n1. e4 {never closed");
  EXPECT_THAT(games, HasErrorCode("ERR_BAD_PGN"));
  EXPECT_THAT(std::string(games.status().message()), HasSubstr("line 3"));
  EXPECT_THAT(ParsePgn("[Event x]"), HasErrorCode("ERR_BAD_PGN"));
  EXPECT_THAT(ParsePgn("1. e4 )"), HasErrorCode("ERR_BAD_PGN"));
  EXPECT_THAT(ParsePgn("1. e4 (e5"), HasErrorCode("ERR_BAD_PGN"));
}

TEST(PgnTest, ReplayReportsFirstBadMove) {
  absl::StatusOr<std::vector<PgnGame>> games =
      ParsePgn("[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Nc3 Nf6 4. Ne2 Nd4 5. Nd4 *\n");
  ASSERT_OK(games);
  int ply = -1;
  absl::Status st = ReplayGame(&(*games)[0], &ply);
  // Knights on c3 and f3 could both go to d4?  No: Nc3 went to e2. Ne2 and Nf3 both reach d4.
  EXPECT_THAT(st, HasErrorCode("ERR_AMBIGUOUS_SAN"));
  EXPECT_EQ(ply, 8);
  EXPECT_THAT(std::string(st.message()), HasSubstr("move 5. Nd4 (line 3, column 46)"));
  games = ParsePgn("1. e4 e5 2. Ke3 *");
  ASSERT_OK(games);
  st = ReplayGame(&(*games)[0], &ply);
  EXPECT_THAT(st, HasErrorCode("ERR_ILLEGAL_MOVE"));
  EXPECT_EQ(ply, 2);
}

TEST(PgnTest, WriteThenReadIsTheSameGame) {
  absl::StatusOr<std::vector<PgnGame>> games = ParsePgn(kTwoGames);
  ASSERT_OK(games);
  for (const PgnGame& g : *games) {
    std::string text = WritePgn(g);
    absl::StatusOr<std::vector<PgnGame>> again = ParsePgn(text);
    ASSERT_OK(again) << text;
    ASSERT_EQ(again->size(), 1u);
    const PgnGame& h = (*again)[0];
    ASSERT_EQ(h.moves.size(), g.moves.size()) << text;
    for (size_t i = 0; i < g.moves.size(); ++i) {
      EXPECT_EQ(h.moves[i].san, g.moves[i].san);
      EXPECT_EQ(h.moves[i].clock_ms, g.moves[i].clock_ms);
      EXPECT_EQ(h.moves[i].variations.size(), g.moves[i].variations.size());
    }
    EXPECT_EQ(h.result, g.result);
    if (!g.Tag("White").empty()) {
      EXPECT_EQ(h.Tag("White"), g.Tag("White"));
    }
    EXPECT_THAT(text, HasSubstr("[Event "));
  }
}

TEST(PgnTest, FormatClock) {
  EXPECT_EQ(FormatClock(5025000), "1:23:45");
  EXPECT_EQ(FormatClock(61500), "0:01:01.5");
}

}  // namespace
}  // namespace chess
