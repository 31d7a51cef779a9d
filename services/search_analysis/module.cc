// The search-analysis service as arbiterd hosts it (services/modules.h): 5.2b, 6.10, 9.6, 10.2,
// C3, C4: searches and the engine, on the service's own worker pool.
#include "services/modules.h"
#include "services/search_analysis/analysis_service.h"
#include "services/search_analysis/flags.h"

namespace search_analysis {

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env) {
  return service::MakeModule(SearchAnalysisService::Create(env, OptionsFromFlags()));
}

}  // namespace search_analysis
