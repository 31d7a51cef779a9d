// clock_authority_server: the clock-authority service alone, one replica of many on one store.
// The flags every server takes (libs/service/flags.h) plus the clock's (services/clock_authority/
// flags.cc).
//
//   clock_authority_server --store=redis://10.0.0.5:6379 --auth_keys=/etc/arbiter/keys.json
//   clock_authority_server --store=memory --insecure_dev --grpc_address=127.0.0.1:7071
#include <vector>

#include "libs/service/server_main.h"
#include "services/modules.h"

int main(int argc, char** argv) {
  return service::RunServer(
      argc, argv, "clock_authority_server",
      "clock_authority_server: the Arbiter clock authority. Flags: --store, --grpc_address, ...",
      [](service::ServerConfig& config) -> absl::StatusOr<std::vector<service::ModuleFactory>> {
        config.services = "clock_authority";
        return std::vector<service::ModuleFactory>{&clock_authority_service::CreateModule};
      });
}
