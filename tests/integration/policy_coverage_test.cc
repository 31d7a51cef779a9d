// Every method of every hosted service has exactly one row in the policy table, and
// every row names a real method. The table denies by default, so a method without a row would be
// refused to everyone; Policy::Add already refuses rows for unknown methods and second rows.
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "tests/integration/testing/test_server.h"

namespace integration {
namespace {

TEST(PolicyCoverage, EveryMethodOfEveryServiceHasOneRow) {
  std::unique_ptr<TestServer> server = TestServer::StartOrDie(EveryServiceForItsPolicy());

  const std::set<std::string> hosted = {
      rules_validation::RulesValidationService::kName,
      search_analysis::SearchAnalysisService::kName,
      clock_authority_service::ClockAuthorityService::kName,
      arbitration_service::ArbitrationService::kName,
  };
  std::set<std::string> methods;
  for (const std::string& name : hosted) {
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name);
    ASSERT_NE(service, nullptr) << name;
    for (int i = 0; i < service->method_count(); ++i) {
      methods.insert(absl::StrCat("/", name, "/", service->method(i)->name()));
    }
  }
  std::set<std::string> rows;
  for (const auto& [method, row] : server->env()->policy().rows()) {
    rows.insert(method);
    EXPECT_FALSE(row.roles.empty()) << method << ": a row that allows nobody";
  }
  for (const std::string& m : methods) EXPECT_TRUE(rows.count(m)) << m << " has no policy row";
  for (const std::string& r : rows) EXPECT_TRUE(methods.count(r)) << r << " is no hosted method";
  EXPECT_GE(methods.size(), 40u);  // four services' worth
}

}  // namespace
}  // namespace integration
