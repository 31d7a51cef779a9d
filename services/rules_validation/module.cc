#include "services/rules_validation/module.h"

#include "absl/flags/flag.h"
#include "services/rules_validation/rules_service.h"

ABSL_FLAG(int, max_perft_depth, 6, "rules_validation: the deepest perft a caller may ask for");

namespace rules_validation {
namespace {

// Stateless: nothing runs beside the service.
class Module final : public service::ServiceModule {
 public:
  Module(service::ServiceEnv* env, RulesLimits limits) : service_(env, limits) {}
  service::HostedService hosted() override {
    return {RulesValidationService::kName, &service_, service_.async_methods()};
  }

 private:
  RulesValidationService service_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env) {
  RulesLimits limits;
  limits.max_perft_depth = absl::GetFlag(FLAGS_max_perft_depth);
  return std::make_unique<Module>(env, limits);
}

}  // namespace rules_validation
