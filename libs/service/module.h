// One service as a process hosts it: every services/<name>/ defines one factory,
// `CreateModule(config, env)` (declared in services/modules.h), that builds the service from its
// own flags and returns what the server registers plus what runs beside it (schedulers, timers).
// arbiterd hosts any set of them by looping over its registry (services/arbiterd/registry.h); a new
// service is a folder, a declaration and a registry row.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<ServiceModule> m, rules_validation::CreateModule(config,
//   env)); ASSIGN_OR_RETURN(auto server, Server::Start(config, env, {m->hosted()})); m->Start();
//   ...  server->Wait();  m->Stop();
#ifndef ARBITER_LIBS_SERVICE_MODULE_H_
#define ARBITER_LIBS_SERVICE_MODULE_H_

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "libs/service/server.h"

namespace service {

class ServiceModule {
 public:
  virtual ~ServiceModule() = default;
  // The gRPC service and its completion-queue methods, for Server::Start.
  virtual HostedService hosted() = 0;
  // After the server started / after it stopped serving: background work (flag schedulers, the
  // deadline timers, gauges). The default has none.
  virtual void Start() {}
  virtual void Stop() {}
  // A service backed by a store it must reach before it can serve (the store's clock is its time
  // base) says so here. ServeModules calls Connect once before serving and, while it fails, every
  // second in the background: the service is NOT_SERVING and its calls UNAVAILABLE ERR_NOT_READY
  // meanwhile, the other services serve; Start follows the first success. Then Ping (one cheap
  // round trip to the store) every second: the service's health status follows it (readiness).
  virtual bool store_backed() const { return false; }
  virtual absl::Status Connect() { return absl::OkStatus(); }
  virtual absl::Status Ping() { return absl::OkStatus(); }
  // Whether a failed Connect may mend by itself (the store down or starting). One that cannot (the
  // store refused the credentials: a configuration error) stops the start.
  virtual bool Transient(const absl::Status& failure) const {
    return failure.code() == absl::StatusCode::kUnavailable;
  }
};

// Serves `modules` until SIGTERM/SIGINT (ShutdownOnSignals): the server with every module's
// service, then each module's Start; after the drain, each Stop in the reverse order. Call
// BlockShutdownSignals before any thread exists.
absl::Status ServeModules(const ServerConfig& config, ServiceEnv* env,
                          const std::vector<std::unique_ptr<ServiceModule>>& modules);

// Builds a service from its flags (call after absl::ParseCommandLine): the type of every
// service's CreateModule (services/modules.h).
using CreateModuleFn = absl::StatusOr<std::unique_ptr<ServiceModule>>(const ServerConfig& config,
                                                                      ServiceEnv* env);
using ModuleFactory = CreateModuleFn*;

// The module of a `T` that has hosted() and, when background work runs beside it, Start() and
// Stop(): a service class, or the host that wires one to its store, timers and gauges.
template <typename T>
class ModuleOf final : public ServiceModule {
 public:
  explicit ModuleOf(std::unique_ptr<T> inner) : inner_(std::move(inner)) {}
  HostedService hosted() override { return inner_->hosted(); }
  void Start() override {
    if constexpr (requires(T & t) { t.Start(); }) inner_->Start();
  }
  void Stop() override {
    if constexpr (requires(T & t) { t.Stop(); }) inner_->Stop();
  }
  bool store_backed() const override {
    return requires(T & t) { t.Ping(); };
  }
  absl::Status Connect() override {
    if constexpr (requires(T & t) { t.Connect(); }) return inner_->Connect();
    return absl::OkStatus();
  }
  absl::Status Ping() override {
    if constexpr (requires(T & t) { t.Ping(); }) return inner_->Ping();
    return absl::OkStatus();
  }
  bool Transient(const absl::Status& failure) const override {
    if constexpr (requires(const T& t) { t.Transient(failure); }) {
      return inner_->Transient(failure);
    }
    return ServiceModule::Transient(failure);
  }

 private:
  std::unique_ptr<T> inner_;
};

// `inner` as a module; a failure to build it as is. CreateModule's last line:
//   return service::MakeModule(ClockAuthorityHost::Create(config, env, options));
// A host made by T::CreateUnconnected and then connected (T::Connect): what a host's Create does
// for a process that serves only once its store answers.
template <typename T, typename Options>
absl::StatusOr<std::unique_ptr<T>> CreateConnected(const ServerConfig& config, ServiceEnv* env,
                                                   Options options) {
  absl::StatusOr<std::unique_ptr<T>> host = T::CreateUnconnected(config, env, std::move(options));
  if (!host.ok()) return host.status();
  if (absl::Status connected = (*host)->Connect(); !connected.ok()) return connected;
  return host;
}

template <typename T>
std::unique_ptr<ServiceModule> MakeModule(std::unique_ptr<T> inner) {
  return std::make_unique<ModuleOf<T>>(std::move(inner));
}
template <typename T>
absl::StatusOr<std::unique_ptr<ServiceModule>> MakeModule(
    absl::StatusOr<std::unique_ptr<T>> inner) {
  if (!inner.ok()) return inner.status();
  return MakeModule(*std::move(inner));
}

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_MODULE_H_
