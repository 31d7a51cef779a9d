// arbiterd: hosts the Arbiter services named by --services in one process on one port
// ("all" = every service of the registry, registry.h; the local default). The flags every server
// takes are libs/service/flags.h's; each service owns its own (services/modules.h).
//
//   arbiterd --services=all --insecure_dev
//   arbiterd --services=rules_validation --auth_keys=/etc/arbiter/keys.json
//       --tls_cert=server.pem --tls_key=server.key.pem  (one command line)
//
// Operations: --health_address=0.0.0.0:8081 serves grpc.health.v1 alone in plaintext
// for the kubelet's probes ("" = the process, liveness; a service's name = its readiness, which
// for the store-backed services follows the store). A store that is down at start does not stop
// the process: the stateless services serve, the store-backed ones answer UNAVAILABLE
// ERR_NOT_READY until it answers. --grpc_max_connection_age recycles client connections.
// Every mutating call leaves one JSON line at info level (libs/service/access_log.h).
// --console_address=127.0.0.1:8090 serves the arbiter's web console (services/console) at / with
// the HTTP/JSON API it calls on the same origin.
#include <vector>

#include "libs/base/status_macros.h"
#include "libs/service/server_main.h"
#include "services/arbiterd/registry.h"
#include "services/console/assets.h"

int main(int argc, char** argv) {
  return service::RunServer(
      argc, argv, "arbiterd",
      "arbiterd: the Arbiter server. Flags: --services, --grpc_address, --health_address, "
      "--grpc_max_connection_age, ... (--helpfull lists them all)",
      [](service::ServerConfig& config) -> absl::StatusOr<std::vector<service::ModuleFactory>> {
        ASSIGN_OR_RETURN(std::vector<arbiterd::Registration> selected,
                         arbiterd::Select(config.services));
        std::vector<service::ModuleFactory> factories;
        for (const arbiterd::Registration& r : selected) factories.push_back(r.create);
        // --console_address: the arbiter's console, from this binary (services/console).
        config.console_files = console::Files();
        return factories;
      });
}
