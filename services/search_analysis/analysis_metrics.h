// The search-analysis service's own Prometheus series, added to the server's registry beside the
// per-RPC ones every server has (libs/service/metrics.h):
//   arbiter_analysis_duration_seconds{kind}          histogram: the work, queue wait excluded
//   arbiter_analysis_queue_wait_seconds              histogram: admission to a worker
//   arbiter_analysis_verdicts_total{kind,verdict}    answers by verdict
//   arbiter_analysis_undetermined_ratio{kind}        undetermined / all answers of that kind
//   arbiter_analysis_nodes_total{kind}               positions searched
//   arbiter_analysis_queue_length, arbiter_analysis_workers{state="busy"|"idle"}
//   arbiter_engine_pool_engines{state="idle"|"busy"|"missing"}, arbiter_engine_pool_available,
//   arbiter_engine_pool_restarts_total
// Kinds: unwinnable, dead_position, mating_potential, evaluate, advise_claim, perft.
#ifndef ARBITER_SERVICES_SEARCH_ANALYSIS_ANALYSIS_METRICS_H_
#define ARBITER_SERVICES_SEARCH_ANALYSIS_ANALYSIS_METRICS_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "libs/analysis/engine_pool.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace search_analysis {

enum class Kind { kUnwinnable, kDeadPosition, kMatingPotential, kEvaluate, kAdviseClaim, kPerft };
inline constexpr int kKinds = 6;
absl::string_view KindName(Kind kind);

class AnalysisMetrics {
 public:
  explicit AnalysisMetrics(prometheus::Registry& registry);

  void Duration(Kind kind, double seconds);
  void QueueWait(double seconds);
  // `verdict`: "winnable", "unwinnable", "undetermined" (dead_position: "dead", "alive",
  // "undetermined").
  void Verdict(Kind kind, absl::string_view verdict);
  void Nodes(Kind kind, std::int64_t nodes);
  void Workers(int queued, int busy, int threads);
  // `stats` null: no engine on this server.
  void Engines(const analysis::EnginePoolStats* stats);

 private:
  struct PerKind {
    prometheus::Histogram* duration;
    prometheus::Counter* nodes;
    prometheus::Gauge* undetermined_ratio;
    std::int64_t answers = 0;       // guarded by mu_
    std::int64_t undetermined = 0;  // guarded by mu_
  };

  prometheus::Family<prometheus::Counter>& verdicts_;
  absl::Mutex mu_;
  std::array<PerKind, kKinds> kinds_;
  prometheus::Histogram* queue_wait_;
  prometheus::Gauge* queue_length_;
  prometheus::Gauge* workers_busy_;
  prometheus::Gauge* workers_idle_;
  prometheus::Gauge* engines_idle_;
  prometheus::Gauge* engines_busy_;
  prometheus::Gauge* engines_missing_;
  prometheus::Gauge* engines_available_;
  prometheus::Counter* engine_restarts_;
  int restarts_seen_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace search_analysis

#endif  // ARBITER_SERVICES_SEARCH_ANALYSIS_ANALYSIS_METRICS_H_
