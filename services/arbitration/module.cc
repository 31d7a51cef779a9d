// The arbitration service as arbiterd hosts it (services/modules.h).
#include "services/arbitration/host.h"
#include "services/modules.h"

namespace arbitration_service {

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env) {
  return service::MakeModule(
      // Unconnected: a store that is down at start does not stop the process; the
      // server connects it (ServiceModule::Connect).
      ArbitrationHost::CreateUnconnected(config, env, ArbitrationHostOptionsFromFlags()));
}

}  // namespace arbitration_service
