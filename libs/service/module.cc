#include "libs/service/module.h"

namespace service {

absl::Status ServeModules(const ServerConfig& config, ServiceEnv* env,
                          const std::vector<std::unique_ptr<ServiceModule>>& modules) {
  std::vector<HostedService> hosted;
  for (const auto& m : modules) hosted.push_back(m->hosted());
  {
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(config, env, hosted);
    if (!server.ok()) return server.status();
    for (const auto& m : modules) m->Start();
    ShutdownOnSignals(server->get());
    (*server)->Wait();
  }
  for (auto it = modules.rbegin(); it != modules.rend(); ++it) (*it)->Stop();
  return absl::OkStatus();
}

}  // namespace service
