// The move path's domain cost: Decide (validation, the clock's press, what the move ends) and
// applying its events, per move of a real game, with the dead-position checks of 5.2b / 9.6 on
// (LocalAnalyst after captures, pawn moves and promotions) and off (an analyst that never
// searches), so their cost per move is the difference. And a replica's cost of a game it holds:
// the heap of one cached state (BM_CachedStateBytes) and the replay of a game's log when the cache
// has not got it (BM_ReplayGame), at ply 43 and 80.
//
//   bazel run -c opt //libs/arbitration:rulings_benchmark
#include <malloc.h>

#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"

namespace arbitration {
namespace {

// Kasparov - Topalov, Wijk aan Zee 1999, the first 44 moves: captures, pawn moves, checks.
const std::vector<std::string> kGame = {
    "e4",   "d6",   "d4",   "Nf6",   "Nc3",  "g6",   "Be3",   "Bg7",   "Qd2",  "c6",    "f3",
    "b5",   "Nge2", "Nbd7", "Bh6",   "Bxh6", "Qxh6", "Bb7",   "a3",    "e5",   "O-O-O", "Qe7",
    "Kb1",  "a6",   "Nc1",  "O-O-O", "Nb3",  "exd4", "Rxd4",  "c5",    "Rd1",  "Nb6",   "g3",
    "Kb8",  "Na5",  "Ba8",  "Bh3",   "d5",   "Qf4+", "Ka7",   "Rhe1",  "d4",   "Nd5",   "Nbxd5",
    "exd5", "Qd6",  "Rxd4", "cxd4",  "Re7+", "Kb6",  "Qxd4+", "Kxa5",  "b4+",  "Ka4",   "Qc3",
    "Qxd5", "Ra7",  "Bb7",  "Rxb7",  "Qc4",  "Qxf6", "Kxa3",  "Qxa6+", "Kxb4", "c3+",   "Kxc3",
    "Qa1+", "Kd2",  "Qb2+", "Kd1",   "Bf1",  "Rd2",  "Rd7",   "Rxd7",  "Bxc4", "bxc4",  "Qxh8",
    "Rd3",  "Qa8",  "c3",   "Qa4+",  "Ke1",  "f4",   "f5",    "Kc1",   "Rd2",  "Qa7"};

class NeverSearches final : public Analyst {
 public:
  AnalystAnswer CanMate(const chess::Position&, chess::Color) override { return {}; }
  AnalystAnswer MatingPotential(const chess::Position&, chess::Color) override { return {}; }
  AnalystAnswer DeadPosition(const chess::Position&) override { return {}; }
};

GameState NewState() {
  v1::CreateGameRequest req;
  req.set_white_id("w");
  req.set_black_id("b");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  req.set_time_control("5400+30");
  GameState s = *GameState::Create(*NewGame(req, 0, v1::Actor()));
  Command start{.kind = CommandKind::kStart};
  NeverSearches none;
  return *Decide(s, start, 0, none)->after;
}

void PlayGame(benchmark::State& state, Analyst& analyst) {
  const GameState start = NewState();
  std::int64_t moves = 0;
  for (auto _ : state) {
    GameState s = start;
    std::int64_t at = 1000;
    for (const std::string& m : kGame) {
      Command c{.kind = CommandKind::kMove, .side = s.to_move(), .move = m};
      absl::StatusOr<Decision> d = Decide(s, c, at, analyst);
      if (!d.ok() || !d->refused.ok()) {
        state.SkipWithError("a move was refused");
        return;
      }
      s = *std::move(d->after);
      at += 1000;
      ++moves;
    }
  }
  state.counters["moves/s"] =
      benchmark::Counter(static_cast<double>(moves), benchmark::Counter::kIsRate);
}

void BM_MovesWithDeadPositionChecks(benchmark::State& state) {
  LocalAnalyst analyst;
  PlayGame(state, analyst);
  state.counters["searches/move"] =
      static_cast<double>(analyst.calls()) / static_cast<double>(state.iterations() * kGame.size());
}
BENCHMARK(BM_MovesWithDeadPositionChecks);

void BM_MovesWithoutDeadPositionSearch(benchmark::State& state) {
  NeverSearches analyst;
  PlayGame(state, analyst);
}
BENCHMARK(BM_MovesWithoutDeadPositionSearch);

// The states of games played to `plies`, each by its own moves, kept as a replica's state cache
// keeps them: the heap one state holds (glibc's count of bytes in use, so this binary must not
// link another allocator) and the replay of its log, what a command for a game the cache has not
// got costs before it is decided.
std::vector<GameState> PlayedStates(int games, int plies) {
  const GameState start = NewState();
  NeverSearches none;
  std::vector<GameState> out;
  out.reserve(static_cast<size_t>(games));
  for (int g = 0; g < games; ++g) {
    GameState s = start;
    s = *GameState::Replay(s.events());  // a log of its own, as a replay or a read makes it
    std::int64_t at = 1000;
    for (int i = 0; i < plies; ++i) {
      Command c{.kind = CommandKind::kMove, .side = s.to_move(), .move = kGame[i]};
      s = *std::move(Decide(s, c, at, none)->after);
      at += 1000;
    }
    out.push_back(std::move(s));
  }
  return out;
}

void BM_CachedStateBytes(benchmark::State& state) {
  const int plies = static_cast<int>(state.range(0));
  constexpr int kGames = 200;
  double bytes = 0;
  for (auto _ : state) {
    const size_t before = mallinfo2().uordblks;
    std::vector<GameState> states = PlayedStates(kGames, plies);
    bytes = static_cast<double>(mallinfo2().uordblks - before) / kGames;
    benchmark::DoNotOptimize(states);
  }
  state.counters["heap bytes/state"] = bytes;
}
BENCHMARK(BM_CachedStateBytes)->Arg(43)->Arg(80)->Iterations(3);

void BM_ReplayGame(benchmark::State& state) {
  const std::vector<GameState> played = PlayedStates(1, static_cast<int>(state.range(0)));
  const std::vector<v1::ArbitrationEvent> events = played[0].events();
  for (auto _ : state) {
    absl::StatusOr<GameState> replayed = GameState::Replay(events);
    if (!replayed.ok()) state.SkipWithError("the replay failed");
    benchmark::DoNotOptimize(replayed);
  }
}
BENCHMARK(BM_ReplayGame)->Arg(43)->Arg(80);

}  // namespace
}  // namespace arbitration

BENCHMARK_MAIN();
