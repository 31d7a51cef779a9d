#include "libs/clock/lag_compensation.h"

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"

namespace chessclock {
namespace {

using ::base::HasErrorCode;

TEST(LagCompensationTest, LichessConstants) {
  // 3+2: estimated 180 + 80 = 260 s; gain = min(100, 260 * 2 / 5 + 15) cs = 100 cs.
  EXPECT_EQ(LichessLagParams(*ParsePgnTimeControl("180+2")), (LagParams{1000, 3000, 7000}));
  // 1+0: 60 s; gain = 60 * 2 / 5 + 15 = 39 cs.
  EXPECT_EQ(LichessLagParams(*ParsePgnTimeControl("60")), (LagParams{390, 1170, 2730}));
  // 15 s + 0: 6 + 15 = 21 cs.
  EXPECT_EQ(LichessLagParams(*ParsePgnTimeControl("15")), (LagParams{210, 630, 1470}));
}

TEST(LagCompensationTest, CompensatesUpToTheQuotaWhichGrowsToItsMaximum) {
  const LagParams params{100, 300, 700};
  LagQuota quota(params);
  EXPECT_EQ(quota.quota_ms(), 300);
  EXPECT_EQ(quota.OnMove(params, 250), 250);   // fully compensated
  EXPECT_EQ(quota.quota_ms(), 150);            // 300 + 100 - 250
  EXPECT_EQ(quota.OnMove(params, 1000), 150);  // capped by the quota
  EXPECT_EQ(quota.quota_ms(), 100);
  EXPECT_EQ(quota.OnMove(params, -50), 0);  // negative lag counts as none
  EXPECT_EQ(quota.quota_ms(), 200);
  for (int i = 0; i < 20; ++i) quota.OnMove(params, 0);
  EXPECT_EQ(quota.quota_ms(), 700);  // the maximum
}

TEST(LagCompensationTest, Validates) {
  EXPECT_OK(ValidateLagParams({100, 300, 700}));
  EXPECT_THAT(ValidateLagParams({-1, 300, 700}), HasErrorCode("ERR_BAD_LAG_PARAMS"));
  EXPECT_THAT(ValidateLagParams({100, 800, 700}), HasErrorCode("ERR_BAD_LAG_PARAMS"));
}

}  // namespace
}  // namespace chessclock
