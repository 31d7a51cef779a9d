#include "libs/store/key_layout.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace store {
namespace {

// The CRC16-XMODEM table: entry b is the register after shifting byte b through it.
constexpr std::array<std::uint16_t, 256> MakeCrcTable() {
  std::array<std::uint16_t, 256> table{};
  for (int b = 0; b < 256; ++b) {
    std::uint16_t crc = static_cast<std::uint16_t>(b << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = static_cast<std::uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    table[b] = crc;
  }
  return table;
}

constexpr std::array<std::uint16_t, 256> kCrcTable = MakeCrcTable();

std::uint16_t Crc16Update(std::uint16_t crc, unsigned char byte) {
  return static_cast<std::uint16_t>((crc << 8) ^ kCrcTable[((crc >> 8) ^ byte) & 0xff]);
}

std::string Base36(std::uint64_t n) {
  constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[n % 36]);
    n /= 36;
  } while (n != 0);
  return out;
}

}  // namespace

std::uint16_t Crc16(absl::string_view data) {
  std::uint16_t crc = 0;
  for (unsigned char c : data) crc = Crc16Update(crc, c);
  return crc;
}

int KeySlot(absl::string_view key) {
  // The tag: from the first '{' to the first '}' after it, when something is between them.
  if (size_t open = key.find('{'); open != absl::string_view::npos) {
    if (size_t close = key.find('}', open + 1);
        close != absl::string_view::npos && close > open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  return Crc16(key) % kClusterSlots;
}

std::string ShardHashTag(int shard, int num_shards) {
  const std::int64_t lo = static_cast<std::int64_t>(shard) * kClusterSlots / num_shards;
  std::int64_t hi = static_cast<std::int64_t>(shard + 1) * kClusterSlots / num_shards;
  // More shards than slots: several share a slot, each the first one of its range's start.
  if (hi <= lo) hi = lo + 1;
  const std::string prefix = absl::StrCat(shard, "-");
  std::uint16_t prefix_crc = 0;
  for (unsigned char c : prefix) prefix_crc = Crc16Update(prefix_crc, c);
  // Every slot is reached by some short suffix (the search ends: 36^4 suffixes cover 16384 slots
  // many times over); the first one found is the tag, so the rule is reproducible.
  for (std::uint64_t n = 0;; ++n) {
    const std::string suffix = Base36(n);
    std::uint16_t crc = prefix_crc;
    for (unsigned char c : suffix) crc = Crc16Update(crc, c);
    const int slot = crc % kClusterSlots;
    if (slot >= lo && slot < hi) return prefix + suffix;
  }
}

std::vector<std::string> ShardHashTags(int num_shards) {
  std::vector<std::string> tags;
  tags.reserve(static_cast<size_t>(num_shards));
  for (int shard = 0; shard < num_shards; ++shard) tags.push_back(ShardHashTag(shard, num_shards));
  return tags;
}

}  // namespace store
