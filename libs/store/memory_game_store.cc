#include "libs/store/memory_game_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/store/internal/validation.h"

namespace store {
namespace {

using arbiter::v1::GameEvent;
using arbiter::v1::GameSnapshot;

absl::Status GameNotFound(absl::string_view game_id) {
  return base::NotFound(kErrGameNotFound, absl::StrCat("game ", game_id, " does not exist"));
}

// What makes a retry "the same command" when the caller gives no fingerprint: everything the
// request would write. Length-prefixed so no two requests share an encoding. (The Redis store
// hashes the same parts with SHA-1 in its script.)
std::string Identity(const AppendRequest& request) {
  if (!request.fingerprint.empty()) return absl::StrCat("c:", request.fingerprint);
  std::string out = "r:";
  auto part = [&out](absl::string_view s) { absl::StrAppend(&out, s.size(), ":", s); };
  part(absl::StrCat(request.expected_version));
  // As the Redis store sends it: the deadline's value counts only when it is set.
  const bool set = request.deadline.kind == DeadlineUpdate::Kind::kSet ||
                   request.deadline.kind == DeadlineUpdate::Kind::kBound;
  part(absl::StrCat(static_cast<int>(request.deadline.kind)));
  part(absl::StrCat(set ? request.deadline.deadline_ms : 0));
  part(request.snapshot.SerializeAsString());
  for (const GameEvent& e : request.events) part(e.SerializeAsString());
  return out;
}

}  // namespace

MemoryGameStore::MemoryGameStore(MemoryGameStoreOptions options)
    : num_shards_(std::max(1, options.num_deadline_shards)),
      feed_retention_(std::max<std::int64_t>(1, options.feed_retention)),
      now_ms_(options.now_ms ? std::move(options.now_ms)
                             : [] { return absl::ToUnixMillis(absl::Now()); }),
      shards_(num_shards_) {}

absl::StatusOr<AppendResult> MemoryGameStore::Append(const AppendRequest& request) {
  RETURN_IF_ERROR(internal::ValidateAppendRequest(request));
  std::string identity = Identity(request);
  absl::MutexLock lock(&mu_);
  auto it = games_.find(request.game_id);
  // The order of the checks is the Redis script's: a recorded command id wins over everything, so
  // a retry gets its original answer even after the game moved on.
  if (it != games_.end()) {
    if (auto cmd = it->second.commands.find(request.command_id); cmd != it->second.commands.end()) {
      if (cmd->second.identity != identity) {
        return base::FailedPrecondition(
            kErrCommandIdReused,
            absl::StrCat("command id ", request.command_id, " of game ", request.game_id,
                         " was used for another command (versions ", cmd->second.first_version,
                         "..", cmd->second.version, ")"));
      }
      return AppendResult{cmd->second.first_version, cmd->second.version, /*replayed=*/true};
    }
  }
  if (it == games_.end() && tombstones_.contains(request.game_id)) {
    return request.expected_version == 0 ? internal::ArchivedGameExists(request.game_id)
                                         : internal::GameArchived(request.game_id);
  }
  const std::int64_t current =
      it == games_.end() ? 0 : static_cast<std::int64_t>(it->second.log.size());
  if (request.expected_version == 0 && it != games_.end()) {
    return base::Error(absl::StatusCode::kAlreadyExists, kErrGameExists,
                       absl::StrCat("game ", request.game_id, " exists (version ", current, ")"));
  }
  if (request.expected_version != 0 && it == games_.end()) return GameNotFound(request.game_id);
  if (current != request.expected_version) {
    return internal::VersionConflict(request.game_id, current, request.expected_version);
  }
  if (!request.expected_tip.empty() && it->second.snapshot.tip() != request.expected_tip) {
    return internal::TipConflict(request.game_id, current, request.expected_tip);
  }
  if (it == games_.end()) it = games_.try_emplace(request.game_id).first;
  Game& game = it->second;
  for (GameEvent& e : internal::StampedEvents(request)) game.log.push_back(std::move(e));
  if (internal::WritesSnapshot(request)) game.snapshot = internal::StampedSnapshot(request);
  // One copy, no failover: any token new to each append names it.
  game.snapshot.set_tip(absl::StrCat("m", ++appends_));
  const AppendResult result{request.expected_version + 1,
                            static_cast<std::int64_t>(game.log.size()), false, game.snapshot.tip()};
  game.commands[request.command_id] = {result.first_version, result.version, std::move(identity)};
  Shard& shard = shards_[DeadlineShard(request.game_id, num_shards_)];
  switch (request.deadline.kind) {
    case DeadlineUpdate::Kind::kKeep:
      break;
    case DeadlineUpdate::Kind::kSet:
      SetEntry(shard, request.deadline.deadline_ms,
               Deadline{.game_id = request.game_id,
                        .deadline_ms = request.deadline.deadline_ms,
                        .set_at_version = result.version});
      break;
    case DeadlineUpdate::Kind::kClear:
      EraseEntry(shard, request.game_id);
      break;
    case DeadlineUpdate::Kind::kBound:
      if (auto e = shard.entries.find(request.game_id);
          e == shard.entries.end() || e->second.first > request.deadline.deadline_ms) {
        SetEntry(shard, request.deadline.deadline_ms,
                 Deadline{.game_id = request.game_id,
                          .deadline_ms = request.deadline.deadline_ms,
                          .set_at_version = result.version});
      }
      break;
  }
  shard.feed.push_back({.shard = DeadlineShard(request.game_id, num_shards_),
                        .sequence = shard.feed_next++,
                        .game_id = request.game_id,
                        .first_version = result.first_version,
                        .version = result.version});
  if (static_cast<std::int64_t>(shard.feed.size()) > feed_retention_) shard.feed.pop_front();
  if (request.index.has_value()) index_[request.game_id] = request.index->labels;
  appended_.SignalAll();
  return result;
}

absl::StatusOr<ArchiveResult> MemoryGameStore::Archive(const ArchiveRequest& request) {
  RETURN_IF_ERROR(internal::ValidateArchiveRequest(request));
  absl::MutexLock lock(&mu_);
  if (auto t = tombstones_.find(request.game_id); t != tombstones_.end()) {
    return ArchiveResult{t->second, /*replayed=*/true};
  }
  auto it = games_.find(request.game_id);
  if (it == games_.end()) return GameNotFound(request.game_id);
  const auto current = static_cast<std::int64_t>(it->second.log.size());
  if (current != request.expected_version) {
    return internal::VersionConflict(request.game_id, current, request.expected_version);
  }
  games_.erase(it);
  EraseEntry(shards_[DeadlineShard(request.game_id, num_shards_)], request.game_id);
  tombstones_[request.game_id] = request.tombstone;
  if (request.index.has_value()) index_[request.game_id] = request.index->labels;
  return ArchiveResult{request.tombstone, /*replayed=*/false};
}

absl::StatusOr<IndexPage> MemoryGameStore::ListIndex(const IndexQuery& query) {
  RETURN_IF_ERROR(internal::ValidateIndexQuery(query));
  absl::MutexLock lock(&mu_);
  IndexPage page;
  int looked_at = 0;
  for (auto it = index_.upper_bound(query.after); it != index_.end(); ++it) {
    if (looked_at++ == query.limit) return page;
    page.next_after = it->first;
    if (IndexMatches(it->second, query)) page.games.push_back({it->first, it->second});
  }
  page.next_after.clear();  // the end
  return page;
}

absl::StatusOr<bool> MemoryGameStore::BackfillIndex(absl::string_view game_id,
                                                    const IndexLabels& labels) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  RETURN_IF_ERROR(internal::ValidateIndexUpdate(IndexUpdate{.labels = labels}));
  absl::MutexLock lock(&mu_);
  if (games_.find(game_id) == games_.end() && tombstones_.find(game_id) == tombstones_.end()) {
    return GameNotFound(game_id);
  }
  return index_.try_emplace(std::string(game_id), labels).second;
}

absl::StatusOr<std::string> MemoryGameStore::ReadTombstone(absl::string_view game_id) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  absl::MutexLock lock(&mu_);
  auto t = tombstones_.find(game_id);
  if (t == tombstones_.end()) {
    return base::NotFound(kErrGameNotFound, absl::StrCat("game ", game_id, " is not archived"));
  }
  return t->second;
}

absl::Status MemoryGameStore::Missing(absl::string_view game_id) const {
  return tombstones_.contains(game_id) ? internal::GameArchived(game_id) : GameNotFound(game_id);
}

absl::StatusOr<std::optional<AppendResult>> MemoryGameStore::LookupCommand(
    absl::string_view game_id, absl::string_view command_id) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  absl::MutexLock lock(&mu_);
  auto it = games_.find(game_id);
  if (it == games_.end()) return std::nullopt;
  auto cmd = it->second.commands.find(command_id);
  if (cmd == it->second.commands.end()) return std::nullopt;
  return AppendResult{cmd->second.first_version, cmd->second.version, /*replayed=*/true};
}

absl::StatusOr<GameSnapshot> MemoryGameStore::ReadSnapshot(absl::string_view game_id) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  absl::MutexLock lock(&mu_);
  auto it = games_.find(game_id);
  if (it == games_.end()) return Missing(game_id);
  return it->second.snapshot;
}

absl::StatusOr<std::vector<GameEvent>> MemoryGameStore::ReadEvents(absl::string_view game_id,
                                                                   std::int64_t from_version,
                                                                   std::int64_t to_version) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  if (from_version < 1) return base::InvalidArgument(kErrBadArgument, "from_version must be >= 1");
  absl::MutexLock lock(&mu_);
  auto it = games_.find(game_id);
  if (it == games_.end()) return Missing(game_id);
  const std::vector<GameEvent>& log = it->second.log;
  std::vector<GameEvent> out;
  const std::int64_t last = std::min<std::int64_t>(to_version, log.size());
  for (std::int64_t v = from_version; v <= last; ++v) out.push_back(log[v - 1]);
  return out;
}

absl::StatusOr<std::vector<GameEvent>> MemoryGameStore::WaitForEvents(absl::string_view game_id,
                                                                      std::int64_t after_version,
                                                                      absl::Duration timeout,
                                                                      int max_events) {
  RETURN_IF_ERROR(internal::ValidateWait(game_id, after_version, max_events));
  {
    absl::MutexLock lock(&mu_);
    if (!games_.contains(game_id)) return Missing(game_id);
  }
  // Once it exists, the watch of it alone (one archived meanwhile has no more events: the watch
  // times out empty, as the Redis store's XREAD does).
  return internal::WaitAsWatchOfOne(*this, game_id, after_version, timeout, max_events);
}

absl::StatusOr<std::vector<GameEvents>> MemoryGameStore::WaitForAnyEvents(
    const std::vector<WatchPosition>& games, absl::Duration timeout, int max_events) {
  RETURN_IF_ERROR(internal::ValidateWatch(games, num_shards_, max_events));
  timeout = std::min(timeout, kMaxWait);
  const absl::Time deadline = absl::Now() + timeout;
  absl::MutexLock lock(&mu_);
  while (true) {
    std::vector<GameEvents> out;
    for (const WatchPosition& g : games) {
      auto it = games_.find(g.game_id);
      if (it == games_.end()) continue;
      const std::vector<GameEvent>& log = it->second.log;
      if (static_cast<std::int64_t>(log.size()) <= g.after_version) continue;
      const std::int64_t end = std::min<std::int64_t>(
          log.size(), g.after_version + static_cast<std::int64_t>(max_events));
      out.push_back(
          {g.game_id, std::vector<GameEvent>(log.begin() + g.after_version, log.begin() + end)});
    }
    if (!out.empty()) return out;
    if (appended_.WaitWithDeadline(&mu_, deadline)) return out;
  }
}

void MemoryGameStore::SetEntry(Shard& shard, std::int64_t score, Deadline entry) {
  EraseEntry(shard, entry.game_id);
  shard.by_score.emplace(score, entry.game_id);
  std::string id = entry.game_id;
  shard.entries.emplace(std::move(id), std::make_pair(score, std::move(entry)));
}

void MemoryGameStore::EraseEntry(Shard& shard, const std::string& game_id) {
  auto it = shard.entries.find(game_id);
  if (it == shard.entries.end()) return;
  shard.by_score.erase({it->second.first, game_id});
  shard.entries.erase(it);
}

absl::StatusOr<std::optional<Deadline>> MemoryGameStore::GetDeadline(absl::string_view game_id) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  absl::MutexLock lock(&mu_);
  const Shard& shard = shards_[DeadlineShard(game_id, num_shards_)];
  auto it = shard.entries.find(game_id);
  if (it == shard.entries.end()) return std::nullopt;
  return it->second.second;
}

absl::StatusOr<std::vector<Deadline>> MemoryGameStore::ClaimDueDeadlines(
    int shard_index, std::int64_t now_ms, std::int64_t lease_ms, int max, absl::string_view owner) {
  RETURN_IF_ERROR(internal::ValidateClaim(shard_index, num_shards_, lease_ms, max, owner));
  absl::MutexLock lock(&mu_);
  Shard& shard = shards_[shard_index];
  std::vector<std::string> due;
  for (auto it = shard.by_score.begin();
       it != shard.by_score.end() && it->first <= now_ms && static_cast<int>(due.size()) < max;
       ++it) {
    due.push_back(it->second);
  }
  std::vector<Deadline> out;
  for (const std::string& game_id : due) {
    Deadline entry = shard.entries.at(game_id).second;
    entry.claims++;
    entry.lease_until_ms = now_ms + lease_ms;
    entry.owner = std::string(owner);
    SetEntry(shard, entry.lease_until_ms, entry);
    out.push_back(std::move(entry));
  }
  return out;
}

absl::StatusOr<std::vector<DueEntry>> MemoryGameStore::PeekDeadlines(int shard_index,
                                                                     std::int64_t until_ms,
                                                                     int max) {
  RETURN_IF_ERROR(internal::ValidatePeek(shard_index, num_shards_, max));
  absl::MutexLock lock(&mu_);
  const Shard& shard = shards_[shard_index];
  std::vector<DueEntry> out;
  for (auto it = shard.by_score.begin();
       it != shard.by_score.end() && it->first <= until_ms && static_cast<int>(out.size()) < max;
       ++it) {
    out.push_back({it->second, it->first});
  }
  return out;
}

absl::StatusOr<std::int64_t> MemoryGameStore::CountDeadlines(int shard_index) {
  RETURN_IF_ERROR(internal::ValidateShard(shard_index, num_shards_));
  absl::MutexLock lock(&mu_);
  return static_cast<std::int64_t>(shards_[shard_index].entries.size());
}

absl::StatusOr<bool> MemoryGameStore::ReleaseDeadline(absl::string_view game_id,
                                                      absl::string_view owner,
                                                      std::int64_t claimable_at_ms) {
  RETURN_IF_ERROR(ValidateGameId(game_id));
  RETURN_IF_ERROR(internal::ValidateOwner(owner));
  absl::MutexLock lock(&mu_);
  Shard& shard = shards_[DeadlineShard(game_id, num_shards_)];
  auto it = shard.entries.find(game_id);
  if (it == shard.entries.end() || it->second.second.owner != owner) return false;
  Deadline entry = it->second.second;
  entry.lease_until_ms = 0;
  entry.owner.clear();
  SetEntry(shard, claimable_at_ms, std::move(entry));
  return true;
}

absl::StatusOr<std::int64_t> MemoryGameStore::NowMs() { return now_ms_(); }

absl::StatusOr<FeedPosition> MemoryGameStore::FeedHead() {
  absl::MutexLock lock(&mu_);
  FeedPosition head;
  for (const Shard& shard : shards_) head.next.push_back(shard.feed_next);
  return head;
}

absl::StatusOr<std::vector<FeedEntry>> MemoryGameStore::ReadFeed(const FeedPosition& from,
                                                                 int max_per_shard,
                                                                 absl::Duration wait) {
  RETURN_IF_ERROR(internal::ValidateFeedRead(from, num_shards_, max_per_shard));
  const absl::Time deadline = absl::Now() + std::min(wait, kMaxWait);
  absl::MutexLock lock(&mu_);
  while (true) {
    std::vector<FeedEntry> out;
    for (int s = 0; s < num_shards_; ++s) {
      const Shard& shard = shards_[s];
      const std::int64_t next = from.next[s];
      if (next >= shard.feed_next) continue;
      const std::int64_t oldest = shard.feed_next - static_cast<std::int64_t>(shard.feed.size());
      if (next < oldest) return internal::FeedPositionExpired(s, next, oldest);
      const auto begin = shard.feed.begin() + (next - oldest);
      const auto end = begin + std::min<std::int64_t>(max_per_shard, shard.feed_next - next);
      out.insert(out.end(), begin, end);
    }
    if (!out.empty()) return out;
    if (appended_.WaitWithDeadline(&mu_, deadline)) return out;
  }
}

}  // namespace store
