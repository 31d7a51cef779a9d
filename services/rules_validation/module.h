// The rules-validation service as arbiterd hosts it (libs/service/module.h). Its flag:
//   --max_perft_depth (6): the deepest perft a caller may ask for.
#ifndef ARBITER_SERVICES_RULES_VALIDATION_MODULE_H_
#define ARBITER_SERVICES_RULES_VALIDATION_MODULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "libs/service/module.h"

namespace rules_validation {

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env);

}  // namespace rules_validation

#endif  // ARBITER_SERVICES_RULES_VALIDATION_MODULE_H_
