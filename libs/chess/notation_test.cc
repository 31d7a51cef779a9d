// Appendix E (algebraic notation) and the PGN SAN standard: writing and tolerant reading.
#include "libs/chess/notation.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/testing/fen.h"

namespace chess {
namespace {

using ::base::HasErrorCode;

using testing::Fen;

std::string San(const std::string& fen, const std::string& uci, SanStyle style = SanStyle::kPgn,
                Letters letters = Letters::kEnglish) {
  Position pos = Fen(fen);
  absl::StatusOr<Move> m = ParseUci(pos, uci);
  EXPECT_TRUE(m.ok()) << m.status();
  return ToSan(pos, *m, style, letters);
}

std::string Uci(const std::string& fen, const std::string& san) {
  Position pos = Fen(fen);
  absl::StatusOr<Move> m = ParseSan(pos, san);
  if (!m.ok()) return std::string(base::ErrorCode(m.status()));
  return ToUci(*m);
}

// E9: disambiguation by file, by rank, and by both (three queens).
TEST(SanWriteTest, Disambiguation) {
  const std::string knights = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";  // Nb1, Nf1 both reach d2
  EXPECT_EQ(San(knights, "b1d2"), "Nbd2");
  const std::string rooks = "4k3/R7/8/8/8/8/8/R3K3 w - - 0 1";  // Ra1, Ra7 on one file
  EXPECT_EQ(San(rooks, "a1a4"), "R1a4");
  const std::string queens = "4k3/8/8/8/7Q/8/8/4K2Q w - - 0 1";  // Qh4, Qh1 and ...
  EXPECT_EQ(San("1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", "h4e1"), "Qh4e1");
  EXPECT_EQ(San(queens, "h4h2"), "Q4h2");
  // A pinned piece does not count for ambiguity.
  EXPECT_EQ(San("4k3/4r3/8/8/8/8/4N3/2N1K3 w - - 0 1", "c1d3"), "Nd3");
}

TEST(SanWriteTest, PgnAndAppendixE) {
  const std::string castle = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
  EXPECT_EQ(San(castle, "e1g1"), "O-O");
  EXPECT_EQ(San(castle, "e1c1"), "O-O-O");
  EXPECT_EQ(San(castle, "e1g1", SanStyle::kAppendixE), "0-0");
  const std::string ep = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
  EXPECT_EQ(San(ep, "e5d6"), "exd6");
  EXPECT_EQ(San(ep, "e5d6", SanStyle::kAppendixE), "exd6 e.p.");
  const std::string mate = "6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1";
  EXPECT_EQ(San(mate, "a1a8"), "Ra8#");
  EXPECT_EQ(San(mate, "a1a8", SanStyle::kAppendixE, Letters::kGerman), "Ta8++");
  EXPECT_EQ(San("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1", "b1c3", SanStyle::kPgn, Letters::kGerman),
            "Sc3");
}

TEST(SanReadTest, TolerantForms) {
  const std::string start(kStartFen);
  EXPECT_EQ(Uci(start, "e4"), "e2e4");
  EXPECT_EQ(Uci(start, "e2-e4"), "e2e4");
  EXPECT_EQ(Uci(start, "Nf3"), "g1f3");
  EXPECT_EQ(Uci(start, "Ng1-f3"), "g1f3");
  EXPECT_EQ(Uci(start, "Sf3"), "g1f3");  // German
  EXPECT_EQ(Uci(start, "Nf3!?"), "g1f3");
  const std::string castle = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
  EXPECT_EQ(Uci(castle, "0-0"), "e1g1");
  EXPECT_EQ(Uci(castle, "O-O-O+"), "e1c1");
  const std::string ep = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
  EXPECT_EQ(Uci(ep, "exd6e.p."), "e5d6");
  EXPECT_EQ(Uci(ep, "exd6 e.p."), "e5d6");
  EXPECT_EQ(Uci(ep, "ed6"), "e5d6");  // the x left out
  const std::string promo = "3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1";
  EXPECT_EQ(Uci(promo, "exd8=Q+"), "e7d8q");
  EXPECT_EQ(Uci(promo, "exd8D"), "e7d8q");  // German, Appendix E form
  EXPECT_EQ(Uci(promo, "e8=N"), "e7e8n");
  EXPECT_EQ(Uci(promo, "exd8T"), "e7d8r");
  const std::string german = "4k3/8/8/8/8/8/8/1N2KB1Q w - - 0 1";
  EXPECT_EQ(Uci(german, "Lc4"), "f1c4");
  EXPECT_EQ(Uci(german, "Dh5+"), "h1h5");
}

TEST(SanReadTest, AmbiguousIllegalAndMalformedAreDistinct) {
  const std::string knights = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
  EXPECT_EQ(Uci(knights, "Nd2"), "ERR_AMBIGUOUS_SAN");
  EXPECT_EQ(Uci(knights, "Nbd2"), "b1d2");
  EXPECT_EQ(Uci(knights, "Nd4"), "ERR_ILLEGAL_MOVE");
  EXPECT_EQ(Uci(knights, "Zd4"), "ERR_BAD_SAN");
  EXPECT_EQ(Uci(knights, "N"), "ERR_BAD_SAN");
  EXPECT_EQ(Uci(knights, ""), "ERR_BAD_SAN");
  // The reason is carried: the knight is pinned (3.9).
  Position pinned = Fen("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
  absl::StatusOr<Move> m = ParseSan(pinned, "Nc3");
  EXPECT_THAT(m, HasErrorCode("ERR_ILLEGAL_MOVE"));
  EXPECT_EQ(IllegalReasonOf(m.status()), IllegalMoveReason::kLeavesKingInCheck);
  // 3.7e: a promotion without the piece is not a move.
  absl::StatusOr<Move> p = ParseSan(Fen("3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1"), "e8");
  EXPECT_EQ(IllegalReasonOf(p.status()), IllegalMoveReason::kPromotionRequired);
}

TEST(UciTest, ParseAndErrors) {
  Position pos = Position::Initial();
  EXPECT_THAT(ParseUci(pos, "e2e4"), base::IsOk());
  EXPECT_THAT(ParseUci(pos, "e2e9"), HasErrorCode("ERR_BAD_UCI"));
  EXPECT_THAT(ParseUci(pos, "e7e8x"), HasErrorCode("ERR_BAD_UCI"));
  EXPECT_THAT(ParseUci(pos, "e2e5"), HasErrorCode("ERR_ILLEGAL_MOVE"));
  EXPECT_THAT(ParseMove(pos, "e2e4"), base::IsOk());
  EXPECT_THAT(ParseMove(pos, "Nc3"), base::IsOk());
}

// Every legal move's SAN reads back to the same move, in both styles and both languages.
TEST(SanRoundTripTest, AllMovesOfTrickyPositions) {
  for (const char* fen : {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                          "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                          "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                          "1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1"}) {
    Position pos = Fen(fen);
    for (Move m : pos.LegalMoves()) {
      for (SanStyle style : {SanStyle::kPgn, SanStyle::kAppendixE}) {
        for (Letters letters : {Letters::kEnglish, Letters::kGerman}) {
          std::string san = ToSan(pos, m, style, letters);
          absl::StatusOr<Move> back = ParseSan(pos, san);
          ASSERT_TRUE(back.ok()) << fen << " " << san << ": " << back.status();
          EXPECT_EQ(*back, m) << fen << " " << san;
        }
      }
    }
  }
}

}  // namespace
}  // namespace chess

namespace chess {
namespace {

TEST(SplitDrawOffer, AppendixE12Marker) {  // 8.1, Appendix E12: "(=)" is a draw offer
  EXPECT_EQ(SplitDrawOffer("e4(=)").move, "e4");
  EXPECT_TRUE(SplitDrawOffer("e4(=)").draw_offer);
  EXPECT_EQ(SplitDrawOffer("Sf3+ (=)").move, "Sf3+");
  EXPECT_TRUE(SplitDrawOffer("Sf3+ (=)").draw_offer);
  EXPECT_FALSE(SplitDrawOffer("e4").draw_offer);
  EXPECT_EQ(SplitDrawOffer("e8=Q").move, "e8=Q");
}

}  // namespace
}  // namespace chess
