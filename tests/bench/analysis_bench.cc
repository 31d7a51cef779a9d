// The search analysis as a neighbour of the move path (services/arbitration/README.md, "Apart from
// search-analysis"):
//   --mode=flood: keeps --threads expensive questions in flight against --target's SearchAnalysis
//     for --duration (half of them 6.10 from an opening position, each search to --nodes
//     positions; half perft to depth 6, five seconds each at most), and prints the questions
//     answered; tests/bench/analysis_bulkhead.sh runs it beside arbitration_bench.
//   --mode=cost: one 6.10 question that needs a search (K+Q v K), --iterations times in this
//     process (LocalAnalyst) and then over gRPC to --target (RemoteAnalyst, the static proofs
//     settling nothing), and prints the latency percentiles of each.
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "libs/arbitration/analyst.h"
#include "libs/chess/fen.h"
#include "libs/service/metrics.h"
#include "proto/arbiter/v1/analysis.grpc.pb.h"
#include "services/arbitration/remote_analyst.h"
#include "tests/bench/bench_util.h"

ABSL_FLAG(std::string, mode, "cost", "flood | cost");
ABSL_FLAG(std::string, target, "127.0.0.1:7070", "the search-analysis server (insecure_dev)");
ABSL_FLAG(int, threads, 8, "flood: questions in flight");
ABSL_FLAG(int64_t, nodes, 2'000'000, "flood: the node limit of each question");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(20), "flood: how long");
ABSL_FLAG(int, iterations, 300, "cost: questions asked each way");

namespace {

namespace v1 = arbiter::v1;

// 1.e4 e5 2.Nf3 Nc6: no static proof for either side, every question a search.
constexpr char kOpening[] = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
constexpr char kQueenVsKing[] = "7k/8/8/8/8/8/2Q5/K7 w - - 0 1";

int Flood() {
  auto channel =
      grpc::CreateChannel(absl::GetFlag(FLAGS_target), grpc::InsecureChannelCredentials());
  std::atomic<bool> stop{false};
  std::atomic<long> answered{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < absl::GetFlag(FLAGS_threads); ++t) {
    threads.emplace_back([&, t] {
      auto stub = v1::SearchAnalysis::NewStub(channel);
      while (!stop.load()) {
        grpc::ClientContext ctx;
        ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
        ctx.set_wait_for_ready(true);  // started before its server: it waits, not spins
        bool ok = false;
        if (t % 2 == 0) {
          v1::UnwinnableRequest req;
          req.mutable_position()->set_fen(kOpening);
          req.set_side(v1::COLOR_BLACK);
          req.mutable_limits()->set_max_nodes(absl::GetFlag(FLAGS_nodes));
          v1::UnwinnableResponse resp;
          ok = stub->Unwinnable(&ctx, req, &resp).ok();
        } else {
          v1::AnalysisPerftRequest req;
          req.mutable_position()->set_fen(kOpening);
          req.set_depth(6);
          req.set_time_limit_ms(5000);
          v1::AnalysisPerftResponse resp;
          grpc::Status st = stub->Perft(&ctx, req, &resp);
          // Stopped by its time limit is the work done all the same.
          ok = st.ok() || st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
        }
        (ok ? answered : failed)++;
      }
    });
  }
  absl::SleepFor(absl::GetFlag(FLAGS_duration));
  stop = true;
  for (std::thread& t : threads) t.join();
  std::printf("flood: %ld questions answered, %ld failed in %s\n", answered.load(), failed.load(),
              absl::FormatDuration(absl::GetFlag(FLAGS_duration)).c_str());
  return 0;
}

// Each question's latency (ms).
std::vector<double> Time(arbitration::Analyst& analyst, const chess::Position& pos, int n) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    const absl::Time start = absl::Now();
    arbitration::AnalystAnswer a = analyst.CanMate(pos, chess::Color::kWhite);
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    if (a.verdict != analysis::Verdict::kWinnable) {
      std::fprintf(stderr, "unexpected answer: %s\n", a.proof.c_str());
      return {};
    }
  }
  return ms;
}

int Cost() {
  const chess::Position pos = *chess::ParseFen(kQueenVsKing);
  const int n = absl::GetFlag(FLAGS_iterations);
  arbitration::LocalAnalyst local;
  service::Metrics metrics;
  arbitration_service::RemoteAnalyst remote(
      {.target = absl::GetFlag(FLAGS_target), .call_deadline = absl::Seconds(5)}, &metrics);
  Time(remote, pos, 10);  // the connection made
  for (const auto& [name, analyst] : std::vector<std::pair<const char*, arbitration::Analyst*>>{
           {"in-process", &local}, {"remote", &remote}}) {
    std::vector<double> ms = Time(*analyst, pos, n);
    if (ms.empty()) return 1;
    const bench::Percentiles p = bench::Of(ms);
    std::printf("6.10 K+Q v K, %s: %d questions, p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", name, n,
                p.p50, p.p99, p.max);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  std::printf("load average %s\n", bench::LoadAverage().c_str());
  return absl::GetFlag(FLAGS_mode) == "flood" ? Flood() : Cost();
}
