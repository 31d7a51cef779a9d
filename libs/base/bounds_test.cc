#include "libs/base/bounds.h"

#include <limits>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"

namespace base {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

TEST(BoundsTest, DurationsUpToSevenDays) {
  EXPECT_OK(CheckDurationMs("d", 0));
  EXPECT_OK(CheckDurationMs("d", kMaxDurationMs));
  for (std::int64_t bad : {std::int64_t{-1}, kMaxDurationMs + 1, kMax, kMin}) {
    absl::Status st = CheckDurationMs("regulations.default_time_ms", bad);
    EXPECT_THAT(st, HasErrorCode("ERR_OUT_OF_BOUNDS")) << bad;
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("regulations.default_time_ms"), absl::string_view::npos);
  }
}

TEST(BoundsTest, DeltasEitherWayCountsAndInstants) {
  EXPECT_OK(CheckDeltaMs("delta", -kMaxDurationMs));
  EXPECT_THAT(CheckDeltaMs("delta", kMin), HasErrorCode("ERR_OUT_OF_BOUNDS"));
  EXPECT_OK(CheckCount("n", kMaxCount));
  EXPECT_THAT(CheckCount("n", kMaxCount + 1), HasErrorCode("ERR_OUT_OF_BOUNDS"));
  EXPECT_THAT(CheckCount("n", -1), HasErrorCode("ERR_OUT_OF_BOUNDS"));
  EXPECT_OK(CheckInstantMs("at", 1'767'250'800'000));
  EXPECT_THAT(CheckInstantMs("at", kMax), HasErrorCode("ERR_OUT_OF_BOUNDS"));
}

}  // namespace
}  // namespace base
