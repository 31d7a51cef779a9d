// clock_authority_server: the clock-authority service alone, one replica of many on one store.
// The flags every server takes (libs/service/flags.h) plus the clock's (services/clock_authority/
// flags.cc).
//
//   clock_authority_server --store=redis://10.0.0.5:6379 --auth_keys=/etc/arbiter/keys.json
//   clock_authority_server --store=memory --insecure_dev --grpc_address=127.0.0.1:7071
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "libs/base/error.h"
#include "libs/service/flags.h"
#include "libs/service/log.h"
#include "libs/service/server.h"
#include "services/clock_authority/module.h"

namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "clock_authority_server: %s: %s\n", base::ErrorCode(status).c_str(),
               std::string(status.message()).c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  service::BlockShutdownSignals();
  absl::SetProgramUsageMessage(
      "clock_authority_server: the Arbiter clock authority. Flags: --store, --grpc_address, ...");
  absl::ParseCommandLine(argc, argv);
  service::ServerConfig config = service::ConfigFromFlags();
  config.services = "clock_authority";

  absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
  if (!env.ok()) return Fail(env.status());
  std::vector<std::unique_ptr<service::ServiceModule>> modules;
  absl::StatusOr<std::unique_ptr<service::ServiceModule>> module =
      clock_authority_service::CreateModule(config, env->get());
  if (!module.ok()) return Fail(module.status());
  modules.push_back(*std::move(module));
  if (absl::Status served = service::ServeModules(config, env->get(), modules); !served.ok()) {
    return Fail(served);
  }
  service::Log(service::LogLevel::kInfo, "stopped");
  return 0;
}
