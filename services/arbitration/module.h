// The service as arbiterd hosts it (libs/service/module.h): the arbitration service: games in the
// store named by --store under their own key prefix, flags and defaults fired by the server (its
// flags: host.h).
#ifndef ARBITER_SERVICES_ARBITRATION_MODULE_H_
#define ARBITER_SERVICES_ARBITRATION_MODULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "libs/service/module.h"

namespace arbitration_service {

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env);

}  // namespace arbitration_service

#endif  // ARBITER_SERVICES_ARBITRATION_MODULE_H_
