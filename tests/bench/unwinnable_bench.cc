// Unwinnability over real game endings (tests/data/unwinnable_positions.txt, made by
// unwinnable_positions_gen): every position is asked for both sides. Prints positions per
// second, mean / median / p99 / max time per question, the undetermined rate and the verdicts by
// method, and checks soundness:
//   - every "winnable" line is replayed by libs/chess and must end in mate by that side;
//   - along one game, what a side can mate from a later position it can mate from an earlier
//     one (so "unwinnable" earlier and "winnable" later is a contradiction);
//   - a position libs/chess calls dead by material must be unwinnable for both.
// Exits 1 on any unsound verdict.
//
//   bazel run //tests/bench:unwinnable_bench -- $PWD/tests/data/unwinnable_positions.txt
//   (--max-nodes N: the search limit, default that of SearchLimits; --max-undetermined-pct P and
//   --max-mean-us U fail the run above those marks)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "libs/analysis/unwinnable.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"

namespace {

struct Entry {
  std::string fen;
  std::string kind;
  std::string game;
  chess::Position pos = chess::Position::Initial();
  analysis::Verdict verdict[2];
};

}  // namespace

int main(int argc, char** argv) {
  std::string path = "tests/data/unwinnable_positions.txt";
  double max_undetermined_pct = 100, max_mean_us = 1e18;
  analysis::SearchLimits limits;  // the defaults, as arbiterctl uses them
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--max-undetermined-pct" && i + 1 < argc) {
      (void)absl::SimpleAtod(argv[++i], &max_undetermined_pct);
    } else if (a == "--max-mean-us" && i + 1 < argc) {
      (void)absl::SimpleAtod(argv[++i], &max_mean_us);
    } else if (a == "--max-nodes" && i + 1 < argc) {
      (void)absl::SimpleAtoi(argv[++i], &limits.max_nodes);
    } else {
      path = a;
    }
  }
  std::ifstream in(path);
  if (!in) {
    std::cerr << "cannot open " << path << "\n";
    return 2;
  }
  std::vector<Entry> entries;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, ';');
    if (f.size() != 3) continue;
    absl::StatusOr<chess::Position> pos = chess::ParseFen(f[0]);
    if (!pos.ok()) {
      std::cerr << "bad FEN " << f[0] << "\n";
      return 2;
    }
    entries.push_back({f[0], f[1], f[2], *pos, {}});
  }

  std::vector<double> us;
  std::map<std::string, int> by_method;
  int undetermined = 0, unsound = 0, dead = 0;
  const auto start_all = std::chrono::steady_clock::now();
  for (Entry& e : entries) {
    for (chess::Color side : {chess::Color::kWhite, chess::Color::kBlack}) {
      const auto t0 = std::chrono::steady_clock::now();
      analysis::UnwinnabilityResult r = analysis::AnalyzeUnwinnability(e.pos, side, limits);
      const auto t1 = std::chrono::steady_clock::now();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      e.verdict[chess::Index(side)] = r.verdict;
      if (us.back() > 20000) {
        std::cerr << "slow " << static_cast<long>(us.back()) << " us, "
                  << analysis::VerdictName(r.verdict) << "/" << analysis::MethodName(r.method)
                  << ", " << r.nodes << " nodes, " << r.line.size() << " plies: " << e.fen << " "
                  << chess::ColorName(side) << "\n";
      }
      ++by_method[std::string(analysis::VerdictName(r.verdict)) + "/" +
                  std::string(analysis::MethodName(r.method))];
      if (r.verdict == analysis::Verdict::kUndetermined) {
        ++undetermined;
        std::cerr << "undetermined: " << e.fen << " " << chess::ColorName(side) << "\n";
      }
      if (r.verdict == analysis::Verdict::kWinnable && !analysis::LineMates(e.pos, side, r.line)) {
        ++unsound;
        std::cerr << "UNSOUND (line does not mate): " << e.fen << " " << chess::ColorName(side)
                  << "\n";
      }
    }
    if (e.verdict[0] == analysis::Verdict::kUnwinnable &&
        e.verdict[1] == analysis::Verdict::kUnwinnable) {
      ++dead;
    }
    if (e.pos.IsInsufficientMaterial() && (e.verdict[0] == analysis::Verdict::kWinnable ||
                                           e.verdict[1] == analysis::Verdict::kWinnable)) {
      ++unsound;
      std::cerr << "UNSOUND (winnable with insufficient material): " << e.fen << "\n";
    }
  }
  const double total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_all).count();
  // Along a game: an earlier position can reach every later one.
  std::map<std::string, std::vector<const Entry*>> games;
  for (const Entry& e : entries) games[e.game].push_back(&e);
  int pairs = 0;
  for (const auto& [id, list] : games) {
    for (size_t i = 0; i + 1 < list.size(); ++i) {
      for (int c = 0; c < 2; ++c) {
        ++pairs;
        if (list[i]->verdict[c] == analysis::Verdict::kUnwinnable &&
            list[i + 1]->verdict[c] == analysis::Verdict::kWinnable) {
          ++unsound;
          std::cerr << "UNSOUND (unwinnable before, winnable later) game " << id << "\n";
        }
      }
    }
  }

  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double v : us) sum += v;
  const size_t n = us.size();
  const double mean = n ? sum / n : 0;
  std::printf("search limit: %lld positions per question\n",
              static_cast<long long>(limits.max_nodes));
  std::printf("positions: %zu, questions (position x side): %zu, game pairs checked: %d\n",
              entries.size(), n, pairs);
  std::printf("total %.3f s, %.0f questions/s\n", total_s, n / total_s);
  std::printf("time per question: mean %.1f us, median %.1f us, p99 %.1f us, max %.1f us\n", mean,
              n ? sorted[n / 2] : 0.0, n ? sorted[n * 99 / 100] : 0.0, n ? sorted.back() : 0.0);
  std::printf("undetermined: %d (%.3f %%), dead positions: %d, unsound: %d\n", undetermined,
              n ? 100.0 * undetermined / n : 0.0, dead, unsound);
  for (const auto& [k, v] : by_method) std::printf("  %-28s %d\n", k.c_str(), v);
  std::map<std::string, int> kinds;
  for (const Entry& e : entries) ++kinds[e.kind];
  for (const auto& [k, v] : kinds) std::printf("  kind %-20s %d\n", k.c_str(), v);
  if (unsound > 0) return 1;
  if (n && 100.0 * undetermined / n > max_undetermined_pct) return 1;
  if (mean > max_mean_us) return 1;
  return 0;
}
