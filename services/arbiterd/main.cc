// arbiterd: hosts the Arbiter services named by --services in one process on one port
// ("all" = every service of the registry, registry.h; the local default). The flags every server
// takes are libs/service/flags.h's; each service owns its own (services/<name>/module.h).
//
//   arbiterd --services=all --insecure_dev
//   arbiterd --services=rules_validation --auth_keys=/etc/arbiter/keys.json \
//       --tls_cert=server.pem --tls_key=server.key.pem
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "libs/base/error.h"
#include "libs/service/flags.h"
#include "libs/service/log.h"
#include "libs/service/module.h"
#include "libs/service/server.h"
#include "services/arbiterd/registry.h"

namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "arbiterd: %s: %s\n", base::ErrorCode(status).c_str(),
               std::string(status.message()).c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread exists, so that only the signal thread receives SIGTERM/SIGINT.
  service::BlockShutdownSignals();
  absl::SetProgramUsageMessage(
      "arbiterd: the Arbiter server. Flags: --services, --grpc_address, ...");
  absl::ParseCommandLine(argc, argv);
  service::ServerConfig config = service::ConfigFromFlags();
  absl::StatusOr<std::vector<arbiterd::Registration>> selected = arbiterd::Select(config.services);
  if (!selected.ok()) return Fail(selected.status());

  absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
  if (!env.ok()) return Fail(env.status());
  std::vector<std::unique_ptr<service::ServiceModule>> modules;
  for (const arbiterd::Registration& r : *selected) {
    absl::StatusOr<std::unique_ptr<service::ServiceModule>> module = r.create(config, env->get());
    if (!module.ok()) return Fail(module.status());
    modules.push_back(*std::move(module));
  }
  if (absl::Status served = service::ServeModules(config, env->get(), modules); !served.ok()) {
    return Fail(served);
  }
  service::Log(service::LogLevel::kInfo, "stopped");
  return 0;
}
