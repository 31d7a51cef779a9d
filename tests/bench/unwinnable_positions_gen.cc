// Assembles the benchmark positions of tests/data/unwinnable_positions.txt: real game endings,
// from games played to their end with libs/chess deciding every rule.
//
//   random games   uniformly random legal moves until checkmate, stalemate, dead by material,
//                  fivefold repetition or 75 moves (2023 9.6: the automatic ends), or 800 plies.
//                  Kept: the final position ("random-end") and the one 20 plies earlier
//                  ("random-pre").
//   engine games   Stockfish (nodes per move) after 8 random plies, until checkmate, stalemate,
//                  dead by material, a threefold repetition or 50 moves (9.2 / 9.3, as claimed),
//                  or 400 plies. Kept: the final position ("engine-end") and one position at a
//                  random ply, where a flag might have fallen ("engine-flag").
//
// Each output line: "<FEN>;<kind>;<game id>". Positions of one game share the id, so the
// benchmark can check that verdicts agree along a game (what one side can mate from a later
// position it can mate from an earlier one).
//
//   bazel run //tests/bench:unwinnable_positions_gen -- --random 2500 --engine 300 \
//       > tests/data/unwinnable_positions.txt
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "libs/analysis/engine_pool.h"
#include "libs/chess/fen.h"
#include "libs/chess/game.h"
#include "libs/chess/movegen.h"

namespace {

struct Options {
  int random_games = 2500;
  int engine_games = 300;
  int engine_nodes = 3000;
  unsigned seed = 20240501;
};

chess::Move RandomMove(const chess::Position& pos, std::mt19937_64& rng) {
  chess::MoveList list;
  chess::GenerateLegalMoves(pos, &list);
  return list.moves[std::uniform_int_distribution<int>(0, list.size - 1)(rng)];
}

void Emit(const chess::Position& pos, const char* kind, const std::string& id) {
  std::cout << chess::ToFen(pos) << ";" << kind << ";" << id << "\n";
}

void RandomGames(const Options& o, std::mt19937_64& rng) {
  for (int g = 0; g < o.random_games; ++g) {
    chess::Game game(chess::Position::Initial());
    while (game.moves().size() < 800) {
      const chess::Position& p = game.position();
      if (!p.HasLegalMoves() || p.IsInsufficientMaterial() || game.IsFivefoldRepetition() ||
          game.IsSeventyFiveMoveRule()) {
        break;
      }
      (void)game.Play(RandomMove(p, rng));
    }
    const std::string id = "r" + std::to_string(g);
    const auto& positions = game.positions();
    if (positions.size() > 21) Emit(positions[positions.size() - 21], "random-pre", id);
    Emit(game.position(), "random-end", id);
  }
}

int EngineGames(const Options& o, std::mt19937_64& rng) {
  auto pool = analysis::EnginePool::Create({.size = 1, .hash_mb = 16});
  if (!pool.ok()) {
    std::cerr << "no engine: " << pool.status() << "\n";
    return 1;
  }
  for (int g = 0; g < o.engine_games; ++g) {
    chess::Game game(chess::Position::Initial());
    for (int i = 0; i < 8 && game.position().HasLegalMoves(); ++i) {
      (void)game.Play(RandomMove(game.position(), rng));
    }
    while (game.moves().size() < 400) {
      const chess::Position& p = game.position();
      if (!p.HasLegalMoves() || p.IsInsufficientMaterial() || game.ThreefoldClaim().now ||
          game.FiftyMoveClaim().now) {
        break;
      }
      auto a = (*pool)->Analyze(game.start(), game.moves(), {.nodes = o.engine_nodes},
                                absl::Now() + absl::Seconds(30));
      if (!a.ok() || a->best_move.is_null()) {
        std::cerr << "engine failed: " << a.status() << "\n";
        return 1;
      }
      (void)game.Play(a->best_move);
    }
    const std::string id = "e" + std::to_string(g);
    const auto& positions = game.positions();
    const size_t flag_ply = std::uniform_int_distribution<size_t>(8, positions.size() - 1)(rng);
    Emit(positions[flag_ply], "engine-flag", id);
    Emit(game.position(), "engine-end", id);
    std::cerr << "engine game " << g << ": " << game.moves().size() << " plies\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    int v = 0;
    if (!absl::SimpleAtoi(argv[i + 1], &v)) continue;
    if (flag == "--random") o.random_games = v;
    if (flag == "--engine") o.engine_games = v;
    if (flag == "--nodes") o.engine_nodes = v;
    if (flag == "--seed") o.seed = static_cast<unsigned>(v);
  }
  std::mt19937_64 rng(o.seed);
  RandomGames(o, rng);
  return EngineGames(o, rng);
}
