// Issue 11.2: every method of every hosted service has exactly one row in the policy table, and
// every row names a real method. The table denies by default, so a method without a row would be
// refused to everyone; Policy::Add already refuses rows for unknown methods and second rows.
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "libs/service/server.h"
#include "services/arbitration/host.h"
#include "services/clock_authority/host.h"
#include "services/rules_validation/rules_service.h"
#include "services/search_analysis/analysis_service.h"

namespace {

TEST(PolicyCoverage, EveryMethodOfEveryServiceHasOneRow) {
  service::ServerConfig config;
  config.insecure_dev = true;
  config.metrics_address = "none";
  absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
  ASSERT_TRUE(env.ok()) << env.status();

  rules_validation::RulesValidationService rules(env->get(), {});
  search_analysis::AnalysisOptions analysis_options;
  analysis_options.engine_path = "/nonexistent/engine";  // the table does not need an engine
  auto analysis = search_analysis::SearchAnalysisService::Create(env->get(), analysis_options);
  ASSERT_TRUE(analysis.ok()) << analysis.status();
  clock_authority::ClockHostOptions clock_options;
  clock_options.run_scheduler = false;
  auto clock = clock_authority::ClockAuthorityHost::Create(config, env->get(), clock_options);
  ASSERT_TRUE(clock.ok()) << clock.status();
  arbitration_service::ArbitrationHostOptions arbitration_options;
  arbitration_options.run_timers = false;
  auto arbitration =
      arbitration_service::ArbitrationHost::Create(config, env->get(), arbitration_options);
  ASSERT_TRUE(arbitration.ok()) << arbitration.status();

  const std::set<std::string> hosted = {
      rules_validation::RulesValidationService::kName,
      search_analysis::SearchAnalysisService::kName,
      clock_authority::ClockAuthorityService::kName,
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
  for (const auto& [method, row] : (*env)->policy().rows()) {
    rows.insert(method);
    EXPECT_FALSE(row.roles.empty()) << method << ": a row that allows nobody";
  }
  for (const std::string& m : methods) EXPECT_TRUE(rows.count(m)) << m << " has no policy row";
  for (const std::string& r : rows) EXPECT_TRUE(methods.count(r)) << r << " is no hosted method";
  EXPECT_GE(methods.size(), 40u);  // four services' worth
}

}  // namespace
