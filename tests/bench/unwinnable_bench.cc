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
//
//   bazel run //tests/bench:unwinnable_bench -- --potential
//   Mating potential (1997 C4) instead, over the small material classes built in
//   below (minor pieces against pawns and minor pieces): verdict, method, positions generated and
//   time per question; every "winnable" line is replayed and must reach a position where the
//   opponent cannot prevent mate (CannotPreventMateNextMove). Exits 1 on an unsound answer.
//
//   Side by side with CHA (the Chess Unwinnability Analyzer, github.com/miguel-ambrona/D3-Chess,
//   built outside the tree: see tests/bench/cha_side_by_side.sh), the same questions to both:
//   bazel run -c opt //tests/bench:unwinnable_bench -- --vectors D3-Chess/tests/test-vector.txt \
//       --peer /tmp/cha/cha
//   --vectors FILE: CHA's test vectors ("WB FEN", "W- FEN", "-B FEN", "-- FEN": the expected
//     verdict for each side), both sides asked, every answer checked against the expectation;
//   --games FILE: "FEN id" lines (D3-Chess tests/lichess-30K-games.txt, final positions of
//     timeout games), one question each: can the side not to move (the one whose opponent
//     flagged, 6.9) still mate;
//   --peer BIN: also feed the questions ("FEN white|black") to BIN, CHA's command-line tool in
//     its default (full) analysis, and compare: mean time per question (ours measured here, the
//     peer's as it reports it), undetermined answers, contradictions between the two and with the
//     expected verdicts. FENs our reader refuses (unreachable setups) are asked of neither.
//   --positions FILE also takes --peer (both sides of every position).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
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

// FEN and the side asked about; the classes of AnalyzeMatingPotential's constructive proofs
// (rook pawns, pawns about to promote, the loser's pieces as blockers) and a few controls.
struct PotentialCase {
  const char* fen;
  chess::Color side;
};
constexpr PotentialCase kPotentialCases[] = {
    // K+B v K+P
    {"8/7p/8/8/2k5/8/8/B3K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/8/3k4/8/4p3/8/2B1K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/8/8/8/2k5/p7/4K2B w - - 0 1", chess::Color::kWhite},
    {"4k3/8/1b6/8/8/8/3P4/4K3 b - - 0 1", chess::Color::kBlack},
    {"7K/8/8/8/8/k7/1p6/5B2 b - - 0 1", chess::Color::kWhite},
    // K+N v K+P
    {"8/7p/8/8/2k5/8/8/N3K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/3k4/8/8/4p3/8/4KN2 w - - 0 1", chess::Color::kWhite},
    {"8/8/8/8/4k3/8/1p6/4K1N1 w - - 0 1", chess::Color::kWhite},
    {"3nk3/8/8/8/8/8/P7/4K3 w - - 0 1", chess::Color::kBlack},
    {"8/p7/8/8/8/5k2/8/1N2K3 b - - 0 1", chess::Color::kWhite},
    {"8/8/8/8/7p/8/5k2/N6K w - - 0 1", chess::Color::kWhite},
    {"k7/8/8/8/8/7p/8/N6K w - - 0 1", chess::Color::kWhite},
    {"8/8/8/8/8/p1N5/8/k1K5 w - - 0 1", chess::Color::kWhite},
    {"4k3/8/8/8/8/8/7P/1n2K3 b - - 0 1", chess::Color::kBlack},
    {"8/8/8/8/8/2k5/p7/4K1N1 w - - 0 1", chess::Color::kWhite},
    // K+N+N v K+P
    {"8/8/8/4k3/8/8/4p3/1N2K1N1 w - - 0 1", chess::Color::kWhite},
    {"8/p7/8/8/3k4/8/8/1N2K1N1 w - - 0 1", chess::Color::kWhite},
    {"7k/8/8/8/8/7p/8/N3K1N1 b - - 0 1", chess::Color::kWhite},
    {"1n2k1n1/8/8/8/8/3P4/8/4K3 b - - 0 1", chess::Color::kBlack},
    // K+B v K+P+P
    {"8/8/8/p2kp3/8/8/1B6/4K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/8/3k3p/8/2p5/8/2B1K3 b - - 0 1", chess::Color::kWhite},
    // K+minor v K+minor
    {"8/8/3k4/8/3n4/8/8/2B1K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/3k4/8/3b4/8/8/2N1K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/3k4/8/3n4/8/8/2N1K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/3k4/8/4b3/8/8/2B1K3 w - - 0 1", chess::Color::kWhite},
    // K+minor v K+R, K+R v K+minor
    {"8/8/3k4/8/3r4/8/8/2B1K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/3k4/8/3r4/8/8/2N1K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/3k4/8/3n4/8/8/R3K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/3k4/8/3b4/8/8/R3K3 w - - 0 1", chess::Color::kWhite},
    // controls: K+N+N v K (insufficient, C4), K+B v K (no mate at all)
    {"8/8/3k4/8/8/8/2NN4/4K3 w - - 0 1", chess::Color::kWhite},
    {"8/8/3k4/8/8/8/8/2B1K3 w - - 0 1", chess::Color::kWhite},
};

int RunPotential(const analysis::SearchLimits& limits) {
  int unsound = 0, undetermined = 0;
  double total_us = 0;
  std::printf("%-40s %-5s %-12s %-14s %9s %10s %5s\n", "fen", "side", "verdict", "method", "nodes",
              "us", "plies");
  for (const PotentialCase& c : kPotentialCases) {
    absl::StatusOr<chess::Position> pos = chess::ParseFen(c.fen);
    if (!pos.ok()) {
      std::cerr << "bad FEN " << c.fen << "\n";
      return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    analysis::UnwinnabilityResult r = analysis::AnalyzeMatingPotential(*pos, c.side, limits);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    total_us += us;
    if (r.verdict == analysis::Verdict::kUndetermined) ++undetermined;
    if (r.verdict == analysis::Verdict::kWinnable) {
      chess::Position p = *pos;
      bool legal = true;
      for (chess::Move m : r.line) legal = legal && p.Play(m).ok();
      const bool mated = p.side_to_move() == ~c.side && p.IsCheckmate();
      if (!legal || !(mated || analysis::CannotPreventMateNextMove(p, c.side))) {
        ++unsound;
        std::cerr << "UNSOUND (line does not reach C4's position): " << c.fen << "\n";
      }
    }
    std::string fen = c.fen;
    fen = fen.substr(0, fen.find(' '));
    std::printf("%-40s %-5s %-12s %-14s %9lld %10.0f %5zu\n", fen.c_str(),
                c.side == chess::Color::kWhite ? "white" : "black",
                std::string(analysis::VerdictName(r.verdict)).c_str(),
                std::string(analysis::MethodName(r.method)).c_str(),
                static_cast<long long>(r.nodes), us, r.line.size());
  }
  std::printf("total %.0f us, undetermined %d, unsound %d\n", total_us, undetermined, unsound);
  return unsound > 0 ? 1 : 0;
}

// One question for the side-by-side runs: can `side` mate from `fen`? `expected` is 'W' / 'U'
// (winnable / unwinnable) when the data says, '?' otherwise.
struct Question {
  std::string fen;
  chess::Position pos = chess::Position::Initial();
  chess::Color side = chess::Color::kWhite;
  char expected = '?';
  analysis::Verdict ours = analysis::Verdict::kUndetermined;
  analysis::Verdict peer = analysis::Verdict::kUndetermined;
  double ours_us = 0;
};

// CHA's test vectors: "XY FEN" with X = 'W' when White can mate, Y = 'B' when Black can.
bool ReadVectors(const std::string& path, std::vector<Question>* out, int* refused) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.size() < 4) continue;
    const std::string tag = line.substr(0, 2);
    const std::string fen(absl::StripAsciiWhitespace(line.substr(3)));
    absl::StatusOr<chess::Position> pos = chess::ParseFenTolerant(fen);
    if (!pos.ok()) {
      *refused += 2;
      continue;
    }
    out->push_back({fen, *pos, chess::Color::kWhite, tag[0] == 'W' ? 'W' : 'U'});
    out->push_back({fen, *pos, chess::Color::kBlack, tag[1] == 'B' ? 'W' : 'U'});
  }
  return true;
}

// "FEN id": the side not to move (the flag fell for the side to move).
bool ReadGames(const std::string& path, std::vector<Question>* out, int* refused) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    const size_t cut = line.rfind(' ');
    if (cut == std::string::npos) continue;
    const std::string fen = line.substr(0, cut);
    absl::StatusOr<chess::Position> pos = chess::ParseFenTolerant(fen);
    if (!pos.ok()) {
      ++*refused;
      continue;
    }
    out->push_back({fen, *pos, ~pos->side_to_move(), '?'});
  }
  return true;
}

// Runs `peer` on every question (one process, questions on stdin); fills q.peer and returns the
// peer's mean time per question in microseconds (from its closing "avg: X us" line), -1 on error.
double RunPeer(const std::string& peer, std::vector<Question>& qs) {
  char tmpl[] = "/tmp/unwinnable_peer_XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) return -1;
  close(fd);
  {
    std::ofstream out(tmpl);
    for (const Question& q : qs) {
      out << q.fen << " " << (q.side == chess::Color::kWhite ? "white" : "black") << "\n";
    }
  }
  const std::string cmd = peer + " < " + tmpl;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  size_t i = 0;
  double avg = -1;
  char buf[1 << 14];
  while (std::fgets(buf, sizeof buf, p) != nullptr) {
    const std::string l = buf;
    analysis::Verdict v;
    if (absl::StartsWith(l, "winnable")) {
      v = analysis::Verdict::kWinnable;
    } else if (absl::StartsWith(l, "unwinnable")) {
      v = analysis::Verdict::kUnwinnable;
    } else if (absl::StartsWith(l, "undetermined")) {
      v = analysis::Verdict::kUndetermined;
    } else {
      const size_t at = l.find("avg: ");
      if (at != std::string::npos) {
        (void)absl::SimpleAtod(l.substr(at + 5, l.find(' ', at + 5) - at - 5), &avg);
      }
      continue;
    }
    if (i < qs.size()) qs[i++].peer = v;
  }
  pclose(p);
  std::remove(tmpl);
  if (i != qs.size()) {
    std::cerr << "peer answered " << i << " of " << qs.size() << " questions\n";
    return -1;
  }
  return avg;
}

int RunQuestions(std::vector<Question>& qs, int refused, const analysis::SearchLimits& limits,
                 const std::string& peer, double max_undetermined_pct, double max_mean_us) {
  int undetermined = 0, unsound = 0, wrong = 0;
  std::map<std::string, int> by_method;
  double sum = 0;
  for (Question& q : qs) {
    const auto t0 = std::chrono::steady_clock::now();
    analysis::UnwinnabilityResult r = analysis::AnalyzeUnwinnability(q.pos, q.side, limits);
    q.ours_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    sum += q.ours_us;
    q.ours = r.verdict;
    ++by_method[std::string(analysis::VerdictName(r.verdict)) + "/" +
                std::string(analysis::MethodName(r.method))];
    const std::string who = q.fen + " " + std::string(chess::ColorName(q.side));
    if (r.verdict == analysis::Verdict::kUndetermined) {
      ++undetermined;
      std::cerr << "undetermined: " << who << "\n";
    }
    if (r.verdict == analysis::Verdict::kWinnable && !analysis::LineMates(q.pos, q.side, r.line)) {
      ++unsound;
      std::cerr << "UNSOUND (line does not mate): " << who << "\n";
    }
    if ((q.expected == 'W' && r.verdict == analysis::Verdict::kUnwinnable) ||
        (q.expected == 'U' && r.verdict == analysis::Verdict::kWinnable)) {
      ++wrong;
      std::cerr << "CONTRADICTS the expected verdict: " << who << "\n";
    }
  }
  const double mean = qs.empty() ? 0 : sum / qs.size();
  std::vector<double> sorted;
  for (const Question& q : qs) sorted.push_back(q.ours_us);
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  std::printf("questions: %zu (refused as unreachable setups: %d), search limit %lld\n", n, refused,
              static_cast<long long>(limits.max_nodes));
  std::printf("ours: mean %.1f us, median %.1f us, p99 %.1f us, max %.1f us per question\n", mean,
              n ? sorted[n / 2] : 0.0, n ? sorted[n * 99 / 100] : 0.0, n ? sorted.back() : 0.0);
  std::printf("ours: undetermined %d (%.2f %%), unsound lines %d, contradicting expected %d\n",
              undetermined, n ? 100.0 * undetermined / n : 0.0, unsound, wrong);
  for (const auto& [k, v] : by_method) std::printf("  %-28s %d\n", k.c_str(), v);
  int contradictions = 0;
  if (!peer.empty()) {
    const double peer_mean = RunPeer(peer, qs);
    if (peer_mean < 0) {
      std::cerr << "peer " << peer << " failed\n";
      return 2;
    }
    int peer_undetermined = 0, peer_wrong = 0, only_ours = 0, only_peer = 0;
    for (const Question& q : qs) {
      const std::string who = q.fen + " " + std::string(chess::ColorName(q.side));
      const bool ours_known = q.ours != analysis::Verdict::kUndetermined;
      const bool peer_known = q.peer != analysis::Verdict::kUndetermined;
      if (!peer_known) ++peer_undetermined;
      if (ours_known && !peer_known) ++only_ours;
      if (!ours_known && peer_known) {
        ++only_peer;
        std::cerr << "undetermined by us only (peer: " << analysis::VerdictName(q.peer)
                  << "): " << who << "\n";
      }
      if (ours_known && peer_known && q.ours != q.peer) {
        ++contradictions;
        std::cerr << "CONTRADICTION with the peer: " << who << "\n";
      }
      if ((q.expected == 'W' && q.peer == analysis::Verdict::kUnwinnable) ||
          (q.expected == 'U' && q.peer == analysis::Verdict::kWinnable)) {
        ++peer_wrong;
      }
    }
    std::printf(
        "peer: mean %.1f us per question (its own measure), undetermined %d (%.2f %%), "
        "contradicting expected %d\n",
        peer_mean, peer_undetermined, n ? 100.0 * peer_undetermined / n : 0.0, peer_wrong);
    std::printf(
        "side by side: ours/peer time %.2f, decided by us only %d, by the peer only %d, "
        "contradictions %d\n",
        peer_mean > 0 ? mean / peer_mean : 0.0, only_ours, only_peer, contradictions);
  }
  if (unsound > 0 || wrong > 0 || contradictions > 0) return 1;
  if (n && 100.0 * undetermined / n > max_undetermined_pct) return 1;
  if (mean > max_mean_us) return 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = "tests/data/unwinnable_positions.txt";
  double max_undetermined_pct = 100, max_mean_us = 1e18;
  analysis::SearchLimits limits;  // the defaults, as arbiterctl uses them
  bool potential = false;
  std::string vectors, games_file, peer;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--potential") {
      potential = true;
    } else if (a == "--vectors" && i + 1 < argc) {
      vectors = argv[++i];
    } else if (a == "--games" && i + 1 < argc) {
      games_file = argv[++i];
    } else if (a == "--fen" && i + 2 < argc) {
      // One question, explained: --fen "FEN" white|black
      absl::StatusOr<chess::Position> pos = chess::ParseFenTolerant(argv[i + 1]);
      if (!pos.ok()) {
        std::cerr << pos.status() << "\n";
        return 2;
      }
      const chess::Color side =
          std::string(argv[i + 2]) == "black" ? chess::Color::kBlack : chess::Color::kWhite;
      const auto t0 = std::chrono::steady_clock::now();
      analysis::UnwinnabilityResult r = analysis::AnalyzeUnwinnability(*pos, side, limits);
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%s/%s, %lld nodes, %.0f us: %s\n",
                  std::string(analysis::VerdictName(r.verdict)).c_str(),
                  std::string(analysis::MethodName(r.method)).c_str(),
                  static_cast<long long>(r.nodes), us, r.reason.c_str());
      return 0;
    } else if (a == "--peer" && i + 1 < argc) {
      peer = argv[++i];
    } else if (a == "--max-undetermined-pct" && i + 1 < argc) {
      (void)absl::SimpleAtod(argv[++i], &max_undetermined_pct);
    } else if (a == "--max-mean-us" && i + 1 < argc) {
      (void)absl::SimpleAtod(argv[++i], &max_mean_us);
    } else if (a == "--max-nodes" && i + 1 < argc) {
      (void)absl::SimpleAtoi(argv[++i], &limits.max_nodes);
    } else {
      path = a;
    }
  }
  if (potential) return RunPotential(limits);
  if (!vectors.empty() || !games_file.empty() || !peer.empty()) {
    std::vector<Question> qs;
    int refused = 0;
    bool ok = true;
    if (!vectors.empty()) {
      ok = ReadVectors(vectors, &qs, &refused);
    } else if (!games_file.empty()) {
      ok = ReadGames(games_file, &qs, &refused);
    } else {
      std::ifstream in(path);
      std::string line;
      ok = static_cast<bool>(in);
      while (ok && std::getline(in, line)) {
        std::vector<std::string> f = absl::StrSplit(line, ';');
        if (f.size() != 3) continue;
        absl::StatusOr<chess::Position> pos = chess::ParseFen(f[0]);
        if (!pos.ok()) {
          ++refused;
          continue;
        }
        qs.push_back({f[0], *pos, chess::Color::kWhite, '?'});
        qs.push_back({f[0], *pos, chess::Color::kBlack, '?'});
      }
    }
    if (!ok) {
      std::cerr << "cannot open the question file\n";
      return 2;
    }
    return RunQuestions(qs, refused, limits, peer, max_undetermined_pct, max_mean_us);
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
