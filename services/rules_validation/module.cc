// The rules-validation service as arbiterd hosts it (services/modules.h). Stateless: nothing runs
// beside the service.
#include "absl/flags/flag.h"
#include "services/modules.h"
#include "services/rules_validation/rules_service.h"

ABSL_FLAG(int, max_perft_depth, 6, "rules_validation: the deepest perft a caller may ask for");

namespace rules_validation {

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env) {
  RulesLimits limits;
  limits.max_perft_depth = absl::GetFlag(FLAGS_max_perft_depth);
  return service::MakeModule(std::make_unique<RulesValidationService>(env, limits));
}

}  // namespace rules_validation
