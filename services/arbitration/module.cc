#include "services/arbitration/module.h"

#include <utility>

#include "libs/base/status_macros.h"
#include "services/arbitration/host.h"

namespace arbitration_service {
namespace {

class Module final : public service::ServiceModule {
 public:
  explicit Module(std::unique_ptr<ArbitrationHost> host) : host_(std::move(host)) {}
  service::HostedService hosted() override { return host_->hosted(); }
  void Start() override { host_->Start(); }
  void Stop() override { host_->Stop(); }

 private:
  std::unique_ptr<ArbitrationHost> host_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env) {
  ASSIGN_OR_RETURN(std::unique_ptr<ArbitrationHost> host,
                   ArbitrationHost::Create(config, env, ArbitrationHostOptionsFromFlags()));
  return std::make_unique<Module>(std::move(host));
}

}  // namespace arbitration_service
