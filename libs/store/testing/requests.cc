#include "libs/store/testing/requests.h"

#include "absl/strings/str_cat.h"
#include "proto/arbiter/v1/common.pb.h"

namespace store::testing {

using arbiter::v1::GameEvent;
using arbiter::v1::GameSnapshot;

GameEvent MoveEvent(const std::string& uci, std::int64_t recorded_at_ms) {
  arbiter::v1::Move move;
  move.set_uci(uci);
  GameEvent event;
  event.set_schema_version(1);
  event.set_recorded_at_ms(recorded_at_ms);
  event.mutable_body()->PackFrom(move);
  return event;
}

GameSnapshot PositionSnapshot(const std::string& fen) {
  arbiter::v1::Position position;
  position.set_fen(fen);
  GameSnapshot snapshot;
  snapshot.set_schema_version(1);
  snapshot.mutable_state()->PackFrom(position);
  return snapshot;
}

AppendRequest Request(const std::string& game_id, std::int64_t expected_version,
                      const std::string& command_id, int n, DeadlineUpdate deadline) {
  AppendRequest request;
  request.game_id = game_id;
  request.expected_version = expected_version;
  request.command_id = command_id;
  for (int i = 1; i <= n; ++i)
    request.events.push_back(MoveEvent(absl::StrCat(command_id, "/", i)));
  request.snapshot = PositionSnapshot(absl::StrCat("after ", command_id));
  request.deadline = deadline;
  return request;
}

std::string GameIdInShard(int shard, int num_shards, int index) {
  for (int i = 0, found = 0;; ++i) {
    std::string id = absl::StrCat("game-", i);
    if (DeadlineShard(id, num_shards) == shard && found++ == index) return id;
  }
}

}  // namespace store::testing
