#include "libs/clock/display.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"

namespace chessclock {
namespace {

// ceil(ms / unit) for ms > 0, else 0.
std::int64_t CeilDiv(std::int64_t ms, std::int64_t unit) {
  return ms <= 0 ? 0 : (ms + unit - 1) / unit;
}

}  // namespace

std::int64_t Centiseconds(std::int64_t ms) { return CeilDiv(ms, 10); }

std::string FormatHms(std::int64_t ms) {
  const std::int64_t s = CeilDiv(ms, 1000);
  return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
}

std::string FormatHmsCentis(std::int64_t ms) {
  const std::int64_t cs = Centiseconds(ms);
  const std::int64_t s = cs / 100;
  return absl::StrFormat("%d:%02d:%02d.%02d", s / 3600, s / 60 % 60, s % 60, cs % 100);
}

}  // namespace chessclock
