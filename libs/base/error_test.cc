#include "libs/base/error.h"

#include "gtest/gtest.h"
#include "libs/base/status_macros.h"
#include "libs/base/status_matchers.h"

namespace base {
namespace {

absl::StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("ERR_ODD", "odd");
  return x / 2;
}

absl::StatusOr<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int half, Half(x));
  ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

absl::Status CheckEven(int x) {
  RETURN_IF_ERROR(Half(x).status());
  return absl::OkStatus();
}

TEST(ErrorTest, CarriesStableCode) {
  absl::Status s = FailedPrecondition("ERR_GAME_OVER", "the game is over");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ErrorCode(s), "ERR_GAME_OVER");
  EXPECT_EQ(ErrorCode(absl::NotFoundError("x")), "ERR_NOT_FOUND");
  EXPECT_EQ(ErrorCode(absl::OkStatus()), "");
}

TEST(StatusMacrosTest, PropagateErrors) {
  EXPECT_THAT(Quarter(8), IsOk());
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_THAT(Quarter(6), HasErrorCode("ERR_ODD"));
  EXPECT_OK(CheckEven(4));
  EXPECT_THAT(CheckEven(3), HasStatusCode(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace base
