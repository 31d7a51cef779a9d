// A replica's cache of the latest state of the games it served, for the authorities that decide
// commands on a cached state and confirm it with the store's compare-and-set (a stale entry
// costs one ERR_VERSION_CONFLICT, then a read). Thread-safe; bounded, least recently used out.
//
// Each state is kept with its tip (GameSnapshot.tip, AppendResult.tip: which append made it),
// which the append decided on it passes as its expected tip: after a failover the new master can
// be at the same version by other appends, and only the tip tells (game_store.h). And the cache
// is emptied when the store has moved to another master (ObserveMasterEpoch).
#ifndef ARBITER_LIBS_STORE_STATE_CACHE_H_
#define ARBITER_LIBS_STORE_STATE_CACHE_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace store {

// `State` has `std::int64_t version() const`.
//
// When full, the least recently used game makes room. A replica serves games for days: games
// played out, abandoned or moved to another replica stay here until pushed out, and an arbitrary
// victim (what this cache chose before) was as likely a game in play, whose next command then
// paid a read of its whole log from the store (in the move bench, from ~20,000 games on: a
// backlog of seconds).
template <typename State>
class StateCache {
 public:
  // A cached state and the tip it was remembered with, read together: an append decided on the
  // state expects exactly that tip, even if another thread has cached another state since.
  struct Known {
    std::shared_ptr<const State> state;  // null: none cached
    std::string tip;
  };

  explicit StateCache(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

  // The cached state, or null.
  std::shared_ptr<const State> Get(absl::string_view game_id) { return GetKnown(game_id).state; }

  // The cached state and its tip (a null state: none cached).
  Known GetKnown(absl::string_view game_id) {
    absl::MutexLock lock(&mu_);
    auto it = states_.find(game_id);
    if (it == states_.end()) return {};
    TouchLocked(it->second);
    return {it->second.state, it->second.tip};
  }

  // Keeps `state` (made by the append `tip`; "" if unknown) unless a newer one is cached already
  // (threads finish in any order).
  void Remember(absl::string_view game_id, std::shared_ptr<const State> state,
                std::string tip = "") {
    absl::MutexLock lock(&mu_);
    auto it = states_.find(game_id);
    if (it != states_.end()) {
      if (it->second.state->version() <= state->version()) {
        it->second.state = std::move(state);
        it->second.tip = std::move(tip);
      }
      TouchLocked(it->second);
      return;
    }
    if (states_.size() >= capacity_) {
      states_.erase(recency_.back());
      recency_.pop_back();
    }
    recency_.emplace_front(game_id);
    states_.emplace(recency_.front(), Entry{std::move(state), std::move(tip), recency_.begin()});
  }

  // The store's MasterEpoch(): when it differs from the last one seen, every state is dropped
  // (read from the old master, it may hold appends the new one never got).
  void ObserveMasterEpoch(std::uint64_t epoch) {
    // Read first: the exchange, a write, on every command would bounce the line between cores.
    if (seen_epoch_.load(std::memory_order_relaxed) == epoch) return;
    if (seen_epoch_.exchange(epoch) == epoch) return;
    absl::MutexLock lock(&mu_);
    states_.clear();
    recency_.clear();
  }

  void Forget(absl::string_view game_id) {
    absl::MutexLock lock(&mu_);
    auto it = states_.find(game_id);
    if (it == states_.end()) return;
    recency_.erase(it->second.where);
    states_.erase(it);
  }

  size_t size() {
    absl::MutexLock lock(&mu_);
    return states_.size();
  }

 private:
  struct Entry {
    std::shared_ptr<const State> state;
    std::string tip;
    std::list<std::string>::iterator where;  // in recency_
  };
  void TouchLocked(Entry& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    recency_.splice(recency_.begin(), recency_, e.where);
  }

  const size_t capacity_;
  std::atomic<std::uint64_t> seen_epoch_{0};
  absl::Mutex mu_;
  std::list<std::string> recency_ ABSL_GUARDED_BY(mu_);  // game ids, most recently used first
  absl::flat_hash_map<std::string, Entry> states_ ABSL_GUARDED_BY(mu_);
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_STATE_CACHE_H_
