#include "services/search_analysis/module.h"

#include <utility>

#include "libs/base/status_macros.h"
#include "services/search_analysis/analysis_service.h"
#include "services/search_analysis/flags.h"

namespace search_analysis {
namespace {

// 5.2b, 6.10, 9.6, 10.2, C3, C4: searches and the engine, on the service's own worker pool.
class Module final : public service::ServiceModule {
 public:
  explicit Module(std::unique_ptr<SearchAnalysisService> service) : service_(std::move(service)) {}
  service::HostedService hosted() override {
    return {SearchAnalysisService::kName, service_.get()};
  }

 private:
  std::unique_ptr<SearchAnalysisService> service_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env) {
  ASSIGN_OR_RETURN(std::unique_ptr<SearchAnalysisService> service,
                   SearchAnalysisService::Create(env, OptionsFromFlags()));
  return std::make_unique<Module>(std::move(service));
}

}  // namespace search_analysis
