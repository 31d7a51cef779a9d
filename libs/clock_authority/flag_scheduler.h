// The flag scheduler: flags fire from the server, without any client message, exactly once, at
// the instant they fell, with any number of replicas on one store and any of them killed midway.
//
// Two ways a replica learns that a flag is due, both ending in ClockAuthority::CheckFlags, whose
// append (command id "flag:<game>:<version>", compare-and-set on the version, the deadline cleared
// or moved in the same write) is what makes a flag recorded once however many replicas try:
//
// 1. Local timers: every append this replica makes sets or clears the game's deadline in the
//    store's index (same write) and here, in a timer heap. A timer thread wakes at the deadline
//    (to the microsecond on the authority's time base) and hands the game to a worker, which
//    checks it on the cached state and appends the flag. This is the fast path.
// 2. The index: ClaimDueDeadlines on a shard leases the entries due for more than `sweep_grace`
//    to this replica (`lease` long) and checks them. That is how a replica takes over the
//    deadlines whose replica died (or restarted) before firing, and those set by other services.
//    The grace leaves each entry to the replica that set it; while that replica is alive its
//    timer fires and the append clears the entry before anyone else's claim sees it due.
//    Claims happen at two moments:
//    a. Peer wake-ups: each sweep also reads (PeekDeadlines, no claim) the entries due within
//       `peek_ahead` that this replica has no timer for, and sets a wake-up for their shard at
//       their due time + `sweep_grace`. So a dead replica's deadline is taken over about
//       sweep_grace after it fell, not a sweep interval later.
//    b. The sweep itself, over all shards: the backstop for what no wake-up covered (a deadline
//       set less than `peek_ahead` before it falls by a replica that then died, more entries than
//       one peek returns). The peek is the sweep's read: a shard is claimed only when an entry in
//       it is already due, so an idle sweep is one read per shard and writes nothing. Still, a
//       sweep costs a store round trip per shard whether or not anything is due, so it is
//       adaptive: every `idle_sweep_interval` while sweeps find
//       nothing, every `sweep_interval` for `fast_sweep_period` after one found something.
//
// A replica killed midway loses nothing: its unfired deadlines are in the index, due, and another
// replica's wake-up (or, failing that, its next sweep) takes them; an entry it had leased is due
// again when its lease ends. A replica that checks a game another already flagged gets the
// original append back (replayed) or loses the compare-and-set; either way no second flag is
// written.
//
//   FlagScheduler scheduler(&authority, {.owner = "pod-a:1234"});
//   authority.AddObserver(&scheduler);    // local timers for this replica's deadlines
//   scheduler.Start();
//
// With a FakeTime, RunOnce() does one sweep and every due check inline: exact instants in tests.
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_FLAG_SCHEDULER_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_FLAG_SCHEDULER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "libs/clock_authority/authority.h"
#include "libs/service/worker_pool.h"

namespace clock_authority {

struct FlagSchedulerOptions {
  std::string owner = "clock-authority";  // unique per replica: the lease holder's name
  absl::Duration sweep_interval = absl::Milliseconds(5);        // while sweeps find entries
  absl::Duration idle_sweep_interval = absl::Milliseconds(40);  // while they find none
  // How far ahead each sweep reads the index for other replicas' deadlines: more than
  // idle_sweep_interval, so that every deadline is seen by one sweep before it falls.
  absl::Duration peek_ahead = absl::Milliseconds(100);
  absl::Duration fast_sweep_period = absl::Seconds(2);  // fast after a find
  absl::Duration sweep_grace = absl::Milliseconds(3);
  absl::Duration lease = absl::Milliseconds(50);
  int workers = 16;  // concurrent flag checks (--flag_workers has the same default)
  // Threads sweeping the shards in parallel. Each claim waits for Redis (with appendfsync
  // always, behind the fsync of whatever else it writes): claims in parallel share that wait.
  int sweepers = 16;
  int max_claim = 256;
  // After a check failed because the store is down or slow (UNAVAILABLE, DEADLINE_EXCEEDED) or
  // lost to other writers `max_attempts` times: again after retry_after, doubling up to
  // max_retry_after, at most max_retries times from this replica's timer; then the entry is the
  // index's (a lease ends by itself, the sweep claims it again). Any other failure (a reused
  // command id, a malformed request: the append would fail the same way again) is not retried
  // at this pace: the entry is released to be looked at again a minute later (issue 15: a
  // conflict or a reused id is not "store down", and nothing is retried forever).
  absl::Duration retry_after = absl::Milliseconds(50);
  absl::Duration max_retry_after = absl::Seconds(2);
  int max_retries = 8;
};

// What a failed flag check means for the scheduler (issue 15).
enum class CheckFailure {
  kTransient,  // the store is down or slow, or the game is contended: try again, backing off
  kNotAClock,  // not a clock this authority can read (another service's game, a damaged log)
  kRefused,    // the store refuses the append as it is (reused command id, bad request)
};
CheckFailure ClassifyCheckFailure(const absl::Status& status);

// What the scheduler did, for metrics.
struct FlagSchedulerHooks {
  std::function<void(int claimed)> on_claimed;        // entries a sweep leased
  std::function<void(const absl::Status&)> on_error;  // a claim, check or release failed
  std::function<void(absl::Duration)> on_sweep;       // the time one sweep of all shards took
};

class FlagScheduler final : public AuthorityObserver {
 public:
  FlagScheduler(ClockAuthority* authority, FlagSchedulerOptions options,
                FlagSchedulerHooks hooks = {});
  ~FlagScheduler() override;

  void Start();
  void Stop();  // joins; in-flight checks finish

  // Test mode (without Start): claims every due entry of every shard and runs every due check,
  // inline, at the time source's now. Returns the number of flag falls this replica appended.
  absl::StatusOr<int> RunOnce();

  // AuthorityObserver: this replica's appends set or clear local timers.
  void OnAppended(absl::string_view game_id, const ClockGame& after,
                  std::optional<std::int64_t> deadline) override;

  size_t tracked();  // local timers pending

 private:
  struct Timer {
    std::int64_t deadline_ms;
    std::int64_t version;  // the version whose state set it (0: unknown)
    bool claimed;          // leased to this replica in the index
    int retries = 0;       // failed checks in a row (store down) behind this timer
  };
  struct Due {
    std::string game_id;
    Timer timer;
  };

  void Track(absl::string_view game_id, Timer timer);
  void Untrack(absl::string_view game_id);
  // Pops the timers due by `now_us`.
  std::vector<Due> PopDue(std::int64_t now_us) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The earliest timer or wake-up (ms on the time base), kNever when there is none.
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  std::int64_t NextWakeMs() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Pops the shards whose wake-up is due by `now_us`.
  std::vector<int> PopWakes(std::int64_t now_us) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<Due> Claim(int shard, std::int64_t now_ms);
  // The shard's entries due within peek_ahead, earliest first (nullopt: the read failed).
  std::optional<std::vector<store::DueEntry>> Peek(int shard, std::int64_t now_ms);
  // Sets wake-ups for the entries due after `after_ms` that have no timer here.
  void SetWakes(int shard, const std::vector<store::DueEntry>& entries, std::int64_t after_ms);
  void Dispatch(Due due);
  // Checks one game; returns the flags appended.
  int Check(const Due& due);
  void TimerLoop();
  void SweepLoop(int index);
  void Error(const absl::Status& status);

  ClockAuthority* const authority_;
  const FlagSchedulerOptions options_;
  const FlagSchedulerHooks hooks_;

  absl::Mutex mu_;
  absl::CondVar wake_;  // the timer thread: an earlier deadline, or stop
  absl::CondVar stop_;  // the sweepers: stop
  // The timers by game (node-stable keys) and by deadline (pointing at those keys: a press
  // moves a timer without copying the game id).
  absl::node_hash_map<std::string, Timer> timers_ ABSL_GUARDED_BY(mu_);
  absl::btree_set<std::pair<std::int64_t, const std::string*>> heap_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> in_flight_ ABSL_GUARDED_BY(mu_);
  // Peer wake-ups: (when, on the time base in ms; shard) to claim that shard's due entries.
  absl::btree_set<std::pair<std::int64_t, int>> wakes_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::atomic<std::int64_t> fast_until_us_{0};  // sweep fast until then (monotonic µs)
  std::unique_ptr<service::WorkerPool> pool_;
  std::vector<std::thread> threads_;
};

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_FLAG_SCHEDULER_H_
