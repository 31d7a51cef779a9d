// The flag-deadline index of the game store (game_store.h has the whole contract): at most one
// deadline per game, set or cleared by the append that changes it, spread over shards and leased
// to the replica that claims it.
#ifndef ARBITER_LIBS_STORE_DEADLINE_INDEX_H_
#define ARBITER_LIBS_STORE_DEADLINE_INDEX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace store {

// The number of deadline shards unless configured. Fixed for a deployment: a game's Redis keys are
// placed by its shard, so changing it moves every game (see README.md). 256 so that on Redis
// Cluster any 1..16 masters with equal slot ranges hold equal shares of the games and deadlines
// within ±10 % (64 leaves 11 masters 14 % apart; key_layout_test).
inline constexpr int kDefaultDeadlineShards = 256;

// A game's entry in the deadline index.
struct Deadline {
  std::string game_id;
  std::int64_t deadline_ms = 0;     // when the running player's flag falls
  std::int64_t set_at_version = 0;  // the version of the append that set it
  std::int64_t claims = 0;          // how often it was claimed since it was set
  std::int64_t lease_until_ms = 0;  // 0 when not leased
  std::string owner;                // the last claimant, "" when not leased
  friend bool operator==(const Deadline&, const Deadline&) = default;
};

// An entry of the deadline index as the index orders it: when it is next due.
struct DueEntry {
  std::string game_id;
  std::int64_t due_ms = 0;  // the deadline, or the end of the entry's lease
  friend bool operator==(const DueEntry&, const DueEntry&) = default;
};

class DeadlineIndex {
 public:
  virtual ~DeadlineIndex() = default;

  virtual int NumDeadlineShards() const = 0;
  virtual absl::StatusOr<std::optional<Deadline>> GetDeadline(absl::string_view game_id) = 0;
  // Leases up to `max` entries of `shard` that are due (deadline <= now_ms, or a lease that ended
  // by now_ms) to `owner` until now_ms + lease_ms, earliest first, and returns them. `owner` names
  // one replica uniquely (e.g. pod name and pid).
  virtual absl::StatusOr<std::vector<Deadline>> ClaimDueDeadlines(int shard, std::int64_t now_ms,
                                                                  std::int64_t lease_ms, int max,
                                                                  absl::string_view owner) = 0;
  // Reads, without claiming, up to `max` entries of `shard` next due by `until_ms` (deadline, or
  // the end of a lease), earliest first. A replica times its claims of the shard by it: it learns
  // when other replicas' deadlines fall and claims them just after, if they are still there.
  virtual absl::StatusOr<std::vector<DueEntry>> PeekDeadlines(int shard, std::int64_t until_ms,
                                                              int max) = 0;
  // PeekDeadlines of each of `shards`, answered in their order, each as PeekDeadlines would
  // answer it (an error for one shard leaves the others answered). A replica's sweep reads many
  // shards that mostly hold nothing due: a store may read them together (Redis: one round trip
  // per master instead of one per shard). By default, one by one.
  virtual std::vector<absl::StatusOr<std::vector<DueEntry>>> PeekDeadlinesOfShards(
      const std::vector<int>& shards, std::int64_t until_ms, int max) {
    std::vector<absl::StatusOr<std::vector<DueEntry>>> out;
    out.reserve(shards.size());
    for (int shard : shards) out.push_back(PeekDeadlines(shard, until_ms, max));
    return out;
  }
  // The number of entries in `shard` (games with a pending flag or default, whoever set it): for
  // the operator's count of live clocks across every replica.
  virtual absl::StatusOr<std::int64_t> CountDeadlines(int shard) = 0;
  // Gives back an entry `owner` claimed, due again at claimable_at_ms (a claimant that finds the
  // flag not yet fallen). False, with no change, if the entry is gone or another replica has
  // claimed it since.
  virtual absl::StatusOr<bool> ReleaseDeadline(absl::string_view game_id, absl::string_view owner,
                                               std::int64_t claimable_at_ms) = 0;
};

// The deadline shard of a game: FNV-1a (64-bit) of the id modulo num_shards. Stable across
// builds and machines: it places a game's Redis keys.
int DeadlineShard(absl::string_view game_id, int num_shards);

}  // namespace store

#endif  // ARBITER_LIBS_STORE_DEADLINE_INDEX_H_
