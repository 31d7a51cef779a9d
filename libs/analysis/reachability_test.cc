// Reachability: the sets must hold every square a man can reach (checked by random
// play), and the proofs built on them must settle the closed positions they are for. Positions
// marked "CHA" are from the public test vectors of M. Ambrona's Chess Unwinnability Analyzer
// (github.com/miguel-ambrona/D3-Chess, tests/test-vector.txt), with its expected verdicts.
#include "libs/analysis/reachability.h"

#include <array>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "libs/analysis/unwinnable.h"
#include "libs/chess/fen.h"
#include "libs/chess/movegen.h"
#include "libs/chess/testing/fen.h"

namespace analysis {
namespace {

using chess::Color;
using chess::Position;

using chess::testing::Fen;

// Closed positions, unwinnable for both sides (5.2b / 9.6: dead), each needing a rule of the
// analysis: pawns that can still step before the chains lock; a king in check on a square a
// fixed pawn attacks (its only way out is the one it has now); a pawn defended by a king that
// can never move (a king never captures it); lone bishops behind the chains.
constexpr const char* kDead[] = {
    "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - -",  // CHA
    "8/2b5/kp1p1p2/1PpP1Pp1/K1P3P1/3B4/8/8 b - -",            // CHA
    "k7/1b6/8/8/8/1pB5/pP6/K7 w - -",                         // CHA
    "8/1k5B/7b/8/1p1p1p1p/1PpP1P1P/2P3K1/N3b3 b - -",         // CHA
    "3k4/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/3K4 w - -",  // CHA
    "2k5/p1p1p1p1/P1P1P1P1/2p1p2K/8/8/2P1P1P1/8 w - -",       // CHA
};

TEST(ReachabilityProof, SettlesClosedPositions) {
  for (const char* fen : kDead) {
    const Position pos = Fen(fen);
    for (Color side : {Color::kWhite, Color::kBlack}) {
      std::optional<StaticProof> proof = ReachabilityProof(pos, side);
      ASSERT_TRUE(proof.has_value()) << fen << " " << chess::ColorName(side);
      EXPECT_EQ(proof->method, Method::kLockedPawns);
      // 6.9 / 9.6: the arbiter's question answers the same.
      UnwinnabilityResult r = AnalyzeUnwinnability(pos, side);
      EXPECT_EQ(r.verdict, Verdict::kUnwinnable) << fen << " " << r.reason;
    }
  }
}

// Positions where a side can mate (a line exists): no proof may claim otherwise.
constexpr const char* kAlive[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - -",
    "Bb1k1b2/bKp1p1p1/1pP1P1P1/pP6/6P1/P7/8/8 w - -",   // CHA: White can mate
    "Bb2kb2/bKp1p1p1/1pP1P1P1/pP6/6P1/P7/8/8 b - -",    // CHA's README: White mates
    "7b/1k5B/7b/8/1p1p1p1p/1PpP1P1P/2P3K1/N7 b - -",    // CHA: White can mate
    "k7/8/3b4/1Bp1p3/2PbP3/2pBp1p1/2P1P1P1/5K2 b - -",  // CHA: Black can mate
    "8/8/1k6/8/1P2R3/K7/8/4b3 w - -",                   // Black mates with a knight's help
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6",                    // en passant on the board
};

TEST(ReachabilityProof, NeverClaimsAMateImpossibleWhereOneExists) {
  EXPECT_FALSE(ReachabilityProof(Fen(kAlive[0]), Color::kWhite).has_value());
  EXPECT_FALSE(ReachabilityProof(Fen(kAlive[1]), Color::kWhite).has_value());
  EXPECT_FALSE(ReachabilityProof(Fen(kAlive[2]), Color::kWhite).has_value());
  EXPECT_FALSE(ReachabilityProof(Fen(kAlive[3]), Color::kWhite).has_value());
  EXPECT_FALSE(ReachabilityProof(Fen(kAlive[4]), Color::kBlack).has_value());
  EXPECT_FALSE(ReachabilityProof(Fen(kAlive[5]), Color::kBlack).has_value());
  // The rules leave en passant and castling out: no sets, no proof.
  EXPECT_FALSE(ComputeReachability(Fen(kAlive[6])).has_value());
  EXPECT_FALSE(ComputeReachability(Position::Initial()).has_value());
}

// Soundness by play: from each position, random legal games; every man (followed by identity
// from its first square) must stand on a square of its set after every move, and a promoted
// piece on a square of one of its colour's promoted sets.
TEST(Reachability, EveryManStaysInItsSetInRandomGames) {
  std::vector<std::string> fens;
  for (const char* f : kDead) fens.push_back(f);
  for (const char* f : kAlive) fens.push_back(f);
  fens.push_back("8/8/2p1kpp1/4n2p/4P3/2N2K2/2P3P1/8 w - -");  // CHA
  fens.push_back("6k1/6pp/8/1p1N4/8/p6P/5PPK/8 b - -");        // CHA
  fens.push_back("r3k3/1p3p2/p1p3p1/2PpP1P1/3P4/8/8/4K2R w - -");
  std::mt19937 rng(17);
  int checked = 0;
  for (const std::string& fen : fens) {
    const Position start = Fen(fen);
    std::optional<Reachability> r = ComputeReachability(start);
    if (!r) continue;
    chess::Bitboard promoted[2] = {0, 0};
    for (const ReachMan& m : r->men) {
      if (m.start == chess::kNoSquare) promoted[chess::Index(m.color)] |= m.reach;
    }
    for (int game = 0; game < 200; ++game) {
      Position pos = start;
      std::array<int, 64> man_on{};  // index into r->men, -1 empty, -2 a promoted piece
      man_on.fill(-1);
      for (size_t i = 0; i < r->men.size(); ++i) {
        if (r->men[i].start != chess::kNoSquare) man_on[r->men[i].start] = static_cast<int>(i);
      }
      for (int ply = 0; ply < 120; ++ply) {
        chess::MoveList list;
        chess::GenerateLegalMoves(pos, &list);
        if (list.size == 0) break;
        const chess::Move m = list.moves[rng() % list.size];
        int captured_sq = pos.IsCapture(m) ? m.to() : -1;
        if (m.kind() == chess::Move::kEnPassant) captured_sq = m.to() ^ 8;
        const int mover = man_on[m.from()];
        if (captured_sq >= 0) man_on[captured_sq] = -1;
        man_on[m.from()] = -1;
        man_on[m.to()] = m.is_promotion() ? -2 : mover;
        const Color side = pos.side_to_move();
        pos.PlayUnchecked(m);
        if (m.is_promotion() || mover == -2) {
          EXPECT_TRUE(chess::Contains(promoted[chess::Index(side)], m.to()))
              << fen << " game " << game << " ply " << ply;
        } else {
          ASSERT_GE(mover, 0);
          EXPECT_TRUE(chess::Contains(r->men[mover].reach, m.to()))
              << fen << " game " << game << " ply " << ply << ": man from "
              << static_cast<int>(r->men[mover].start) << " on " << static_cast<int>(m.to());
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// 6.9: a flag fell, but the opponent's only mate needs the loser's king to leave a corner it
// cannot leave without stalemate: a forced move first (Kxa2), then K+B v K+R, which no
// placement mates.
TEST(Unwinnable, ForcedMoveThenMaterial) {
  UnwinnabilityResult r =
      AnalyzeUnwinnability(Fen("8/3B4/8/8/6r1/8/R7/k1K5 b - - 19 149"), Color::kWhite);
  EXPECT_EQ(r.verdict, Verdict::kUnwinnable) << r.reason;
  // The forced moves are part of a line found after them.
  const Position mate_in_forced = Fen("7k/8/6K1/8/8/8/8/6Q1 b - -");
  chess::MoveList list;
  chess::GenerateLegalMoves(mate_in_forced, &list);
  ASSERT_EQ(list.size, 1);  // Kg8
  UnwinnabilityResult w = AnalyzeUnwinnability(mate_in_forced, Color::kWhite);
  ASSERT_EQ(w.verdict, Verdict::kWinnable);
  EXPECT_TRUE(LineMates(mate_in_forced, Color::kWhite, w.line));
}

// 6.9: a lone pair of same-coloured bishops mates only with the loser's own men as blockers, by
// a long narrow line (the depth-first search for a weak winner finds it; libs/chess replays it).
TEST(Unwinnable, WeakWinnerLongLine) {
  const Position pos = Fen("8/k3B1r1/1p6/p7/3q1B2/5n2/8/1K3b2 w - - 11 110");
  UnwinnabilityResult r = AnalyzeUnwinnability(pos, Color::kWhite);
  ASSERT_EQ(r.verdict, Verdict::kWinnable) << r.reason;
  EXPECT_TRUE(LineMates(pos, Color::kWhite, r.line));
}

}  // namespace
}  // namespace analysis
