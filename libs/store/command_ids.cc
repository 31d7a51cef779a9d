#include "libs/store/command_ids.h"

#include <random>

#include "absl/strings/str_cat.h"

namespace store {
namespace {

std::string ProcessNonce() {
  std::random_device rd;
  return absl::StrCat(absl::Hex((static_cast<std::uint64_t>(rd()) << 32) | rd(), absl::kZeroPad16));
}

}  // namespace

CommandIds::CommandIds(absl::string_view owner)
    : prefix_(absl::StrCat("a:", owner.substr(0, 64), ":", ProcessNonce(), ":")) {}

std::string CommandIds::Next() {
  return absl::StrCat(prefix_, next_.fetch_add(1, std::memory_order_relaxed));
}

}  // namespace store
