// Flags and defaults fire from the server (ARCHITECTURE.md, "Flags, default times and claims in a
// game"): nobody has to send a message for a flag to fall (6.9) or an absent player to lose by
// default (6.7). Two ways a replica learns that a game's deadline is due, both ending in
// GameAuthority::CheckDeadline, whose append (command id "settle:<game>:<version>",
// compare-and-set on the version) makes what fell recorded once however many replicas try:
//
// 1. Local timers (the fast path): every append this replica makes sets or clears the game's
//    deadline in the store's index (same write) and here, in a timer heap; a timer thread wakes at
//    the deadline and hands the game to a worker.
// 2. The sweep (the backstop): every `sweep_interval` each deadline shard is read (PeekDeadlines)
//    and, when an entry is due for longer than `sweep_grace`, claimed (ClaimDueDeadlines, leased
//    to this replica) and checked: that is how the deadlines of a replica that died, or that were
//    set before this process started, still fire.
//
// The game store given must be the arbitration's own (its own key prefix on Redis): the clock
// authority's scheduler must never see a game's deadline, nor this one a clock's.
#ifndef ARBITER_SERVICES_ARBITRATION_DEADLINE_TIMERS_H_
#define ARBITER_SERVICES_ARBITRATION_DEADLINE_TIMERS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "libs/arbitration/authority.h"
#include "libs/service/worker_pool.h"

namespace arbitration_service {

struct DeadlineTimerOptions {
  std::string owner = "arbitration";  // unique per replica: the lease holder's name
  absl::Duration sweep_interval = absl::Milliseconds(500);
  // Another replica's deadline is taken once due for longer than this: the replica that set it
  // fires it first, from its timer.
  absl::Duration sweep_grace = absl::Milliseconds(500);
  absl::Duration lease = absl::Seconds(5);  // a claimed entry is not due again for this long
  int workers = 4;                          // concurrent checks (each may search, 6.10)
  int max_claim = 64;
  // After a check failed because the store is down or slow (UNAVAILABLE, DEADLINE_EXCEEDED) or
  // lost to other writers too often (ABORTED): again after retry_after, doubling up to
  // max_retry_after, at most max_retries times from this replica's timer; then the entry is the
  // index's (the sweep claims it again). Any other failure (a reused command id, a malformed
  // request) is not retried at this pace: a claimed entry is released for a minute later
  // (issue 15: a conflict or a reused id is not "store down"; nothing is retried forever).
  absl::Duration retry_after = absl::Milliseconds(250);
  absl::Duration max_retry_after = absl::Seconds(5);
  int max_retries = 8;
};

struct DeadlineTimerHooks {
  std::function<void(int recorded)> on_fired;  // events a check appended
  std::function<void(const absl::Status&)> on_error;
};

class DeadlineTimers final : public arbitration::AuthorityObserver {
 public:
  DeadlineTimers(arbitration::GameAuthority* authority, DeadlineTimerOptions options,
                 DeadlineTimerHooks hooks = {})
      : authority_(authority), options_(std::move(options)), hooks_(std::move(hooks)) {}
  ~DeadlineTimers() override { Stop(); }

  void Start();
  void Stop();  // joins; in-flight checks finish

  // AuthorityObserver: this replica's appends set or clear the local timers.
  void OnAppended(absl::string_view game_id, const arbitration::GameState& after,
                  const std::vector<arbiter::v1::ArbitrationEvent>& events,
                  std::optional<std::int64_t> deadline) override;

  size_t tracked();

 private:
  struct Timer {
    std::int64_t deadline_ms = 0;
    std::int64_t version = 0;  // the version whose state set it (0: unknown)
    int retries = 0;           // failed checks in a row (store down) behind this timer
  };

  // Whether the threads are to stop (Stop) or may run (Start); stopping wakes them.
  void SetStopping(bool stopping);
  void Track(const std::string& game_id, Timer timer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Untrack(const std::string& game_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands one game to a worker (once at a time per game).
  void Dispatch(std::string game_id, std::int64_t version, bool claimed, int retries = 0);
  void Check(const std::string& game_id, std::int64_t version, bool claimed, int retries);
  void TimerLoop();
  void SweepLoop();
  void SweepOnce();
  void Error(const absl::Status& status);

  arbitration::GameAuthority* const authority_;
  const DeadlineTimerOptions options_;
  const DeadlineTimerHooks hooks_;

  absl::Mutex mu_;
  absl::CondVar wake_;
  absl::flat_hash_map<std::string, Timer> timers_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<std::int64_t, std::string>> heap_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> in_flight_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::unique_ptr<service::WorkerPool> pool_;
  std::vector<std::thread> threads_;
};

}  // namespace arbitration_service

#endif  // ARBITER_SERVICES_ARBITRATION_DEADLINE_TIMERS_H_
