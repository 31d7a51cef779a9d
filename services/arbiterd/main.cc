// arbiterd: hosts the Arbiter services named by --services in one process on one port
// ("all" = every service of the registry, registry.h; the local default). The flags every server
// takes are libs/service/flags.h's; each service owns its own (services/modules.h).
//
//   arbiterd --services=all --insecure_dev
//   arbiterd --services=rules_validation --auth_keys=/etc/arbiter/keys.json
//       --tls_cert=server.pem --tls_key=server.key.pem  (one command line)
#include <vector>

#include "libs/base/status_macros.h"
#include "libs/service/server_main.h"
#include "services/arbiterd/registry.h"

int main(int argc, char** argv) {
  return service::RunServer(
      argc, argv, "arbiterd",
      "arbiterd: the Arbiter server. Flags: --services, --grpc_address, ...",
      [](service::ServerConfig& config) -> absl::StatusOr<std::vector<service::ModuleFactory>> {
        ASSIGN_OR_RETURN(std::vector<arbiterd::Registration> selected,
                         arbiterd::Select(config.services));
        std::vector<service::ModuleFactory> factories;
        for (const arbiterd::Registration& r : selected) factories.push_back(r.create);
        return factories;
      });
}
