// Where the store's keys land on Redis Cluster: the key-slot function and the hash tags of the
// deadline shards.
// - KeySlot is Redis Cluster's own rule: CRC16 (XMODEM: polynomial 0x1021, initial 0, no
//   reflection) of the key, or of its hash tag (the bytes between the first '{' and the next '}'
//   when that is not empty), modulo 16384. The client routes by it; a mismatch with the server
//   would only cost a MOVED per command, never a wrong write.
// - ShardHashTag(shard, n): the tag every key of a deadline shard carries. A plain number as tag
//   ({0}..{63}) puts the shards on arbitrary slots, so a contiguous slot range (what
//   `redis-cli --cluster create` and `rebalance` give a master) holds an arbitrary share of them.
//   Instead shard i's tag is "<i>-<suffix>", the first base-36 suffix whose slot lies in
//   [i*16384/n, (i+1)*16384/n): the shards are spread evenly over the slots in order, so any
//   contiguous range of slots holds its share of the shards to within one shard, and with
//   kDefaultDeadlineShards (256) any 1..16 equal ranges hold their share within ±10 %
//   (key_layout_test). A reshard that moves k slots moves about k/16384 of the games.
// The tags are fixed for a deployment (they name the keys): changing the rule or the shard count
// means migrating the data.
#ifndef ARBITER_LIBS_STORE_KEY_LAYOUT_H_
#define ARBITER_LIBS_STORE_KEY_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace store {

inline constexpr int kClusterSlots = 16384;

// CRC16-XMODEM of `data` (Redis Cluster's checksum: "123456789" gives 0x31C3).
std::uint16_t Crc16(absl::string_view data);

// The cluster slot of `key` (0..16383), with the hash-tag rule.
int KeySlot(absl::string_view key);

// The hash tag (without braces) of deadline shard `shard` of `num_shards` (see above).
// Computing one costs up to a few thousand CRCs: callers keep them (ShardHashTags).
std::string ShardHashTag(int shard, int num_shards);

// ShardHashTag of every shard 0..num_shards-1.
std::vector<std::string> ShardHashTags(int num_shards);

}  // namespace store

#endif  // ARBITER_LIBS_STORE_KEY_LAYOUT_H_
