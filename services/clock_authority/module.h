// The service as arbiterd hosts it (libs/service/module.h): the clock authority: clocks in the
// store named by --store, flags fired by the server (its flags: host.h).
#ifndef ARBITER_SERVICES_CLOCK_AUTHORITY_MODULE_H_
#define ARBITER_SERVICES_CLOCK_AUTHORITY_MODULE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "libs/service/module.h"

namespace clock_authority_service {

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env);

}  // namespace clock_authority_service

#endif  // ARBITER_SERVICES_CLOCK_AUTHORITY_MODULE_H_
