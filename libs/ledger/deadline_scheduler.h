// The deadline scheduler: what falls due without anyone's command (a flag, 6.9; a default, 6.7;
// an envelope closing, A1b) is recorded by the server, exactly once, at the instant it fell, with
// any number of replicas on one store and any of them killed midway. One scheduler for every
// domain kept as an event log: the clock authority's clocks and the arbitration's games each run
// one over their own store (their own key prefix: neither ever sees the other's deadlines).
//
// The domain gives a check: "record what fell by now on this game", an append under a command id
// every replica derives alike from the state's version ("flag:<game>:<v>", "settle:<game>:<v>"),
// compare-and-set on the version, the deadline cleared or moved in the same write. That append is
// what makes a deadline recorded once however many replicas check it. Two ways a replica learns
// that a deadline is due, both ending in the check:
//
// 1. Local timers: every append this replica makes sets or clears the game's deadline in the
//    store's index (same write) and here (OnDeadlineSet, from the domain authority's observer), in
//    a timer heap. A timer thread wakes at the deadline (to the microsecond on the time base) and
//    hands the game to a worker, which checks it on the cached state. This is the fast path.
// 2. The index: ClaimDueDeadlines on a shard leases the entries due for more than `sweep_grace`
//    to this replica (`lease` long) and checks them. That is how a replica takes over the
//    deadlines whose replica died (or restarted) before firing. The grace leaves each entry to
//    the replica that set it; while that replica is alive its timer fires and the append clears
//    the entry before anyone else's claim sees it due. Claims happen at two moments:
//    a. Peer wake-ups: each sweep also reads (PeekDeadlines, no claim) the entries due within
//       `peek_ahead` that this replica has no timer for, and sets a wake-up for their shard at
//       their due time + `sweep_grace`. So a dead replica's deadline is taken over about
//       sweep_grace after it fell, not a sweep interval later.
//    b. The sweep itself, over all shards: the backstop for what no wake-up covered (a deadline
//       set less than `peek_ahead` before it falls by a replica that then died, more entries than
//       one peek returns). A shard is claimed only when an entry in it is already due, so an idle
//       sweep is one read per shard and writes nothing, and each sweeper reads its shards together
//       (PeekDeadlinesOfShards: on Redis one round trip per master, not per shard). Still, a
//       sweep costs those reads, so it is adaptive: every `idle_sweep_interval` while sweeps find
//       nothing, every `sweep_interval` for `fast_sweep_period` after one found something.
//
// A failed check is not retried forever: a store down or slow, or a game contended
// (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED, RESOURCE_EXHAUSTED) is tried again from the local
// timer, backing off, `max_retries` times, the entry staying in the index; anything else (a
// reused command id, a damaged log: the same append would fail the same way) releases a claimed
// entry to be looked at `recheck_after` later.
//
//   DeadlineScheduler scheduler(&store, &time,
//       [&](absl::string_view game, std::int64_t version) -> absl::StatusOr<DeadlineCheck> {
//         ASSIGN_OR_RETURN(FlagCheckResult r, authority.CheckFlags(game, version));
//         return DeadlineCheck{r.recorded, r.already_recorded, r.next_deadline, r.version};
//       },
//       {.owner = "pod-a:1234"});
//   // the authority's observer: scheduler.OnDeadlineSet(game, after.version(), deadline);
//   scheduler.Start();  ...  scheduler.Stop();
//
// With a FakeTime, RunOnce() does one claim of every shard and every due check inline: exact
// instants in tests.
#ifndef ARBITER_LIBS_LEDGER_DEADLINE_SCHEDULER_H_
#define ARBITER_LIBS_LEDGER_DEADLINE_SCHEDULER_H_

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
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "libs/base/worker_pool.h"
#include "libs/ledger/time_source.h"
#include "libs/store/deadline_index.h"

namespace ledger {

struct DeadlineSchedulerOptions {
  std::string owner = "ledger";  // unique per replica: the lease holder's name
  absl::Duration sweep_interval = absl::Milliseconds(5);        // while sweeps find entries
  absl::Duration idle_sweep_interval = absl::Milliseconds(40);  // while they find none
  // How far ahead each sweep reads the index for other replicas' deadlines: more than
  // idle_sweep_interval, so that every deadline is seen by one sweep before it falls.
  absl::Duration peek_ahead = absl::Milliseconds(100);
  absl::Duration fast_sweep_period = absl::Seconds(2);  // fast after a find
  absl::Duration sweep_grace = absl::Milliseconds(3);
  absl::Duration lease = absl::Milliseconds(50);
  int workers = 16;  // concurrent checks
  // Threads sweeping the shards in parallel. Each claim waits for the store (with Redis's
  // appendfsync always, behind the fsync of whatever else it writes): claims in parallel share
  // that wait.
  int sweepers = 16;
  int max_claim = 256;
  // A check that failed transiently: again after retry_after, doubling up to max_retry_after, at
  // most max_retries times from this replica's timer; then the entry is the index's (a lease
  // ends by itself, a sweep claims it again).
  absl::Duration retry_after = absl::Milliseconds(50);
  absl::Duration max_retry_after = absl::Seconds(2);
  int max_retries = 8;
  // A claimed entry whose check the store refuses as it is, or that has nothing pending: due
  // again this much later.
  absl::Duration recheck_after = absl::Minutes(1);
};

// What one check of a game did.
struct DeadlineCheck {
  int recorded = 0;                           // events this check appended
  bool already_recorded = false;              // another replica (or a retry) appended them first
  std::optional<std::int64_t> next_deadline;  // of the state after the check (none: nothing due)
  std::int64_t version = 0;                   // of that state
};

// Records what fell by now on `game_id`. `known_version`: the version whose deadline triggered
// the check (0: unknown), so the domain may use its cached state when it is at that version.
using DeadlineCheckFn = std::function<absl::StatusOr<DeadlineCheck>(absl::string_view game_id,
                                                                    std::int64_t known_version)>;

// A domain's check result (recorded, already_recorded, next_deadline, version: the clock's
// FlagCheckResult, the game's SettleResult) as the scheduler's.
template <typename Result>
absl::StatusOr<DeadlineCheck> AsDeadlineCheck(const absl::StatusOr<Result>& result) {
  if (!result.ok()) return result.status();
  return DeadlineCheck{result->recorded, result->already_recorded, result->next_deadline,
                       result->version};
}

// What a failed check means for the scheduler.
enum class CheckFailure {
  kTransient,  // the store is down or slow, or the game is contended: try again, backing off
  kRefused,    // the same check would fail the same way (reused id, damaged log, not found)
};
CheckFailure ClassifyCheckFailure(const absl::Status& status);

// What the scheduler did, for metrics; each may be empty.
struct DeadlineSchedulerHooks {
  std::function<void(int claimed)> on_claimed;        // entries a claim leased
  std::function<void(const absl::Status&)> on_error;  // a claim, check or release failed
  std::function<void(absl::Duration)> on_sweep;       // the time one sweep of all shards took
  std::function<void(int recorded)> on_fired;         // events a check appended
};

class DeadlineScheduler {
 public:
  // `index`, `time` and what `check` calls must outlive the scheduler.
  DeadlineScheduler(store::DeadlineIndex* index, TimeSource* time, DeadlineCheckFn check,
                    DeadlineSchedulerOptions options, DeadlineSchedulerHooks hooks = {});
  ~DeadlineScheduler();

  DeadlineScheduler(const DeadlineScheduler&) = delete;
  DeadlineScheduler& operator=(const DeadlineScheduler&) = delete;

  void Start();
  // Stops the timer and the sweeps, refuses what they (or a claim already running) would still
  // hand to the workers, lets the checks already queued finish, joins, then frees the workers.
  // What was refused stays in the index for the other replicas (a lease ends by itself).
  void Stop();

  // Test mode (without Start): claims every due entry of every shard and runs every due check,
  // inline, at the time source's now. Returns the number of events this replica appended.
  absl::StatusOr<int> RunOnce();

  // This replica appended to `game_id`, giving `version`, and set its deadline (nullopt:
  // cleared). Older news than a timer already set is ignored.
  void OnDeadlineSet(absl::string_view game_id, std::int64_t version,
                     std::optional<std::int64_t> deadline);

  size_t tracked();  // local timers pending

 private:
  struct Timer {
    std::int64_t deadline_ms = 0;
    std::int64_t version = 0;  // the version whose state set it (0: unknown)
    bool claimed = false;      // leased to this replica in the index
    int retries = 0;           // failed checks in a row behind this timer
  };
  struct Due {
    std::string game_id;
    Timer timer;
  };

  void Track(absl::string_view game_id, Timer timer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Pops the timers due by `now_us`.
  std::vector<Due> PopDue(std::int64_t now_us) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The earliest timer or wake-up (ms on the time base), kNever when there is none.
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  std::int64_t NextWakeMs() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Pops the shards whose wake-up is due by `now_us`.
  std::vector<int> PopWakes(std::int64_t now_us) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<Due> Claim(int shard, std::int64_t now_ms);
  // Sets wake-ups for the entries due after `after_ms` that have no timer here.
  void SetWakes(int shard, const std::vector<store::DueEntry>& entries, std::int64_t after_ms);
  // Hands one game to a worker, once at a time per game; refused while stopping.
  void Dispatch(Due due);
  // Checks one game; returns the events appended.
  int Check(const Due& due);
  // Gives a claimed entry back to the index, due at `at_ms`.
  void Release(absl::string_view game_id, std::int64_t at_ms);
  void TimerLoop();
  void SweepLoop(int index);
  bool stopping();
  void Error(const absl::Status& status);

  store::DeadlineIndex* const index_;
  TimeSource* const time_;
  const DeadlineCheckFn check_;
  const DeadlineSchedulerOptions options_;
  const DeadlineSchedulerHooks hooks_;

  absl::Mutex mu_;
  absl::CondVar wake_;  // the timer thread: an earlier deadline, or stop
  absl::CondVar stop_;  // the sweepers: stop, or another sweeper found something
  // The timers by game (node-stable keys) and by deadline (pointing at those keys: a new
  // deadline moves a timer without copying the game id).
  absl::node_hash_map<std::string, Timer> timers_ ABSL_GUARDED_BY(mu_);
  absl::btree_set<std::pair<std::int64_t, const std::string*>> heap_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> in_flight_ ABSL_GUARDED_BY(mu_);
  // Peer wake-ups: (when, on the time base in ms; shard) to claim that shard's due entries.
  absl::btree_set<std::pair<std::int64_t, int>> wakes_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::atomic<std::int64_t> fast_until_us_{0};  // sweep fast until then (real µs)
  std::unique_ptr<base::WorkerPool> pool_;
  std::vector<std::thread> threads_;
};

}  // namespace ledger

#endif  // ARBITER_LIBS_LEDGER_DEADLINE_SCHEDULER_H_
