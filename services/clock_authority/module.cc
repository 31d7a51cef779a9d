// The clock authority as arbiterd and clock_authority_server host it (services/modules.h).
#include "services/clock_authority/host.h"
#include "services/modules.h"

namespace clock_authority_service {

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env) {
  // Unconnected: a store that is down at start does not stop the process; the
  // server connects it (ServiceModule::Connect).
  return service::MakeModule(
      ClockAuthorityHost::CreateUnconnected(config, env, ClockHostOptionsFromFlags()));
}

}  // namespace clock_authority_service
