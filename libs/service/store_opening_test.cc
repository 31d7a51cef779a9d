#include "libs/service/store_opening.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/error.h"
#include "libs/base/status_matchers.h"
#include "libs/store/errors.h"

namespace service {
namespace {

using ::base::HasErrorCode;

TEST(StoreOpeningTest, MemoryOpensAndOtherSpecsAreRefusedAsAFlag) {
  absl::StatusOr<std::unique_ptr<store::GameStore>> memory =
      OpenStore("memory", {.deadline_shards = 8});
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_EQ((*memory)->NumDeadlineShards(), 8);
  EXPECT_OK(CheckStoreFunctions(memory->get()));  // only a Redis has functions to check
  EXPECT_THAT(OpenStore("mysql://db:3306", {}), HasErrorCode("ERR_BAD_FLAG"));
  // The password file's path is not echoed.
  absl::StatusOr<std::unique_ptr<store::GameStore>> bad =
      OpenStore("rediss://h?password_file=/secret", {});
  EXPECT_THAT(bad, HasErrorCode("ERR_BAD_FLAG"));
  EXPECT_FALSE(absl::StrContains(bad.status().message(), "/secret"));
}

TEST(StoreOpeningTest, OnlyAnUnreachableStoreIsTransient) {
  EXPECT_TRUE(StoreFailureIsTransient(base::Error(store::kErrStoreUnavailable, "down")));
  EXPECT_FALSE(StoreFailureIsTransient(base::Error(store::kErrStoreAuth, "WRONGPASS")));
  EXPECT_FALSE(StoreFailureIsTransient(base::Error(store::kErrStoreFunctionsMissing, "no lib")));
  EXPECT_FALSE(StoreFailureIsTransient(absl::InvalidArgumentError("bad")));
}

TEST(StoreOpeningTest, DefaultReplicaIdIsHostAndPid) {
  EXPECT_TRUE(absl::StrContains(DefaultReplicaId(), ":"));
}

}  // namespace
}  // namespace service
