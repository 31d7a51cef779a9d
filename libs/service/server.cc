#include "libs/service/server.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/descriptor.h"
#include "grpc/grpc.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/resource_quota.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/support/server_interceptor.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/service/channel_args.h"
#include "libs/service/errors.h"
#include "libs/service/log.h"
#include "prometheus/exposer.h"

namespace service {
absl::StatusOr<std::string> ReadPem(const std::string& path, absl::string_view flag) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    return base::Error(service::kErrBadFlag, absl::StrCat("--", flag, ": cannot read ", path));
  }
  return text.str();
}

namespace {

// The console's headers on every answer (page, scripts, API): nothing but its own scripts and
// styles run (no inline script or style, no framing), the token travels in a header the page
// sets (never a cookie) and no response is kept by a cache or sniffed into another type.
constexpr char kConsoleHeaders[] =
    "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Referrer-Policy: no-referrer\r\n"
    "X-Frame-Options: DENY\r\n"
    "Cache-Control: no-store\r\n";

bool IsLoopback(absl::string_view address) {
  return absl::StartsWith(address, "127.") || absl::StartsWith(address, "localhost:") ||
         absl::StartsWith(address, "[::1]");
}

// Reflection for this server only when asked for. Linking gRPC's reflection library registers its
// plugin for every server the process builds (a static initializer, as
// InitProtoReflectionServerBuilderPlugin does), so the option removes it, or adds it once.
class ReflectionOption : public grpc::ServerBuilderOption {
 public:
  explicit ReflectionOption(bool enabled) : enabled_(enabled) {}
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    const std::string name = grpc::reflection::ProtoServerReflectionPlugin().name();
    std::erase_if(*plugins, [&name](const std::unique_ptr<grpc::ServerBuilderPlugin>& p) {
      return p->name() == name;
    });
    if (enabled_) {
      plugins->push_back(std::make_unique<grpc::reflection::ProtoServerReflectionPlugin>());
    }
  }

 private:
  const bool enabled_;
};

// Tells the environment when a call ends (its stream stops counting against the caller).
class CallEndInterceptor : public grpc::experimental::Interceptor {
 public:
  CallEndInterceptor(const ServiceEnv* env, grpc::ServerContextBase* ctx) : env_(env), ctx_(ctx) {}
  ~CallEndInterceptor() override { env_->CallEnded(ctx_); }
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    methods->Proceed();
  }

 private:
  const ServiceEnv* env_;
  grpc::ServerContextBase* ctx_;
};

class CallEndInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CallEndInterceptorFactory(const ServiceEnv* env) : env_(env) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    if (info->type() == grpc::experimental::ServerRpcInfo::Type::UNARY) return nullptr;
    return new CallEndInterceptor(env_, info->server_context());
  }

 private:
  const ServiceEnv* env_;
};

// "/pkg.Service/Method" streams replies (server or bidirectional streaming).
bool IsServerStreaming(absl::string_view full_method) {
  absl::string_view name = absl::StripPrefix(full_method, "/");
  std::string dotted(name);
  size_t slash = dotted.rfind('/');
  if (slash == std::string::npos) return false;
  dotted[slash] = '.';
  const google::protobuf::MethodDescriptor* m =
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(dotted);
  return m != nullptr && m->server_streaming();
}

// A completion queue's thread: runs each call's steps until the queue is shut down and drained.
// Runs the queue's events until `stopping` is set, then shuts the queue down itself once it has
// been idle for a moment, and drains it. Not at once: a call that arrived just before the server's
// shutdown is still queued, and gRPC starts an operation on the queue when it hands the call over
// (its "done" notice), which aborts the process if the queue was shut down meanwhile. Once the
// server's shutdown has returned no call arrives, so an idle queue has no such call left; the
// operations the calls themselves start are held back by the methods' gates (AsyncUnaryMethod).
void PollQueue(grpc::ServerCompletionQueue* cq, const std::atomic<bool>* stopping) {
  constexpr auto kIdle = std::chrono::milliseconds(50);
  void* tag = nullptr;
  bool ok = false;
  bool shut = false;
  for (;;) {
    switch (cq->AsyncNext(&tag, &ok, std::chrono::system_clock::now() + kIdle)) {
      case grpc::CompletionQueue::GOT_EVENT:
        static_cast<CompletionTag*>(tag)->Proceed(ok);
        break;
      case grpc::CompletionQueue::TIMEOUT:
        if (!shut && stopping->load(std::memory_order_acquire)) {
          cq->Shutdown();
          shut = true;
        }
        break;
      case grpc::CompletionQueue::SHUTDOWN:
        return;
    }
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServiceEnv>> ServiceEnv::Create(const ServerConfig& config) {
  std::unique_ptr<ServiceEnv> env(new ServiceEnv(config));
  env->access_log_ = std::make_unique<AccessLog>(env->metrics_.registry().get());
  absl::StatusOr<LogLevel> level = ParseLogLevel(config.log_level);
  if (!level.ok()) return level.status();
  SetLogLevel(*level);
  if (!config.insecure_dev) {
    if (config.auth_keys.empty()) {
      return base::Error(service::kErrBadFlag,
                         "--auth_keys is required unless --insecure_dev is given");
    }
    absl::StatusOr<std::unique_ptr<ReloadingKeySet>> keys = ReloadingKeySet::Open(
        config.auth_keys, config.auth_keys_reload,
        [path = config.auth_keys](const absl::Status& s) {
          Log(LogLevel::kError, "the changed keys file does not load: the previous keys stay",
              {{"file", path}, {"code", base::ErrorCode(s)}, {"error", std::string(s.message())}});
        });
    if (!keys.ok()) return keys.status();
    env->keys_ = *std::move(keys);
  }
  if (config.jwt_max_lifetime <= absl::ZeroDuration() || config.jwt_leeway < absl::ZeroDuration()) {
    return base::Error(service::kErrBadFlag,
                       "--jwt_max_lifetime must be positive and --jwt_leeway not negative");
  }
  if (config.rate_limit_qps < 0 || config.rate_limit_burst < 0 ||
      config.max_streams_per_caller < 0) {
    return base::Error(service::kErrBadFlag,
                       "--rate_limit_qps, --rate_limit_burst and --max_streams_per_caller must "
                       "not be negative");
  }
  if (config.max_calls_in_flight < 0) {
    return base::Error(service::kErrBadFlag, "--max_calls_in_flight must not be negative");
  }
  if (config.max_streams < 0 || config.max_unauthenticated_streams < 0) {
    return base::Error(service::kErrBadFlag,
                       "--max_streams and --max_unauthenticated_streams must not be negative");
  }
  env->streams_ = std::make_unique<StreamGate>(
      config.max_streams, config.max_unauthenticated_streams, *env->metrics_.registry());
  env->token_rules_.audience = config.jwt_audience;
  env->token_rules_.issuer = config.jwt_issuer;
  env->token_rules_.max_lifetime = config.jwt_max_lifetime;
  env->token_rules_.leeway = config.jwt_leeway;
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
  const absl::Time now = absl::Now();
  uint64_t generation = 0;
  std::shared_ptr<const KeySet> keys = keys_->Current(now, &generation);
  return token_cache_.VerifyBearer(*keys, absl::string_view(it->second.data(), it->second.size()),
                                   now, token_rules_, generation);
}

absl::Status ServiceEnv::ReloadKeys() {
  if (keys_ == nullptr) return absl::OkStatus();
  return keys_->Reload();
}

void ServiceEnv::SetNotReady(absl::string_view service, std::string why) {
  absl::MutexLock lock(&ready_mu_);
  not_ready_[service] = std::move(why);
  not_ready_count_.store(static_cast<int>(not_ready_.size()), std::memory_order_release);
}

void ServiceEnv::SetReady(absl::string_view service) {
  absl::MutexLock lock(&ready_mu_);
  not_ready_.erase(service);
  not_ready_count_.store(static_cast<int>(not_ready_.size()), std::memory_order_release);
}

absl::Status ServiceEnv::CheckReady(absl::string_view full_method) const {
  // "/arbiter.v1.Arbitration/SubmitMove" -> "arbiter.v1.Arbitration"
  absl::string_view name = absl::StripPrefix(full_method, "/");
  name = name.substr(0, name.rfind('/'));
  absl::MutexLock lock(&ready_mu_);
  auto it = not_ready_.find(name);
  if (it == not_ready_.end()) return absl::OkStatus();
  return base::Error(service::kErrNotReady, it->second);
}

absl::Status ServiceEnv::RateLimitLocked(const Principal& who) const {
  if (config_.rate_limit_qps <= 0) return absl::OkStatus();
  const absl::Time now = absl::Now();
  const double burst =
      config_.rate_limit_burst > 0 ? config_.rate_limit_burst : 2 * config_.rate_limit_qps;
  // Subjects come from verified tokens; still, the table is bounded: full, it starts over.
  if (buckets_.size() >= 100'000 && !buckets_.contains(who.subject)) buckets_.clear();
  auto [it, inserted] = buckets_.try_emplace(who.subject, Bucket{burst, now});
  Bucket& b = it->second;
  if (!inserted) {
    b.tokens = std::min(
        burst, b.tokens + absl::ToDoubleSeconds(now - b.refilled) * config_.rate_limit_qps);
    b.refilled = now;
  }
  if (b.tokens < 1) {
    return base::Error(service::kErrRateLimited,
                       absl::StrCat("more than ", config_.rate_limit_qps,
                                    " calls per second from this caller: slow down"));
  }
  b.tokens -= 1;
  return absl::OkStatus();
}

absl::Status ServiceEnv::TakeCallSlot() const {
  const int max = config_.max_calls_in_flight;
  if (max <= 0) return absl::OkStatus();
  if (calls_in_flight_.fetch_add(1, std::memory_order_relaxed) < max) return absl::OkStatus();
  calls_in_flight_.fetch_sub(1, std::memory_order_relaxed);
  metrics_.CallRefusedOverloaded();
  return base::Error(service::kErrOverloaded,
                     absl::StrCat("the server is serving ", max,
                                  " calls already (--max_calls_in_flight): nothing was done; "
                                  "retry after a moment, with the same command id"));
}

absl::Status ServiceEnv::ChargeMessage(const Principal& who) const {
  if (config_.insecure_dev || config_.rate_limit_qps <= 0) return absl::OkStatus();
  absl::MutexLock lock(&limits_mu_);
  return RateLimitLocked(who);
}

absl::Status ServiceEnv::Limit(const Principal& who, bool stream,
                               const grpc::ServerContextBase& ctx,
                               absl::string_view full_method) const {
  const bool limit_streams = stream && config_.max_streams_per_caller > 0;
  if (config_.rate_limit_qps <= 0 && !limit_streams) return absl::OkStatus();
  bool refused_stream = false;
  {
    absl::MutexLock lock(&limits_mu_);
    RETURN_IF_ERROR(RateLimitLocked(who));
    if (limit_streams && !stream_owner_.contains(&ctx)) {
      int& open = open_streams_[who.subject];
      if (open < config_.max_streams_per_caller) {
        ++open;
        stream_owner_.emplace(&ctx, who.subject);
      } else {
        if (open == 0) open_streams_.erase(who.subject);
        refused_stream = true;
      }
    }
  }
  if (refused_stream) {
    streams_->Refused(full_method, "caller");
    return base::Error(
        service::kErrTooManyStreams,
        absl::StrCat("this caller already has ", config_.max_streams_per_caller, " open streams"));
  }
  return absl::OkStatus();
}

absl::Status ServiceEnv::OpenStream(const grpc::ServerContextBase& ctx,
                                    absl::string_view full_method, bool authenticated) const {
  {
    absl::MutexLock lock(&slots_mu_);
    if (stream_slots_.contains(&ctx)) return absl::OkStatus();  // admitted once already
  }
  ASSIGN_OR_RETURN(StreamGate::Slot slot, streams_->Open(full_method, authenticated));
  absl::MutexLock lock(&slots_mu_);
  stream_slots_.emplace(&ctx, std::move(slot));
  return absl::OkStatus();
}

void ServiceEnv::CallEnded(const grpc::ServerContextBase* ctx) const {
  StreamGate::Slot slot;  // released after the lock
  {
    absl::MutexLock lock(&slots_mu_);
    auto it = stream_slots_.find(ctx);
    if (it != stream_slots_.end()) {
      slot = std::move(it->second);
      stream_slots_.erase(it);
    }
  }
  absl::MutexLock lock(&limits_mu_);
  auto it = stream_owner_.find(ctx);
  if (it == stream_owner_.end()) return;
  auto open = open_streams_.find(it->second);
  if (open != open_streams_.end() && --open->second <= 0) open_streams_.erase(open);
  stream_owner_.erase(it);
}

absl::StatusOr<Principal> ServiceEnv::Admit(const grpc::ServerContextBase& ctx,
                                            absl::string_view full_method,
                                            const google::protobuf::Message* request) const {
  return AdmitCall(ctx, full_method, request, IsServerStreaming(full_method));
}

absl::StatusOr<Principal> ServiceEnv::AdmitCall(const grpc::ServerContextBase& ctx,
                                                absl::string_view full_method,
                                                const google::protobuf::Message* request,
                                                bool stream, CallRecord* record) const {
  absl::StatusOr<Principal> who = Authenticate(ctx);
  if (!who.ok()) {
    access_log_->AuthFailure(ctx, full_method, who.status());
    return who;
  }
  if (record != nullptr) {  // as ActorOf names the caller, without building the message
    record->subject = insecure() ? "insecure" : who->subject;
    record->role = insecure() ? "dev" : std::string(RoleName(who->role));
  }
  if (not_ready_count_.load(std::memory_order_acquire) != 0) {
    if (absl::Status ready = CheckReady(full_method); !ready.ok()) return ready;
  }
  // Without authentication (loopback only) there are no roles, and no callers to tell apart.
  if (!config_.insecure_dev) {
    absl::Status allowed = Authorize(policy_.Find(full_method), *who, request);
    if (!allowed.ok()) return allowed;
    if (absl::Status limited = Limit(*who, stream, ctx, full_method); !limited.ok()) return limited;
  }
  // The server's own cap last: a refused caller takes no place from others.
  if (stream) RETURN_IF_ERROR(OpenStream(ctx, full_method, /*authenticated=*/true));
  return who;
}

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerConfig& config, ServiceEnv* env,
                                                      std::vector<HostedService> services) {
  // Debian's Abseil is built with mutex deadlock detection on; gRPC locks absl::Mutex on every
  // call, and the cycle bookkeeping cost about a tenth of the server's CPU (perf, under loadgen).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::unique_ptr<Server> server(new Server());
  server->config_ = config;
  server->env_ = env;
  server->services_ = services;

  // Without authentication, a server must not be reachable from other machines.
  if (config.insecure_dev && !IsLoopback(config.grpc_address)) {
    return base::Error(service::kErrBadFlag,
                       absl::StrCat("--insecure_dev serves loopback addresses only (127.0.0.1, "
                                    "[::1], localhost), not ",
                                    config.grpc_address));
  }
  // The HTTP gateway forwards to this server: without authentication it too is loopback only.
  if (config.insecure_dev && !config.http_address.empty() && !IsLoopback(config.http_address)) {
    return base::Error(service::kErrBadFlag,
                       absl::StrCat("--insecure_dev serves loopback addresses only, and so does "
                                    "--http_address with it, not ",
                                    config.http_address));
  }
  if (config.insecure_dev && !config.console_address.empty() &&
      !IsLoopback(config.console_address)) {
    return base::Error(service::kErrBadFlag,
                       absl::StrCat("--insecure_dev serves loopback addresses only, and so does "
                                    "--console_address with it, not ",
                                    config.console_address));
  }
  if (!config.console_address.empty() && config.console_files.empty()) {
    return base::Error(service::kErrBadFlag,
                       "--console_address: this server carries no console (arbiterd does)");
  }
  std::shared_ptr<grpc::ServerCredentials> credentials;
  if (!config.tls_cert.empty() || !config.tls_key.empty()) {
    if (config.tls_cert.empty() || config.tls_key.empty()) {
      return base::Error(service::kErrBadFlag, "--tls_cert and --tls_key go together");
    }
    // Read once here so that a missing file fails the start; then watched by gRPC, which re-reads
    // them every --tls_reload (a renewed certificate is served without a restart).
    absl::StatusOr<std::string> cert = ReadPem(config.tls_cert, "tls_cert");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(config.tls_key, "tls_key");
    if (!key.ok()) return key.status();
    if (!config.tls_ca.empty()) {
      absl::StatusOr<std::string> ca = ReadPem(config.tls_ca, "tls_ca");
      if (!ca.ok()) return ca.status();
    }
    const unsigned int refresh_seconds =
        static_cast<unsigned int>(std::max<int64_t>(1, absl::ToInt64Seconds(config.tls_reload)));
    auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        config.tls_key, config.tls_cert, config.tls_ca, refresh_seconds);
    grpc::experimental::TlsServerCredentialsOptions options(provider);
    options.watch_identity_key_cert_pairs();
    if (!config.tls_ca.empty()) {
      options.watch_root_certs();
      options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    }
    credentials = grpc::experimental::TlsServerCredentials(options);
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
  grpc::ServerBuilder builder;
  builder.SetOption(std::make_unique<ReflectionOption>(config.grpc_reflection));
  if (config.grpc_max_threads < 0) {
    return base::Error(service::kErrBadFlag, "--grpc_max_threads must not be negative");
  }
  if (config.grpc_max_threads > 0) {
    grpc::ResourceQuota quota("arbiter-server");
    quota.SetMaxThreads(config.grpc_max_threads);
    builder.SetResourceQuota(quota);
  }
  builder.AddListeningPort(config.grpc_address, credentials, &server->port_);
  builder.SetMaxReceiveMessageSize(config.max_message_bytes);
  builder.SetMaxSendMessageSize(config.max_message_bytes);
  absl::StatusOr<std::vector<std::pair<std::string, int>>> channel_args =
      ParseIntChannelArgs(config.grpc_args, "--grpc_args");
  if (!channel_args.ok()) return channel_args.status();
  for (const auto& [name, value] : *channel_args) builder.AddChannelArgument(name, value);
  if (config.max_connection_age < absl::ZeroDuration() ||
      config.max_connection_age_grace < absl::ZeroDuration()) {
    return base::Error(service::kErrBadFlag,
                       "--grpc_max_connection_age and --grpc_max_connection_age_grace must not be "
                       "negative");
  }
  if (config.max_connection_age > absl::ZeroDuration()) {
    // gRPC adds up to 10% of jitter to the age, so that the replicas' clients do not all
    // reconnect at once.
    builder.AddChannelArgument(
        GRPC_ARG_MAX_CONNECTION_AGE_MS,
        static_cast<int>(
            std::min<int64_t>(INT32_MAX, absl::ToInt64Milliseconds(config.max_connection_age))));
    builder.AddChannelArgument(
        GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
        static_cast<int>(std::min<int64_t>(
            INT32_MAX, absl::ToInt64Milliseconds(config.max_connection_age_grace))));
  }
  server->health_ = std::make_unique<HealthService>();
  // The health service is served from the completion queues (health.h), so every server has
  // them now.
  server->health_endpoint_ =
      std::make_unique<HealthEndpoint>(server->health_.get(), &env->streams());
  builder.RegisterService(server->health_endpoint_.get());
  for (const HostedService& s : services) builder.RegisterService(s.service);
  if (config.cq_threads < 1) {
    return base::Error(service::kErrBadFlag, "--grpc_cq_threads must be >= 1");
  }
  for (int i = 0; i < config.cq_threads; ++i) {
    server->cqs_.push_back(builder.AddCompletionQueue());
  }
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<MetricsInterceptorFactory>(&env->metrics()));
  interceptors.push_back(std::make_unique<CallEndInterceptorFactory>(env));
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
    for (AsyncUnaryMethod* m : server->health_endpoint_->async_methods()) {
      for (int i = 0; i < kArmedPerMethod; ++i) m->Arm(cq.get());
    }
    server->cq_threads_.emplace_back(
        [cq = cq.get(), stopping = &server->queues_stopping_] { PollQueue(cq, stopping); });
  }
  // "" is the process (liveness): up and answering, whatever its store does. A service name is
  // that service's readiness: a store-backed one is NOT_SERVING until its store answers
  // (module.h, ServiceModule::Connect and Ping).
  for (const HostedService& s : services) server->health_->SetServing(s.name, s.serving);
  server->health_->SetServing("", true);
  if (!config.health_address.empty()) {
    // The kubelet's gRPC probe speaks plaintext: the same statuses on a port of their own, with
    // nothing else on it (no reflection, no interceptors, a few threads).
    // Check and Watch run on one completion queue of its own (health.h): no call holds a
    // thread, and the watchers opened without a token share the server's cap.
    grpc::ServerBuilder health_builder;
    health_builder.SetOption(std::make_unique<ReflectionOption>(false));
    grpc::ResourceQuota quota("arbiter-health");
    quota.SetMaxThreads(8);
    health_builder.SetResourceQuota(quota);
    health_builder.AddListeningPort(config.health_address, grpc::InsecureServerCredentials(),
                                    &server->health_port_);
    server->health_port_endpoint_ =
        std::make_unique<HealthEndpoint>(server->health_.get(), &env->streams());
    health_builder.RegisterService(server->health_port_endpoint_.get());
    server->health_cq_ = health_builder.AddCompletionQueue();
    server->health_server_ = health_builder.BuildAndStart();
    if (server->health_server_ == nullptr || server->health_port_ == 0) {
      server->server_->Shutdown(std::chrono::system_clock::now());
      return base::Error(service::kErrBind, absl::StrCat("--health_address: cannot listen on ",
                                                         config.health_address));
    }
    for (AsyncUnaryMethod* m : server->health_port_endpoint_->async_methods()) {
      for (int i = 0; i < kArmedPerMethod; ++i) m->Arm(server->health_cq_.get());
    }
    server->health_cq_thread_ =
        std::thread([cq = server->health_cq_.get(), stopping = &server->health_queue_stopping_] {
          PollQueue(cq, stopping);
        });
  }

  // The HTTP/JSON gateway and the console: one handler (http_gateway.h), forwarded in process to
  // this server, so that every check and count is the gRPC call's.
  auto start_gateway = [&](const std::string& address, std::vector<StaticFile> files,
                           std::string headers, std::unique_ptr<HttpGateway>* out) -> absl::Status {
    if (address.empty()) return absl::OkStatus();
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(config.max_message_bytes);
    args.SetMaxSendMessageSize(config.max_message_bytes);
    HttpGatewayOptions options;
    options.address = address;
    options.limits.max_body_bytes = static_cast<size_t>(std::max(0, config.max_message_bytes));
    options.files = std::move(files);
    options.headers = std::move(headers);
    absl::StatusOr<std::unique_ptr<HttpGateway>> http =
        HttpGateway::Start(std::move(options), server->server_->InProcessChannel(args));
    if (!http.ok()) {
      if (server->http_ != nullptr) server->http_->Shutdown();
      server->server_->Shutdown(std::chrono::system_clock::now());
      if (server->health_server_ != nullptr) {
        server->health_server_->Shutdown(std::chrono::system_clock::now());
      }
      return http.status();
    }
    *out = *std::move(http);
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(start_gateway(config.http_address, {}, "", &server->http_));
  RETURN_IF_ERROR(start_gateway(config.console_address, config.console_files, kConsoleHeaders,
                                &server->console_));

  if (!config.metrics_address.empty() && config.metrics_address != "none") {
    try {
      server->exposer_ = std::make_unique<prometheus::Exposer>(config.metrics_address);
    } catch (const std::exception& e) {
      if (server->http_ != nullptr) server->http_->Shutdown();
      if (server->console_ != nullptr) server->console_->Shutdown();
      server->server_->Shutdown();
      if (server->health_server_ != nullptr) server->health_server_->Shutdown();
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
       {"health_port", absl::StrCat(server->health_port_)},
       {"http_port", absl::StrCat(server->http_port())},
       {"console_port", absl::StrCat(server->console_port())},
       {"services", config.services},
       {"tls", config.tls_cert.empty() ? "off" : (config.tls_ca.empty() ? "on" : "mutual")}});
  return server;
}

Server::~Server() {
  if (http_ != nullptr) http_->Shutdown();  // its calls go to server_
  if (console_ != nullptr) console_->Shutdown();
  if (server_ != nullptr && !shutting_down_.exchange(true))
    server_->Shutdown(std::chrono::system_clock::now());
  StopQueues();
  if (health_server_ != nullptr) {
    health_->Shutdown();
    health_server_->Shutdown(std::chrono::system_clock::now());
  }
  StopHealthQueue();
}

void Server::StopHealthQueue() {
  if (health_cq_ == nullptr || !health_cq_thread_.joinable()) return;
  if (health_port_endpoint_ != nullptr) {
    for (AsyncUnaryMethod* m : health_port_endpoint_->async_methods()) m->Close();
  }
  health_queue_stopping_.store(true, std::memory_order_release);
  health_cq_thread_.join();
}

void Server::StopQueues() {
  // After the server's shutdown has returned: nothing arms a call any more, and every pending
  // request comes back with ok = false and deletes itself as the queue drains.
  if (queues_stopped_) return;
  queues_stopped_ = true;
  // Calls may still start operations from other threads (a stream's producers, a store's
  // callback): closed methods start none, so none starts on a queue shut down.
  for (const HostedService& s : services_) {
    for (AsyncUnaryMethod* m : s.async_methods) m->Close();
  }
  if (health_endpoint_ != nullptr) {
    for (AsyncUnaryMethod* m : health_endpoint_->async_methods()) m->Close();
  }
  queues_stopping_.store(true, std::memory_order_release);  // each queue's thread shuts it down
  for (std::thread& t : cq_threads_) t.join();
  cq_threads_.clear();
}

void Server::Shutdown() {
  if (shutting_down_.exchange(true)) return;
  Log(LogLevel::kInfo, "shutting down: NOT_SERVING, then draining");
  health_->Drain();
  absl::SleepFor(config_.shutdown_grace);
  health_->Shutdown();
  server_->Shutdown(std::chrono::system_clock::now() +
                    absl::ToChronoMilliseconds(config_.drain_timeout));
  // HTTP requests arriving while draining were answered 503 by the stopping server; what is left
  // of the gateway's connections closes now.
  if (http_ != nullptr) http_->Shutdown();
  if (console_ != nullptr) console_->Shutdown();
  StopQueues();
  // The health port last: the probes see NOT_SERVING, not a refused connection, while draining.
  if (health_server_ != nullptr) health_server_->Shutdown(std::chrono::system_clock::now());
  StopHealthQueue();
}

void Server::Wait() { server_->Wait(); }

void BlockShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void ShutdownOnSignals(Server* server) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  std::thread([server, set] {
    int sig = 0;
    while (sigwait(&set, &sig) == 0 && sig == SIGHUP) {
      absl::Status reloaded =
          server->env() != nullptr ? server->env()->ReloadKeys() : absl::OkStatus();
      if (reloaded.ok()) {
        Log(LogLevel::kInfo, "SIGHUP: the keys file was re-read");
      } else {
        Log(LogLevel::kError, "SIGHUP: the keys file does not load: the previous keys stay",
            {{"code", base::ErrorCode(reloaded)}, {"error", std::string(reloaded.message())}});
      }
    }
    Log(LogLevel::kInfo, "signal received", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    server->Shutdown();
  }).detach();
}

}  // namespace service
