#include "services/clock_authority/clock_metrics.h"

#include <chrono>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "libs/base/error.h"

namespace clock_authority_service {
namespace {

const prometheus::Histogram::BucketBoundaries kLatencyBuckets = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025,   0.05,   0.1,     0.25,   0.5,   1,      2.5};
const prometheus::Histogram::BucketBoundaries kDelayBuckets = {
    0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5};

using service::AddFamily;
using service::AddMetric;
using service::AddMetrics;
using service::MetricSpec;
using service::OutcomeCode;

// In the order of their ids (clock_metrics.h).
constexpr MetricSpec kCounterSpecs[] = {
    {"arbiter_clock_defaults_total",
     "Games this replica recorded as lost by default: absent when the default time ran out (6.7)"},
    {"arbiter_clock_version_conflicts_total",
     "Appends that lost the compare-and-set to another writer (retried)"},
    {"arbiter_clock_deadline_claims_total", "Deadline index entries this replica's sweep leased"},
    {"arbiter_clock_scheduler_errors_total",
     "Failed claims, flag checks and releases of the scheduler"},
};
constexpr MetricSpec kGaugeSpecs[] = {
    {"arbiter_clock_running_clocks",
     "Clocks running as this replica last wrote or read them, their flag deadline not yet "
     "passed"},
    {"arbiter_clock_tracked_deadlines", "Local flag timers pending on this replica"},
    {"arbiter_clock_pending_deadlines",
     "Games with a flag or a default (6.7) pending in the store's deadline index, whichever "
     "replica set it: the live clocks of the deployment"},
    {"arbiter_clock_time_uncertainty_seconds",
     "Error bound of this replica's estimate of the store's clock"},
};

}  // namespace

ClockMetrics::ClockMetrics(prometheus::Registry& registry)
    : registry_(registry),
      commands_(registry, "arbiter_clock_commands_total",
                "Clock commands by kind and outcome (OK or the stable error code)",
                {"command", "code"}),
      presses_(AddFamily<prometheus::Counter>(
          registry, "arbiter_clock_presses_total",
          "Clock presses (6.8a): ok, refused by the Laws, or failed")),
      presses_ok_(presses_.Add({{"result", "ok"}})),
      presses_refused_(presses_.Add({{"result", "refused"}})),
      presses_error_(presses_.Add({{"result", "error"}})),
      flags_(AddFamily<prometheus::Counter>(
          registry, "arbiter_clock_flags_fired_total",
          "Flag falls this replica recorded; counts=false: rapid/blitz, B6")),
      flags_counting_(flags_.Add({{"counts", "true"}})),
      flags_claim_only_(flags_.Add({{"counts", "false"}})),
      detection_delay_(AddMetric<prometheus::Histogram>(
          registry, "arbiter_clock_flag_detection_delay_seconds",
          "Flag detection delay: when the fall was noticed minus when it fell, on the "
          "authority's time base",
          kDelayBuckets)),
      sweep_(AddMetric<prometheus::Histogram>(registry, "arbiter_clock_sweep_seconds",
                                              "The time one sweep of every deadline shard took",
                                              kLatencyBuckets)),
      counters_(AddMetrics<prometheus::Counter>(registry, kCounterSpecs)),
      gauges_(AddMetrics<prometheus::Gauge>(registry, kGaugeSpecs)) {}

void ClockMetrics::OnCommand(absl::string_view kind, const absl::Status& status) {
  commands_.With({kind, OutcomeCode(status)}).Increment();
  if (kind == "press") {
    if (status.ok()) {
      presses_ok_.Increment();
    } else if (status.code() == absl::StatusCode::kFailedPrecondition) {
      presses_refused_.Increment();
    } else {
      presses_error_.Increment();
    }
  }
}

void ClockMetrics::OnFlagRecorded(absl::string_view, const arbiter::v1::FlagFell& flag) {
  (flag.counts() ? flags_counting_ : flags_claim_only_).Increment();
  detection_delay_.Observe(static_cast<double>(flag.noticed_at_ms() - flag.fell_at_ms()) / 1000.0);
}

void ClockMetrics::OnDefaultRecorded(absl::string_view, const arbiter::v1::PlayerDefaulted&) {
  counters_[kDefaults]->Increment();
}

void ClockMetrics::OnConflict() { counters_[kConflicts]->Increment(); }

void ClockMetrics::Running(absl::string_view game_id, std::optional<std::int64_t> deadline) {
  absl::MutexLock lock(&mu_);
  if (deadline.has_value()) {
    running_[game_id] = *deadline;
  } else {
    running_.erase(game_id);
  }
  gauges_[kRunning]->Set(static_cast<double>(running_.size()));
}

void ClockMetrics::OnAppended(absl::string_view game_id, const clock_authority::ClockGame& after,
                              std::optional<std::int64_t> deadline) {
  Running(game_id, deadline);
}

void ClockMetrics::OnLoaded(absl::string_view game_id, const clock_authority::ClockGame& game) {
  Running(game_id, clock_authority::NextDeadline(game));
}

ledger::DeadlineSchedulerHooks ClockMetrics::SchedulerHooks() {
  ledger::DeadlineSchedulerHooks hooks;
  hooks.on_claimed = [this](int n) { counters_[kClaims]->Increment(n); };
  hooks.on_error = [this](const absl::Status&) { counters_[kSchedulerErrors]->Increment(); };
  hooks.on_sweep = [this](absl::Duration d) { sweep_.Observe(absl::ToDoubleSeconds(d)); };
  return hooks;
}

void ClockMetrics::SetPendingDeadlines(std::int64_t n) {
  gauges_[kPending]->Set(static_cast<double>(n));
}

void ClockMetrics::Tick(std::int64_t now_ms, size_t tracked_deadlines,
                        std::int64_t time_uncertainty_us) {
  {
    absl::MutexLock lock(&mu_);
    absl::erase_if(running_, [&](const auto& entry) { return entry.second < now_ms; });
    gauges_[kRunning]->Set(static_cast<double>(running_.size()));
  }
  gauges_[kTracked]->Set(static_cast<double>(tracked_deadlines));
  gauges_[kUncertainty]->Set(static_cast<double>(time_uncertainty_us) / 1e6);
}

// --- InstrumentedStore ---------------------------------------------------------------------------

InstrumentedStore::InstrumentedStore(std::unique_ptr<store::GameStore> inner,
                                     prometheus::Registry& registry)
    : inner_(std::move(inner)),
      errors_(AddFamily<prometheus::Counter>(
          registry, "arbiter_clock_store_errors_total",
          "Failed game store calls of the clock authority, by operation and code")) {
  auto& latency =
      AddFamily<prometheus::Histogram>(registry, "arbiter_clock_store_latency_seconds",
                                       "Game store calls of the clock authority, by operation");
  const char* names[kOps] = {"append",
                             "lookup_command",
                             "read_snapshot",
                             "read_events",
                             "wait_for_events",
                             "get_deadline",
                             "claim_due_deadlines",
                             "peek_deadlines",
                             "count_deadlines",
                             "release_deadline",
                             "now"};
  for (int i = 0; i < kOps; ++i) {
    series_[i] = {&latency.Add({{"op", names[i]}}, kLatencyBuckets), names[i]};
  }
}

void InstrumentedStore::Failed(Op op, const absl::Status& status) {
  // Lost races and "no such game" are answers, not store failures.
  const std::string code = base::ErrorCode(status);
  if (code == store::kErrVersionConflict || code == store::kErrGameNotFound ||
      code == store::kErrGameExists || code == store::kErrCommandIdReused) {
    return;
  }
  errors_.Add({{"op", series_[op].name}, {"code", code}}).Increment();
}

template <typename T, typename Fn>
T InstrumentedStore::Timed(Op op, Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  T result = fn();
  series_[op].latency->Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (!result.ok()) Failed(op, result.status());
  return result;
}

absl::StatusOr<store::AppendResult> InstrumentedStore::Append(const store::AppendRequest& request) {
  return Timed<absl::StatusOr<store::AppendResult>>(kAppend,
                                                    [&] { return inner_->Append(request); });
}

void InstrumentedStore::AppendAsync(store::AppendRequest request, AppendCallback done) {
  const auto start = std::chrono::steady_clock::now();
  inner_->AppendAsync(std::move(request), [this, start, done = std::move(done)](
                                              absl::StatusOr<store::AppendResult> result) {
    series_[kAppend].latency->Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!result.ok()) Failed(kAppend, result.status());
    done(std::move(result));
  });
}

absl::StatusOr<std::optional<store::AppendResult>> InstrumentedStore::LookupCommand(
    absl::string_view game_id, absl::string_view command_id) {
  return Timed<absl::StatusOr<std::optional<store::AppendResult>>>(
      kLookup, [&] { return inner_->LookupCommand(game_id, command_id); });
}

absl::StatusOr<arbiter::v1::GameSnapshot> InstrumentedStore::ReadSnapshot(
    absl::string_view game_id) {
  return Timed<absl::StatusOr<arbiter::v1::GameSnapshot>>(
      kReadSnapshot, [&] { return inner_->ReadSnapshot(game_id); });
}

absl::StatusOr<std::vector<arbiter::v1::GameEvent>> InstrumentedStore::ReadEvents(
    absl::string_view game_id, std::int64_t from_version, std::int64_t to_version) {
  return Timed<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>>(
      kReadEvents, [&] { return inner_->ReadEvents(game_id, from_version, to_version); });
}

absl::StatusOr<std::vector<arbiter::v1::GameEvent>> InstrumentedStore::WaitForEvents(
    absl::string_view game_id, std::int64_t after_version, absl::Duration timeout, int max_events) {
  // Not timed: its latency is mostly waiting. Errors count.
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> r =
      inner_->WaitForEvents(game_id, after_version, timeout, max_events);
  if (!r.ok()) Failed(kWait, r.status());
  return r;
}

absl::StatusOr<std::optional<store::Deadline>> InstrumentedStore::GetDeadline(
    absl::string_view game_id) {
  return Timed<absl::StatusOr<std::optional<store::Deadline>>>(
      kGetDeadline, [&] { return inner_->GetDeadline(game_id); });
}

absl::StatusOr<std::vector<store::Deadline>> InstrumentedStore::ClaimDueDeadlines(
    int shard, std::int64_t now_ms, std::int64_t lease_ms, int max, absl::string_view owner) {
  return Timed<absl::StatusOr<std::vector<store::Deadline>>>(
      kClaim, [&] { return inner_->ClaimDueDeadlines(shard, now_ms, lease_ms, max, owner); });
}

absl::StatusOr<std::vector<store::DueEntry>> InstrumentedStore::PeekDeadlines(int shard,
                                                                              std::int64_t until_ms,
                                                                              int max) {
  return Timed<absl::StatusOr<std::vector<store::DueEntry>>>(
      kPeek, [&] { return inner_->PeekDeadlines(shard, until_ms, max); });
}

std::vector<absl::StatusOr<std::vector<store::DueEntry>>> InstrumentedStore::PeekDeadlinesOfShards(
    const std::vector<int>& shards, std::int64_t until_ms, int max) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<absl::StatusOr<std::vector<store::DueEntry>>> result =
      inner_->PeekDeadlinesOfShards(shards, until_ms, max);
  series_[kPeek].latency->Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  for (const auto& r : result) {
    if (!r.ok()) Failed(kPeek, r.status());
  }
  return result;
}

absl::StatusOr<std::vector<store::GameEvents>> InstrumentedStore::WaitForAnyEvents(
    const std::vector<store::WatchPosition>& games, absl::Duration timeout, int max_events) {
  // Not timed, as WaitForEvents: its latency is mostly waiting. Errors count.
  absl::StatusOr<std::vector<store::GameEvents>> r =
      inner_->WaitForAnyEvents(games, timeout, max_events);
  if (!r.ok()) Failed(kWait, r.status());
  return r;
}

absl::StatusOr<std::int64_t> InstrumentedStore::CountDeadlines(int shard) {
  return Timed<absl::StatusOr<std::int64_t>>(kCount, [&] { return inner_->CountDeadlines(shard); });
}

absl::StatusOr<bool> InstrumentedStore::ReleaseDeadline(absl::string_view game_id,
                                                        absl::string_view owner,
                                                        std::int64_t claimable_at_ms) {
  return Timed<absl::StatusOr<bool>>(
      kRelease, [&] { return inner_->ReleaseDeadline(game_id, owner, claimable_at_ms); });
}

absl::StatusOr<std::int64_t> InstrumentedStore::NowMs() {
  return Timed<absl::StatusOr<std::int64_t>>(kNow, [&] { return inner_->NowMs(); });
}

}  // namespace clock_authority_service
