// Structured logs: one JSON object per line on stderr. --log_level picks the least severe level
// written (debug, info, warning, error); request lines are debug. The lines of mutating calls
// (info) and of failed authentications (warning, rate-limited) are access_log.h's: written by a
// thread of their own, so that a call never waits for stderr.
#ifndef ARBITER_LIBS_SERVICE_LOG_H_
#define ARBITER_LIBS_SERVICE_LOG_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace service {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };
absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view name);
void SetLogLevel(LogLevel level);
bool LogEnabled(LogLevel level);

// Writes {"ts": ..., "level": ..., "msg": ..., <fields>} when the level is enabled.
void Log(LogLevel level, absl::string_view message,
         const std::vector<std::pair<std::string, std::string>>& fields = {});

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_LOG_H_
