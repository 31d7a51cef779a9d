// The services arbiterd can host, in the order it starts them. A new service is a
// folder with a CreateModule (declared in services/modules.h) and one row here.
#ifndef ARBITER_SERVICES_ARBITERD_REGISTRY_H_
#define ARBITER_SERVICES_ARBITERD_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/service/module.h"

namespace arbiterd {

struct Registration {
  std::string name;  // what --services names: "rules_validation", ...
  service::ModuleFactory create;
};

// Every service, in start order.
const std::vector<Registration>& Registry();

// The services `spec` names: "all", or a comma list of names (each once, in registry order).
// INVALID_ARGUMENT ERR_BAD_FLAG for an unknown name or an empty list.
absl::StatusOr<std::vector<Registration>> Select(absl::string_view spec);

}  // namespace arbiterd

#endif  // ARBITER_SERVICES_ARBITERD_REGISTRY_H_
