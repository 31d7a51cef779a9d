// The engine pool against a real Stockfish (skipped when /usr/games/stockfish is missing) and
// against two fake engines in testdata/ (one hangs, one crashes).
#include "libs/analysis/engine_pool.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/chess/testing/fen.h"

namespace analysis {
namespace {

using ::base::HasErrorCode;

bool HaveStockfish() { return access(kDefaultEnginePath, X_OK) == 0; }

std::string TestData(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return std::string(srcdir) + "/" + workspace + "/libs/analysis/testdata/" + name;
  }
  return "libs/analysis/testdata/" + name;
}

using chess::testing::Fen;

#define REQUIRE_STOCKFISH() \
  if (!HaveStockfish()) GTEST_SKIP() << "stockfish not installed"

TEST(ParseInfoLine, ReadsScoreDepthAndLegalPv) {
  PvLine line;
  chess::Position start = chess::Position::Initial();
  ASSERT_TRUE(ParseInfoLine(
      "info depth 12 seldepth 15 multipv 2 score cp -31 nodes 1000 nps 1 pv e2e4 e7e5 e1e3 g1f3",
      start, &line));
  EXPECT_EQ(line.depth, 12);
  EXPECT_EQ(line.multipv, 2);
  EXPECT_EQ(line.score_cp, -31);
  ASSERT_EQ(line.pv.size(), 2u);  // e1e3 is illegal: the pv is cut there
  EXPECT_EQ(chess::ToUci(line.pv[1]), "e7e5");
  EXPECT_TRUE(ParseInfoLine("info depth 3 score mate -2 pv e2e4", start, &line));
  EXPECT_EQ(line.mate_in, -2);
  EXPECT_FALSE(line.score_cp.has_value());
  EXPECT_FALSE(ParseInfoLine("info depth 3 currmove e2e4 currmovenumber 1", start, &line));
  EXPECT_FALSE(ParseInfoLine("info depth 3 score cp 5 lowerbound pv e2e4", start, &line));
  EXPECT_FALSE(ParseInfoLine("info string NNUE evaluation enabled", start, &line));
}

TEST(EnginePool, MissingEngineIsUnavailable) {
  auto pool = EnginePool::Create({.engine_path = "/nonexistent/engine"});
  EXPECT_THAT(pool, HasErrorCode("ERR_ENGINE_UNAVAILABLE"));
  EXPECT_EQ(pool.status().code(), absl::StatusCode::kUnavailable);
}

TEST(EnginePool, LimitsAreChecked) {
  auto pool = EnginePool::Create({.engine_path = TestData("hung_engine.sh")});
  ASSERT_OK(pool);
  chess::Position start = chess::Position::Initial();
  EXPECT_THAT((*pool)->Analyze(start, {}, {}, absl::InfiniteFuture()),
              HasErrorCode("ERR_BAD_LIMITS"));
  EXPECT_THAT((*pool)->Analyze(start, {}, {.depth = 5, .multipv = 0}, absl::InfiniteFuture()),
              HasErrorCode("ERR_BAD_LIMITS"));
  // Moves are checked by libs/chess before the engine sees anything.
  EXPECT_THAT((*pool)->Analyze(start, {chess::Move(chess::kE2, chess::kE5)}, {.depth = 1},
                               absl::InfiniteFuture()),
              HasErrorCode("ERR_ILLEGAL_MOVE"));
}

TEST(EnginePool, HungEngineIsCutByTheDeadlineKilledAndReplaced) {
  auto pool = EnginePool::Create(
      {.engine_path = TestData("hung_engine.sh"), .stop_grace = absl::Milliseconds(200)});
  ASSERT_OK(pool);
  const pid_t before = (*pool)->IdlePids().at(0);
  const absl::Time t0 = absl::Now();
  auto r = (*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 30},
                            absl::Now() + absl::Milliseconds(300));
  EXPECT_LT(absl::Now() - t0, absl::Seconds(3));
  ASSERT_OK(r);  // the one line it reported is kept
  EXPECT_FALSE(r->complete);
  EXPECT_EQ(chess::ToUci(r->best_move), "e2e4");
  EXPECT_NE(kill(before, 0), 0);  // the hung process is gone
  // The next request gets a fresh engine.
  auto again = (*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 30},
                                absl::Now() + absl::Milliseconds(300));
  EXPECT_OK(again);
  EXPECT_GE((*pool)->restarts(), 1);
}

// The snapshot the search-analysis service exports as metrics: busy while lent, missing once a
// hung engine was killed (until the next request replaces it).
TEST(EnginePool, StatsCountIdleBusyAndMissingEngines) {
  auto pool = EnginePool::Create(
      {.engine_path = TestData("hung_engine.sh"), .stop_grace = absl::Milliseconds(200)});
  ASSERT_OK(pool);
  EnginePoolStats s = (*pool)->Stats();
  EXPECT_EQ(s.size, 1);
  EXPECT_EQ(s.idle, 1);
  EXPECT_EQ(s.busy, 0);
  EXPECT_EQ(s.missing, 0);
  std::thread request([&] {
    (void)(*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 30},
                           absl::Now() + absl::Milliseconds(300));
  });
  usleep(150000);
  s = (*pool)->Stats();
  EXPECT_EQ(s.busy, 1);
  EXPECT_EQ(s.idle, 0);
  request.join();
  s = (*pool)->Stats();
  EXPECT_EQ(s.busy, 0);
  EXPECT_EQ(s.missing, 1);
  EXPECT_EQ(s.restarts, 0);
  (void)(*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 30},
                         absl::Now() + absl::Milliseconds(100));
  EXPECT_EQ((*pool)->Stats().restarts, 1);
}

TEST(EnginePool, CrashingEngineIsRetriedOnceThenUnavailable) {
  auto pool = EnginePool::Create({.engine_path = TestData("crash_engine.sh")});
  ASSERT_OK(pool);
  auto r = (*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 3},
                            absl::Now() + absl::Seconds(10));
  EXPECT_THAT(r, HasErrorCode("ERR_ENGINE_UNAVAILABLE"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_GE((*pool)->restarts(), 1);
}

TEST(EnginePoolStockfish, AnalysesWithMultiPv) {
  REQUIRE_STOCKFISH();
  auto pool = EnginePool::Create({.size = 1});
  ASSERT_OK(pool);
  // White mates in one: Ra8#.
  auto r = (*pool)->Analyze(Fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), {},
                            {.depth = 6, .multipv = 2}, absl::Now() + absl::Seconds(20));
  ASSERT_OK(r);
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(chess::ToUci(r->best_move), "a1a8");
  ASSERT_EQ(r->lines.size(), 2u);
  EXPECT_EQ(r->lines[0].mate_in, 1);
}

TEST(EnginePoolStockfish, ConcurrentRequests) {
  REQUIRE_STOCKFISH();
  auto pool = EnginePool::Create({.size = 2});
  ASSERT_OK(pool);
  const std::vector<std::string> fens = {
      std::string(chess::kStartFen),
      "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
      "8/8/3k4/8/3n4/8/8/R3K3 w - - 0 1",
      "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
      "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
      "4k3/8/4b3/8/8/2B5/8/4K3 w - - 0 1"};
  std::vector<absl::StatusOr<EngineAnalysis>> results(fens.size(), absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < fens.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] =
          (*pool)->Analyze(Fen(fens[i]), {}, {.nodes = 20000}, absl::Now() + absl::Seconds(30));
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < fens.size(); ++i) {
    ASSERT_OK(results[i]) << fens[i];
    EXPECT_TRUE(Fen(fens[i]).IsLegal(results[i]->best_move)) << fens[i];
  }
  EXPECT_EQ((*pool)->IdlePids().size(), 2u);
}

TEST(EnginePoolStockfish, KilledEngineIsReplaced) {
  REQUIRE_STOCKFISH();
  auto pool = EnginePool::Create({.size = 1});
  ASSERT_OK(pool);
  const pid_t victim = (*pool)->IdlePids().at(0);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  usleep(50000);
  auto r = (*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 5},
                            absl::Now() + absl::Seconds(20));
  ASSERT_OK(r);
  EXPECT_GE((*pool)->restarts(), 1);
  ASSERT_EQ((*pool)->IdlePids().size(), 1u);
  EXPECT_NE((*pool)->IdlePids()[0], victim);
}

TEST(EnginePoolStockfish, DeadlineCutsALongSearch) {
  REQUIRE_STOCKFISH();
  auto pool = EnginePool::Create({.size = 1});
  ASSERT_OK(pool);
  const absl::Time t0 = absl::Now();
  auto r = (*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 99},
                            absl::Now() + absl::Milliseconds(500));
  const absl::Duration took = absl::Now() - t0;
  ASSERT_OK(r);
  EXPECT_FALSE(r->complete);
  EXPECT_FALSE(r->lines.empty());
  EXPECT_LT(took, absl::Seconds(3));
  // The engine stopped cleanly and serves the next request.
  auto next = (*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 4},
                               absl::Now() + absl::Seconds(20));
  EXPECT_OK(next);
  EXPECT_EQ((*pool)->restarts(), 0);
}

TEST(EnginePoolStockfish, CancellationStopsTheSearch) {
  REQUIRE_STOCKFISH();
  auto pool = EnginePool::Create({.size = 1});
  ASSERT_OK(pool);
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    usleep(200000);
    cancel = true;
  });
  const absl::Time t0 = absl::Now();
  auto r = (*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 99},
                            absl::Now() + absl::Seconds(30), &cancel);
  canceller.join();
  EXPECT_THAT(r, HasErrorCode("ERR_CANCELLED"));
  EXPECT_LT(absl::Now() - t0, absl::Seconds(5));
}

TEST(EnginePoolStockfish, WaitsForAFreeEngineUntilTheDeadline) {
  REQUIRE_STOCKFISH();
  auto pool = EnginePool::Create({.size = 1});
  ASSERT_OK(pool);
  std::thread busy([&] {
    (void)(*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 99},
                           absl::Now() + absl::Milliseconds(800));
  });
  usleep(100000);
  auto r = (*pool)->Analyze(chess::Position::Initial(), {}, {.depth = 3},
                            absl::Now() + absl::Milliseconds(200));
  busy.join();
  EXPECT_THAT(r, HasErrorCode("ERR_DEADLINE_EXCEEDED"));
}

}  // namespace
}  // namespace analysis
