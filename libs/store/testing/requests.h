// Small valid requests for the store's tests and contract suite.
#ifndef ARBITER_LIBS_STORE_TESTING_REQUESTS_H_
#define ARBITER_LIBS_STORE_TESTING_REQUESTS_H_

#include <cstdint>
#include <string>

#include "libs/store/game_store.h"

namespace store::testing {

// An event whose body is a arbiter.v1.Move with this UCI text (schema version 1).
arbiter::v1::GameEvent MoveEvent(const std::string& uci, std::int64_t recorded_at_ms = 0);
// A snapshot whose state is a arbiter.v1.Position with this FEN (schema version 1).
arbiter::v1::GameSnapshot PositionSnapshot(const std::string& fen);
// A request appending `n` move events named after the command id, with a snapshot naming it.
AppendRequest Request(const std::string& game_id, std::int64_t expected_version,
                      const std::string& command_id, int n = 1,
                      DeadlineUpdate deadline = DeadlineUpdate::Keep());
// The `index`-th game id (in a fixed sequence) that falls in `shard`.
std::string GameIdInShard(int shard, int num_shards, int index);

}  // namespace store::testing

#endif  // ARBITER_LIBS_STORE_TESTING_REQUESTS_H_
