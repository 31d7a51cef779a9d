#include "services/clock_authority/module.h"

#include <utility>

#include "libs/base/status_macros.h"
#include "services/clock_authority/host.h"

namespace clock_authority_service {
namespace {

class Module final : public service::ServiceModule {
 public:
  explicit Module(std::unique_ptr<ClockAuthorityHost> host) : host_(std::move(host)) {}
  service::HostedService hosted() override { return host_->hosted(); }
  void Start() override { host_->Start(); }
  void Stop() override { host_->Stop(); }

 private:
  std::unique_ptr<ClockAuthorityHost> host_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<service::ServiceModule>> CreateModule(
    const service::ServerConfig& config, service::ServiceEnv* env) {
  ASSIGN_OR_RETURN(std::unique_ptr<ClockAuthorityHost> host,
                   ClockAuthorityHost::Create(config, env, ClockHostOptionsFromFlags()));
  return std::make_unique<Module>(std::move(host));
}

}  // namespace clock_authority_service
