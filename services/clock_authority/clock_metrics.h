// The clock authority's Prometheus metrics (beyond the per-RPC ones every server has):
//
//   arbiter_clock_running_clocks                    gauge: clocks running as this replica last
//                                                   wrote or read them, deadline not yet passed
//   arbiter_clock_commands_total{command,code}      counter: commands by kind and outcome
//   arbiter_clock_presses_total{result}             counter: presses, "ok" or "refused"/"error"
//   arbiter_clock_flags_fired_total{counts}         counter: flag falls this replica appended
//   arbiter_clock_flag_detection_delay_seconds      histogram: noticed - fell, per flag appended
//   arbiter_clock_defaults_total                    counter: 6.7 defaults this replica appended
//   arbiter_clock_version_conflicts_total           counter: compare-and-sets lost (then retried)
//   arbiter_clock_deadline_claims_total             counter: index entries this replica leased
//   arbiter_clock_scheduler_errors_total            counter: failed claims, checks, releases
//   arbiter_clock_sweep_seconds                     histogram: one sweep of every shard
//   arbiter_clock_tracked_deadlines                 gauge: local flag timers pending
//   arbiter_clock_pending_deadlines                 gauge: games with a flag or default pending
//                                                   in the store's index (all replicas' games)
//   arbiter_clock_time_uncertainty_seconds          gauge: error bound of the time base
//   arbiter_clock_store_latency_seconds{op}         histogram: store calls by operation
//   arbiter_clock_store_errors_total{op,code}       counter: failed store calls by operation
#ifndef ARBITER_SERVICES_CLOCK_AUTHORITY_CLOCK_METRICS_H_
#define ARBITER_SERVICES_CLOCK_AUTHORITY_CLOCK_METRICS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "libs/clock_authority/authority.h"
#include "libs/ledger/deadline_scheduler.h"
#include "libs/service/metric_families.h"
#include "libs/store/game_store.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace clock_authority_service {

class ClockMetrics final : public clock_authority::AuthorityObserver {
 public:
  explicit ClockMetrics(prometheus::Registry& registry);

  // AuthorityObserver.
  void OnCommand(absl::string_view kind, const absl::Status& status) override;
  void OnFlagRecorded(absl::string_view game_id, const arbiter::v1::FlagFell& flag) override;
  void OnDefaultRecorded(absl::string_view game_id, const arbiter::v1::PlayerDefaulted&) override;
  void OnConflict() override;
  void OnAppended(absl::string_view game_id, const clock_authority::ClockGame& after,
                  std::optional<std::int64_t> deadline) override;
  void OnLoaded(absl::string_view game_id, const clock_authority::ClockGame& game) override;

  ledger::DeadlineSchedulerHooks SchedulerHooks();
  // Called every second: prunes running clocks whose deadline passed, sets the gauges.
  void Tick(std::int64_t now_ms, size_t tracked_deadlines, std::int64_t time_uncertainty_us);
  // The store's count of pending deadlines (CountDeadlines over every shard).
  void SetPendingDeadlines(std::int64_t n);

  prometheus::Registry& registry() { return registry_; }

 private:
  void Running(absl::string_view game_id, std::optional<std::int64_t> deadline);

  prometheus::Registry& registry_;
  service::CounterSeries commands_;  // command, code
  prometheus::Family<prometheus::Counter>& presses_;
  prometheus::Counter& presses_ok_;
  prometheus::Counter& presses_refused_;
  prometheus::Counter& presses_error_;
  prometheus::Family<prometheus::Counter>& flags_;
  prometheus::Counter& flags_counting_;
  prometheus::Counter& flags_claim_only_;
  prometheus::Histogram& detection_delay_;
  prometheus::Histogram& sweep_;
  // The metrics without labels, by these ids (their names and help: the tables of
  // clock_metrics.cc).
  enum CounterId { kDefaults, kConflicts, kClaims, kSchedulerErrors, kCounters };
  enum GaugeId { kRunning, kTracked, kPending, kUncertainty, kGauges };
  const std::array<prometheus::Counter*, kCounters> counters_;
  const std::array<prometheus::Gauge*, kGauges> gauges_;

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::int64_t> running_ ABSL_GUARDED_BY(mu_);  // -> deadline
};

// The store, timed: latency and errors per operation.
class InstrumentedStore final : public store::GameStore {
 public:
  InstrumentedStore(std::unique_ptr<store::GameStore> inner, prometheus::Registry& registry);

  absl::StatusOr<store::AppendResult> Append(const store::AppendRequest& request) override;
  void AppendAsync(store::AppendRequest request, AppendCallback done) override;
  absl::StatusOr<std::optional<store::AppendResult>> LookupCommand(
      absl::string_view game_id, absl::string_view command_id) override;
  absl::StatusOr<arbiter::v1::GameSnapshot> ReadSnapshot(absl::string_view game_id) override;
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ReadEvents(absl::string_view game_id,
                                                                 std::int64_t from_version,
                                                                 std::int64_t to_version) override;
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> WaitForEvents(absl::string_view game_id,
                                                                    std::int64_t after_version,
                                                                    absl::Duration timeout,
                                                                    int max_events) override;
  // Not timed (the clock authority does not archive): forwarded, so the wrapper stays a whole
  // store.
  absl::StatusOr<store::ArchiveResult> Archive(const store::ArchiveRequest& request) override {
    return inner_->Archive(request);
  }
  absl::StatusOr<std::string> ReadTombstone(absl::string_view game_id) override {
    return inner_->ReadTombstone(game_id);
  }
  int NumDeadlineShards() const override { return inner_->NumDeadlineShards(); }
  absl::StatusOr<std::optional<store::Deadline>> GetDeadline(absl::string_view game_id) override;
  absl::StatusOr<std::vector<store::Deadline>> ClaimDueDeadlines(int shard, std::int64_t now_ms,
                                                                 std::int64_t lease_ms, int max,
                                                                 absl::string_view owner) override;
  absl::StatusOr<std::vector<store::DueEntry>> PeekDeadlines(int shard, std::int64_t until_ms,
                                                             int max) override;
  // One latency observation for the whole read; each shard's failure counts.
  std::vector<absl::StatusOr<std::vector<store::DueEntry>>> PeekDeadlinesOfShards(
      const std::vector<int>& shards, std::int64_t until_ms, int max) override;
  absl::StatusOr<std::int64_t> CountDeadlines(int shard) override;
  absl::StatusOr<std::vector<store::GameEvents>> WaitForAnyEvents(
      const std::vector<store::WatchPosition>& games, absl::Duration timeout,
      int max_events) override;
  absl::StatusOr<bool> ReleaseDeadline(absl::string_view game_id, absl::string_view owner,
                                       std::int64_t claimable_at_ms) override;
  absl::StatusOr<std::int64_t> NowMs() override;

 private:
  enum Op {
    kAppend,
    kLookup,
    kReadSnapshot,
    kReadEvents,
    kWait,
    kGetDeadline,
    kClaim,
    kPeek,
    kCount,
    kRelease,
    kNow,
    kOps
  };
  struct Series {
    prometheus::Histogram* latency;
    std::string name;
  };
  template <typename T, typename Fn>
  T Timed(Op op, Fn&& fn);
  void Failed(Op op, const absl::Status& status);

  std::unique_ptr<store::GameStore> inner_;
  prometheus::Family<prometheus::Counter>& errors_;
  std::array<Series, kOps> series_;
};

}  // namespace clock_authority_service

#endif  // ARBITER_SERVICES_CLOCK_AUTHORITY_CLOCK_METRICS_H_
