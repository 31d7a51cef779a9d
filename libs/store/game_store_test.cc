#include "libs/store/game_store.h"

#include <set>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/internal/validation.h"
#include "proto/arbiter/v1/common.pb.h"

namespace store {
namespace {

using ::base::HasErrorCode;

// The shard places a game's Redis keys: it must never change for an id. Pinned values.
TEST(DeadlineShardTest, IsStableFnv1a) {
  EXPECT_EQ(DeadlineShard("", 64), static_cast<int>(14695981039346656037ull % 64));
  EXPECT_EQ(DeadlineShard("a", 1'000'000'007),
            static_cast<int>(0xaf63dc4c8601ec8cull % 1'000'000'007));
  EXPECT_EQ(DeadlineShard("anything", 1), 0);
}

TEST(DeadlineShardTest, SpreadsGamesOverAllShards) {
  std::set<int> seen;
  for (int i = 0; i < 2000; ++i) {
    int shard = DeadlineShard("game-" + std::to_string(i), 64);
    ASSERT_GE(shard, 0);
    ASSERT_LT(shard, 64);
    seen.insert(shard);
  }
  EXPECT_EQ(seen.size(), 64u);
}

TEST(ValidateGameIdTest, AllowsIdsThatCannotMakeAHashTag) {
  EXPECT_OK(ValidateGameId("01HF8Z3Q-tournament.round_4:board~12"));
  EXPECT_THAT(ValidateGameId("a{b"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(ValidateGameId("a}b"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(ValidateGameId("a/b"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(ValidateGameId(""), HasErrorCode(kErrBadArgument));
}

TEST(StampTest, FillsVersionsAndCommandId) {
  AppendRequest r;
  r.game_id = "g";
  r.expected_version = 7;
  r.command_id = "cmd";
  r.events.resize(3);
  std::vector<arbiter::v1::GameEvent> events = internal::StampedEvents(r);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].version(), 8);
  EXPECT_EQ(events[2].version(), 10);
  EXPECT_EQ(events[1].command_id(), "cmd");
  EXPECT_EQ(internal::StampedSnapshot(r).version(), 10);
}

}  // namespace
}  // namespace store
