// The arbitration service's Prometheus metrics (beyond the per-RPC ones every server has), as
// this replica sees its games:
//
//   arbiter_arbitration_live_games                  gauge: games not ended, as this replica last
//                                                   wrote them (created, ongoing, awaiting)
//   arbiter_arbitration_awaiting_ruling             gauge: of those, games whose claim awaits an
//                                                   arbiter (10.2, D1)
//   arbiter_arbitration_commands_total{command,code} counter: commands by kind and outcome
//   arbiter_arbitration_moves_total                 counter: moves recorded
//   arbiter_arbitration_draw_offers_total           counter: draw offers recorded (9.1)
//   arbiter_arbitration_claims_total{kind,ruling}   counter: claims by kind and ruling
//   arbiter_arbitration_rulings_total{decision}     counter: arbiters' rulings on claims (10.2)
//   arbiter_arbitration_results_total{termination}  counter: games ended, by how
//   arbiter_arbitration_analysis_calls_total        counter: searches the rulings asked for
//                                                   (dead position on the move path, 6.10 ...)
//   arbiter_arbitration_deadlines_fired_total       counter: flags and defaults this replica
//                                                   recorded from its timers and sweeps
//   arbiter_arbitration_version_conflicts_total     counter: compare-and-sets lost (retried)
//   arbiter_arbitration_scheduler_errors_total      counter: failed deadline checks and sweeps
//   arbiter_arbitration_tracked_deadlines           gauge: local deadline timers pending
#ifndef ARBITER_SERVICES_ARBITRATION_ARBITRATION_METRICS_H_
#define ARBITER_SERVICES_ARBITRATION_ARBITRATION_METRICS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "libs/arbitration/authority.h"
#include "libs/service/metric_families.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace arbitration_service {

class ArbitrationMetrics final : public arbitration::AuthorityObserver {
 public:
  explicit ArbitrationMetrics(prometheus::Registry& registry);

  // AuthorityObserver.
  void OnCommand(absl::string_view kind, const absl::Status& status) override;
  void OnAppended(absl::string_view game_id, const arbitration::GameState& after,
                  const std::vector<arbiter::v1::ArbitrationEvent>& events,
                  std::optional<std::int64_t> deadline) override;
  void OnConflict() override;

  void DeadlinesFired(int n) { fired_.Increment(n); }
  void SchedulerError() { scheduler_errors_.Increment(); }
  // Called every second: the analyst's count of searches (monotonic), the local timers.
  void Tick(std::int64_t analysis_calls, size_t tracked_deadlines);

 private:
  prometheus::Gauge& live_;
  prometheus::Gauge& awaiting_;
  service::CounterSeries commands_;  // command, code
  prometheus::Counter& moves_;
  prometheus::Counter& draw_offers_;
  service::CounterSeries claims_;   // kind, ruling
  service::CounterSeries rulings_;  // decision
  service::CounterSeries results_;  // termination
  prometheus::Counter& analysis_calls_;
  prometheus::Counter& fired_;
  prometheus::Counter& conflicts_;
  prometheus::Counter& scheduler_errors_;
  prometheus::Gauge& tracked_;

  absl::Mutex mu_;
  // The games not ended, with whether they await a ruling.
  absl::flat_hash_map<std::string, bool> live_games_ ABSL_GUARDED_BY(mu_);
  std::int64_t awaiting_count_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t analysis_seen_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace arbitration_service

#endif  // ARBITER_SERVICES_ARBITRATION_ARBITRATION_METRICS_H_
