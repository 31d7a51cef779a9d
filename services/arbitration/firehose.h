// WatchGames, the firehose: every event of every game a caller may see on one stream, resumable
// from a position (proto/arbiter/v1/arbitration.proto).
//
// One feed reader per process (this class's thread) follows the store's feed (libs/store/
// game_feed.h: one small entry per append, per shard) from where the feeds stood when it started,
// reads the events each batch of entries names (once, for every subscriber: the versions of each
// entry, of every game of the batch in one store call, EventLog::ReadEventsOfGames, a round trip
// per master), and offers each entry to every subscriber, which filters it by what its caller may
// see and queues it on its stream. Nothing reads the store per subscriber while it keeps up, nor
// a game's whole log when the reader first meets it: only its first event (who may see it).

// Exactly once, in order. A subscriber holds its own position (per shard, the next entry it
// takes) and takes an entry only when it is exactly that one: a repeat is dropped, and an entry
// after a gap (a subscriber that resumed from an older position, or joined while the reader was
// ahead) sends it to catch up first: it reads the feed from its own position (on the watch
// workers) until it has reached the reader. Each update carries the position after it.
//
// Flow control: a subscriber's stream queues at most `max_backlog` updates the client has not
// taken; beyond, the stream ends RESOURCE_EXHAUSTED ERR_WATCH_TOO_SLOW with the position to
// resume from in the message (the last update it was sent carries it too). Nothing grows without
// bound: the catch-up reads the store in bounded batches and waits for the stream to drain.
//
// Observers (Viewer::delayed) see each game through its broadcast delay (observer_view.h): an
// entry's events are sent when the delay releases them (the delay ticker calls Release); their
// position is the earliest entry still held back, so a resumed observer may be sent again events
// sent before (each carries its version) and never misses one.
//
// The reader keeps, per game it met, the game's first event (the visibility and the delay need
// it), and for a game with a broadcast delay its whole log (the delay's release counts the game's
// moves), at most `max_cached_games` games: beyond, it forgets them all and reads a game's first
// event again when the game changes.
#ifndef ARBITER_SERVICES_ARBITRATION_FIREHOSE_H_
#define ARBITER_SERVICES_ARBITRATION_FIREHOSE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "libs/arbitration/observer_view.h"
#include "libs/base/worker_pool.h"
#include "libs/service/async_stream.h"
#include "libs/service/auth.h"
#include "libs/store/game_store.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration_service {

// One event as a viewer may see it (WatchGame's and WatchGames' updates): the sealed box never,
// the engine's advice for arbiters only (12.2), the actor as the viewer may know it.
arbiter::v1::GameUpdate ViewedUpdate(const arbitration::Viewer& viewer, std::int64_t version,
                                     const arbiter::v1::ArbitrationEvent& event,
                                     std::string command_id);

struct FirehoseOptions {
  // Updates queued for one subscriber before it is cut off (the stream's max_backlog).
  int max_backlog = 10'000;
  // The longest the reader's feed read blocks (the shutdown waits at most this).
  absl::Duration read_wait = absl::Milliseconds(100);
  // Entries read per shard at once.
  int read_batch = 256;
  // Ranges of games' events (an entry's versions) read in one batch, and batches read at once
  // (each on a connection of its own).
  int ranges_per_read = 64;
  int loaders = 8;
  int max_cached_games = 100'000;
};

class Firehose {
 public:
  using Writer = service::StreamWriter<arbiter::v1::GamesUpdate>;

  // `store` and `workers` (the catch-ups run there) must outlive this. The reader starts at once
  // (a store without a feed: it stops, and subscriptions are refused UNIMPLEMENTED).
  Firehose(store::GameStore* store, base::WorkerPool* workers, std::function<std::int64_t()> now_ms,
           FirehoseOptions options = {});
  ~Firehose();

  // A subscription for `who`, seeing games as `viewer`, from `position` (a GamesUpdate.position;
  // "" = now), on `out` until the stream ends. Reads the store (the feed's head): call it from a
  // worker. An error (a bad or expired position) is returned, not sent.
  absl::Status Subscribe(service::Principal who, arbitration::Viewer viewer, bool insecure,
                         const std::string& position, std::shared_ptr<Writer> out);

  // Observers' entries the broadcast delay releases by `now_ms` (the service's delay ticker).
  void Release(std::int64_t now_ms);

  // Subscribers now (tests, metrics).
  int subscribers();

  // Consecutive events of one game as the stream sends them: events[i] is version first + i.
  struct Events {
    std::int64_t first = 0;
    std::vector<arbiter::v1::ArbitrationEvent> events;
    std::vector<std::string> command_ids;  // as the client sent them
    std::int64_t next() const { return first + static_cast<std::int64_t>(events.size()); }
  };

 private:
  struct Game;
  class Subscriber;
  // An entry with its game and its events (null: the game is gone: archived, or not readable).
  struct Item {
    store::FeedEntry entry;
    std::shared_ptr<Game> game;
    std::shared_ptr<const Events> events;
  };

  void ReadLoop();
  // The entries' events, read in one store call (and a second for games first met that have a
  // broadcast delay: their logs from the start).
  std::vector<Item> Load(std::vector<store::FeedEntry> entries);
  std::shared_ptr<Game> GameOf(const std::string& game_id);
  // The store's ReadEventsOfGames of `ranges`, in parts of ranges_per_read read at once.
  std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> ReadRanges(
      const std::vector<store::EventRange>& ranges);
  // Runs `sub`'s catch-up on the workers unless it is running.
  void CatchUp(std::shared_ptr<Subscriber> sub);
  void CatchUpLoop(const std::shared_ptr<Subscriber>& sub);
  void Remove(const Subscriber* sub);

  store::GameStore* const store_;
  base::WorkerPool* const workers_;
  const std::function<std::int64_t()> now_ms_;
  const FirehoseOptions options_;

  std::unique_ptr<base::WorkerPool> loaders_;

  absl::Mutex mu_;
  absl::flat_hash_map<const Subscriber*, std::shared_ptr<Subscriber>> subscribers_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<Game>> games_ ABSL_GUARDED_BY(mu_);
  int catch_ups_ ABSL_GUARDED_BY(mu_) = 0;  // running on the workers

  absl::Notification stop_;
  // The reader has its starting position (or the store has no feed): a subscriber's own start,
  // taken after it, is never before the reader's, so no entry falls between the two.
  absl::Notification reading_;
  std::thread reader_;
};

}  // namespace arbitration_service

#endif  // ARBITER_SERVICES_ARBITRATION_FIREHOSE_H_
