// A GameStore that passes every call to another one: the base of a store that changes a few calls
// and keeps the rest (metrics around each call, a store that goes down in a test, appends held
// back until a test lets them through). Override what differs; the rest forwards.
//
//   class DownStore final : public store::ForwardingStore {
//    public:
//     using ForwardingStore::ForwardingStore;
//     absl::StatusOr<AppendResult> Append(const AppendRequest& r) override { ... }
//   };
#ifndef ARBITER_LIBS_STORE_FORWARDING_STORE_H_
#define ARBITER_LIBS_STORE_FORWARDING_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "libs/store/game_store.h"

namespace store {

class ForwardingStore : public GameStore {
 public:
  // `inner` must outlive this store.
  explicit ForwardingStore(GameStore* inner) : inner_(inner) {}

  absl::StatusOr<AppendResult> Append(const AppendRequest& request) override {
    return inner_->Append(request);
  }
  void AppendAsync(AppendRequest request, AppendCallback done) override {
    inner_->AppendAsync(std::move(request), std::move(done));
  }
  absl::StatusOr<std::optional<AppendResult>> LookupCommand(absl::string_view game_id,
                                                            absl::string_view command_id) override {
    return inner_->LookupCommand(game_id, command_id);
  }
  absl::StatusOr<arbiter::v1::GameSnapshot> ReadSnapshot(absl::string_view game_id) override {
    return inner_->ReadSnapshot(game_id);
  }
  absl::StatusOr<LatestState> ReadLatest(absl::string_view game_id) override {
    return inner_->ReadLatest(game_id);
  }
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> ReadEvents(absl::string_view game_id,
                                                                 std::int64_t from_version,
                                                                 std::int64_t to_version) override {
    return inner_->ReadEvents(game_id, from_version, to_version);
  }
  std::vector<absl::StatusOr<std::vector<arbiter::v1::GameEvent>>> ReadEventsOfGames(
      const std::vector<EventRange>& ranges) override {
    return inner_->ReadEventsOfGames(ranges);
  }
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> WaitForEvents(absl::string_view game_id,
                                                                    std::int64_t after_version,
                                                                    absl::Duration timeout,
                                                                    int max_events) override {
    return inner_->WaitForEvents(game_id, after_version, timeout, max_events);
  }
  absl::StatusOr<FeedPosition> FeedHead() override { return inner_->FeedHead(); }
  absl::StatusOr<std::vector<FeedEntry>> ReadFeed(const FeedPosition& from, int max_per_shard,
                                                  absl::Duration wait) override {
    return inner_->ReadFeed(from, max_per_shard, wait);
  }
  absl::StatusOr<std::vector<GameEvents>> WaitForAnyEvents(const std::vector<WatchPosition>& games,
                                                           absl::Duration timeout,
                                                           int max_events) override {
    return inner_->WaitForAnyEvents(games, timeout, max_events);
  }
  absl::StatusOr<ArchiveResult> Archive(const ArchiveRequest& request) override {
    return inner_->Archive(request);
  }
  absl::StatusOr<std::string> ReadTombstone(absl::string_view game_id) override {
    return inner_->ReadTombstone(game_id);
  }
  absl::StatusOr<IndexPage> ListIndex(const IndexQuery& query) override {
    return inner_->ListIndex(query);
  }
  absl::StatusOr<bool> BackfillIndex(absl::string_view game_id,
                                     const IndexLabels& labels) override {
    return inner_->BackfillIndex(game_id, labels);
  }
  int NumDeadlineShards() const override { return inner_->NumDeadlineShards(); }
  absl::StatusOr<std::optional<Deadline>> GetDeadline(absl::string_view game_id) override {
    return inner_->GetDeadline(game_id);
  }
  absl::StatusOr<std::vector<Deadline>> ClaimDueDeadlines(int shard, std::int64_t now_ms,
                                                          std::int64_t lease_ms, int max_entries,
                                                          absl::string_view owner) override {
    return inner_->ClaimDueDeadlines(shard, now_ms, lease_ms, max_entries, owner);
  }
  absl::StatusOr<std::vector<DueEntry>> PeekDeadlines(int shard, std::int64_t until_ms,
                                                      int max_entries) override {
    return inner_->PeekDeadlines(shard, until_ms, max_entries);
  }
  std::vector<absl::StatusOr<std::vector<DueEntry>>> PeekDeadlinesOfShards(
      const std::vector<int>& shards, std::int64_t until_ms, int max_entries) override {
    return inner_->PeekDeadlinesOfShards(shards, until_ms, max_entries);
  }
  absl::StatusOr<std::int64_t> CountDeadlines(int shard) override {
    return inner_->CountDeadlines(shard);
  }
  absl::StatusOr<bool> ReleaseDeadline(absl::string_view game_id, absl::string_view owner,
                                       std::int64_t claimable_at_ms) override {
    return inner_->ReleaseDeadline(game_id, owner, claimable_at_ms);
  }
  absl::StatusOr<std::int64_t> NowMs() override { return inner_->NowMs(); }
  std::uint64_t MasterEpoch() override { return inner_->MasterEpoch(); }

 protected:
  GameStore* inner() const { return inner_; }

 private:
  GameStore* const inner_;
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_FORWARDING_STORE_H_
