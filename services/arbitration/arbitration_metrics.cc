#include "services/arbitration/arbitration_metrics.h"

#include <map>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "libs/base/error.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;

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
    : live_(prometheus::BuildGauge()
                .Name("arbiter_arbitration_live_games")
                .Help("Games not ended (created, ongoing, awaiting a ruling), as this replica last "
                      "wrote them")
                .Register(registry)
                .Add({})),
      awaiting_(prometheus::BuildGauge()
                    .Name("arbiter_arbitration_awaiting_ruling")
                    .Help("Games whose claim awaits an arbiter's ruling (10.2, Appendix D)")
                    .Register(registry)
                    .Add({})),
      commands_(prometheus::BuildCounter()
                    .Name("arbiter_arbitration_commands_total")
                    .Help("Game commands by kind and outcome (OK or the stable error code)")
                    .Register(registry)),
      moves_(prometheus::BuildCounter()
                 .Name("arbiter_arbitration_moves_total")
                 .Help("Moves recorded")
                 .Register(registry)
                 .Add({})),
      draw_offers_(prometheus::BuildCounter()
                       .Name("arbiter_arbitration_draw_offers_total")
                       .Help("Draw offers recorded, with a move or outside one (9.1)")
                       .Register(registry)
                       .Add({})),
      claims_(prometheus::BuildCounter()
                  .Name("arbiter_arbitration_claims_total")
                  .Help("Claims by kind (threefold, fifty, quickplay, time) and ruling (correct, "
                        "incorrect, pending)")
                  .Register(registry)),
      rulings_(prometheus::BuildCounter()
                   .Name("arbiter_arbitration_rulings_total")
                   .Help("Arbiters' rulings on pending claims by decision (10.2a-c, D1)")
                   .Register(registry)),
      results_(prometheus::BuildCounter()
                   .Name("arbiter_arbitration_results_total")
                   .Help("Games ended (or results set by an arbiter), by termination")
                   .Register(registry)),
      analysis_calls_(prometheus::BuildCounter()
                          .Name("arbiter_arbitration_analysis_calls_total")
                          .Help("Searches the rulings asked for (dead position on the move path, "
                                "6.10 after a flag)")
                          .Register(registry)
                          .Add({})),
      fired_(prometheus::BuildCounter()
                 .Name("arbiter_arbitration_deadlines_fired_total")
                 .Help("Flags and defaults this replica recorded by itself (timers and sweeps)")
                 .Register(registry)
                 .Add({})),
      conflicts_(prometheus::BuildCounter()
                     .Name("arbiter_arbitration_version_conflicts_total")
                     .Help("Appends that lost the compare-and-set to another writer (retried)")
                     .Register(registry)
                     .Add({})),
      scheduler_errors_(prometheus::BuildCounter()
                            .Name("arbiter_arbitration_scheduler_errors_total")
                            .Help("Failed deadline checks and sweeps")
                            .Register(registry)
                            .Add({})),
      tracked_(prometheus::BuildGauge()
                   .Name("arbiter_arbitration_tracked_deadlines")
                   .Help("Local flag and default timers pending on this replica")
                   .Register(registry)
                   .Add({})) {}

prometheus::Counter& ArbitrationMetrics::Series(prometheus::Family<prometheus::Counter>& family,
                                                const std::map<std::string, std::string>& labels) {
  std::string key = absl::StrCat(reinterpret_cast<std::uintptr_t>(&family), "|");
  for (const auto& [k, v] : labels) absl::StrAppend(&key, k, "=", v, ",");
  auto it = series_.find(key);
  if (it != series_.end()) return *it->second;
  prometheus::Counter* counter = &family.Add(labels);
  series_.emplace(key, counter);
  return *counter;
}

void ArbitrationMetrics::OnCommand(absl::string_view kind, const absl::Status& status) {
  const std::string code = status.ok() ? "OK" : base::ErrorCode(status);
  absl::MutexLock lock(&mu_);
  Series(commands_, {{"command", std::string(kind)}, {"code", code}}).Increment();
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
        Series(claims_,
               {{"kind", Label(v1::ClaimKind_Name(e.claim().kind()), "CLAIM_KIND_")},
                {"ruling", Label(v1::ClaimRuling_Name(e.claim().ruling()), "CLAIM_RULING_")}})
            .Increment();
        break;
      case v1::ArbitrationEvent::kRuled:
        Series(rulings_, {{"decision", Label(v1::RulingDecision_Name(e.ruled().decision()),
                                             "RULING_DECISION_")}})
            .Increment();
        break;
      case v1::ArbitrationEvent::kEnded:
        Series(results_, {{"termination", TerminationLabel(e.ended().outcome())}}).Increment();
        break;
      case v1::ArbitrationEvent::kResultSet:
        Series(results_, {{"termination", TerminationLabel(e.result_set().outcome())}}).Increment();
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
