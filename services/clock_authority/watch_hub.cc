#include "services/clock_authority/watch_hub.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"

namespace clock_authority {

WatchHub::WatchHub(store::GameStore* store, int max_games, absl::Duration wait)
    : store_(store), max_games_(max_games), wait_(wait) {}

WatchHub::~WatchHub() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  mu_.Await(absl::Condition(
      +[](int* loops) { return *loops == 0; }, &loops_));
}

int WatchHub::watched_games() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(games_.size());
}

absl::Status WatchHub::Add(const std::string& game_id, std::int64_t after_version,
                           std::shared_ptr<Listener> listener) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return base::Unavailable("ERR_SHUTTING_DOWN", "the server is stopping");
  auto it = games_.find(game_id);
  if (it != games_.end()) {
    // A listener behind the loop is covered by its own catch-up read and gap fetches.
    it->second.listeners.push_back(std::move(listener));
    return absl::OkStatus();
  }
  if (static_cast<int>(games_.size()) >= max_games_) {
    return base::Error(absl::StatusCode::kResourceExhausted, "ERR_TOO_MANY_WATCHES",
                       absl::StrCat("this replica already watches ", max_games_,
                                    " games; try another replica or later"));
  }
  Game& game = games_[game_id];
  game.listeners.push_back(std::move(listener));
  game.version = after_version;
  ++loops_;
  std::thread([this, game_id] { Loop(game_id); }).detach();
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

void WatchHub::Loop(std::string game_id) {
  while (true) {
    std::int64_t version;
    {
      absl::MutexLock lock(&mu_);
      Game& game = games_[game_id];
      if (stopping_ || game.listeners.empty()) {
        games_.erase(game_id);
        --loops_;
        return;
      }
      version = game.version;
    }
    absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events =
        store_->WaitForEvents(game_id, version, wait_, 256);
    std::vector<std::shared_ptr<Listener>> listeners;
    {
      absl::MutexLock lock(&mu_);
      Game& game = games_[game_id];
      listeners = game.listeners;
      if (!events.ok()) {
        game.listeners.clear();  // each finishes its stream; the client resumes
      } else if (!events->empty()) {
        game.version = std::max(game.version, events->back().version());
      }
    }
    for (const std::shared_ptr<Listener>& l : listeners) {
      if (!events.ok()) {
        l->OnError(events.status());
      } else if (!events->empty()) {
        l->OnEvents(*events);
      }
    }
  }
}

}  // namespace clock_authority
