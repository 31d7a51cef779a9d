#include "libs/clock_authority/flag_scheduler.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "libs/base/error.h"

namespace clock_authority {
namespace {

// A deadline for an entry that should not be in the index (no clock runs): look again later.
constexpr std::int64_t kStaleRecheckMs = 60'000;

}  // namespace

CheckFailure ClassifyCheckFailure(const absl::Status& status) {
  const std::string code = base::ErrorCode(status);
  if (code == kErrClockNotFound || code == kErrCorruptLog) return CheckFailure::kNotAClock;
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kAborted:  // ERR_VERSION_CONFLICT after max_attempts: contention
    case absl::StatusCode::kResourceExhausted:
      return CheckFailure::kTransient;
    default:
      return CheckFailure::kRefused;  // ERR_COMMAND_ID_REUSED, ERR_BAD_ARGUMENT, INTERNAL, ...
  }
}

FlagScheduler::FlagScheduler(ClockAuthority* authority, FlagSchedulerOptions options,
                             FlagSchedulerHooks hooks)
    : authority_(authority), options_(std::move(options)), hooks_(std::move(hooks)) {}

FlagScheduler::~FlagScheduler() { Stop(); }

void FlagScheduler::Start() {
  if (!threads_.empty()) return;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = false;
  }
  pool_ = std::make_unique<service::WorkerPool>(options_.workers);
  threads_.emplace_back([this] { TimerLoop(); });
  for (int i = 0; i < std::max(1, options_.sweepers); ++i) {
    threads_.emplace_back([this, i] { SweepLoop(i); });
  }
}

void FlagScheduler::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    wake_.SignalAll();
    stop_.SignalAll();
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  pool_.reset();  // runs what is queued, then joins
}

size_t FlagScheduler::tracked() {
  absl::MutexLock lock(&mu_);
  return timers_.size();
}

void FlagScheduler::Error(const absl::Status& status) {
  if (hooks_.on_error) hooks_.on_error(status);
}

void FlagScheduler::OnAppended(absl::string_view game_id, const ClockGame& after,
                               std::optional<std::int64_t> deadline) {
  if (deadline.has_value()) {
    Track(game_id, {*deadline, after.version(), false});
  } else {
    Untrack(game_id);
  }
}

void FlagScheduler::Track(absl::string_view game_id, Timer timer) {
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = timers_.try_emplace(game_id, timer);
  if (!inserted) {
    if (it->second.version > timer.version && timer.version != 0) return;  // older news
    heap_.erase({it->second.deadline_ms, &it->first});
    timer.claimed = timer.claimed || (it->second.claimed && it->second.version == timer.version);
    it->second = timer;
  }
  heap_.insert({timer.deadline_ms, &it->first});
  if (heap_.begin()->first == timer.deadline_ms) wake_.Signal();
}

void FlagScheduler::Untrack(absl::string_view game_id) {
  absl::MutexLock lock(&mu_);
  auto it = timers_.find(game_id);
  if (it == timers_.end()) return;
  heap_.erase({it->second.deadline_ms, &it->first});
  timers_.erase(it);
}

std::vector<FlagScheduler::Due> FlagScheduler::PopDue(std::int64_t now_us) {
  std::vector<Due> due;
  while (!heap_.empty() && heap_.begin()->first * 1000 <= now_us) {
    auto it = timers_.find(*heap_.begin()->second);
    heap_.erase(heap_.begin());
    due.push_back({it->first, it->second});
    timers_.erase(it);
  }
  return due;
}

std::vector<int> FlagScheduler::PopWakes(std::int64_t now_us) {
  std::vector<int> shards;
  while (!wakes_.empty() && wakes_.begin()->first * 1000 <= now_us) {
    const int shard = wakes_.begin()->second;
    wakes_.erase(wakes_.begin());
    if (std::find(shards.begin(), shards.end(), shard) == shards.end()) shards.push_back(shard);
  }
  return shards;
}

std::int64_t FlagScheduler::NextWakeMs() const {
  return std::min(heap_.empty() ? kNever : heap_.begin()->first,
                  wakes_.empty() ? kNever : wakes_.begin()->first);
}

void FlagScheduler::TimerLoop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const std::int64_t next_ms = NextWakeMs();
    if (next_ms == kNever) {
      wake_.WaitWithTimeout(&mu_, absl::Milliseconds(100));
      continue;
    }
    const std::int64_t now_us = authority_->time()->NowMicros();
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
      pool_->Submit([this, shard] {
        for (Due& d : Claim(shard, authority_->time()->NowMs())) Dispatch(std::move(d));
      });
    }
    mu_.Lock();
  }
}

void FlagScheduler::Dispatch(Due due) {
  {
    absl::MutexLock lock(&mu_);
    // One check per game at a time; the one running covers this trigger too (it reads the state
    // after the trigger was set, or loses the compare-and-set and reads again).
    if (!in_flight_.insert(due.game_id).second) return;
  }
  pool_->Submit([this, due = std::move(due)] {
    Check(due);
    absl::MutexLock lock(&mu_);
    in_flight_.erase(due.game_id);
  });
}

int FlagScheduler::Check(const Due& due) {
  store::GameStore* store = authority_->store();
  absl::StatusOr<FlagCheckResult> result = authority_->CheckFlags(due.game_id, due.timer.version);
  if (!result.ok()) {
    Error(result.status());
    const std::int64_t now = authority_->time()->NowMs();
    if (ClassifyCheckFailure(result.status()) != CheckFailure::kTransient) {
      // Not a clock this authority can read (another service's game, or damaged), or an append
      // the store refuses as it is: look again later rather than spin on it.
      if (due.timer.claimed) {
        absl::StatusOr<bool> released =
            store->ReleaseDeadline(due.game_id, authority_->owner(), now + kStaleRecheckMs);
        if (!released.ok()) Error(released.status());
      }
      return 0;
    }
    // The store is down or slow: try again, backing off, a bounded number of times (the entry
    // stays in the index, and a leased one comes back by itself when its lease ends).
    const int retries = due.timer.retries + 1;
    if (retries > options_.max_retries) return 0;
    const absl::Duration wait = std::min(options_.max_retry_after,
                                         options_.retry_after * (1LL << std::min(retries - 1, 20)));
    Track(due.game_id, {now + std::max<std::int64_t>(1, absl::ToInt64Milliseconds(wait)), 0,
                        due.timer.claimed, retries});
    return 0;
  }
  if (result->recorded > 0 || result->already_recorded) return result->recorded;
  // Nothing has fallen. Either the timer fired a hair early, or the game moved on.
  if (result->next_deadline.has_value()) {
    if (due.timer.claimed) {
      // The index is due again at the real deadline, for whoever sweeps then.
      absl::StatusOr<bool> released =
          store->ReleaseDeadline(due.game_id, authority_->owner(), *result->next_deadline);
      if (!released.ok()) Error(released.status());
    }
    if (!due.timer.claimed && (due.timer.version == 0 || result->version == due.timer.version)) {
      Track(due.game_id, {*result->next_deadline, result->version, false});
    }
  } else if (due.timer.claimed) {
    // An index entry without a running clock (should not exist: every append sets or clears it).
    absl::StatusOr<bool> released = store->ReleaseDeadline(
        due.game_id, authority_->owner(), authority_->time()->NowMs() + kStaleRecheckMs);
    if (!released.ok()) Error(released.status());
  }
  return 0;
}

std::vector<FlagScheduler::Due> FlagScheduler::Claim(int shard, std::int64_t now_ms) {
  std::vector<Due> due;
  store::GameStore* store = authority_->store();
  const std::int64_t claim_now = now_ms - absl::ToInt64Milliseconds(options_.sweep_grace);
  const std::int64_t lease_ms =
      std::max<std::int64_t>(1, absl::ToInt64Milliseconds(options_.lease));
  while (true) {
    absl::StatusOr<std::vector<store::Deadline>> got = store->ClaimDueDeadlines(
        shard, claim_now, lease_ms, options_.max_claim, authority_->owner());
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

std::optional<std::vector<store::DueEntry>> FlagScheduler::Peek(int shard, std::int64_t now_ms) {
  absl::StatusOr<std::vector<store::DueEntry>> entries = authority_->store()->PeekDeadlines(
      shard, now_ms + absl::ToInt64Milliseconds(options_.peek_ahead), options_.max_claim);
  if (!entries.ok()) {
    Error(entries.status());
    return std::nullopt;
  }
  return *std::move(entries);
}

void FlagScheduler::SetWakes(int shard, const std::vector<store::DueEntry>& entries,
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

void FlagScheduler::SweepLoop(int index) {
  const int shards = authority_->store()->NumDeadlineShards();
  const int step = std::max(1, options_.sweepers);
  while (true) {
    const absl::Time start = absl::Now();
    const std::int64_t now_ms = authority_->time()->NowMs();
    bool found = false;
    const std::int64_t claim_now = now_ms - absl::ToInt64Milliseconds(options_.sweep_grace);
    for (int shard = index; shard < shards; shard += step) {
      // One read per shard: what falls within peek_ahead. Only a shard with an entry already
      // due (the entries come earliest first) is claimed, so an idle sweep writes nothing.
      std::optional<std::vector<store::DueEntry>> entries = Peek(shard, now_ms);
      if (!entries.has_value()) continue;
      if (!entries->empty() && entries->front().due_ms <= claim_now) {
        for (Due& d : Claim(shard, now_ms)) {
          found = true;
          Dispatch(std::move(d));
        }
      }
      SetWakes(shard, *entries, claim_now);
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

absl::StatusOr<int> FlagScheduler::RunOnce() {
  const std::int64_t now_ms = authority_->time()->NowMs();
  std::vector<Due> due;
  for (int shard = 0; shard < authority_->store()->NumDeadlineShards(); ++shard) {
    for (Due& d : Claim(shard, now_ms)) due.push_back(std::move(d));
  }
  {
    absl::MutexLock lock(&mu_);
    for (Due& d : PopDue(authority_->time()->NowMicros())) due.push_back(std::move(d));
  }
  // One check per game, as Dispatch would.
  absl::flat_hash_set<std::string> seen;
  int recorded = 0;
  for (const Due& d : due) {
    if (seen.insert(d.game_id).second) recorded += Check(d);
  }
  return recorded;
}

}  // namespace clock_authority
