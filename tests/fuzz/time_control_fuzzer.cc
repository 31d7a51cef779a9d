// Fuzz target: the time-control reader (libs/clock), both notations: the PGN tag ("40/5400+30:
// 1800+30", "*60", "-") and the arbiters' ("40/90, 30", "G/60 d5"). A control that reads must
// format, when it can be written, to text that reads back to the same control.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "libs/clock/time_control.h"

namespace {

void RoundTrip(const chessclock::TimeControl& tc) {
  if (absl::StatusOr<std::string> pgn = chessclock::FormatPgnTimeControl(tc); pgn.ok()) {
    absl::StatusOr<chessclock::TimeControl> back = chessclock::ParsePgnTimeControl(*pgn);
    if (!back.ok() || !(*back == tc)) std::abort();
  }
  if (absl::StatusOr<std::string> human = chessclock::FormatHumanTimeControl(tc); human.ok()) {
    absl::StatusOr<chessclock::TimeControl> back = chessclock::ParseHumanTimeControl(*human);
    if (!back.ok() || !(*back == tc)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (absl::StatusOr<chessclock::TimeControl> tc = chessclock::ParsePgnTimeControl(text); tc.ok())
    RoundTrip(*tc);
  if (absl::StatusOr<chessclock::TimeControl> tc = chessclock::ParseHumanTimeControl(text); tc.ok())
    RoundTrip(*tc);
  return 0;
}
