#include "libs/clock/display.h"

#include "gtest/gtest.h"

namespace chessclock {
namespace {

TEST(DisplayTest, Hms) {
  EXPECT_EQ(FormatHms(5'400'000), "1:30:00");
  EXPECT_EQ(FormatHms(0), "0:00:00");
  EXPECT_EQ(FormatHms(-5), "0:00:00");
  EXPECT_EQ(FormatHms(1), "0:00:01");  // time remains: never shows zero
  EXPECT_EQ(FormatHms(59'001), "0:01:00");
  EXPECT_EQ(FormatHms(36'000'000), "10:00:00");
}

TEST(DisplayTest, Centiseconds) {
  EXPECT_EQ(Centiseconds(0), 0);
  EXPECT_EQ(Centiseconds(1), 1);
  EXPECT_EQ(Centiseconds(10), 1);
  EXPECT_EQ(Centiseconds(11), 2);
  EXPECT_EQ(Centiseconds(-100), 0);
  EXPECT_EQ(FormatHmsCentis(59'871), "0:00:59.88");
  EXPECT_EQ(FormatHmsCentis(3'723'450), "1:02:03.45");
  EXPECT_EQ(FormatHmsCentis(0), "0:00:00.00");
}

}  // namespace
}  // namespace chessclock
