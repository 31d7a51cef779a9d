#include "services/arbitration/arbitration_metrics.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;
using service::AddMetric;
using service::OutcomeCode;

// A proto enum value's name as a label: "CLAIM_KIND_THREEFOLD" -> "threefold".
std::string Label(const std::string& name, absl::string_view prefix) {
  absl::string_view s = name;
  absl::ConsumePrefix(&s, prefix);
  return absl::AsciiStrToLower(s.empty() ? "unknown" : s);
}

std::string TerminationLabel(const v1::Outcome& outcome) {
  absl::string_view name = laws::TerminationName(laws::TerminationOf(outcome.termination()));
  return name.empty() ? "none" : std::string(name);
}

}  // namespace

ArbitrationMetrics::ArbitrationMetrics(prometheus::Registry& registry)
    : live_(AddMetric<prometheus::Gauge>(registry, "arbiter_arbitration_live_games",
                                         "Games not ended (created, ongoing, awaiting a ruling), "
                                         "as this replica last wrote them")),
      awaiting_(AddMetric<prometheus::Gauge>(
          registry, "arbiter_arbitration_awaiting_ruling",
          "Games whose claim awaits an arbiter's ruling (10.2, Appendix D)")),
      commands_(registry, "arbiter_arbitration_commands_total",
                "Game commands by kind and outcome (OK or the stable error code)",
                {"command", "code"}),
      moves_(AddMetric<prometheus::Counter>(registry, "arbiter_arbitration_moves_total",
                                            "Moves recorded")),
      draw_offers_(
          AddMetric<prometheus::Counter>(registry, "arbiter_arbitration_draw_offers_total",
                                         "Draw offers recorded, with a move or outside one (9.1)")),
      claims_(registry, "arbiter_arbitration_claims_total",
              "Claims by kind (threefold, fifty, quickplay, time) and ruling (correct, "
              "incorrect, pending)",
              {"kind", "ruling"}),
      rulings_(registry, "arbiter_arbitration_rulings_total",
               "Arbiters' rulings on pending claims by decision (10.2a-c, D1)", {"decision"}),
      results_(registry, "arbiter_arbitration_results_total",
               "Games ended (or results set by an arbiter), by termination", {"termination"}),
      analysis_calls_(AddMetric<prometheus::Counter>(
          registry, "arbiter_arbitration_analysis_calls_total",
          "Searches the rulings asked for (dead position on the move path, 6.10 after a flag)")),
      fired_(AddMetric<prometheus::Counter>(
          registry, "arbiter_arbitration_deadlines_fired_total",
          "Flags and defaults this replica recorded by itself (timers and sweeps)")),
      conflicts_(AddMetric<prometheus::Counter>(
          registry, "arbiter_arbitration_version_conflicts_total",
          "Appends that lost the compare-and-set to another writer (retried)")),
      scheduler_errors_(AddMetric<prometheus::Counter>(registry,
                                                       "arbiter_arbitration_scheduler_errors_total",
                                                       "Failed deadline checks and sweeps")),
      tracked_(
          AddMetric<prometheus::Gauge>(registry, "arbiter_arbitration_tracked_deadlines",
                                       "Local flag and default timers pending on this replica")) {}

void ArbitrationMetrics::OnCommand(absl::string_view kind, const absl::Status& status) {
  commands_.With({kind, OutcomeCode(status)}).Increment();
}

void ArbitrationMetrics::OnAppended(absl::string_view game_id, const arbitration::GameState& after,
                                    const std::vector<v1::ArbitrationEvent>& events,
                                    std::optional<std::int64_t>) {
  absl::MutexLock lock(&mu_);
  for (const v1::ArbitrationEvent& e : events) {
    switch (e.kind_case()) {
      case v1::ArbitrationEvent::kMove:
        moves_.Increment();
        if (e.move().offer_draw()) draw_offers_.Increment();
        break;
      case v1::ArbitrationEvent::kDrawOffered:
        draw_offers_.Increment();
        break;
      case v1::ArbitrationEvent::kClaim:
        claims_
            .With({Label(v1::ClaimKind_Name(e.claim().kind()), "CLAIM_KIND_"),
                   Label(v1::ClaimRuling_Name(e.claim().ruling()), "CLAIM_RULING_")})
            .Increment();
        break;
      case v1::ArbitrationEvent::kRuled:
        rulings_.With({Label(v1::RulingDecision_Name(e.ruled().decision()), "RULING_DECISION_")})
            .Increment();
        break;
      case v1::ArbitrationEvent::kEnded:
        results_.With({TerminationLabel(e.ended().outcome())}).Increment();
        break;
      case v1::ArbitrationEvent::kResultSet:
        results_.With({TerminationLabel(e.result_set().outcome())}).Increment();
        break;
      default:
        break;
    }
  }
  // Counted incrementally: this runs on every append.
  auto it = live_games_.find(game_id);
  if (it != live_games_.end() && it->second) --awaiting_count_;
  if (after.status() == arbitration::GameStatus::kEnded) {
    if (it != live_games_.end()) live_games_.erase(it);
  } else {
    const bool waits = after.status() == arbitration::GameStatus::kAwaitingRuling;
    if (it == live_games_.end()) {
      live_games_.emplace(std::string(game_id), waits);
    } else {
      it->second = waits;
    }
    if (waits) ++awaiting_count_;
  }
  live_.Set(static_cast<double>(live_games_.size()));
  awaiting_.Set(static_cast<double>(awaiting_count_));
}

void ArbitrationMetrics::OnConflict() { conflicts_.Increment(); }

void ArbitrationMetrics::Tick(std::int64_t analysis_calls, size_t tracked_deadlines) {
  absl::MutexLock lock(&mu_);
  if (analysis_calls > analysis_seen_) {
    analysis_calls_.Increment(static_cast<double>(analysis_calls - analysis_seen_));
    analysis_seen_ = analysis_calls;
  }
  tracked_.Set(static_cast<double>(tracked_deadlines));
}

}  // namespace arbitration_service
