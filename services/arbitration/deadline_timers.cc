#include "services/arbitration/deadline_timers.h"

#include <algorithm>
#include <utility>

#include "libs/base/error.h"
#include "libs/store/game_store.h"

namespace arbitration_service {

void DeadlineTimers::Start() {
  if (!threads_.empty()) return;
  SetStopping(false);
  pool_ = std::make_unique<service::WorkerPool>(std::max(1, options_.workers));
  threads_.emplace_back([this] { TimerLoop(); });
  threads_.emplace_back([this] { SweepLoop(); });
}

void DeadlineTimers::Stop() {
  SetStopping(true);
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  pool_.reset();  // runs the checks already queued
}

void DeadlineTimers::SetStopping(bool stopping) {
  absl::MutexLock lock(&mu_);
  stopping_ = stopping;
  if (stopping) wake_.SignalAll();
}

size_t DeadlineTimers::tracked() {
  absl::MutexLock lock(&mu_);
  return timers_.size();
}

void DeadlineTimers::Track(const std::string& game_id, Timer timer) {
  auto it = timers_.find(game_id);
  if (it != timers_.end()) {
    // A check that finished late must not move the timer a newer append set; a retry (version
    // unknown) only ever brings it forward.
    if (timer.version != 0 && it->second.version > timer.version) return;
    if (timer.version == 0 && it->second.deadline_ms <= timer.deadline_ms) return;
    heap_.erase({it->second.deadline_ms, game_id});
    it->second = timer;
  } else {
    timers_.emplace(game_id, timer);
  }
  const bool earliest = heap_.empty() || timer.deadline_ms < heap_.begin()->first;
  heap_.insert({timer.deadline_ms, game_id});
  if (earliest) wake_.Signal();
}

void DeadlineTimers::Untrack(const std::string& game_id) {
  auto it = timers_.find(game_id);
  if (it == timers_.end()) return;
  heap_.erase({it->second.deadline_ms, game_id});
  timers_.erase(it);
}

void DeadlineTimers::OnAppended(absl::string_view game_id, const arbitration::GameState& after,
                                const std::vector<arbiter::v1::ArbitrationEvent>&,
                                std::optional<std::int64_t> deadline) {
  absl::MutexLock lock(&mu_);
  const std::string id(game_id);
  // A timer set by a newer state stays; otherwise this state's deadline replaces it.
  auto it = timers_.find(id);
  if (it != timers_.end() && it->second.version > after.version()) return;
  Untrack(id);
  if (deadline.has_value()) Track(id, {*deadline, after.version()});
}

void DeadlineTimers::Dispatch(std::string game_id, std::int64_t version, bool claimed,
                              int retries) {
  {
    absl::MutexLock lock(&mu_);
    if (!in_flight_.insert(game_id).second) return;  // being checked: the check sees it all
  }
  const bool queued = pool_->Submit([this, game_id, version, claimed, retries] {
    Check(game_id, version, claimed, retries);
    absl::MutexLock lock(&mu_);
    in_flight_.erase(game_id);
  });
  if (!queued) {
    absl::MutexLock lock(&mu_);
    in_flight_.erase(game_id);
  }
}

void DeadlineTimers::Check(const std::string& game_id, std::int64_t version, bool claimed,
                           int retries) {
  absl::StatusOr<arbitration::SettleResult> r = authority_->CheckDeadline(game_id, version);
  const std::int64_t now = authority_->NowMs();
  if (!r.ok()) {
    if (base::ErrorCode(r.status()) == store::kErrGameNotFound) return;
    Error(r.status());
    const absl::StatusCode code = r.status().code();
    const bool transient =
        code == absl::StatusCode::kUnavailable || code == absl::StatusCode::kDeadlineExceeded ||
        code == absl::StatusCode::kAborted || code == absl::StatusCode::kResourceExhausted;
    if (!transient) {
      // The store refuses the append as it is (a reused command id, a damaged log): the same
      // check would fail the same way, so it is not retried at a store-down pace (issue 15).
      if (claimed) {
        absl::StatusOr<bool> released =
            authority_->store()->ReleaseDeadline(game_id, options_.owner, now + 60'000);
        if (!released.ok()) Error(released.status());
      }
      return;
    }
    // The store is down or slow: again, backing off, a bounded number of times; the entry stays
    // in the index for the sweep.
    if (retries + 1 > options_.max_retries) return;
    const absl::Duration wait =
        std::min(options_.max_retry_after, options_.retry_after * (1LL << std::min(retries, 20)));
    absl::MutexLock lock(&mu_);
    Track(game_id,
          {now + std::max<std::int64_t>(1, absl::ToInt64Milliseconds(wait)), 0, retries + 1});
    return;
  }
  if (r->recorded > 0 && hooks_.on_fired) hooks_.on_fired(r->recorded);
  // What this check appended set its own timer (OnAppended); another replica's append is that
  // replica's to time, and the index's.
  if (r->recorded > 0 || r->already_recorded || !r->next_deadline.has_value()) return;
  // Nothing was due yet (this replica's time ran ahead of the deadline's): check again then, and
  // never spin on a deadline the rulings do not find due.
  const std::int64_t at =
      std::max(*r->next_deadline + 1, now + absl::ToInt64Milliseconds(options_.retry_after));
  {
    absl::MutexLock lock(&mu_);
    Track(game_id, {at, r->version});
  }
  if (claimed) {
    absl::StatusOr<bool> released =
        authority_->store()->ReleaseDeadline(game_id, options_.owner, *r->next_deadline);
    if (!released.ok()) Error(released.status());
  }
}

void DeadlineTimers::TimerLoop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const std::int64_t now = authority_->NowMs();
    std::vector<std::pair<std::string, Timer>> due;
    // A deadline is the last instant the player still had time; the flag has fallen after it.
    while (!heap_.empty() && heap_.begin()->first < now) {
      std::string game_id = heap_.begin()->second;
      heap_.erase(heap_.begin());
      auto it = timers_.find(game_id);
      due.emplace_back(std::move(game_id), it->second);
      timers_.erase(it);
    }
    if (!due.empty()) {
      mu_.Unlock();
      for (auto& [game_id, timer] : due) {
        Dispatch(std::move(game_id), timer.version, false, timer.retries);
      }
      mu_.Lock();
      continue;
    }
    absl::Duration wait = absl::Seconds(1);
    if (!heap_.empty()) {
      wait = std::min(wait, absl::Milliseconds(heap_.begin()->first - now + 1));
    }
    wake_.WaitWithTimeout(&mu_, wait);
  }
}

void DeadlineTimers::SweepLoop() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      wake_.WaitWithTimeout(&mu_, options_.sweep_interval);
      if (stopping_) return;
    }
    SweepOnce();
  }
}

void DeadlineTimers::SweepOnce() {
  store::GameStore* store = authority_->store();
  const std::int64_t grace_ms = absl::ToInt64Milliseconds(options_.sweep_grace);
  const std::int64_t cutoff = authority_->NowMs() - grace_ms;
  for (int shard = 0; shard < store->NumDeadlineShards(); ++shard) {
    // The peek is the sweep's read: a shard is claimed (a write) only when something in it is
    // due, so an idle sweep writes nothing.
    absl::StatusOr<std::vector<store::DueEntry>> peek = store->PeekDeadlines(shard, cutoff, 1);
    if (!peek.ok()) {
      Error(peek.status());
      continue;
    }
    if (peek->empty()) continue;
    absl::StatusOr<std::vector<store::Deadline>> claimed = store->ClaimDueDeadlines(
        shard, cutoff, absl::ToInt64Milliseconds(options_.lease) + grace_ms, options_.max_claim,
        options_.owner);
    if (!claimed.ok()) {
      Error(claimed.status());
      continue;
    }
    for (const store::Deadline& d : *claimed) Dispatch(d.game_id, 0, true);
  }
}

void DeadlineTimers::Error(const absl::Status& status) {
  if (hooks_.on_error) hooks_.on_error(status);
}

}  // namespace arbitration_service
