#include "libs/service/log.h"

#include <atomic>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "libs/base/error.h"
#include "libs/service/errors.h"
#include "nlohmann/json.hpp"

namespace service {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
constexpr const char* kNames[] = {"debug", "info", "warning", "error"};
}  // namespace

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view name) {
  for (int i = 0; i < 4; ++i) {
    if (name == kNames[i]) return static_cast<LogLevel>(i);
  }
  return base::Error(service::kErrBadFlag,
                     absl::StrCat("--log_level must be debug, info, warning or error, not ", name));
}

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }
bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

void Log(LogLevel level, absl::string_view message,
         const std::vector<std::pair<std::string, std::string>>& fields) {
  if (!LogEnabled(level)) return;
  nlohmann::json line = {
      {"ts", absl::FormatTime(absl::RFC3339_full, absl::Now(), absl::UTCTimeZone())},
      {"level", kNames[static_cast<int>(level)]},
      {"msg", std::string(message)}};
  for (const auto& [k, v] : fields) line[k] = v;
  std::string text = line.dump() + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

}  // namespace service
