// How a clock shows a time: centiseconds and h:mm:ss, from integer milliseconds.
//
// Times are rounded up, so a display reads zero exactly when the flag has fallen (6.1: the flag
// falls when the allotted time is used up), never while time remains:
//   FormatHms(5'400'000) == "1:30:00"    FormatHms(1) == "0:00:01"    FormatHms(0) == "0:00:00"
//   FormatHmsCentis(59'871) == "0:00:59.88"                           Centiseconds(10) == 1
// Negative times (an overrun after a flag) display as zero.
#ifndef ARBITER_LIBS_CLOCK_DISPLAY_H_
#define ARBITER_LIBS_CLOCK_DISPLAY_H_

#include <cstdint>
#include <string>

namespace chessclock {

// Whole centiseconds, rounded up; 0 for ms <= 0.
std::int64_t Centiseconds(std::int64_t ms);
// "h:mm:ss", seconds rounded up.
std::string FormatHms(std::int64_t ms);
// "h:mm:ss.cc", centiseconds rounded up.
std::string FormatHmsCentis(std::int64_t ms);

}  // namespace chessclock

#endif  // ARBITER_LIBS_CLOCK_DISPLAY_H_
