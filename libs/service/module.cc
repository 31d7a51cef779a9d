#include "libs/service/module.h"

#include "libs/base/error.h"
#include "libs/service/log.h"
#include "libs/service/readiness.h"

namespace service {

absl::Status ServeModules(const ServerConfig& config, ServiceEnv* env,
                          const std::vector<std::unique_ptr<ServiceModule>>& modules) {
  // A store-backed module that cannot reach its store now does not stop the others:
  // it is served NOT_SERVING, its calls refused, and connected in the background.
  std::vector<HostedService> hosted;
  std::vector<StoreReadiness::Watched> watched;
  std::vector<bool> connected;
  for (const auto& m : modules) {
    HostedService h = m->hosted();
    bool up = true;
    if (m->store_backed()) {
      absl::Status status = m->Connect();
      up = status.ok();
      if (!up && !m->Transient(status)) return status;  // e.g. a wrong password: exit
      if (!up) {
        env->SetNotReady(h.name, NotReadyMessage(h.name, status));
        Log(LogLevel::kWarning, "the store does not answer: serving without this service",
            {{"service", h.name},
             {"code", base::ErrorCode(status)},
             {"error", std::string(status.message())}});
      }
      watched.push_back({m.get(), h.name, up});
    }
    h.serving = up;
    connected.push_back(up);
    hosted.push_back(std::move(h));
  }
  // Every gRPC series of the hosted methods from the start, at zero (metrics.h): rates and
  // alerts read 0 before the first call, not nothing.
  for (const HostedService& h : hosted) env->metrics().AddService(h.name);
  env->metrics().AddService("grpc.health.v1.Health");
  {
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(config, env, hosted);
    if (!server.ok()) return server.status();
    for (size_t i = 0; i < modules.size(); ++i) {
      if (connected[i]) modules[i]->Start();
    }
    StoreReadiness readiness(server->get(), env, std::move(watched), absl::Seconds(1));
    readiness.Start();
    ShutdownOnSignals(server->get());
    (*server)->Wait();
    readiness.Stop();
  }
  for (auto it = modules.rbegin(); it != modules.rend(); ++it) (*it)->Stop();
  return absl::OkStatus();
}

}  // namespace service
