// The search-analysis service as arbiterd hosts it (libs/service/module.h); its flags are in
// flags.h.
#ifndef ARBITER_SERVICES_SEARCH_ANALYSIS_MODULE_H_
#define ARBITER_SERVICES_SEARCH_ANALYSIS_MODULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "libs/service/module.h"

namespace search_analysis {

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env);

}  // namespace search_analysis

#endif  // ARBITER_SERVICES_SEARCH_ANALYSIS_MODULE_H_
