#include "services/arbitration/firehose.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"
#include "libs/arbitration/authority.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/service/errors.h"
#include "libs/service/grpc_status.h"
#include "libs/service/policy.h"
#include "libs/store/command_ids.h"
#include "libs/store/errors.h"

namespace arbitration_service {

namespace v1 = arbiter::v1;

v1::GameUpdate ViewedUpdate(const arbitration::Viewer& viewer, std::int64_t version,
                            const v1::ArbitrationEvent& event, std::string command_id) {
  v1::GameUpdate update;
  update.set_version(version);
  *update.mutable_event() = event;
  if (!viewer.advice && update.event().has_claim()) {
    update.mutable_event()->mutable_claim()->clear_advice();  // 12.2
  }
  if (update.event().has_move_sealed()) {
    // Appendix A: the sealed box and the wrapped key are the arbiter's safe, for nobody.
    update.mutable_event()->mutable_move_sealed()->clear_box();
    update.mutable_event()->mutable_move_sealed()->clear_wrapped_key();
  }
  arbitration::RedactActor(viewer, update.mutable_event(), &command_id);
  update.set_command_id(std::move(command_id));
  return update;
}

// A game as the reader knows it: its first event (who may see the game, its broadcast delay),
// read when an entry first names it, and, for a game with a broadcast delay only, its whole log as
// read so far (the delay's release counts the game's moves: observer_view.h).
struct Firehose::Game {
  const std::string game_id;
  absl::Mutex mu;
  bool known ABSL_GUARDED_BY(mu) = false;  // the first event was asked for
  std::optional<v1::GameCreated> created ABSL_GUARDED_BY(mu);
  Events log ABSL_GUARDED_BY(mu);  // a delayed game's events from version 1

  explicit Game(std::string id) : game_id(std::move(id)) { log.first = 1; }

  bool delayed() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return created.has_value() &&
           (created->broadcast_delay_plies() > 0 || created->broadcast_delay_ms() > 0);
  }
};

namespace {

// The store's events as the stream sends them, added to `out` from its next version on while
// their versions follow each other (a gap or an event that does not convert ends them: the rest is
// not sent).
void AddEvents(const std::vector<arbiter::v1::GameEvent>& read, Firehose::Events& out) {
  for (const arbiter::v1::GameEvent& e : read) {
    if (e.version() < out.next()) continue;
    if (e.version() != out.next()) break;
    absl::StatusOr<v1::ArbitrationEvent> event = arbitration::FromStoreEvent(e);
    if (!event.ok()) break;
    out.events.push_back(*std::move(event));
    out.command_ids.emplace_back(store::ClientCommandId(e.command_id()));
  }
}

// Adds to `log` what `events` has from the log's next version on.
void Extend(const Firehose::Events& events, Firehose::Events& log) {
  if (events.first > log.next()) return;  // not the versions that follow
  for (std::int64_t v = std::max(log.next(), events.first); v < events.next(); ++v) {
    const auto i = static_cast<size_t>(v - events.first);
    log.events.push_back(events.events[i]);
    log.command_ids.push_back(events.command_ids[i]);
  }
}

// Versions from..to of `all` (null if it holds none of them); `all` itself when it is just those.
std::shared_ptr<const Firehose::Events> Slice(const std::shared_ptr<const Firehose::Events>& all,
                                              std::int64_t from, std::int64_t to) {
  from = std::max(from, all->first);
  to = std::min(to, all->next() - 1);
  if (from > to) return nullptr;
  if (from == all->first && to == all->next() - 1) return all;
  auto part = std::make_shared<Firehose::Events>();
  part->first = from;
  const auto begin = static_cast<size_t>(from - all->first);
  const auto end = static_cast<size_t>(to - all->first + 1);
  part->events.assign(all->events.begin() + begin, all->events.begin() + end);
  part->command_ids.assign(all->command_ids.begin() + begin, all->command_ids.begin() + end);
  return part;
}

}  // namespace

// One WatchGames stream.
class Firehose::Subscriber {
 public:
  Subscriber(service::Principal who, arbitration::Viewer viewer, bool insecure,
             store::FeedPosition next, std::shared_ptr<Writer> out)
      : who_(std::move(who)),
        viewer_(std::move(viewer)),
        insecure_(insecure),
        out_(std::move(out)),
        next_(std::move(next)) {}

  Writer& out() { return *out_; }

  // Whether the subscriber has taken `e` already (it lies before where it stands in its shard).
  bool Took(const store::FeedEntry& e) {
    absl::MutexLock lock(&mu_);
    return e.sequence < next_.next[static_cast<size_t>(e.shard)];
  }

  // Takes `item` if it is the next entry of its shard: true when it comes after a gap (the
  // subscriber must catch up first; nothing taken).
  bool Offer(const Item& item, std::int64_t now_ms) {
    absl::MutexLock lock(&mu_);
    if (failed_) return false;
    const store::FeedEntry& e = item.entry;
    std::int64_t& next = next_.next[static_cast<size_t>(e.shard)];
    if (e.sequence < next) return false;  // taken already
    if (e.sequence > next) {
      behind_ = true;
      return true;
    }
    next = e.sequence + 1;
    if (item.events == nullptr || !Sees(*item.game)) return false;
    if (!viewer_.delayed) {
      SendLocked(e.game_id, *item.events, e.first_version, e.version,
                 store::EncodeFeedPosition(next_));
      return false;
    }
    bool delayed;
    {
      absl::MutexLock lock(&item.game->mu);
      delayed = item.game->delayed();
    }
    if (!delayed) {
      // No delay: sent at once, with the position of what other games still hold back.
      SendLocked(e.game_id, *item.events, e.first_version, e.version, ObserverPositionLocked());
      return false;
    }
    Held& held = held_[e.game_id];
    if (held.entries.empty()) held.first = std::max(held.first, e.first_version);
    held.game = item.game;
    held.entries.emplace(e.version, std::make_pair(e.shard, e.sequence));
    held_keys_.emplace(e.shard, e.sequence);
    ReleaseLocked(held, now_ms);
    if (held.entries.empty()) held_.erase(e.game_id);
    return false;
  }

  // Observers: what the delay releases by now_ms.
  void Release(std::int64_t now_ms) {
    absl::MutexLock lock(&mu_);
    if (failed_) return;
    for (auto it = held_.begin(); it != held_.end();) {
      ReleaseLocked(it->second, now_ms);
      if (it->second.entries.empty()) {
        held_.erase(it++);
      } else {
        ++it;
      }
    }
  }

  // The catch-up's turn: the position to read from, and whether one is needed at all (clears
  // the gap mark: an entry after a gap offered from now on marks it again).
  store::FeedPosition StartRead() {
    absl::MutexLock lock(&mu_);
    behind_ = false;
    return next_;
  }
  // The catch-up ends (false) unless an entry after a gap came meanwhile or it is over.
  bool KeepCatchingUp() {
    absl::MutexLock lock(&mu_);
    if (failed_ || !behind_) {
      catching_ = false;
      return false;
    }
    return true;
  }
  // Marks a catch-up as running: false if one runs already.
  bool BeginCatchUp() {
    absl::MutexLock lock(&mu_);
    if (catching_ || failed_) return false;
    catching_ = true;
    return true;
  }
  void EndCatchUp() {
    absl::MutexLock lock(&mu_);
    catching_ = false;
  }
  bool failed() {
    absl::MutexLock lock(&mu_);
    return failed_;
  }

  void Fail(const absl::Status& status) {
    absl::MutexLock lock(&mu_);
    FailLocked(status);
  }

 private:
  struct Held {
    std::map<std::int64_t, std::pair<int, std::int64_t>> entries;  // version -> (shard, sequence)
    std::int64_t first = 0;                                        // the first version not sent
    std::shared_ptr<Game> game;
  };

  // The caller may see the game: its event and players (BindPlayer: a token for an event sees
  // that event's games, a person's token the games naming him); a player's token for one game
  // sees that game.
  bool Sees(Game& game) {
    if (insecure_) return true;
    if (who_.role == service::Role::kPlayer && !who_.game_id.empty()) {
      return who_.game_id == game.game_id;
    }
    absl::MutexLock lock(&game.mu);
    if (!game.created.has_value()) return false;
    return service::BindPlayer(who_, game.game_id, game.created->event(), game.created->white_id(),
                               game.created->black_id())
        .ok();
  }

  // Queues versions from..to of the game (those `events` holds), with `position`.
  void SendLocked(const std::string& game_id, const Events& events, std::int64_t from,
                  std::int64_t to, std::string position) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    v1::GamesUpdate update;
    update.set_game_id(game_id);
    to = std::min(to, events.next() - 1);
    for (std::int64_t v = std::max(from, events.first); v <= to; ++v) {
      const auto i = static_cast<size_t>(v - events.first);
      *update.add_events() = ViewedUpdate(viewer_, v, events.events[i], events.command_ids[i]);
    }
    if (update.events().empty()) return;  // the game's log is gone (archived meanwhile)
    update.set_position(position);
    if (!out_->Write(std::move(update))) {
      FailLocked(base::Error(service::kErrWatchTooSlow,
                             absl::StrCat("the watcher fell behind; resume from the position of "
                                          "the last update received")));
    }
  }

  // An observer's game with a broadcast delay: sends what the delay released of the entries held
  // (from the game's whole log, which the reader keeps for such games).
  void ReleaseLocked(Held& held, std::int64_t now_ms) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Game& game = *held.game;
    absl::MutexLock game_lock(&game.mu);
    const auto visible =
        static_cast<std::int64_t>(arbitration::VisibleEvents(game.log.events, now_ms));
    // Whole entries only: the position after an update names entries, not events.
    std::int64_t upto = held.first - 1;
    std::vector<std::pair<int, std::int64_t>> released;
    for (const auto& [version, key] : held.entries) {
      if (version > visible) break;
      upto = version;
      released.push_back(key);
    }
    if (released.empty()) return;
    held.entries.erase(held.entries.begin(), held.entries.upper_bound(upto));
    for (const auto& key : released) held_keys_.erase(key);
    const std::int64_t from = held.first;
    held.first = upto + 1;
    SendLocked(game.game_id, game.log, from, upto, ObserverPositionLocked());
  }

  // An observer resumes from the earliest entry still held back in each shard.
  std::string ObserverPositionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    store::FeedPosition at = next_;
    int last_shard = -1;
    for (const auto& [shard, sequence] : held_keys_) {
      if (shard == last_shard) continue;
      last_shard = shard;
      at.next[static_cast<size_t>(shard)] = sequence;
    }
    return store::EncodeFeedPosition(at);
  }

  void FailLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (failed_) return;
    failed_ = true;
    held_.clear();
    held_keys_.clear();
    // What is queued is still sent: the client resumes from the last position it received.
    out_->Finish(service::ToGrpcStatus(status));
  }

  const service::Principal who_;
  const arbitration::Viewer viewer_;
  const bool insecure_;
  const std::shared_ptr<Writer> out_;

  absl::Mutex mu_;
  store::FeedPosition next_ ABSL_GUARDED_BY(mu_);  // per shard, the next entry to take
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
  bool behind_ ABSL_GUARDED_BY(mu_) = false;    // an entry after a gap came
  bool catching_ ABSL_GUARDED_BY(mu_) = false;  // a catch-up runs
  // Observers: the entries taken and not yet released by the delay, by game and as keys.
  absl::flat_hash_map<std::string, Held> held_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<int, std::int64_t>> held_keys_ ABSL_GUARDED_BY(mu_);
};

Firehose::Firehose(store::GameStore* store, base::WorkerPool* workers,
                   std::function<std::int64_t()> now_ms, FirehoseOptions options)
    : store_(store),
      workers_(workers),
      now_ms_(std::move(now_ms)),
      options_(options),
      loaders_(std::make_unique<base::WorkerPool>(std::max(1, options.loaders))) {
  reader_ = std::thread([this] { ReadLoop(); });
}

Firehose::~Firehose() {
  stop_.Notify();
  reader_.join();
  {
    // The catch-ups on the workers see stop_ and end.
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](int* n) { return *n == 0; }, &catch_ups_));
  }
  loaders_.reset();
}

int Firehose::subscribers() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(subscribers_.size());
}

std::shared_ptr<Firehose::Game> Firehose::GameOf(const std::string& game_id) {
  absl::MutexLock lock(&mu_);
  auto it = games_.find(game_id);
  if (it != games_.end()) return it->second;
  if (static_cast<int>(games_.size()) >= options_.max_cached_games) games_.clear();
  auto game = std::make_shared<Game>(game_id);
  games_.emplace(game_id, game);
  return game;
}

std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> Firehose::ReadRanges(
    const std::vector<store::EventRange>& ranges) {
  // In parts read at once, each on a connection of its own: Redis reads a connection's commands
  // a slice (16 KB) per turn of its event loop, and with appendfsync always a turn that follows
  // appends waits for their fsync, so one large batch on one connection takes a turn, and an
  // fsync, per slice (measured: seconds for a batch of thousands of games).
  const size_t part = static_cast<size_t>(std::max(1, options_.ranges_per_read));
  std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> out(ranges.size());
  const size_t parts = (ranges.size() + part - 1) / part;
  absl::BlockingCounter left(static_cast<int>(parts));
  for (size_t p = 0; p < parts; ++p) {
    auto job = [this, &ranges, &out, &left, from = p * part,
                to = std::min(ranges.size(), (p + 1) * part)] {
      std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> read =
          store_->ReadEventsOfGames(
              std::vector<store::EventRange>(ranges.begin() + from, ranges.begin() + to));
      for (size_t i = from; i < to; ++i) out[i] = std::move(read[i - from]);
      left.DecrementCount();
    };
    if (parts == 1 || !loaders_->Submit(job)) job();
  }
  left.Wait();
  return out;
}

std::vector<Firehose::Item> Firehose::Load(std::vector<store::FeedEntry> entries) {
  // Per game: the versions its entries name, read in one batch for all the games (one round trip
  // per master), with the first event of a game not seen before (who may see it, its delay).
  struct Wanted {
    std::shared_ptr<Game> game;
    std::int64_t from = std::numeric_limits<std::int64_t>::max();
    std::int64_t to = 0;
    std::shared_ptr<const Events> read;  // versions from..to as read (null: none)
  };
  absl::flat_hash_map<std::string, Wanted> games;
  for (const store::FeedEntry& e : entries) {
    auto [it, added] = games.try_emplace(e.game_id);
    if (added) it->second.game = GameOf(e.game_id);
    it->second.from = std::min(it->second.from, e.first_version);
    it->second.to = std::max(it->second.to, e.version);
  }
  std::vector<store::EventRange> ranges;
  std::vector<std::pair<Wanted*, bool>> asked;  // per range: its game, and whether it is the first
  for (auto& [id, wanted] : games) {
    bool first_needed;
    std::int64_t from = wanted.from;
    {
      absl::MutexLock lock(&wanted.game->mu);
      first_needed = !wanted.game->known;
      // A delayed game's whole log: from where the reader's copy ends.
      if (wanted.game->delayed()) from = std::min(from, wanted.game->log.next());
    }
    if (first_needed && from > 1) {
      ranges.push_back({id, 1, 1});
      asked.emplace_back(&wanted, true);
    }
    ranges.push_back({id, from, wanted.to});
    asked.emplace_back(&wanted, false);
  }
  std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> read = ReadRanges(ranges);
  std::vector<store::EventRange> whole;  // games found delayed now: their logs from the start
  std::vector<Wanted*> whole_of;
  for (size_t i = 0; i < ranges.size(); ++i) {
    Wanted& wanted = *asked[i].first;
    auto events = std::make_shared<Events>();
    events->first = ranges[i].from_version;
    // An error (the game archived meanwhile): none; the entry is passed over.
    if (read[i].ok()) AddEvents(*read[i], *events);
    Game& game = *wanted.game;
    absl::MutexLock lock(&game.mu);
    if (!game.known && events->first == 1 && read[i].ok()) {
      game.known = true;
      if (!events->events.empty() && events->events[0].has_created()) {
        game.created = events->events[0].created();
      }
      // A delayed game's log from the start: this read, or one more (below).
      if (game.delayed() && asked[i].second) {
        whole.push_back({game.game_id, 1, wanted.to});
        whole_of.push_back(&wanted);
      }
    }
    if (game.delayed()) Extend(*events, game.log);
    if (!asked[i].second) wanted.read = std::move(events);
  }
  if (!whole.empty()) {
    read = ReadRanges(whole);
    for (size_t i = 0; i < whole.size(); ++i) {
      Events events;
      events.first = 1;
      if (read[i].ok()) AddEvents(*read[i], events);
      Game& game = *whole_of[i]->game;
      absl::MutexLock lock(&game.mu);
      Extend(events, game.log);
    }
  }
  std::vector<Item> items;
  items.reserve(entries.size());
  for (store::FeedEntry& e : entries) {
    Wanted& wanted = games[e.game_id];
    std::shared_ptr<const Events> events;
    if (wanted.read != nullptr) events = Slice(wanted.read, e.first_version, e.version);
    items.push_back({std::move(e), wanted.game, std::move(events)});
  }
  return items;
}

void Firehose::ReadLoop() {
  store::FeedPosition at;
  while (!stop_.HasBeenNotified()) {
    absl::StatusOr<store::FeedPosition> head = store_->FeedHead();
    if (head.ok()) {
      at = *std::move(head);
      reading_.Notify();
      break;
    }
    if (head.status().code() == absl::StatusCode::kUnimplemented) {
      reading_.Notify();
      return;  // no feed
    }
    stop_.WaitForNotificationWithTimeout(absl::Milliseconds(200));
  }
  while (!stop_.HasBeenNotified()) {
    absl::StatusOr<std::vector<store::FeedEntry>> entries = store_->ReadFeed(
        at, std::clamp(options_.read_batch, 1, store::kMaxFeedRead), options_.read_wait);
    if (!entries.ok()) {
      if (base::ErrorCode(entries.status()) == store::kErrFeedPositionExpired) {
        // The reader itself fell behind the retention: it goes on from the head, and each
        // subscriber catches up from its own position (or learns it expired).
        if (absl::StatusOr<store::FeedPosition> head = store_->FeedHead(); head.ok()) at = *head;
      } else {
        stop_.WaitForNotificationWithTimeout(absl::Milliseconds(100));
      }
      continue;
    }
    for (const store::FeedEntry& e : *entries) {
      at.next[static_cast<size_t>(e.shard)] = e.sequence + 1;
    }
    std::vector<std::shared_ptr<Subscriber>> subs;
    {
      absl::MutexLock lock(&mu_);
      subs.reserve(subscribers_.size());
      for (const auto& [key, sub] : subscribers_) subs.push_back(sub);
    }
    // Entries every subscriber has taken already (those before their starts) need no read.
    std::erase_if(*entries, [&](const store::FeedEntry& e) {
      return std::all_of(subs.begin(), subs.end(),
                         [&](const std::shared_ptr<Subscriber>& sub) { return sub->Took(e); });
    });
    if (subs.empty() || entries->empty()) continue;
    const std::vector<Item> items = Load(*std::move(entries));
    const std::int64_t now = now_ms_();
    for (const std::shared_ptr<Subscriber>& sub : subs) {
      bool gap = false;
      for (const Item& item : items) gap = sub->Offer(item, now) || gap;
      if (gap) CatchUp(sub);
    }
  }
}

void Firehose::CatchUp(std::shared_ptr<Subscriber> sub) {
  if (!sub->BeginCatchUp()) return;
  {
    absl::MutexLock lock(&mu_);
    ++catch_ups_;
  }
  auto job = [this, sub] {
    CatchUpLoop(sub);
    absl::MutexLock lock(&mu_);
    --catch_ups_;
  };
  if (!workers_->Submit(job)) {
    sub->EndCatchUp();
    sub->Fail(base::Error(service::kErrShuttingDown, "the server is stopping"));
    absl::MutexLock lock(&mu_);
    --catch_ups_;
  }
}

void Firehose::CatchUpLoop(const std::shared_ptr<Subscriber>& sub) {
  const int batch = std::clamp(options_.read_batch, 1, store::kMaxFeedRead);
  while (!stop_.HasBeenNotified()) {
    if (sub->failed()) return sub->EndCatchUp();
    // Flow control: read on only once the client has taken half of what waits for it.
    if (sub->out().backlog() > static_cast<size_t>(std::max(1, options_.max_backlog / 2))) {
      stop_.WaitForNotificationWithTimeout(absl::Milliseconds(10));
      continue;
    }
    const store::FeedPosition from = sub->StartRead();
    absl::StatusOr<std::vector<store::FeedEntry>> entries =
        store_->ReadFeed(from, batch, absl::ZeroDuration());
    if (!entries.ok()) {
      sub->EndCatchUp();
      return sub->Fail(entries.status());
    }
    if (entries->empty()) {
      if (!sub->KeepCatchingUp()) return;
      continue;
    }
    const std::vector<Item> items = Load(*std::move(entries));
    const std::int64_t now = now_ms_();
    for (const Item& item : items) sub->Offer(item, now);
  }
  sub->EndCatchUp();
}

absl::Status Firehose::Subscribe(service::Principal who, arbitration::Viewer viewer, bool insecure,
                                 const std::string& position, std::shared_ptr<Writer> out) {
  if (stop_.HasBeenNotified()) {
    return base::Error(service::kErrShuttingDown, "the server is stopping");
  }
  // A subscriber whose start came before the reader's would wait for the entries between the
  // two until some later entry showed the gap: the reader starts first (a store that does not
  // answer yet: the subscriber goes on, and a later entry shows the gap).
  reading_.WaitForNotificationWithTimeout(absl::Seconds(5));
  ASSIGN_OR_RETURN(store::FeedPosition head, store_->FeedHead());
  store::FeedPosition start = head;
  if (!position.empty()) {
    ASSIGN_OR_RETURN(start, store::DecodeFeedPosition(position, store_->NumDeadlineShards()));
    for (size_t s = 0; s < start.next.size(); ++s) {
      if (start.next[s] > head.next[s]) {
        return base::Error(store::kErrBadFeedPosition,
                           "the position lies ahead of the feed: not one this store gave");
      }
    }
  }
  // The first update names no game: where the stream starts, to resume from even if no game
  // changes before the client leaves.
  v1::GamesUpdate first;
  first.set_position(store::EncodeFeedPosition(start));
  out->Write(std::move(first));
  auto sub = std::make_shared<Subscriber>(std::move(who), std::move(viewer), insecure,
                                          std::move(start), out);
  {
    absl::MutexLock lock(&mu_);
    subscribers_.emplace(sub.get(), sub);
  }
  out->OnDone([this, key = sub.get()] { Remove(key); });
  // Whatever came between the position and the reader's.
  CatchUp(sub);
  return absl::OkStatus();
}

void Firehose::Remove(const Subscriber* sub) {
  absl::MutexLock lock(&mu_);
  subscribers_.erase(sub);
}

void Firehose::Release(std::int64_t now_ms) {
  std::vector<std::shared_ptr<Subscriber>> subs;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, sub] : subscribers_) subs.push_back(sub);
  }
  for (const std::shared_ptr<Subscriber>& sub : subs) sub->Release(now_ms);
}

}  // namespace arbitration_service
