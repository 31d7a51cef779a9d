#include "libs/service/server_main.h"

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "libs/base/error.h"
#include "libs/service/flags.h"
#include "libs/service/log.h"

namespace service {

int RunServer(int argc, char** argv, const char* program, const char* usage,
              const ChooseModules& choose) {
  // Before any thread exists, so that only the signal thread receives SIGTERM/SIGINT.
  BlockShutdownSignals();
  absl::SetProgramUsageMessage(usage);
  absl::ParseCommandLine(argc, argv);
  auto fail = [program](const absl::Status& status) {
    std::fprintf(stderr, "%s: %s: %s\n", program, base::ErrorCode(status).c_str(),
                 std::string(status.message()).c_str());
    return 2;
  };
  ServerConfig config = ConfigFromFlags();
  absl::StatusOr<std::vector<ModuleFactory>> factories = choose(config);
  if (!factories.ok()) return fail(factories.status());

  absl::StatusOr<std::unique_ptr<ServiceEnv>> env = ServiceEnv::Create(config);
  if (!env.ok()) return fail(env.status());
  std::vector<std::unique_ptr<ServiceModule>> modules;
  for (ModuleFactory create : *factories) {
    absl::StatusOr<std::unique_ptr<ServiceModule>> module = create(config, env->get());
    if (!module.ok()) return fail(module.status());
    modules.push_back(*std::move(module));
  }
  if (absl::Status served = ServeModules(config, env->get(), modules); !served.ok()) {
    return fail(served);
  }
  Log(LogLevel::kInfo, "stopped");
  return 0;
}

}  // namespace service
