// A game's deadlines on the ledger's deadline scheduler (libs/ledger/deadline_scheduler.h):
// GameAuthority::CheckDeadline is the scheduler's check (command id "settle:<game>:<version>"),
// and this replica's appends set its timers. Nobody has to send a message for a flag to fall
// (6.9), an absent player to lose by default (6.7) or an envelope sealed early to close (A1b).
//
//   GameDeadlines deadlines(&authority, &time, {.owner = "pod-a:1"});  // observes the authority
//   deadlines.scheduler().Start();
#ifndef ARBITER_LIBS_ARBITRATION_GAME_DEADLINES_H_
#define ARBITER_LIBS_ARBITRATION_GAME_DEADLINES_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "libs/arbitration/authority.h"
#include "libs/base/error.h"
#include "libs/ledger/deadline_scheduler.h"
#include "libs/ledger/time_source.h"
#include "libs/store/errors.h"

namespace arbitration {

class GameDeadlines final : public AuthorityObserver {
 public:
  // `time`: the authority's time base. Adds itself to `authority`'s observers: create it before
  // the authority is used.
  GameDeadlines(GameAuthority* authority, ledger::TimeSource* time,
                ledger::DeadlineSchedulerOptions options, ledger::DeadlineSchedulerHooks hooks = {})
      : scheduler_(authority->store(), time, CheckOf(authority), std::move(options),
                   std::move(hooks)) {
    authority->AddObserver(this);
  }

  ledger::DeadlineScheduler& scheduler() { return scheduler_; }

  void OnAppended(absl::string_view game_id, const GameState& after,
                  const std::vector<arbiter::v1::ArbitrationEvent>&,
                  std::optional<std::int64_t> deadline) override {
    // A question waiting for analysis (a review, a dead position; the game's flag with it) is
    // asked through the index only (claimed, then given back due at the backoff's next step:
    // ReleaseDeadline), so that the store's entry, not a timer here, says when; a timer here
    // would leave the entry due and the question asked twice.
    if (after.review_awaits_analysis() || !after.dead_position_questions().empty()) {
      deadline.reset();
    }
    scheduler_.OnDeadlineSet(game_id, after.version(), deadline);
  }

 private:
  static ledger::DeadlineCheckFn CheckOf(GameAuthority* authority) {
    return [authority](absl::string_view game_id,
                       std::int64_t known_version) -> absl::StatusOr<ledger::DeadlineCheck> {
      absl::StatusOr<SettleResult> r = authority->CheckDeadline(game_id, known_version);
      // A game gone from the store (archived with its entry) has nothing left to fall.
      if (!r.ok() && base::ErrorCode(r.status()) == store::kErrGameNotFound) {
        return ledger::DeadlineCheck{};
      }
      return ledger::AsDeadlineCheck(r);
    };
  }

  ledger::DeadlineScheduler scheduler_;
};

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_GAME_DEADLINES_H_
