// docs/ROLES.md is the policy table as a server hosting every service builds it: a row added,
// removed or changed in code without the document regenerated fails here.
#include "tests/integration/roles_doc.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace integration {
namespace {

TEST(RolesDoc, TheCommittedDocumentIsThePolicyTable) {
  std::ifstream file("docs/ROLES.md");
  ASSERT_TRUE(file) << "docs/ROLES.md is missing";
  std::stringstream committed;
  committed << file.rdbuf();
  EXPECT_EQ(committed.str(), HostedRolesDoc())
      << "docs/ROLES.md is not current: bazel run //tests/integration:roles_doc > docs/ROLES.md";
}

TEST(RolesDoc, AGameBoundRowSaysOwnGameForPlayersOnly) {
  service::Policy policy;
  policy.Add({"/arbiter.v1.ClockAuthority/PressClock",
              {service::Role::kPlatform, service::Role::kPlayer},
              true});
  policy.Add({"/arbiter.v1.ClockAuthority/GetClock", {service::Role::kObserver}, false});
  const std::string doc = RolesDoc(policy);
  EXPECT_NE(doc.find("| PressClock | yes | own game |  |  |  |\n"), std::string::npos) << doc;
  EXPECT_NE(doc.find("| GetClock |  |  |  | yes |  |\n"), std::string::npos) << doc;
  // A method of the service without a row allows nobody, and is listed so.
  EXPECT_NE(doc.find("| CreateClock |  |  |  |  |  |\n"), std::string::npos) << doc;
}

}  // namespace
}  // namespace integration
