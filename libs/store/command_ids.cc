#include "libs/store/command_ids.h"

#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/store/errors.h"
#include "libs/store/event_log.h"

namespace store {
namespace {

constexpr absl::string_view kServerPrefixes[] = {"flag:", "settle:", "a:", "sys:", "u:"};
constexpr absl::string_view kClientPrefix = "u:";
constexpr size_t kDigestHex = 32;

std::string ProcessNonce() {
  std::random_device rd;
  return absl::StrCat(absl::Hex((static_cast<std::uint64_t>(rd()) << 32) | rd(), absl::kZeroPad16));
}

// Two 64-bit FNV-style lanes (service::RequestFingerprint's mix): 32 hex digits.
std::string Digest(absl::string_view s) {
  std::uint64_t a = 14695981039346656037ull;
  std::uint64_t b = 0x6c62272e07bb0142ull;
  for (unsigned char c : s) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  }
  return absl::StrCat(absl::Hex(a, absl::kZeroPad16), absl::Hex(b, absl::kZeroPad16));
}

}  // namespace

CommandIds::CommandIds(absl::string_view owner)
    : prefix_(absl::StrCat("a:", owner.substr(0, 64), ":", ProcessNonce(), ":")) {}

std::string CommandIds::Next() {
  return absl::StrCat(prefix_, next_.fetch_add(1, std::memory_order_relaxed));
}

bool IsReservedCommandId(absl::string_view id) {
  for (absl::string_view prefix : kServerPrefixes) {
    if (absl::StartsWith(id, prefix)) return true;
  }
  return false;
}

absl::Status CheckClientCommandId(absl::string_view client_id) {
  if (!IsReservedCommandId(client_id)) return absl::OkStatus();
  return base::Error(
      kErrReservedCommandId,
      absl::StrCat("command ids starting with \"flag:\", \"settle:\", \"a:\", "
                   "\"sys:\" or \"u:\" are the server's own: \"",
                   client_id.substr(0, 32), client_id.size() > 32 ? "..." : "", "\" is refused"));
}

std::string ScopedCommandId(absl::string_view subject, absl::string_view client_id) {
  std::string scope = absl::StrCat(kClientPrefix, Digest(subject), "/");
  if (scope.size() + client_id.size() > static_cast<size_t>(kMaxIdLength)) {
    return absl::StrCat(scope, "#", Digest(client_id));
  }
  return absl::StrCat(scope, client_id);
}

absl::string_view ClientCommandId(absl::string_view stored) {
  const size_t scope = kClientPrefix.size() + kDigestHex + 1;
  if (!absl::StartsWith(stored, kClientPrefix) || stored.size() < scope ||
      stored[scope - 1] != '/') {
    return stored;
  }
  return stored.substr(scope);
}

}  // namespace store
