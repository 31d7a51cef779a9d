// Fans games' new events out to every watching stream of this replica (WatchClock, WatchGame):
// one blocking loop per deadline shard with watched games (GameStore::WaitForAnyEvents over all
// of them), not per game or per watcher, so ten thousand observers of one board, or a thousand
// boards, hold at most one store connection per shard, and a move wakes them all from memory.
// Events come in order; a listener skips what it has and fetches any gap itself (listeners join at
// their own version).
//
// A game added while its shard's loop waits joins the next wait, at most `wait` later; the
// listener's own catch-up read covers what was appended before it joined, so only events in
// that short window arrive that much later.
//
//   hub.Add("g1", 17, listener);   // delivers events after version 17 (or earlier ones: skip)
//   hub.Remove("g1", listener.get());
#ifndef ARBITER_LIBS_SERVICE_WATCH_HUB_H_
#define ARBITER_LIBS_SERVICE_WATCH_HUB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "libs/store/game_store.h"

namespace service {

class WatchHub {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    // New events of the game, in order (possibly some the listener has already seen).
    virtual void OnEvents(const std::vector<arbiter::v1::GameEvent>& events) = 0;
    // The store failed; the listener is removed after this.
    virtual void OnError(const absl::Status& status) = 0;
  };

  // `max_games`: games watched at once (memory and the size of each shard's wait).
  WatchHub(store::GameStore* store, int max_games, absl::Duration wait = absl::Milliseconds(200));
  ~WatchHub();  // stops every loop (each within `wait`)

  // RESOURCE_EXHAUSTED ERR_TOO_MANY_WATCHES when max_games other games are watched.
  absl::Status Add(const std::string& game_id, std::int64_t after_version,
                   std::shared_ptr<Listener> listener);
  void Remove(const std::string& game_id, Listener* listener);
  int watched_games();

 private:
  struct Game {
    std::vector<std::shared_ptr<Listener>> listeners;
    std::int64_t version = 0;
    int shard = 0;
  };
  void Loop(int shard);

  store::GameStore* const store_;
  const int max_games_;
  const absl::Duration wait_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Game> games_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<int> looping_ ABSL_GUARDED_BY(mu_);  // shards with a loop running
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_WATCH_HUB_H_
