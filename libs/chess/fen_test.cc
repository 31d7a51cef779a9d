#include "libs/chess/fen.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"

namespace chess {
namespace {

using ::base::HasErrorCode;
using ::testing::HasSubstr;

TEST(FenTest, RoundTrips) {
  for (const char* fen : {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                          "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                          "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
                          "8/8/8/8/8/8/8/K6k b - - 99 120"}) {
    absl::StatusOr<Position> pos = ParseFen(fen);
    ASSERT_OK(pos);
    EXPECT_EQ(ToFen(*pos), fen);
  }
  EXPECT_EQ(ToFen(Position::Initial()), kStartFen);
}

TEST(FenTest, FourFieldsDefaultCounters) {
  absl::StatusOr<Position> pos = ParseFen("4k3/8/8/8/8/8/8/4K3 w - -");
  ASSERT_OK(pos);
  EXPECT_EQ(pos->halfmove_clock(), 0);
  EXPECT_EQ(pos->fullmove_number(), 1);
}

// The column (1-based) of the first error is in the message.
TEST(FenTest, ErrorsNameTheColumn) {
  struct Case {
    const char* fen;
    const char* column;
  };
  for (const Case& c :
       {Case{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "column 43"},
        Case{"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "column 18"},
        Case{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "column 45"},
        Case{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1", "column 49"},
        Case{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1", "column 52"},
        Case{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "column 54"},
        Case{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "column 56"},
        Case{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP/RNBQKBNR w KQkq - 0 1", "column 34"},
        Case{"", "column 1"}}) {
    absl::StatusOr<chess::Setup> setup = ParseFenSetup(c.fen);
    EXPECT_THAT(setup, HasErrorCode("ERR_BAD_FEN")) << c.fen;
    EXPECT_THAT(std::string(setup.status().message()), HasSubstr(c.column)) << c.fen;
  }
}

TEST(FenTest, IllegalSetupIsBadSetupNotBadFen) {
  EXPECT_THAT(ParseFen("8/8/8/8/8/8/8/8 w - - 0 1"), HasErrorCode("ERR_BAD_SETUP"));
  EXPECT_THAT(ParseFenOrStartpos("startpos"), base::IsOk());
}

// FEN is written with the en passant square only when a capture is legal.
TEST(FenTest, EnPassantWrittenOnlyWhenCapturable) {
  absl::StatusOr<Position> pos =
      ParseFen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
  ASSERT_OK(pos);
  EXPECT_EQ(ToFen(*pos), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

}  // namespace
}  // namespace chess

namespace chess {
namespace {

// The tolerant readers take a partial FEN with the defaults; the strict one names
// the missing field.
TEST(FenTolerant, PlacementAndSideToMove) {
  absl::StatusOr<Position> pos = ParseFenTolerant("4k3/8/8/8/8/8/8/3QK3 w");
  ASSERT_TRUE(pos.ok()) << pos.status();
  EXPECT_EQ(ToFen(*pos), "4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
  absl::StatusOr<Position> with_castling = ParseFenTolerant("r3k3/8/8/8/8/8/8/4K2R b Kq");
  ASSERT_TRUE(with_castling.ok()) << with_castling.status();
  EXPECT_EQ(ToFen(*with_castling), "r3k3/8/8/8/8/8/8/4K2R b Kq - 0 1");
  EXPECT_TRUE(ParseFenTolerant("4k3/8/8/8/8/8/8/3QK3 w - -").ok());
  EXPECT_TRUE(ParseFenTolerant("startpos").ok());
  EXPECT_FALSE(ParseFenTolerant("4k3/8/8/8/8/8/8/3QK3").ok());
  absl::Status strict = ParseFen("4k3/8/8/8/8/8/8/3QK3 w").status();
  EXPECT_NE(strict.message().find("missing castling field"), absl::string_view::npos) << strict;
}

}  // namespace
}  // namespace chess
