// The services a process can host (libs/service/module.h): each folder defines its CreateModule,
// which builds the service from the folder's own flags, and services/arbiterd/registry.cc lists
// them. Each line declares one, a function of type service::CreateModuleFn:
//   absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
//       const service::ServerConfig& config, service::ServiceEnv* env);
#ifndef ARBITER_SERVICES_MODULES_H_
#define ARBITER_SERVICES_MODULES_H_

#include "libs/service/module.h"

// The rules-validation service. Its flag: --max_perft_depth (6), the deepest perft a caller may
// ask for.
namespace rules_validation {
service::CreateModuleFn CreateModule;
}

// The search-analysis service; its flags: services/search_analysis/flags.h.
namespace search_analysis {
service::CreateModuleFn CreateModule;
}

// The clock authority: clocks in the store named by --store, flags fired by the server (its
// flags: services/clock_authority/host.h).
namespace clock_authority_service {
service::CreateModuleFn CreateModule;
}

// The arbitration service: games in the store named by --store under their own key prefix,
// flags and defaults fired by the server (its flags: services/arbitration/host.h).
namespace arbitration_service {
service::CreateModuleFn CreateModule;
}

#endif  // ARBITER_SERVICES_MODULES_H_
