// The in-memory GameStore: the same contract as the Redis store (game_store.h), for unit tests and
// the local all-in-one default. One mutex guards everything; watchers wait on a condition
// variable. Nothing survives the process.
//
//   MemoryGameStore store;                              // wall-clock NowMs()
//   MemoryGameStore store({.now_ms = [&] { return fake_now_ms; }});
#ifndef ARBITER_LIBS_STORE_MEMORY_GAME_STORE_H_
#define ARBITER_LIBS_STORE_MEMORY_GAME_STORE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "libs/store/game_store.h"

namespace store {

struct MemoryGameStoreOptions {
  int num_deadline_shards = kDefaultDeadlineShards;
  // NowMs(); the wall clock (ms since the Unix epoch) when empty.
  std::function<std::int64_t()> now_ms;
  // The entries each shard's feed keeps (game_feed.h); a test makes it small to lose some.
  std::int64_t feed_retention = kFeedRetention;
};

class MemoryGameStore final : public GameStore {
 public:
  explicit MemoryGameStore(MemoryGameStoreOptions options = {});

  absl::StatusOr<AppendResult> Append(const AppendRequest& request) override;
  absl::StatusOr<std::optional<AppendResult>> LookupCommand(absl::string_view game_id,
                                                            absl::string_view command_id) override;
  absl::StatusOr<arbiter::v1::GameSnapshot> ReadSnapshot(absl::string_view game_id) override;
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ReadEvents(absl::string_view game_id,
                                                                 std::int64_t from_version,
                                                                 std::int64_t to_version) override;
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> WaitForEvents(absl::string_view game_id,
                                                                    std::int64_t after_version,
                                                                    absl::Duration timeout,
                                                                    int max_events) override;
  absl::StatusOr<ArchiveResult> Archive(const ArchiveRequest& request) override;
  absl::StatusOr<std::string> ReadTombstone(absl::string_view game_id) override;
  absl::StatusOr<IndexPage> ListIndex(const IndexQuery& query) override;
  absl::StatusOr<bool> BackfillIndex(absl::string_view game_id, const IndexLabels& labels) override;
  int NumDeadlineShards() const override { return num_shards_; }
  absl::StatusOr<std::optional<Deadline>> GetDeadline(absl::string_view game_id) override;
  absl::StatusOr<std::vector<Deadline>> ClaimDueDeadlines(int shard, std::int64_t now_ms,
                                                          std::int64_t lease_ms, int max,
                                                          absl::string_view owner) override;
  absl::StatusOr<std::vector<GameEvents>> WaitForAnyEvents(const std::vector<WatchPosition>& games,
                                                           absl::Duration timeout,
                                                           int max_events) override;
  absl::StatusOr<std::int64_t> CountDeadlines(int shard) override;
  absl::StatusOr<std::vector<DueEntry>> PeekDeadlines(int shard, std::int64_t until_ms,
                                                      int max) override;
  absl::StatusOr<bool> ReleaseDeadline(absl::string_view game_id, absl::string_view owner,
                                       std::int64_t claimable_at_ms) override;
  absl::StatusOr<std::int64_t> NowMs() override;
  absl::StatusOr<FeedPosition> FeedHead() override;
  absl::StatusOr<std::vector<FeedEntry>> ReadFeed(const FeedPosition& from, int max_per_shard,
                                                  absl::Duration wait) override;

 private:
  struct Command {
    std::int64_t first_version;
    std::int64_t version;
    std::string identity;  // "c:" + fingerprint, or "r:" + the request's content
  };
  struct Game {
    std::vector<arbiter::v1::GameEvent> log;  // log[i].version() == i + 1
    arbiter::v1::GameSnapshot snapshot;
    absl::flat_hash_map<std::string, Command> commands;
  };
  // The sorted set of the Redis store: an entry is due when its score (the deadline, or the end
  // of its lease) is <= now.
  struct Shard {
    std::set<std::pair<std::int64_t, std::string>> by_score;
    absl::flat_hash_map<std::string, std::pair<std::int64_t, Deadline>> entries;  // score, entry
    std::deque<FeedEntry> feed;  // the last feed_retention entries
    std::int64_t feed_next = 0;  // the next entry's sequence
  };

  void SetEntry(Shard& shard, std::int64_t score, Deadline entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EraseEntry(Shard& shard, const std::string& game_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The error for a game not in games_: ERR_GAME_ARCHIVED or ERR_GAME_NOT_FOUND.
  absl::Status Missing(absl::string_view game_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int num_shards_;
  const std::int64_t feed_retention_;
  const std::function<std::int64_t()> now_ms_;
  absl::Mutex mu_;
  absl::CondVar appended_;  // signalled after every append, for WaitForEvents
  absl::flat_hash_map<std::string, Game> games_ ABSL_GUARDED_BY(mu_);
  std::uint64_t appends_ ABSL_GUARDED_BY(mu_) = 0;  // every append's tip is new
  absl::flat_hash_map<std::string, std::string> tombstones_ ABSL_GUARDED_BY(mu_);  // archived
  std::vector<Shard> shards_ ABSL_GUARDED_BY(mu_);
  // The games index: every listed game's labels, in the order of the ids (live and archived).
  std::map<std::string, IndexLabels, std::less<>> index_ ABSL_GUARDED_BY(mu_);
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_MEMORY_GAME_STORE_H_
