// The game store's feed (game_store.h has the whole contract): every append also adds one small
// entry to its deadline shard's feed, in the same atomic write: the game id and the versions it
// appended, not the events again. A reader follows every game of the store from one position
// (each shard's next entry) instead of watching each game: the firehose of the arbitration
// service (WatchGames) reads the feeds once per server and the events of the games that changed.
//
// - Each shard's feed numbers its entries one more each, in the order of the appends (an entry's
//   sequence); a position holds, per shard, the sequence of the next entry to read. A reader
//   resumes from the position it last got and misses and repeats nothing. The Redis store keeps
//   the feed in memory and on its replicas, not in the AOF: after a restart of Redis (or a
//   failover, or a reload of its functions) a shard's numbering jumps on past whatever was lost,
//   so a position from before is refused as expired (below), never read past lost entries.
// - Retention: a shard keeps its last kFeedRetention entries (at least; Redis trims whole nodes,
//   XTRIM MAXLEN ~ every 128th entry), so memory is bounded whatever the rate of moves; how long
//   that is in time depends on the rate: at 8,000 moves/s over 256 shards, about two minutes; on a
//   quiet server, days. Reading from a position whose next entry is no longer kept fails
//   OUT_OF_RANGE ERR_FEED_POSITION_EXPIRED: the reader lost entries and must rebuild from the games
//   themselves (GetGame, WatchGame from its last version), then take a new position.
// - A replayed append (a retried command id) writes nothing, no feed entry either; an archive
//   writes none (the game's last entry says where it stood).
#ifndef ARBITER_LIBS_STORE_GAME_FEED_H_
#define ARBITER_LIBS_STORE_GAME_FEED_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace store {

// The entries each shard's feed keeps at least (the Redis store trims to about this many).
inline constexpr std::int64_t kFeedRetention = 4096;
// The most entries one ReadFeed returns per shard.
inline constexpr int kMaxFeedRead = 1000;

// Per shard, the sequence of the next entry to read (FeedPosition::next.size() == the store's
// NumDeadlineShards()).
struct FeedPosition {
  std::vector<std::int64_t> next;
  friend bool operator==(const FeedPosition&, const FeedPosition&) = default;
};

// One append as its shard's feed records it.
struct FeedEntry {
  int shard = 0;
  std::int64_t sequence = 0;  // its place in the shard's feed
  std::string game_id;
  std::int64_t first_version = 0;  // the versions the append wrote
  std::int64_t version = 0;
  friend bool operator==(const FeedEntry&, const FeedEntry&) = default;
};

class GameFeed {
 public:
  virtual ~GameFeed() = default;

  // The position after every entry the feeds hold now (a reader that starts "from now").
  // The default (test doubles) is UNIMPLEMENTED.
  virtual absl::StatusOr<FeedPosition> FeedHead();

  // The entries at or after `from` (at most max_per_shard >= 1, <= kMaxFeedRead, per shard; in
  // each shard's order), waiting up to `wait` (at most kMaxWait; zero: a poll) for the first one;
  // empty if none came. ERR_FEED_POSITION_EXPIRED (OUT_OF_RANGE) when a shard's next entry is no
  // longer kept; ERR_BAD_ARGUMENT for a position of another number of shards.
  virtual absl::StatusOr<std::vector<FeedEntry>> ReadFeed(const FeedPosition& from,
                                                          int max_per_shard, absl::Duration wait);
};

// The position as an opaque token for clients: URL-safe base64 of a version byte and, per shard,
// the varint of its next sequence (a shard with nothing read yet is one byte).
std::string EncodeFeedPosition(const FeedPosition& position);
// INVALID_ARGUMENT ERR_BAD_FEED_POSITION for anything EncodeFeedPosition did not make for
// `num_shards` shards.
absl::StatusOr<FeedPosition> DecodeFeedPosition(absl::string_view token, int num_shards);

}  // namespace store

#endif  // ARBITER_LIBS_STORE_GAME_FEED_H_
