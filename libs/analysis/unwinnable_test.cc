#include "libs/analysis/unwinnable.h"

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "libs/analysis/static_proofs.h"
#include "libs/chess/fen.h"
#include "libs/chess/movegen.h"
#include "libs/chess/notation.h"
#include "libs/chess/testing/fen.h"

namespace analysis {
namespace {

using chess::Color;
using chess::Position;

using chess::testing::Fen;

std::string Uci(const std::vector<chess::Move>& line) {
  std::vector<std::string> parts;
  for (chess::Move m : line) parts.push_back(chess::ToUci(m));
  return absl::StrJoin(parts, " ");
}

// Every winnable answer is replayed move by move with libs/chess and must end in checkmate by
// that side (the soundness contract of unwinnable.h).
void ExpectReplayMates(const Position& pos, Color winner, const UnwinnabilityResult& r) {
  ASSERT_EQ(r.verdict, Verdict::kWinnable) << r.reason;
  Position p = pos;
  for (chess::Move m : r.line) {
    ASSERT_TRUE(p.Play(m).ok()) << "illegal move " << chess::ToUci(m) << " in " << Uci(r.line);
  }
  EXPECT_TRUE(p.IsCheckmate()) << Uci(r.line);
  EXPECT_EQ(p.side_to_move(), ~winner) << Uci(r.line);
  EXPECT_TRUE(LineMates(pos, winner, r.line));
}

UnwinnabilityResult Expect(const std::string& fen, Color side, Verdict verdict) {
  Position pos = Fen(fen);
  UnwinnabilityResult r = AnalyzeUnwinnability(pos, side);
  EXPECT_EQ(VerdictName(r.verdict), VerdictName(verdict))
      << fen << " " << chess::ColorName(side) << ": " << r.reason;
  if (r.verdict == Verdict::kWinnable) ExpectReplayMates(pos, side, r);
  if (r.verdict != Verdict::kWinnable) {
    EXPECT_TRUE(r.line.empty());
  }
  return r;
}

// --- 5.1a / 5.2a: the game is already over ---------------------------------------------------

TEST(GameOver, AlreadyMatedHasEmptyLine) {
  // Fool's mate: Black has mated.
  auto r = Expect("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", Color::kBlack,
                  Verdict::kWinnable);
  EXPECT_TRUE(r.line.empty());
  EXPECT_EQ(r.method, Method::kGameOver);
  Expect("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", Color::kWhite,
         Verdict::kUnwinnable);
}

TEST(GameOver, StalemateIsUnwinnable) {
  Expect("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Color::kWhite, Verdict::kUnwinnable);
}

TEST(Winnable, MateInOne) {
  auto r = Expect("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", Color::kWhite, Verdict::kWinnable);
  EXPECT_EQ(Uci(r.line), "a1a8");
}

TEST(Winnable, StartPositionBothSides) {
  Expect(std::string(chess::kStartFen), Color::kWhite, Verdict::kWinnable);
  Expect(std::string(chess::kStartFen), Color::kBlack, Verdict::kWinnable);
}

// --- 5.2b / 9.6: material ---------------------------------------------------------------------

TEST(Material, LoneKingCannotMate) {
  auto r =
      Expect("4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR b KQ - 0 1", Color::kBlack, Verdict::kUnwinnable);
  EXPECT_EQ(r.method, Method::kMaterial);
}

// 9.6: bishops all on squares of one colour (both sides): dead.
TEST(Material, BishopsOfOneColourOnlyAreDead) {
  const std::string fen = "4k3/8/4b3/8/8/3B4/8/4KB2 w - - 0 1";  // d3, f1, e6: light squares
  Expect(fen, Color::kWhite, Verdict::kUnwinnable);
  Expect(fen, Color::kBlack, Verdict::kUnwinnable);
  DeadPositionResult d = AnalyzeDeadPosition(Fen(fen));
  EXPECT_TRUE(d.dead());
}

// Opposite-coloured bishops: the defender's bishop can block its own king, so either side can
// be mated with help. Alive.
TEST(Material, OppositeColouredBishopsAreAlive) {
  const std::string fen = "4k3/8/4b3/8/8/2B5/8/4K3 w - - 0 1";  // c3 dark, e6 light
  Expect(fen, Color::kWhite, Verdict::kWinnable);
  Expect(fen, Color::kBlack, Verdict::kWinnable);
  EXPECT_FALSE(AnalyzeDeadPosition(Fen(fen)).dead());
}

TEST(Material, KnightAgainstBareKing) {
  Expect("8/8/3k4/8/8/8/2N5/4K3 w - - 0 1", Color::kWhite, Verdict::kUnwinnable);
}

// K+N v K+P: the knight mates only with the pawn blocking its own king; the loser must walk
// into the corner and the winner bring king and knight: a long cooperative line.
TEST(Winnable, KnightMatesOnlyWithTheOpponentsLongHelp) {
  auto r = Expect("8/7p/8/8/2k5/8/8/N3K3 w - - 0 1", Color::kWhite, Verdict::kWinnable);
  EXPECT_GE(r.line.size(), 15u) << Uci(r.line);
}

// K+N v K+Q: the queen side can mate, the knight side never (every placement enumerated: the
// queen, the only possible blocker, always attacks the checking knight).
TEST(MatePattern, KnightAgainstQueenOnlyQueenSideCanMate) {
  const std::string fen = "7q/8/8/4k3/8/8/2N5/4K3 w - - 0 1";
  auto r = Expect(fen, Color::kWhite, Verdict::kUnwinnable);
  EXPECT_EQ(r.method, Method::kMatePattern);
  Expect(fen, Color::kBlack, Verdict::kWinnable);
}

TEST(MatePattern, KnightAgainstRookCanMate) {
  Expect("7r/8/8/4k3/8/8/2N5/4K3 w - - 0 1", Color::kWhite, Verdict::kWinnable);
}

// Bishops of one colour mate only on a square of their colour; the king's neighbours of the other
// colour need blockers. Two light-squared bishops against a rook or a queen: the lone blocker,
// in the only places a mate could happen (the light corners), always captures the checker or
// interposes. Proven by enumerating every placement; the other side mates with help.
TEST(MatePattern, TwoLightBishopsAgainstRookOrQueenCannotMate) {
  for (const char* fen :
       {"4B3/8/8/2r5/8/K2B4/6k1/8 b - - 6 129", "4k3/8/4B3/8/8/2q5/8/5BK1 b - - 9 180"}) {
    auto r = Expect(fen, Color::kWhite, Verdict::kUnwinnable);
    EXPECT_EQ(r.method, Method::kMatePattern) << fen;
    Expect(fen, Color::kBlack, Verdict::kWinnable);
  }
  // Dark-squared bishops against a rook, for Black.
  auto r = Expect("8/8/2k2b2/8/R7/8/8/2b3K1 w - - 22 138", Color::kBlack, Verdict::kUnwinnable);
  EXPECT_EQ(r.method, Method::kMatePattern);
}

// The enumeration is no blanket rule: a knight can block without interposing, so two bishops of
// one colour mate with its help.
TEST(MatePattern, TwoLightBishopsAgainstKnightCanMate) {
  Expect("8/8/B7/3n1K2/8/3B4/k7/8 b - - 75 148", Color::kWhite, Verdict::kWinnable);
}

// Soundness of the bishops' enumeration against the search: over random placements of K + two
// or three light-squared bishops against K + up to two men, a position the search mates is never
// one the pattern proof calls unwinnable.
TEST(MatePattern, BishopsProofNeverContradictsAFoundMate) {
  std::uint64_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>(seed >> 33);
  };
  const std::vector<std::string> men = {"n", "B", "nn", "nB", "rB", "qB", "nq", "bB", "r", "q"};
  int mates = 0, proofs = 0;
  for (int round = 0; round < 3; ++round) {
    for (const std::string& m : men) {
      chess::Setup setup;
      auto place = [&](chess::Piece piece, chess::Bitboard allowed) {
        while (true) {
          const int sq = next() % 64;
          if (chess::IsNone(setup.board[sq]) && (allowed >> sq & 1)) {
            setup.board[sq] = piece;
            return;
          }
        }
      };
      place(chess::MakePiece(Color::kWhite, chess::PieceType::kKing), ~chess::Bitboard{0});
      place(chess::MakePiece(Color::kBlack, chess::PieceType::kKing), ~chess::Bitboard{0});
      for (int b = 0; b < 2 + round % 2; ++b) {
        place(chess::MakePiece(Color::kWhite, chess::PieceType::kBishop), chess::kLightSquares);
      }
      for (char c : m) {
        const chess::PieceType t = c == 'n'   ? chess::PieceType::kKnight
                                   : c == 'r' ? chess::PieceType::kRook
                                   : c == 'q' ? chess::PieceType::kQueen
                                              : chess::PieceType::kBishop;
        // 'B': a bishop of the other colour (dark); 'b': of the winner's colour.
        place(chess::MakePiece(Color::kBlack, t), c == 'B'   ? chess::kDarkSquares
                                                  : c == 'b' ? chess::kLightSquares
                                                             : ~chess::Bitboard{0});
      }
      absl::StatusOr<Position> pos = Position::FromSetup(setup);
      if (!pos.ok() || !pos->HasLegalMoves()) continue;
      SearchLimits limits;
      limits.max_nodes = 200000;
      const bool proof = MatePatternProof(*pos, Color::kWhite).has_value();
      proofs += proof;
      UnwinnabilityResult r = AnalyzeUnwinnability(*pos, Color::kWhite, limits);
      if (r.verdict == Verdict::kWinnable) {
        ++mates;
        EXPECT_FALSE(proof) << chess::ToFen(*pos);
        ExpectReplayMates(*pos, Color::kWhite, r);
      }
    }
  }
  EXPECT_GT(mates, 5);
  EXPECT_GT(proofs, 3);
}

// --- the search's strategies -------------------------------------------------------------------

// A winner who can mate alone takes the loser's men first (the loser walks them into capture),
// then mates the bare king: queen against queen, queen against knight, in few positions.
TEST(Search, StripsTheLosersMenThenMates) {
  SearchLimits limits;
  limits.max_nodes = 60000;
  for (const char* fen :
       {"8/3Q4/8/k7/8/1q6/8/7K w - - 23 110", "5k2/8/8/8/8/1n6/K3Q3/8 w - - 22 154"}) {
    UnwinnabilityResult r = AnalyzeUnwinnability(Fen(fen), Color::kWhite, limits);
    ExpectReplayMates(Fen(fen), Color::kWhite, r);
  }
}

// A lone minor piece mates only with the loser's men as blockers; searches driven towards
// concrete checkmates (the loser's queen as a blocker out of the way of the check, a pawn
// promoted to become one) find such lines in few positions.
TEST(Search, MateTargetsForALoneMinorPiece) {
  SearchLimits limits;
  limits.max_nodes = 100000;
  for (auto [fen, side] : {std::pair{"8/5b2/5K2/5Q2/8/8/N6k/8 b - - 12 126", Color::kBlack},
                           std::pair{"8/3k4/r7/8/8/8/7p/2B1K3 b - - 6 104", Color::kWhite},
                           std::pair{"1k6/8/8/8/1B6/B5N1/7K/8 b - - 130 221", Color::kWhite}}) {
    UnwinnabilityResult r = AnalyzeUnwinnability(Fen(fen), side, limits);
    ExpectReplayMates(Fen(fen), side, r);
  }
}

// From a timeout game (D3-Chess lichess-30K-games): White's flag fell, so 6.9 asks whether Black
// can still mate with his lone bishop (otherwise the game is drawn, as in a dead position, 9.6).
// He can, but only with White's help: the b-pawn must promote to a minor piece that blocks its
// own king (a rook or queen on b1 would take the checking bishop on b2), e.g. ...Kb3, Nb1 and
// Bb2#. The mate target for the pawn as an under-promoted blocker finds it; before, the searches
// needed two million positions. The line is replayed by libs/chess.
TEST(Search, LoneBishopMatesWithAnUnderpromotedBlocker) {
  const std::string fen = "8/8/1k6/8/1P2R3/K7/8/4b3 w - - 0 1";
  UnwinnabilityResult r = Expect(fen, Color::kBlack, Verdict::kWinnable);
  // Positions generated are deterministic (no clock): found well inside the default limit.
  EXPECT_LT(r.nodes, 100000) << r.reason;
  bool underpromotes = false;
  for (chess::Move m : r.line) {
    underpromotes |=
        m.promotion() == chess::PieceType::kKnight || m.promotion() == chess::PieceType::kBishop;
  }
  EXPECT_TRUE(underpromotes) << Uci(r.line);
}

// --- locked pawns ------------------------------------------------------------------------------

// Kings only behind a locked chain: neither king can ever reach an enemy pawn. Dead.
TEST(LockedPawns, KingsOnlyBehindALockedChainAreDead) {
  const std::string fen = "8/8/1k6/p1p1p1p1/P1P1P1P1/8/8/1K6 w - - 0 1";
  auto r = Expect(fen, Color::kWhite, Verdict::kUnwinnable);
  EXPECT_EQ(r.method, Method::kLockedPawns);
  Expect(fen, Color::kBlack, Verdict::kUnwinnable);
  EXPECT_TRUE(AnalyzeDeadPosition(Fen(fen)).dead());
}

// The same chain with one white pawn free to run (g-file): alive.
TEST(LockedPawns, BreakableChainIsAlive) {
  const std::string fen = "8/8/1k6/p1p1p3/P1P1P1P1/8/8/1K6 w - - 0 1";
  Expect(fen, Color::kWhite, Verdict::kWinnable);
  EXPECT_FALSE(AnalyzeDeadPosition(Fen(fen)).dead());
}

// A bishop locked on the wrong side of the chain cannot help either side.
TEST(LockedPawns, BishopBehindTheChainCannotCheck) {
  Expect("8/8/1k6/p1p1p1p1/P1P1P1P1/8/8/1K3B2 w - - 0 1", Color::kWhite, Verdict::kUnwinnable);
}

// --- mating potential (1997 C4) ----------------------------------------------------------------

TEST(MatingPotential, TwoKnightsAreInsufficient) {
  Position pos = Fen("8/8/3k4/8/8/8/2NN4/4K3 w - - 0 1");
  EXPECT_EQ(AnalyzeUnwinnability(pos, Color::kWhite).verdict, Verdict::kWinnable);
  EXPECT_EQ(AnalyzeMatingPotential(pos, Color::kWhite).verdict, Verdict::kUnwinnable);
}

TEST(MatingPotential, RookAgainstKnightIsSufficient) {
  Position pos = Fen("8/8/3k4/8/3n4/8/8/R3K3 w - - 0 1");
  UnwinnabilityResult r = AnalyzeMatingPotential(pos, Color::kWhite);
  ASSERT_EQ(r.verdict, Verdict::kWinnable) << r.reason;
  Position p = pos;
  for (chess::Move m : r.line) ASSERT_TRUE(p.Play(m).ok());
  EXPECT_TRUE(CannotPreventMateNextMove(p, Color::kWhite));
}

// Every mate needs an underpromotion: White's only checking move is b8=N#; every other move
// (Kb8, b8=Q, b8=R, b8=B) stalemates Black and ends the game (5.2a).
TEST(Winnable, MateThatNeedsAnUnderpromotion) {
  const std::string fen = "K7/1P6/k1p5/p1P5/P7/8/8/8 w - - 0 1";
  auto r = Expect(fen, Color::kWhite, Verdict::kWinnable);
  EXPECT_EQ(Uci(r.line), "b7b8n");
  // And Black, whose pawns are locked, can never mate: dead for Black (the game is alive only
  // through White's knight promotion).
  Expect(fen, Color::kBlack, Verdict::kUnwinnable);
}

// C4 (1997): K+N+N v K has no mating potential. The static rule in AnalyzeMatingPotential rests
// on this enumeration: every placement (the lone king on a1-d1-d4, which the board's symmetry
// allows without pawns or castling), with the lone king to move, can avoid mate next move.
TEST(MatingPotential, TwoKnightsExhaustive) {
  int positions = 0;
  for (int k : {chess::kA1, chess::kB1, chess::kC1, chess::kD1, chess::kB2, chess::kC2, chess::kD2,
                chess::kC3, chess::kD3, chess::kD4}) {
    for (int w = 0; w < 64; ++w) {
      for (int n1 = 0; n1 < 64; ++n1) {
        for (int n2 = n1 + 1; n2 < 64; ++n2) {
          if (w == k || n1 == k || n2 == k || n1 == w || n2 == w) continue;
          chess::Setup setup;
          setup.board[k] = chess::MakePiece(Color::kBlack, chess::PieceType::kKing);
          setup.board[w] = chess::MakePiece(Color::kWhite, chess::PieceType::kKing);
          setup.board[n1] = chess::MakePiece(Color::kWhite, chess::PieceType::kKnight);
          setup.board[n2] = chess::MakePiece(Color::kWhite, chess::PieceType::kKnight);
          setup.turn = Color::kBlack;
          absl::StatusOr<Position> pos = Position::FromSetup(setup);
          if (!pos.ok()) continue;
          ++positions;
          ASSERT_FALSE(CannotPreventMateNextMove(*pos, Color::kWhite)) << chess::ToFen(*pos);
        }
      }
    }
  }
  EXPECT_GT(positions, 1000000);
}

// --- mating potential: the classes a static rule decides ---------------------------

// C4 (1997): the line of a "winnable" answer reaches, by legal moves, a position where the
// opponent is to move, has a legal move and cannot prevent mate next move.
void ExpectPotentialLine(const Position& pos, Color side, const UnwinnabilityResult& r) {
  ASSERT_EQ(r.verdict, Verdict::kWinnable) << chess::ToFen(pos) << ": " << r.reason;
  Position p = pos;
  for (chess::Move m : r.line) {
    ASSERT_TRUE(p.Play(m).ok()) << "illegal move " << chess::ToUci(m) << " in " << Uci(r.line);
  }
  EXPECT_TRUE(CannotPreventMateNextMove(p, side)) << chess::ToFen(p) << " after " << Uci(r.line);
}

// A position and the side whose mating potential (1997 C4) is asked.
using PotentialCase = std::pair<const char*, Color>;

// Each case's line to a goal is built and checked, in fewer than `max_nodes` positions.
void ExpectPotentialLinesBuilt(std::initializer_list<PotentialCase> cases, std::int64_t max_nodes) {
  for (auto [fen, side] : cases) {
    const Position pos = Fen(fen);
    UnwinnabilityResult r = AnalyzeMatingPotential(pos, side);
    ExpectPotentialLine(pos, side, r);
    EXPECT_LT(r.nodes, max_nodes) << fen;
  }
}

// No case has mating potential: a proof in no nodes (by `method`, when given).
void ExpectNoPotential(std::initializer_list<PotentialCase> cases,
                       std::optional<Method> method = std::nullopt) {
  for (auto [fen, side] : cases) {
    UnwinnabilityResult r = AnalyzeMatingPotential(Fen(fen), side);
    EXPECT_EQ(r.verdict, Verdict::kUnwinnable) << fen << ": " << r.reason;
    if (method.has_value()) {
      EXPECT_EQ(r.method, *method) << fen;
    }
    EXPECT_EQ(r.nodes, 0) << fen;
  }
}

// Every placement of White K + `white` against Black K + `black`, Black to move, where Black
// cannot prevent mate next move (C4's goal). Symmetry keeps it short: without pawns the black
// king stays in the triangle a1-d1-d4 (the board's eight symmetries: no castling, no pawns),
// with pawns on the files a-d (the mirror). A `black` man of type kBishop runs over both colours.
std::vector<std::string> PotentialGoals(std::vector<chess::PieceType> white,
                                        std::vector<chess::PieceType> black) {
  std::vector<chess::Piece> men = {chess::MakePiece(Color::kBlack, chess::PieceType::kKing),
                                   chess::MakePiece(Color::kWhite, chess::PieceType::kKing)};
  bool pawns = false;
  for (chess::PieceType t : white) men.push_back(chess::MakePiece(Color::kWhite, t));
  for (chess::PieceType t : black) {
    men.push_back(chess::MakePiece(Color::kBlack, t));
    pawns = pawns || t == chess::PieceType::kPawn;
  }
  std::vector<std::string> goals;
  std::vector<int> squares(men.size());
  auto place = [&](auto&& self, size_t i) -> void {
    if (i == men.size()) {
      chess::Setup setup;
      for (size_t j = 0; j < men.size(); ++j) setup.board[squares[j]] = men[j];
      setup.turn = Color::kBlack;
      absl::StatusOr<Position> pos = Position::FromSetup(setup);
      if (pos.ok() && CannotPreventMateNextMove(*pos, Color::kWhite)) {
        goals.push_back(chess::ToFen(*pos));
      }
      return;
    }
    for (int s = 0; s < 64; ++s) {
      if (i == 0) {
        const int file = s & 7, rank = s >> 3;
        if (pawns ? file > 3 : (rank > file || file > 3)) continue;
      }
      bool taken = false;
      for (size_t j = 0; j < i; ++j) taken = taken || squares[j] == s;
      // Kings apart, pawns off the back ranks (FromSetup says so too; this is only faster).
      if (taken || (i == 1 && std::abs((s & 7) - (squares[0] & 7)) <= 1 &&
                    std::abs((s >> 3) - (squares[0] >> 3)) <= 1)) {
        continue;
      }
      if (chess::TypeOf(men[i]) == chess::PieceType::kPawn && (s < 8 || s >= 56)) continue;
      squares[i] = s;
      self(self, i + 1);
    }
  };
  place(place, 0);
  return goals;
}

using PT = chess::PieceType;

// The enumerations behind NoMatingPotentialProof. K+B against K and one man: no goal with any
// man, so none after the pawn promotes, whatever it becomes.
TEST(NoMatingPotential, BishopAgainstOneManExhaustive) {
  for (PT man : {PT::kPawn, PT::kKnight, PT::kBishop, PT::kRook, PT::kQueen}) {
    std::vector<std::string> goals = PotentialGoals({PT::kBishop}, {man});
    EXPECT_TRUE(goals.empty()) << static_cast<int>(man) << ": " << goals.front();
  }
}

// K+N against K and one piece: none.
TEST(NoMatingPotential, KnightAgainstOnePieceExhaustive) {
  for (PT man : {PT::kKnight, PT::kBishop, PT::kRook, PT::kQueen}) {
    std::vector<std::string> goals = PotentialGoals({PT::kKnight}, {man});
    EXPECT_TRUE(goals.empty()) << static_cast<int>(man) << ": " << goals.front();
  }
}

// K+N against K+P: exactly the two patterns of the a1 corner with the pawn on a3, its sixth rank
// (mirrored: h1, h3). Those are PotentialPatterns' "knight against a rook pawn".
TEST(NoMatingPotential, KnightAgainstPawnOnlyRookPawnOnItsSixthRank) {
  std::vector<std::string> goals = PotentialGoals({PT::kKnight}, {PT::kPawn});
  EXPECT_EQ(absl::StrJoin(goals, ", "),
            "8/8/8/8/1N6/p7/8/k1K5 b - - 0 1, 8/8/8/8/8/p7/2K5/k1N5 b - - 0 1");
}

// K+B v K+P looks winnable: a mate exists (the pawn blocks its own king), yet C4
// asks for more, and no position of this material (or any it can become) is a goal. So the
// answer is a proof, in no nodes, for any placement: a rook pawn, a centre pawn, a pawn about to
// promote, either colour.
TEST(MatingPotential, BishopAgainstPawnHasNone) {
  ExpectNoPotential({{"8/7p/8/8/2k5/8/8/B3K3 w - - 0 1", Color::kWhite},
                     {"8/8/8/3k4/8/4p3/8/2B1K3 w - - 0 1", Color::kWhite},
                     {"8/8/8/8/8/2k5/p7/4K2B w - - 0 1", Color::kWhite},
                     {"7K/8/8/8/8/k7/1p6/5B2 b - - 0 1", Color::kWhite},
                     {"4k3/8/1b6/8/8/8/3P4/4K3 b - - 0 1", Color::kBlack}},
                    Method::kMatePattern);
  // A mate, with help, exists all the same (5.2b, 6.10 answer "winnable").
  Expect("8/8/8/8/8/2k5/p7/4K2B w - - 0 1", Color::kWhite, Verdict::kWinnable);
}

// K+N v K+P with a rook pawn that can still reach its third rank from the corner: the line is
// built (walk to the pattern), verified, in few positions. Awkward placements: the pawn on its
// initial square (two first steps), on its goal square with the winner's king in the corner, on
// the goal square already, the knight side Black.
TEST(MatingPotential, KnightAgainstRookPawnIsBuilt) {
  ExpectPotentialLinesBuilt({{"8/7p/8/8/2k5/8/8/N3K3 w - - 0 1", Color::kWhite},
                             {"8/p7/8/8/8/5k2/8/1N2K3 b - - 0 1", Color::kWhite},
                             {"8/8/8/8/7p/8/5k2/N6K w - - 0 1", Color::kWhite},
                             {"k7/8/8/8/8/7p/8/N6K w - - 0 1", Color::kWhite},
                             {"8/8/8/8/8/p1N5/8/k1K5 w - - 0 1", Color::kWhite},
                             {"3nk3/8/8/8/8/8/P7/4K3 w - - 0 1", Color::kBlack},
                             {"4k3/8/8/8/8/8/7P/1n2K3 b - - 0 1", Color::kBlack}},
                            5000);
}

// The same material where no goal can be reached: a pawn off the rook files, a rook pawn about
// to promote (it cannot go back to its third rank).
TEST(MatingPotential, KnightAgainstOtherPawnsHasNone) {
  ExpectNoPotential({{"8/8/3k4/8/8/4p3/8/4KN2 w - - 0 1", Color::kWhite},
                     {"8/8/8/8/4k3/8/1p6/4K1N1 w - - 0 1", Color::kWhite},
                     {"8/8/8/8/8/2k5/p7/4K1N1 w - - 0 1", Color::kWhite},
                     {"4k3/P7/8/8/8/8/8/2n1K3 w - - 0 1", Color::kBlack}});
}

// K+N+N v K+P, the classic: against a bare king no potential (the seed's example), with a pawn
// there is one: the lone king shut in, the pawn must move, and the mate follows. The pawn about
// to promote, on its initial square, a rook pawn, the knights Black.
TEST(MatingPotential, TwoKnightsAgainstPawnIsBuilt) {
  ExpectPotentialLinesBuilt({{"8/8/8/4k3/8/8/4p3/1N2K1N1 w - - 0 1", Color::kWhite},
                             {"8/p7/8/8/3k4/8/8/1N2K1N1 w - - 0 1", Color::kWhite},
                             {"7k/8/8/8/8/7p/8/N3K1N1 b - - 0 1", Color::kWhite},
                             {"1n2k1n1/8/8/8/8/3P4/8/4K3 b - - 0 1", Color::kBlack}},
                            10000);
}

// K+B v K+P+P: the rook pawn shuts its king in on a2, the other pawn's move is forced, Bc3#.
TEST(MatingPotential, BishopAgainstRookPawnAndPawnIsBuilt) {
  ExpectPotentialLinesBuilt({{"8/8/8/p2kp3/8/8/1B6/4K3 w - - 0 1", Color::kWhite}}, 5000);
}

// K+minor v K+minor (and v K+R, K+Q): no potential, in no nodes.
TEST(MatingPotential, MinorAgainstPieceHasNone) {
  for (const char* fen :
       {"8/8/3k4/8/3n4/8/8/2B1K3 w - - 0 1", "8/8/3k4/8/3b4/8/8/2N1K3 w - - 0 1",
        "8/8/3k4/8/3n4/8/8/2N1K3 w - - 0 1", "8/8/3k4/8/4b3/8/8/2B1K3 w - - 0 1",
        "8/8/3k4/8/3r4/8/8/2N1K3 w - - 0 1", "8/8/3k4/8/3q4/8/8/2B1K3 w - - 0 1"}) {
    ExpectNoPotential({{fen, Color::kWhite}});
  }
}

// --- limits ------------------------------------------------------------------------------------

TEST(Limits, NodeLimitGivesUndetermined) {
  SearchLimits limits;
  limits.max_nodes = 50;
  UnwinnabilityResult r =
      AnalyzeUnwinnability(Fen("8/7p/8/8/2k5/8/8/N3K3 w - - 0 1"), Color::kWhite, limits);
  EXPECT_EQ(r.verdict, Verdict::kUndetermined);
  EXPECT_EQ(r.method, Method::kLimit);
}

TEST(Limits, CancellationGivesUndetermined) {
  std::atomic<bool> cancel{true};
  SearchLimits limits;
  limits.cancel = &cancel;
  UnwinnabilityResult r =
      AnalyzeUnwinnability(Fen("8/7p/8/8/2k5/8/8/N3K3 w - - 0 1"), Color::kWhite, limits);
  EXPECT_EQ(r.verdict, Verdict::kUndetermined);
}

}  // namespace
}  // namespace analysis
