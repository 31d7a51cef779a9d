// A replica's cache of the latest state of the games it served, for the authorities that decide
// commands on a cached state and confirm it with the store's compare-and-set (a stale entry
// costs one ERR_VERSION_CONFLICT, then a read). Thread-safe; bounded.
#ifndef ARBITER_LIBS_STORE_STATE_CACHE_H_
#define ARBITER_LIBS_STORE_STATE_CACHE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace store {

// `State` has `std::int64_t version() const`.
template <typename State>
class StateCache {
 public:
  explicit StateCache(size_t capacity) : capacity_(capacity) {}

  // The cached state, or null.
  std::shared_ptr<const State> Get(absl::string_view game_id) {
    absl::MutexLock lock(&mu_);
    auto it = states_.find(game_id);
    return it == states_.end() ? nullptr : it->second;
  }

  // Keeps `state` unless a newer one is cached already (threads finish in any order). When full,
  // an arbitrary entry makes room.
  void Remember(absl::string_view game_id, std::shared_ptr<const State> state) {
    absl::MutexLock lock(&mu_);
    auto it = states_.find(game_id);
    if (it != states_.end()) {
      if (it->second->version() <= state->version()) it->second = std::move(state);
      return;
    }
    if (states_.size() >= capacity_ && !states_.empty()) states_.erase(states_.begin());
    states_.emplace(std::string(game_id), std::move(state));
  }

  void Forget(absl::string_view game_id) {
    absl::MutexLock lock(&mu_);
    states_.erase(game_id);
  }

 private:
  const size_t capacity_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const State>> states_ ABSL_GUARDED_BY(mu_);
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_STATE_CACHE_H_
