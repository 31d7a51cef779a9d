#include "libs/store/key_layout.h"

#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "libs/store/deadline_index.h"

namespace store {
namespace {

// What `redis-cli CLUSTER KEYSLOT` answered on a cluster-enabled redis-server 7.0.
TEST(KeySlotTest, MatchesWhatRedisClusterAnswers) {
  const std::pair<const char*, int> known[] = {
      {"foo", 12182},
      {"bar", 5061},
      {"hello", 866},
      {"123456789", 12739},
      {"{user1000}.following", 3443},
      {"{user1000}.followers", 3443},
      {"foo{}{bar}", 8363},     // an empty first tag: the whole key
      {"foo{{bar}}zap", 4015},  // the tag is "{bar"
      {"foo{bar}{zap}", 5061},  // the first tag only
      {"{}", 15257},
      {"arbiter:{7-ab}:game:g1", 3500},
      {"", 0},
  };
  for (const auto& [key, slot] : known) EXPECT_EQ(KeySlot(key), slot) << key;
  EXPECT_EQ(Crc16("123456789"), 0x31C3);  // the XMODEM check value
}

TEST(ShardHashTagTest, EachShardLiesInItsOwnEqualRangeOfSlots) {
  const std::vector<std::string> tags = ShardHashTags(kDefaultDeadlineShards);
  ASSERT_EQ(tags.size(), static_cast<size_t>(kDefaultDeadlineShards));
  std::set<int> slots;
  for (int i = 0; i < kDefaultDeadlineShards; ++i) {
    EXPECT_FALSE(absl::StrContains(tags[i], "{") || absl::StrContains(tags[i], "}")) << tags[i];
    EXPECT_TRUE(absl::StartsWith(tags[i], absl::StrCat(i, "-"))) << tags[i];
    const int slot = KeySlot(absl::StrCat("arbiter:{", tags[i], "}:game:g"));
    EXPECT_GE(slot, i * kClusterSlots / kDefaultDeadlineShards) << tags[i];
    EXPECT_LT(slot, (i + 1) * kClusterSlots / kDefaultDeadlineShards) << tags[i];
    slots.insert(slot);
  }
  EXPECT_EQ(slots.size(), tags.size());
  // Reproducible: the tag is a pure function of (shard, count); they name a deployment's keys.
  EXPECT_EQ(ShardHashTag(17, kDefaultDeadlineShards), tags[17]);
  EXPECT_EQ(ShardHashTag(0, 1), "0-0");  // one shard: any slot
}

// The slot ranges `redis-cli --cluster create` gives `masters` masters (its own arithmetic:
// 16384 / masters slots each, rounded, the last master taking the rest).
std::vector<std::pair<int, int>> CreatedRanges(int masters) {
  std::vector<std::pair<int, int>> out;
  const double per = static_cast<double>(kClusterSlots) / masters;
  long first = 0;
  double cursor = 0;
  for (int i = 0; i < masters; ++i) {
    long last = std::lround(cursor + per - 1);
    if (last > kClusterSlots || i == masters - 1) last = kClusterSlots - 1;
    if (last < first) last = first;
    out.emplace_back(static_cast<int>(first), static_cast<int>(last));
    first = last + 1;
    cursor += per;
  }
  return out;
}

// The largest deviation, over 1..16 masters holding equal contiguous ranges, of a master's
// number of shards from its fair share (games and deadlines follow the shards: a game's shard is
// a hash of its id).
double WorstImbalance(int num_shards) {
  std::vector<int> slots;
  for (const std::string& tag : ShardHashTags(num_shards)) slots.push_back(KeySlot(tag));
  double worst = 0;
  for (int masters = 1; masters <= 16; ++masters) {
    for (const auto& [first, last] : CreatedRanges(masters)) {
      int held = 0;
      for (int s : slots) held += s >= first && s <= last;
      const double fair = static_cast<double>(num_shards) / masters;
      worst = std::max(worst, std::abs(held / fair - 1));
    }
  }
  return worst;
}

TEST(ShardHashTagTest, TheDefaultShardsDivideOverOneToSixteenMastersWithinTenPercent) {
  EXPECT_LE(WorstImbalance(kDefaultDeadlineShards), 0.10);
}

TEST(ShardHashTagTest, SixtyFourShardsAreTooFewForElevenMasters) {
  // 64 / 11 = 5.8 shards each: a master with 5 holds 14 % less than its share.
  EXPECT_GT(WorstImbalance(64), 0.10);
}

TEST(ShardHashTagTest, MovingSlotsMovesTheirShareOfShardsOnly) {
  // A reshard of 1024 contiguous slots (1/16 of them) moves 1/16 of the shards, not all.
  int moved = 0;
  for (const std::string& tag : ShardHashTags(kDefaultDeadlineShards)) {
    const int slot = KeySlot(tag);
    moved += slot >= 5000 && slot < 5000 + 1024;
  }
  EXPECT_NEAR(moved, kDefaultDeadlineShards / 16, 1);
}

}  // namespace
}  // namespace store
