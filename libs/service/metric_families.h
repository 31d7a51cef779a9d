// Building a service's own Prometheus metrics (beyond the per-RPC ones every server has,
// metrics.h), one line each:
//
//   prometheus::Counter& moves = service::AddMetric<prometheus::Counter>(
//       registry, "arbiter_arbitration_moves_total", "Moves recorded");
//   prometheus::Family<prometheus::Gauge>& workers = service::AddFamily<prometheus::Gauge>(
//       registry, "arbiter_analysis_workers", "Analysis worker threads by state.");
//   service::CounterSeries commands(registry, "arbiter_clock_commands_total", "...",
//                                   {"command", "code"});
//   commands.With({"press", service::OutcomeCode(status)}).Increment();
//   enum { kConflicts, kClaims };  // the rows of a table of metrics without labels
//   constexpr service::MetricSpec kCounters[] = {{"arbiter_clock_version_conflicts_total", "..."},
//                                                {"arbiter_clock_deadline_claims_total", "..."}};
//   std::array<prometheus::Counter*, 2> counters = service::AddMetrics<prometheus::Counter>(
//       registry, kCounters);
//   counters[kClaims]->Increment();
#ifndef ARBITER_LIBS_SERVICE_METRIC_FAMILIES_H_
#define ARBITER_LIBS_SERVICE_METRIC_FAMILIES_H_

#include <array>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/registry.h"

namespace service {

// A new family of `Metric`s (prometheus::Counter, Gauge or Histogram), its series added by label.
template <typename Metric>
prometheus::Family<Metric>& AddFamily(prometheus::Registry& registry, const std::string& name,
                                      const std::string& help) {
  return prometheus::detail::Builder<Metric>().Name(name).Help(help).Register(registry);
}

// A new family of one series without labels: that series. `args`: a histogram's buckets.
template <typename Metric, typename... Args>
Metric& AddMetric(prometheus::Registry& registry, const std::string& name, const std::string& help,
                  Args&&... args) {
  return AddFamily<Metric>(registry, name, help).Add({}, std::forward<Args>(args)...);
}

// A metric without labels as a row of a table: its name and help.
struct MetricSpec {
  const char* name;
  const char* help;
};

// One metric without labels for each row of `specs`, in their order: a service's counters (or
// gauges) as a table rather than a registration each.
template <typename Metric, size_t N>
std::array<Metric*, N> AddMetrics(prometheus::Registry& registry, const MetricSpec (&specs)[N]) {
  std::array<Metric*, N> out{};
  for (size_t i = 0; i < N; ++i) {
    out[i] = &AddMetric<Metric>(registry, specs[i].name, specs[i].help);
  }
  return out;
}

// A command's outcome as a label: "OK" or its stable error code (ERR_...).
std::string OutcomeCode(const absl::Status& status);

// A counter family with fixed label names whose series are made on first use and then looked up
// by their label values (Family::Add builds and hashes the whole label map on every call).
// Thread-safe.
class CounterSeries {
 public:
  CounterSeries(prometheus::Registry& registry, const std::string& name, const std::string& help,
                std::vector<std::string> label_names);

  // The series with these label values, one for each label name, in their order.
  prometheus::Counter& With(std::initializer_list<absl::string_view> values);

 private:
  prometheus::Family<prometheus::Counter>& family_;
  const std::vector<std::string> label_names_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, prometheus::Counter*> series_ ABSL_GUARDED_BY(mu_);
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_METRIC_FAMILIES_H_
