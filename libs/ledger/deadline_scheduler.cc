#include "libs/ledger/deadline_scheduler.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"

namespace ledger {

CheckFailure ClassifyCheckFailure(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kAborted:  // ERR_VERSION_CONFLICT after max_attempts: contention
    case absl::StatusCode::kResourceExhausted:
      return CheckFailure::kTransient;
    default:
      return CheckFailure::kRefused;  // ERR_COMMAND_ID_REUSED, ERR_CORRUPT_LOG, NOT_FOUND, ...
  }
}

DeadlineScheduler::DeadlineScheduler(store::DeadlineIndex* index, TimeSource* time,
                                     DeadlineCheckFn check, DeadlineSchedulerOptions options,
                                     DeadlineSchedulerHooks hooks)
    : index_(index),
      time_(time),
      check_(std::move(check)),
      options_(std::move(options)),
      hooks_(std::move(hooks)) {}

DeadlineScheduler::~DeadlineScheduler() { Stop(); }

void DeadlineScheduler::Start() {
  if (!threads_.empty()) return;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = false;
  }
  pool_ = std::make_unique<base::WorkerPool>(std::max(1, options_.workers));
  threads_.emplace_back([this] { TimerLoop(); });
  for (int i = 0; i < std::max(1, options_.sweepers); ++i) {
    threads_.emplace_back([this, i] { SweepLoop(i); });
  }
}

void DeadlineScheduler::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.SignalAll();
    stop_.SignalAll();
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  // The pool stops while it is still whole: a claim running in it dispatches into a pool that
  // refuses, not into one half destroyed.
  if (pool_ != nullptr) pool_->Stop();
  pool_.reset();
}

bool DeadlineScheduler::stopping() {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

size_t DeadlineScheduler::tracked() {
  absl::MutexLock lock(&mu_);
  return timers_.size();
}

void DeadlineScheduler::Error(const absl::Status& status) {
  if (hooks_.on_error) hooks_.on_error(status);
}

void DeadlineScheduler::OnDeadlineSet(absl::string_view game_id, std::int64_t version,
                                      std::optional<std::int64_t> deadline) {
  absl::MutexLock lock(&mu_);
  auto it = timers_.find(game_id);
  if (it != timers_.end() && it->second.version > version) return;  // older news
  if (deadline.has_value()) {
    Track(game_id, {*deadline, version, false});
  } else if (it != timers_.end()) {
    heap_.erase({it->second.deadline_ms, &it->first});
    timers_.erase(it);
  }
}

void DeadlineScheduler::Track(absl::string_view game_id, Timer timer) {
  auto [it, inserted] = timers_.try_emplace(game_id, timer);
  if (!inserted) {
    // A check that finished late does not move the timer a newer append set; a retry (version
    // unknown) only ever brings it forward.
    if (timer.version != 0 && it->second.version > timer.version) return;
    if (timer.version == 0 && it->second.deadline_ms <= timer.deadline_ms) return;
    heap_.erase({it->second.deadline_ms, &it->first});
    timer.claimed = timer.claimed || (it->second.claimed && it->second.version == timer.version);
    it->second = timer;
  }
  heap_.insert({timer.deadline_ms, &it->first});
  if (heap_.begin()->first == timer.deadline_ms) wake_.Signal();
}

std::vector<DeadlineScheduler::Due> DeadlineScheduler::PopDue(std::int64_t now_us) {
  std::vector<Due> due;
  while (!heap_.empty() && heap_.begin()->first * 1000 <= now_us) {
    auto it = timers_.find(*heap_.begin()->second);
    heap_.erase(heap_.begin());
    due.push_back({it->first, it->second});
    timers_.erase(it);
  }
  return due;
}

std::vector<int> DeadlineScheduler::PopWakes(std::int64_t now_us) {
  std::vector<int> shards;
  while (!wakes_.empty() && wakes_.begin()->first * 1000 <= now_us) {
    const int shard = wakes_.begin()->second;
    wakes_.erase(wakes_.begin());
    if (std::find(shards.begin(), shards.end(), shard) == shards.end()) shards.push_back(shard);
  }
  return shards;
}

std::int64_t DeadlineScheduler::NextWakeMs() const {
  return std::min(heap_.empty() ? kNever : heap_.begin()->first,
                  wakes_.empty() ? kNever : wakes_.begin()->first);
}

void DeadlineScheduler::TimerLoop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const std::int64_t next_ms = NextWakeMs();
    if (next_ms == kNever) {
      wake_.WaitWithTimeout(&mu_, absl::Milliseconds(100));
      continue;
    }
    const std::int64_t now_us = time_->NowMicros();
    const std::int64_t wait_us = next_ms * 1000 - now_us;
    if (wait_us > 0) {
      wake_.WaitWithTimeout(&mu_, absl::Microseconds(std::min<std::int64_t>(wait_us, 100'000)));
      continue;
    }
    std::vector<Due> due = PopDue(now_us);
    std::vector<int> shards = PopWakes(now_us);
    mu_.Unlock();
    for (Due& d : due) Dispatch(std::move(d));
    for (int shard : shards) {
      // Refused while stopping: the shard's entries stay due for the other replicas.
      pool_->Submit([this, shard] {
        if (stopping()) return;
        for (Due& d : Claim(shard, time_->NowMs())) Dispatch(std::move(d));
      });
    }
    mu_.Lock();
  }
}

void DeadlineScheduler::Dispatch(Due due) {
  {
    absl::MutexLock lock(&mu_);
    // Stopping: a claimed entry comes back when its lease ends, a timer's entry is due in the
    // index anyway.
    if (stopping_) return;
    // One check per game at a time; the one running covers this trigger too (it reads the state
    // after the trigger was set, or loses the compare-and-set and reads again).
    if (!in_flight_.insert(due.game_id).second) return;
  }
  std::string game_id = due.game_id;
  const bool queued = pool_->Submit([this, due = std::move(due)] {
    Check(due);
    absl::MutexLock lock(&mu_);
    in_flight_.erase(due.game_id);
  });
  if (!queued) {
    absl::MutexLock lock(&mu_);
    in_flight_.erase(game_id);
  }
}

void DeadlineScheduler::Release(absl::string_view game_id, std::int64_t at_ms) {
  absl::StatusOr<bool> released = index_->ReleaseDeadline(game_id, options_.owner, at_ms);
  if (!released.ok()) Error(released.status());
}

int DeadlineScheduler::Check(const Due& due) {
  absl::StatusOr<DeadlineCheck> result = check_(due.game_id, due.timer.version);
  const std::int64_t now = time_->NowMs();
  const std::int64_t recheck = now + absl::ToInt64Milliseconds(options_.recheck_after);
  if (!result.ok()) {
    Error(result.status());
    if (ClassifyCheckFailure(result.status()) != CheckFailure::kTransient) {
      // The same append would fail the same way: look again later rather than spin on it.
      if (due.timer.claimed) Release(due.game_id, recheck);
      return 0;
    }
    // The store is down or slow: try again, backing off, a bounded number of times (the entry
    // stays in the index, and a leased one comes back by itself when its lease ends).
    const int retries = due.timer.retries + 1;
    if (retries > options_.max_retries) return 0;
    const absl::Duration wait = std::min(options_.max_retry_after,
                                         options_.retry_after * (1LL << std::min(retries - 1, 20)));
    absl::MutexLock lock(&mu_);
    Track(due.game_id, {now + std::max<std::int64_t>(1, absl::ToInt64Milliseconds(wait)), 0,
                        due.timer.claimed, retries});
    return 0;
  }
  if (result->recorded > 0 && hooks_.on_fired) hooks_.on_fired(result->recorded);
  // What this check appended set its own timer (OnDeadlineSet); another replica's append is that
  // replica's to time, and the index's.
  if (result->recorded > 0 || result->already_recorded) return result->recorded;
  if (!result->next_deadline.has_value()) {
    // An index entry with nothing pending (another service's game, or one ended meanwhile).
    if (due.timer.claimed) Release(due.game_id, recheck);
    return 0;
  }
  // Nothing has fallen: the timer fired a hair early, or the game moved on. Check again at the
  // deadline; one the domain does not find due although it has passed is looked at again after
  // retry_after, never in a spin.
  const std::int64_t next = *result->next_deadline;
  const std::int64_t at = next > now    ? next
                          : next == now ? now + 1
                                        : now + absl::ToInt64Milliseconds(options_.retry_after);
  if (due.timer.claimed) {
    Release(due.game_id, at);  // due again in the index, for whoever sweeps then
  } else if (due.timer.version == 0 || result->version == due.timer.version) {
    absl::MutexLock lock(&mu_);
    Track(due.game_id, {at, result->version, false});
  }
  return 0;
}

std::vector<DeadlineScheduler::Due> DeadlineScheduler::Claim(int shard, std::int64_t now_ms) {
  std::vector<Due> due;
  const std::int64_t claim_now = now_ms - absl::ToInt64Milliseconds(options_.sweep_grace);
  const std::int64_t lease_ms =
      std::max<std::int64_t>(1, absl::ToInt64Milliseconds(options_.lease));
  while (true) {
    absl::StatusOr<std::vector<store::Deadline>> got =
        index_->ClaimDueDeadlines(shard, claim_now, lease_ms, options_.max_claim, options_.owner);
    if (!got.ok()) {
      Error(got.status());
      break;
    }
    for (store::Deadline& d : *got) {
      due.push_back({std::move(d.game_id), {d.deadline_ms, d.set_at_version, true}});
    }
    if (hooks_.on_claimed && !got->empty()) hooks_.on_claimed(static_cast<int>(got->size()));
    if (static_cast<int>(got->size()) < options_.max_claim) break;
  }
  return due;
}

void DeadlineScheduler::SetWakes(int shard, const std::vector<store::DueEntry>& entries,
                                 std::int64_t after_ms) {
  const std::int64_t grace_ms = absl::ToInt64Milliseconds(options_.sweep_grace);
  absl::MutexLock lock(&mu_);
  const std::int64_t earliest = NextWakeMs();
  bool signal = false;
  for (const store::DueEntry& e : entries) {
    if (e.due_ms <= after_ms) continue;  // claimed by this sweep
    // This replica's own timer fires first and its append clears the entry; the index is for
    // what nobody here times.
    auto own = timers_.find(e.game_id);
    if (own != timers_.end() && own->second.deadline_ms <= e.due_ms) continue;
    if (in_flight_.contains(e.game_id)) continue;
    const std::int64_t at = e.due_ms + grace_ms;
    if (wakes_.insert({at, shard}).second && at < earliest) signal = true;
  }
  if (signal) wake_.Signal();
}

void DeadlineScheduler::SweepLoop(int index) {
  const int step = std::max(1, options_.sweepers);
  std::vector<int> shards;  // this sweeper's
  for (int shard = index; shard < index_->NumDeadlineShards(); shard += step) {
    shards.push_back(shard);
  }
  while (true) {
    const absl::Time start = absl::Now();
    const std::int64_t now_ms = time_->NowMs();
    bool found = false;
    const std::int64_t claim_now = now_ms - absl::ToInt64Milliseconds(options_.sweep_grace);
    // What falls within peek_ahead in each shard, read together (a round trip per master, not
    // per shard: an idle shard costs its read, not a wait). Only a shard with an entry already
    // due (the entries come earliest first) is claimed, so an idle sweep writes nothing.
    std::vector<absl::StatusOr<std::vector<store::DueEntry>>> peeked =
        index_->PeekDeadlinesOfShards(
            shards, now_ms + absl::ToInt64Milliseconds(options_.peek_ahead), options_.max_claim);
    for (size_t i = 0; i < shards.size() && i < peeked.size(); ++i) {
      if (!peeked[i].ok()) {
        Error(peeked[i].status());
        continue;
      }
      const std::vector<store::DueEntry>& entries = *peeked[i];
      if (!entries.empty() && entries.front().due_ms <= claim_now) {
        for (Due& d : Claim(shards[i], now_ms)) {
          found = true;
          Dispatch(std::move(d));
        }
      }
      SetWakes(shards[i], entries, claim_now);
    }
    const std::int64_t start_us = absl::ToUnixMicros(start);
    if (found) {
      const bool was_idle = start_us >= fast_until_us_.load();
      fast_until_us_.store(start_us + absl::ToInt64Microseconds(options_.fast_sweep_period));
      if (was_idle) {
        absl::MutexLock lock(&mu_);
        stop_.SignalAll();  // wake the other sweepers into the fast pace
      }
    }
    if (hooks_.on_sweep && index == 0) hooks_.on_sweep(absl::Now() - start);
    const bool fast = start_us < fast_until_us_.load();
    const absl::Time next =
        start + (fast ? options_.sweep_interval
                      : std::max(options_.sweep_interval, options_.idle_sweep_interval));
    absl::MutexLock lock(&mu_);
    while (!stopping_ && absl::Now() < next) {
      stop_.WaitWithDeadline(&mu_, next);
      // Another sweeper found something: this one speeds up too.
      if (!fast && absl::ToUnixMicros(absl::Now()) < fast_until_us_.load()) break;
    }
    if (stopping_) return;
  }
}

absl::StatusOr<int> DeadlineScheduler::RunOnce() {
  const std::int64_t now_ms = time_->NowMs();
  std::vector<Due> due;
  for (int shard = 0; shard < index_->NumDeadlineShards(); ++shard) {
    for (Due& d : Claim(shard, now_ms)) due.push_back(std::move(d));
  }
  {
    absl::MutexLock lock(&mu_);
    for (Due& d : PopDue(time_->NowMicros())) due.push_back(std::move(d));
  }
  // One check per game, as Dispatch would.
  absl::flat_hash_set<std::string> seen;
  int recorded = 0;
  for (const Due& d : due) {
    if (seen.insert(d.game_id).second) recorded += Check(d);
  }
  return recorded;
}

}  // namespace ledger
