#include "libs/service/server.h"

#include <signal.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "libs/base/error.h"
#include "libs/service/channel_args.h"
#include "libs/service/errors.h"
#include "libs/service/log.h"
#include "prometheus/exposer.h"

namespace service {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, absl::string_view flag) {
  std::ifstream in(path);
  if (!in)
    return base::Error(service::kErrBadFlag, absl::StrCat("--", flag, ": cannot read ", path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool IsLoopback(absl::string_view address) {
  return absl::StartsWith(address, "127.") || absl::StartsWith(address, "localhost:") ||
         absl::StartsWith(address, "[::1]");
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServiceEnv>> ServiceEnv::Create(const ServerConfig& config) {
  std::unique_ptr<ServiceEnv> env(new ServiceEnv(config));
  absl::StatusOr<LogLevel> level = ParseLogLevel(config.log_level);
  if (!level.ok()) return level.status();
  SetLogLevel(*level);
  if (!config.insecure_dev) {
    if (config.auth_keys.empty()) {
      return base::Error(service::kErrBadFlag,
                         "--auth_keys is required unless --insecure_dev is given");
    }
    absl::StatusOr<KeySet> keys = KeySet::FromFile(config.auth_keys);
    if (!keys.ok()) return keys.status();
    if (keys->empty()) return base::Error(service::kErrBadAuthKeys, "the keys file has no keys");
    env->keys_ = std::move(*keys);
  }
  env->metrics_.SetInsecureDev(config.insecure_dev);
  return env;
}

absl::StatusOr<Principal> ServiceEnv::Authenticate(const grpc::ServerContextBase& ctx) const {
  if (config_.insecure_dev) {
    Principal dev;
    dev.role = Role::kArbiter;
    dev.subject = "insecure-dev";
    return dev;
  }
  const auto& md = ctx.client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) {
    return base::Error(service::kErrUnauthenticated,
                       "no bearer token (metadata 'authorization: Bearer <token>')");
  }
  return token_cache_.VerifyBearer(keys_, absl::string_view(it->second.data(), it->second.size()),
                                   absl::Now());
}

absl::StatusOr<Principal> ServiceEnv::Admit(const grpc::ServerContextBase& ctx,
                                            absl::string_view full_method,
                                            const google::protobuf::Message* request) const {
  absl::StatusOr<Principal> who = Authenticate(ctx);
  if (!who.ok()) return who;
  if (config_.insecure_dev) return who;  // no roles without authentication
  absl::Status allowed = Authorize(policy_.Find(full_method), *who, request);
  if (!allowed.ok()) return allowed;
  return who;
}

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerConfig& config, ServiceEnv* env,
                                                      std::vector<HostedService> services) {
  // Debian's Abseil is built with mutex deadlock detection on; gRPC locks absl::Mutex on every
  // call, and the cycle bookkeeping cost about a tenth of the server's CPU (perf, under loadgen).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::unique_ptr<Server> server(new Server());
  server->config_ = config;
  server->services_ = services;

  std::shared_ptr<grpc::ServerCredentials> credentials;
  if (!config.tls_cert.empty() || !config.tls_key.empty()) {
    if (config.tls_cert.empty() || config.tls_key.empty()) {
      return base::Error(service::kErrBadFlag, "--tls_cert and --tls_key go together");
    }
    absl::StatusOr<std::string> cert = ReadPem(config.tls_cert, "tls_cert");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(config.tls_key, "tls_key");
    if (!key.ok()) return key.status();
    grpc::SslServerCredentialsOptions options;
    options.pem_key_cert_pairs.push_back({*key, *cert});
    if (!config.tls_ca.empty()) {
      absl::StatusOr<std::string> ca = ReadPem(config.tls_ca, "tls_ca");
      if (!ca.ok()) return ca.status();
      options.pem_root_certs = *ca;
      options.client_certificate_request =
          GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    }
    credentials = grpc::SslServerCredentials(options);
  } else {
    if (!config.tls_ca.empty())
      return base::Error(service::kErrBadFlag, "--tls_ca needs --tls_cert and --tls_key");
    if (!config.insecure_dev && !IsLoopback(config.grpc_address)) {
      Log(LogLevel::kWarning,
          "bearer tokens travel in plaintext: serve on loopback or give --tls_cert/--tls_key",
          {{"address", config.grpc_address}});
    }
    credentials = grpc::InsecureServerCredentials();
  }
  if (config.insecure_dev) {
    Log(LogLevel::kWarning,
        "INSECURE DEV MODE: no authentication, every caller acts as an arbiter; never use this in "
        "production",
        {{"metric", "arbiter_insecure_dev=1"}});
  }

  // Our own health service, not gRPC's callback-based default (health.h says why).
  grpc::EnableDefaultHealthCheckService(false);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(config.grpc_address, credentials, &server->port_);
  builder.SetMaxReceiveMessageSize(config.max_message_bytes);
  builder.SetMaxSendMessageSize(config.max_message_bytes);
  absl::StatusOr<std::vector<std::pair<std::string, int>>> channel_args =
      ParseIntChannelArgs(config.grpc_args, "--grpc_args");
  if (!channel_args.ok()) return channel_args.status();
  for (const auto& [name, value] : *channel_args) builder.AddChannelArgument(name, value);
  server->health_ = std::make_unique<HealthService>();
  builder.RegisterService(server->health_.get());
  bool any_async = false;
  for (const HostedService& s : services) {
    builder.RegisterService(s.service);
    any_async = any_async || !s.async_methods.empty();
  }
  if (any_async) {
    if (config.cq_threads < 1) {
      return base::Error(service::kErrBadFlag, "--grpc_cq_threads must be >= 1");
    }
    for (int i = 0; i < config.cq_threads; ++i) {
      server->cqs_.push_back(builder.AddCompletionQueue());
    }
  }
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<MetricsInterceptorFactory>(&env->metrics()));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return base::Error(service::kErrBind, absl::StrCat("cannot listen on ", config.grpc_address));
  }
  // Calls arriving before a request is armed wait in the server; a few armed per method and
  // queue let a burst start without waiting for re-arming.
  constexpr int kArmedPerMethod = 8;
  for (const std::unique_ptr<grpc::ServerCompletionQueue>& cq : server->cqs_) {
    for (const HostedService& s : services) {
      for (AsyncUnaryMethod* m : s.async_methods) {
        for (int i = 0; i < kArmedPerMethod; ++i) m->Arm(cq.get());
      }
    }
    server->cq_threads_.emplace_back([cq = cq.get()] {
      void* tag = nullptr;
      bool ok = false;
      while (cq->Next(&tag, &ok)) static_cast<CompletionTag*>(tag)->Proceed(ok);
    });
  }
  for (const HostedService& s : services) server->health_->SetServing(s.name, true);
  server->health_->SetServing("", true);

  if (!config.metrics_address.empty() && config.metrics_address != "none") {
    try {
      server->exposer_ = std::make_unique<prometheus::Exposer>(config.metrics_address);
    } catch (const std::exception& e) {
      server->server_->Shutdown();
      return base::Error(service::kErrBind, absl::StrCat("cannot serve metrics on ",
                                                         config.metrics_address, ": ", e.what()));
    }
    server->exposer_->RegisterCollectable(env->metrics().registry());
    server->process_metrics_ = Metrics::ProcessMetrics();
    server->exposer_->RegisterCollectable(server->process_metrics_);
    std::vector<int> ports = server->exposer_->GetListeningPorts();
    server->metrics_port_ = ports.empty() ? 0 : ports[0];
  }
  Log(LogLevel::kInfo, "serving",
      {{"grpc_port", absl::StrCat(server->port_)},
       {"metrics_port", absl::StrCat(server->metrics_port_)},
       {"services", config.services},
       {"tls", config.tls_cert.empty() ? "off" : (config.tls_ca.empty() ? "on" : "mutual")}});
  return server;
}

Server::~Server() {
  if (server_ != nullptr && !shutting_down_.exchange(true))
    server_->Shutdown(std::chrono::system_clock::now());
  StopQueues();
}

void Server::StopQueues() {
  // After the server's shutdown has returned: nothing arms a call any more, and every pending
  // request comes back with ok = false and deletes itself as the queue drains.
  if (queues_stopped_) return;
  queues_stopped_ = true;
  for (const std::unique_ptr<grpc::ServerCompletionQueue>& cq : cqs_) cq->Shutdown();
  for (std::thread& t : cq_threads_) t.join();
  cq_threads_.clear();
}

void Server::Shutdown() {
  if (shutting_down_.exchange(true)) return;
  Log(LogLevel::kInfo, "shutting down: NOT_SERVING, then draining");
  health_->SetAllServing(false);
  absl::SleepFor(config_.shutdown_grace);
  health_->Shutdown();
  server_->Shutdown(std::chrono::system_clock::now() +
                    absl::ToChronoMilliseconds(config_.drain_timeout));
  StopQueues();
}

void Server::Wait() { server_->Wait(); }

void BlockShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void ShutdownOnSignals(Server* server) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  std::thread([server, set] {
    int sig = 0;
    sigwait(&set, &sig);
    Log(LogLevel::kInfo, "signal received", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    server->Shutdown();
  }).detach();
}

}  // namespace service
