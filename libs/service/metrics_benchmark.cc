// The metrics interceptor's bookkeeping per call, without gRPC around it: the method's series
// found once (as each call's interceptor does), started, one message each way, finished. What
// every request of the move path pays for the old and the standard families together; the goal is
// well under 1 µs. With --benchmark_enable_random_interleaving, or threads:2 for two cores
// counting on the same series.
//   bazel run -c opt //libs/service:metrics_benchmark
#include "benchmark/benchmark.h"
#include "libs/service/metrics.h"

namespace service {
namespace {

constexpr char kMethod[] = "/arbiter.v1.Arbitration/SubmitMove";

void BM_UnaryCall(benchmark::State& state) {
  static Metrics* metrics = new Metrics();
  for (auto _ : state) {
    Metrics::MethodSeries* series = metrics->Series(kMethod, Metrics::GrpcType::kUnary);
    metrics->CallStarted(series);
    Metrics::MessageReceived(series);
    Metrics::MessageSent(series);
    metrics->CallFinished(series, 0, 0.0004);
  }
}
BENCHMARK(BM_UnaryCall);
BENCHMARK(BM_UnaryCall)->Threads(2);

}  // namespace
}  // namespace service

BENCHMARK_MAIN();
