#include "libs/service/watch_hub.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/service/errors.h"

namespace service {

WatchHub::WatchHub(store::GameStore* store, int max_games, absl::Duration wait)
    : store_(store), max_games_(max_games), wait_(wait) {}

WatchHub::~WatchHub() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  mu_.Await(absl::Condition(
      +[](absl::flat_hash_set<int>* looping) { return looping->empty(); }, &looping_));
}

int WatchHub::watched_games() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(games_.size());
}

absl::Status WatchHub::Add(const std::string& game_id, std::int64_t after_version,
                           std::shared_ptr<Listener> listener) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return base::Error(service::kErrShuttingDown, "the server is stopping");
  auto it = games_.find(game_id);
  if (it != games_.end()) {
    // A listener behind the loop is covered by its own catch-up read and gap fetches.
    it->second.listeners.push_back(std::move(listener));
    return absl::OkStatus();
  }
  if (static_cast<int>(games_.size()) >= max_games_) {
    return base::Error(service::kErrTooManyWatches,
                       absl::StrCat("this replica already watches ", max_games_,
                                    " games; try another replica or later"));
  }
  Game& game = games_[game_id];
  game.listeners.push_back(std::move(listener));
  game.version = after_version;
  game.shard = store::DeadlineShard(game_id, store_->NumDeadlineShards());
  if (looping_.insert(game.shard).second) {
    std::thread([this, shard = game.shard] { Loop(shard); }).detach();
  }
  return absl::OkStatus();
}

void WatchHub::Remove(const std::string& game_id, Listener* listener) {
  absl::MutexLock lock(&mu_);
  auto it = games_.find(game_id);
  if (it == games_.end()) return;
  auto& ls = it->second.listeners;
  ls.erase(std::remove_if(ls.begin(), ls.end(),
                          [&](const std::shared_ptr<Listener>& l) { return l.get() == listener; }),
           ls.end());
}

void WatchHub::Loop(int shard) {
  while (true) {
    std::vector<store::WatchPosition> positions;
    {
      absl::MutexLock lock(&mu_);
      // A game nobody listens to any more is dropped here, by its shard's loop.
      absl::erase_if(games_, [&](const auto& entry) {
        return entry.second.shard == shard && entry.second.listeners.empty();
      });
      if (!stopping_) {
        for (const auto& [id, game] : games_) {
          if (game.shard == shard) positions.push_back({id, game.version});
        }
      }
      if (positions.empty()) {
        looping_.erase(shard);  // an Add after this starts a new loop
        return;
      }
    }
    absl::StatusOr<std::vector<store::GameEvents>> got =
        store_->WaitForAnyEvents(positions, wait_, 256);
    // Deliveries outside the lock: a listener may call back into the hub.
    std::vector<std::pair<std::vector<std::shared_ptr<Listener>>, const store::GameEvents*>> out;
    std::vector<std::shared_ptr<Listener>> failed;
    {
      absl::MutexLock lock(&mu_);
      if (!got.ok()) {
        // Every stream of the shard ends with the store's error; the clients resume.
        for (const store::WatchPosition& p : positions) {
          auto it = games_.find(p.game_id);
          if (it == games_.end()) continue;
          failed.insert(failed.end(), it->second.listeners.begin(), it->second.listeners.end());
          it->second.listeners.clear();
        }
      } else {
        for (const store::GameEvents& g : *got) {
          auto it = games_.find(g.game_id);
          if (it == games_.end() || g.events.empty()) continue;
          it->second.version = std::max(it->second.version, g.events.back().version());
          out.emplace_back(it->second.listeners, &g);
        }
      }
    }
    for (const std::shared_ptr<Listener>& l : failed) l->OnError(got.status());
    for (const auto& [listeners, game] : out) {
      for (const std::shared_ptr<Listener>& l : listeners) l->OnEvents(game->events);
    }
  }
}

}  // namespace service
