// The clock authority's flags on the ledger's deadline scheduler
// (libs/ledger/deadline_scheduler.h): CheckFlags is the scheduler's check (command id
// "flag:<game>:<version>"), and this replica's appends set its timers. Flags fall from the server,
// without any client message (6.1, 6.9), and a default once the default time ran out on an absent
// player (6.7).
//
//   FlagDeadlines flags(&authority, {.owner = "pod-a:1234"});  // observes the authority
//   flags.scheduler().Start();
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_FLAG_DEADLINES_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_FLAG_DEADLINES_H_

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/string_view.h"
#include "libs/clock_authority/authority.h"
#include "libs/ledger/deadline_scheduler.h"

namespace clock_authority {

class FlagDeadlines final : public AuthorityObserver {
 public:
  // Adds itself to `authority`'s observers: create it before the authority is used.
  FlagDeadlines(ClockAuthority* authority, ledger::DeadlineSchedulerOptions options,
                ledger::DeadlineSchedulerHooks hooks = {})
      : scheduler_(
            authority->store(), authority->time(),
            [authority](absl::string_view game_id, std::int64_t known_version) {
              return ledger::AsDeadlineCheck(authority->CheckFlags(game_id, known_version));
            },
            std::move(options), std::move(hooks)) {
    authority->AddObserver(this);
  }

  ledger::DeadlineScheduler& scheduler() { return scheduler_; }

  void OnAppended(absl::string_view game_id, const ClockGame& after,
                  std::optional<std::int64_t> deadline) override {
    scheduler_.OnDeadlineSet(game_id, after.version(), deadline);
  }

 private:
  ledger::DeadlineScheduler scheduler_;
};

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_FLAG_DEADLINES_H_
