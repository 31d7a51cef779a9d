// --services: "all", a comma list, unknown names.
#include "services/arbiterd/registry.h"

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"

namespace arbiterd {
namespace {

using ::base::HasErrorCode;

std::vector<std::string> Names(const std::vector<Registration>& rs) {
  std::vector<std::string> out;
  for (const Registration& r : rs) out.push_back(r.name);
  return out;
}

TEST(Registry, AllAndAListInRegistryOrder) {
  absl::StatusOr<std::vector<Registration>> all = Select("all");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(Names(*all), (std::vector<std::string>{"rules_validation", "search_analysis",
                                                   "clock_authority", "arbitration"}));
  absl::StatusOr<std::vector<Registration>> two = Select("arbitration, rules_validation");
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(Names(*two), (std::vector<std::string>{"rules_validation", "arbitration"}));
  for (const Registration& r : Registry()) EXPECT_NE(r.create, nullptr) << r.name;
}

TEST(Registry, UnknownOrNoServiceIsABadFlag) {
  EXPECT_THAT(Select("rules,clock").status(), HasErrorCode("ERR_BAD_FLAG"));
  EXPECT_THAT(Select("").status(), HasErrorCode("ERR_BAD_FLAG"));
  EXPECT_THAT(Select(" , ").status(), HasErrorCode("ERR_BAD_FLAG"));
}

}  // namespace
}  // namespace arbiterd
