// What every Arbiter server shares: configuration, the gRPC server with health (grpc.health.v1,
// a status per hosted service, open to every caller), reflection (only with --grpc_reflection),
// message-size limits, a cap on the synchronous server's threads, TLS / mutual TLS (certificates
// re-read when their files change), the metrics interceptor and exposer, and graceful shutdown
// (health NOT_SERVING first, then in-flight calls drain, then exit). Handlers enter through
// ServiceEnv::Serve, which authenticates (keys re-read when their file changes), applies the
// caller's rate and stream limits, authorises by the policy table, honours the caller's deadline
// (or the default one) and converts absl::Status to grpc::Status. Operations: the same health
// statuses on a plaintext port of their own (--health_address, for the kubelet), connections
// recycled after --grpc_max_connection_age, a service refused with UNAVAILABLE ERR_NOT_READY while
// its store has never answered (SetNotReady; module.h), and a log line for every mutating call
// (access_log.h).
//
//   std::unique_ptr<ServiceEnv> env = *ServiceEnv::Create(config);
//   // Each service adds its policy rows when it is built (libs/service/module.h):
//   std::unique_ptr<ServiceModule> rules = *rules_validation::CreateModule(config, env.get());
//   std::unique_ptr<Server> server = *Server::Start(config, env.get(), {rules->hosted()});
//   rules->Start();
//   server->Wait();  // Shutdown() from a signal thread (ShutdownOnSignals)
#ifndef ARBITER_LIBS_SERVICE_SERVER_H_
#define ARBITER_LIBS_SERVICE_SERVER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "grpcpp/server.h"
#include "grpcpp/server_context.h"
#include "libs/service/access_log.h"
#include "libs/service/async_unary.h"
#include "libs/service/auth.h"
#include "libs/service/grpc_status.h"
#include "libs/service/health.h"
#include "libs/service/http_gateway.h"
#include "libs/service/metrics.h"
#include "libs/service/policy.h"
#include "libs/service/stream_gate.h"
#include "proto/arbiter/v1/common.pb.h"

namespace prometheus {
class Exposer;
}

namespace service {

struct ServerConfig {
  std::string grpc_address = "127.0.0.1:7070";
  std::string metrics_address = "127.0.0.1:9090";  // "" or "none": no exposer
  std::string services = "all";
  std::string store = "memory";
  std::string tls_cert, tls_key, tls_ca;  // PEM files; tls_ca turns on mutual TLS
  std::string auth_keys;                  // keys file (see auth.h)
  bool insecure_dev = false;              // no authentication at all (loopback addresses only)
  // Token rules (auth.h TokenRules): "aud" and "iss" required when set, exp - iat at most
  // jwt_max_lifetime, jwt_leeway of clock skew forgiven on exp, nbf and iat.
  std::string jwt_audience, jwt_issuer;
  absl::Duration jwt_max_lifetime = absl::Hours(24);
  absl::Duration jwt_leeway = absl::Seconds(30);
  // How often the keys file and the TLS files are looked at for changes (rotation without a
  // restart); zero for the keys file: at every call. TLS files: whole seconds, at least 1 s.
  absl::Duration auth_keys_reload = absl::Seconds(5);
  absl::Duration tls_reload = absl::Seconds(60);
  bool grpc_reflection = false;  // the reflection service, for grpcurl and the like
  // The synchronous server's threads at most (a grpc::ResourceQuota); a call arriving when all are
  // busy is refused with RESOURCE_EXHAUSTED. 0: unbounded.
  int grpc_max_threads = 1000;
  // Unary calls arriving without a deadline (or a longer one) get this one; streams are excluded.
  absl::Duration default_deadline = absl::Seconds(30);
  // Per caller (token subject): calls per second with bursts of rate_limit_burst (0: twice the
  // rate), RESOURCE_EXHAUSTED ERR_RATE_LIMITED beyond; 0 turns the limit off. Open streams at
  // most, RESOURCE_EXHAUSTED ERR_TOO_MANY_STREAMS beyond; 0 turns that limit off.
  double rate_limit_qps = 0;
  double rate_limit_burst = 0;
  int max_streams_per_caller = 256;
  // Open streams the server holds at most, of every method and caller, and of those opened
  // without a token (the health Watch): RESOURCE_EXHAUSTED ERR_TOO_MANY_STREAMS beyond
  // (stream_gate.h). 0 turns a cap off. A stream holds no thread (async_stream.h): these bound
  // memory. The first is sized for a broadcast (thousands watching one game on one replica).
  int max_streams = 20000;
  int max_unauthenticated_streams = 1000;
  // Unary calls (and messages of the streams served as calls, SubmitMoves) being served at once,
  // from admission to their status, at most: one beyond is refused RESOURCE_EXHAUSTED
  // ERR_OVERLOADED before any work, so an overloaded server answers what it can in time and
  // refuses the rest at once instead of queueing every call it is sent until each one's deadline
  // passes (and its memory with them). The completion-queue methods hold no thread, so nothing
  // else bounds them. The server owns the clocks: a move's time in the queue is its player's, so
  // the queue is kept short (4,096 calls are ~0.5-1 s of moves on a 2-core machine) while far
  // above what a steady load holds (rate × latency: ~100 at 4,000 moves/s). 0 turns it off.
  int max_calls_in_flight = 4096;
  std::string log_level = "info";
  int max_message_bytes = 4 << 20;
  absl::Duration shutdown_grace = absl::Seconds(5);  // NOT_SERVING before draining
  absl::Duration drain_timeout = absl::Seconds(20);  // in-flight calls get this long
  // Extra integer gRPC channel arguments for the server, "name=value,name=value" (tuning, e.g.
  // "grpc.http2.bdp_probe=0"); a malformed list fails Server::Start with ERR_BAD_FLAG.
  std::string grpc_args;
  // Threads polling a completion queue each, for the async methods (async_unary.h). One suits a
  // small machine whose cores the clients share; more spread the hot methods over more cores.
  int cq_threads = 1;
  // A second, plaintext gRPC server serving grpc.health.v1.Health only (the same statuses as the
  // main port): for the kubelet's gRPC probes, which speak no TLS. "" = none. It carries no
  // tokens and no other service, so plaintext exposes nothing but the statuses.
  std::string health_address;
  // The HTTP/JSON gateway (http_gateway.h): every RPC as POST /v1/{package.Service}/{Method},
  // forwarded to this server in process. "" = none.
  std::string http_address;
  // The arbiter's console: `console_files` (its page, scripts and styles, embedded in the binary
  // that hosts it) at `/` and the same API as the HTTP/JSON gateway (POST /v1/...) on one origin,
  // with a strict Content-Security-Policy. "" = none. Off without files.
  std::string console_address;
  std::vector<StaticFile> console_files;
  // Connections of the main server are closed (GOAWAY) after this age, so that long-lived HTTP/2
  // clients re-resolve and spread over new replicas; in-flight calls get max_connection_age_grace
  // to finish. Zero: connections live for ever (gRPC's default).
  absl::Duration max_connection_age = absl::ZeroDuration();
  absl::Duration max_connection_age_grace = absl::Seconds(30);
};

// A call's view for long-running domain work: whether to stop (deadline passed or cancelled).
class CallContext {
 public:
  // kDeadlineOnly: a call served from a completion queue (async_unary.h), where gRPC can report a
  // cancellation only through a notification tag that path does not request (IsCancelled is not
  // valid there); its short work is bounded by the deadline alone.
  // kStreamMessage: one message of a stream served as a call of its own (services/arbitration's
  // SubmitMoves): as kDeadlineOnly, and the stream's headers are not the message's to set (they
  // left with the stream's first reply).
  enum Watch { kCancellationAndDeadline, kDeadlineOnly, kStreamMessage };
  explicit CallContext(grpc::ServerContextBase* ctx, Watch watch = kCancellationAndDeadline)
      : ctx_(ctx),
        watch_(watch),
        deadline_(ctx != nullptr ? ctx->deadline() : std::chrono::system_clock::time_point::max()) {
  }
  Watch watch() const { return watch_; }
  bool Cancelled() const {
    return ctx_ != nullptr && ((watch_ == kCancellationAndDeadline && ctx_->IsCancelled()) ||
                               std::chrono::system_clock::now() > deadline_);
  }
  grpc::ServerContextBase* server_context() const { return ctx_; }
  // The caller's deadline, or `limit` from now if that is sooner (the server's default deadline).
  CallContext WithDeadlineAtMost(absl::Duration limit) const {
    CallContext out = *this;
    if (limit == absl::InfiniteDuration() || limit <= absl::ZeroDuration()) return out;
    const auto latest = std::chrono::system_clock::now() + absl::ToChronoMilliseconds(limit);
    if (latest < out.deadline_) out.deadline_ = latest;
    return out;
  }
  std::chrono::system_clock::time_point deadline() const { return deadline_; }

 private:
  grpc::ServerContextBase* ctx_;
  Watch watch_;
  std::chrono::system_clock::time_point deadline_;
};

// Shared by the services of one process: keys, the policy table, metrics.
class ServiceEnv {
 public:
  static absl::StatusOr<std::unique_ptr<ServiceEnv>> Create(const ServerConfig& config);

  Policy& policy() { return policy_; }
  Metrics& metrics() { return metrics_; }
  // The server's caps on open streams (stream_gate.h); Admit takes a slot for every stream.
  StreamGate& streams() const { return *streams_; }
  const ServerConfig& config() const { return config_; }
  bool insecure() const { return config_.insecure_dev; }
  // Who did it, for the record (every mutating event names its actor): the token's
  // subject and role, or ("insecure", "dev") on an --insecure_dev server.
  arbiter::v1::Actor ActorOf(const Principal& who) const {
    arbiter::v1::Actor actor;
    actor.set_subject(insecure() ? "insecure" : who.subject);
    actor.set_role(insecure() ? "dev" : std::string(RoleName(who.role)));
    return actor;
  }

  // Who is calling: the verified principal, or (with --insecure_dev) an arbiter-equivalent
  // development principal.
  absl::StatusOr<Principal> Authenticate(const grpc::ServerContextBase& ctx) const;
  // Authenticate, the caller's rate limit, Authorize for `full_method` and `request`, and for a
  // streaming method the server's and the caller's open-stream limits (the stream counts until
  // the call ends). With --insecure_dev: the development principal, no roles and no per-caller
  // limits (the server's cap on streams stays).
  absl::StatusOr<Principal> Admit(const grpc::ServerContextBase& ctx, absl::string_view full_method,
                                  const google::protobuf::Message* request) const;
  // The end of a call (the server's interceptor): releases the stream Admit counted, if any.
  void CallEnded(const grpc::ServerContextBase* ctx) const;
  // One message of a stream that the caller `who` opened: it counts against the caller's rate
  // limit as a call would (RESOURCE_EXHAUSTED ERR_RATE_LIMITED beyond). Nothing with
  // --insecure_dev.
  absl::Status ChargeMessage(const Principal& who) const;
  // Re-reads the keys file now (SIGHUP); the error if it does not load (the old keys stay).
  absl::Status ReloadKeys();
  // A hosted service ("arbiter.v1.Arbitration") that cannot serve yet (its store not reached since
  // the start, module.h): every call to it is refused UNAVAILABLE ERR_NOT_READY with `why`, after
  // authentication, until SetReady. Costs the other calls one atomic load while any is not ready.
  void SetNotReady(absl::string_view service, std::string why);
  void SetReady(absl::string_view service);
  // The calls being served now, as --max_calls_in_flight counts them (0 when it is off).
  int calls_in_flight() const { return calls_in_flight_.load(std::memory_order_relaxed); }

  // The single entry of every unary handler: admission, deadline, then `fn` (returning
  //   absl::Status), converted to grpc::Status.
  //   grpc::Status M(grpc::ServerContext* ctx, const Req* req, Resp* resp) {
  //     return env->Serve(ctx, kMethod, *req, [&](const CallContext&, const Principal&) {...});
  //   }
  template <typename Fn>
  grpc::Status Serve(grpc::ServerContextBase* ctx, absl::string_view full_method,
                     const google::protobuf::Message& request, Fn&& fn) const {
    return ServeCall(CallContext(ctx), full_method, request, std::forward<Fn>(fn));
  }
  // The same for a method served from a completion queue (async_unary.h).
  template <typename Fn>
  grpc::Status ServeQueued(grpc::ServerContext* ctx, absl::string_view full_method,
                           const google::protobuf::Message& request, Fn&& fn) const {
    return ServeCall(CallContext(ctx, CallContext::kDeadlineOnly), full_method, request,
                     std::forward<Fn>(fn));
  }
  // The same for a method whose work finishes later, on another thread (AsyncUnary's
  // AsyncHandler): `fn(call, principal, finish)` must call `finish(status)` exactly once, and
  // `reply` gets the call's grpc::Status once (at once when admission or the deadline refuses).
  template <typename Fn>
  void ServeQueuedAsync(grpc::ServerContext* ctx, absl::string_view full_method,
                        const google::protobuf::Message& request, Fn&& fn,
                        std::function<void(grpc::Status)> reply) const {
    ServeThen(CallContext(ctx, CallContext::kDeadlineOnly), full_method, request,
              std::forward<Fn>(fn), std::move(reply));
  }
  // The same for one message of a stream, served as a call of `full_method` (a unary method's
  // name: its policy row, rate limit, access log line): as ServeQueuedAsync, without setting the
  // stream's headers.
  template <typename Fn>
  void ServeStreamMessage(grpc::ServerContext* ctx, absl::string_view full_method,
                          const google::protobuf::Message& request, Fn&& fn,
                          std::function<void(grpc::Status)> reply) const {
    ServeThen(CallContext(ctx, CallContext::kStreamMessage), full_method, request,
              std::forward<Fn>(fn), std::move(reply));
  }

 private:
  template <typename Fn>
  grpc::Status ServeCall(const CallContext& call, absl::string_view full_method,
                         const google::protobuf::Message& request, Fn&& fn) const {
    grpc::Status out;
    ServeThen(
        call, full_method, request,
        [&fn](const CallContext& c, const Principal& who, auto&& finish) { finish(fn(c, who)); },
        [&out](grpc::Status status) { out = std::move(status); });
    return out;
  }

  // Admission, the deadline before the work, `fn(call, principal, finish)`, and the deadline
  // after it: `reply` gets the call's status once, whenever `fn` finishes. Both ways of serving
  // share it; templates, so the synchronous way allocates nothing for it.
  // A mutating call (access_log.h) leaves one line with its final code, whatever ends it.
  template <typename Fn, typename Reply>
  void ServeThen(const CallContext& call_in, absl::string_view full_method,
                 const google::protobuf::Message& request, Fn&& fn, Reply reply) const {
    std::shared_ptr<CallRecord> record =
        access_log_->Begin(call_in.server_context(), full_method, request,
                           /*reply_header=*/call_in.watch() != CallContext::kStreamMessage);
    absl::StatusOr<Principal> who = AdmitCall(*call_in.server_context(), full_method, &request,
                                              /*stream=*/false, record.get());
    if (!who.ok()) return EndCall(std::move(record), ToGrpcStatus(who.status()), reply);
    if (absl::Status slot = TakeCallSlot(); !slot.ok()) {
      return EndCall(std::move(record), ToGrpcStatus(slot), reply);
    }
    const CallContext call = call_in.WithDeadlineAtMost(config_.default_deadline);
    if (call.Cancelled()) {
      ReleaseCallSlot();
      return EndCall(std::move(record),
                     grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                                  "the deadline passed before the work began"),
                     reply);
    }
    fn(call, *who,
       [this, call, record = std::move(record),
        reply = std::move(reply)](const absl::Status& status) mutable {
         ReleaseCallSlot();
         if (call.Cancelled() && status.ok()) {
           return EndCall(std::move(record),
                          grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "the deadline passed"),
                          reply);
         }
         EndCall(std::move(record), ToGrpcStatus(status), reply);
       });
  }
  template <typename Reply>
  void EndCall(std::shared_ptr<CallRecord> record, grpc::Status status, Reply& reply) const {
    if (record != nullptr) access_log_->End(std::move(record), status.error_code());
    reply(std::move(status));
  }

  explicit ServiceEnv(const ServerConfig& config) : config_(config) {}

  // Admit, told whether the call is a stream (unary calls through Serve skip the method lookup).
  // `record` (a mutating call's log record, or null) gets the caller's subject and role once
  // authenticated.
  absl::StatusOr<Principal> AdmitCall(const grpc::ServerContextBase& ctx,
                                      absl::string_view full_method,
                                      const google::protobuf::Message* request, bool stream,
                                      CallRecord* record = nullptr) const;
  // The caller's token bucket (rate_limit_qps) and, for a stream, its open streams
  // (max_streams_per_caller).
  absl::Status Limit(const Principal& who, bool stream, const grpc::ServerContextBase& ctx,
                     absl::string_view full_method) const;
  // The caller's token bucket alone.
  absl::Status RateLimitLocked(const Principal& who) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(limits_mu_);
  // The server's cap on streams: a slot for this call's stream, kept until CallEnded.
  absl::Status OpenStream(const grpc::ServerContextBase& ctx, absl::string_view full_method,
                          bool authenticated) const;

  // A place among the calls being served (max_calls_in_flight), or RESOURCE_EXHAUSTED
  // ERR_OVERLOADED; every place taken is given back once, when the call's work has finished.
  absl::Status TakeCallSlot() const;
  void ReleaseCallSlot() const {
    if (config_.max_calls_in_flight > 0) calls_in_flight_.fetch_sub(1, std::memory_order_relaxed);
  }

  // UNAVAILABLE ERR_NOT_READY if `full_method`'s service is not ready (SetNotReady).
  absl::Status CheckReady(absl::string_view full_method) const;

  ServerConfig config_;
  TokenRules token_rules_;
  std::unique_ptr<ReloadingKeySet> keys_;  // null with --insecure_dev
  mutable TokenCache token_cache_;
  Policy policy_;
  Metrics metrics_;
  std::unique_ptr<AccessLog> access_log_;  // after metrics_: it counts on its registry
  struct Bucket {
    double tokens = 0;
    absl::Time refilled;
  };
  mutable absl::Mutex limits_mu_;
  mutable absl::flat_hash_map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(limits_mu_);
  mutable absl::flat_hash_map<std::string, int> open_streams_ ABSL_GUARDED_BY(limits_mu_);
  mutable absl::flat_hash_map<const grpc::ServerContextBase*, std::string> stream_owner_
      ABSL_GUARDED_BY(limits_mu_);
  std::unique_ptr<StreamGate> streams_;
  mutable absl::Mutex slots_mu_;
  mutable absl::flat_hash_map<const grpc::ServerContextBase*, StreamGate::Slot> stream_slots_
      ABSL_GUARDED_BY(slots_mu_);
  mutable std::atomic<int> calls_in_flight_{0};
  std::atomic<int> not_ready_count_{0};  // not_ready_.size(), read without the lock
  mutable absl::Mutex ready_mu_;
  absl::flat_hash_map<std::string, std::string> not_ready_ ABSL_GUARDED_BY(ready_mu_);
};

struct HostedService {
  std::string name;  // the full gRPC service name, for health: "arbiter.v1.RulesValidation"
  grpc::Service* service;
  // The service's methods served from completion queues (async_unary.h); owned by the service.
  std::vector<AsyncUnaryMethod*> async_methods = {};
  // false: NOT_SERVING at start (its store not reached yet: module.h, ServiceModule::Connect).
  bool serving = true;
};

class Server {
 public:
  // Binds, starts and marks every hosted service SERVING.
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerConfig& config, ServiceEnv* env,
                                                       std::vector<HostedService> services);
  ~Server();

  int port() const { return port_; }                  // the bound gRPC port
  int metrics_port() const { return metrics_port_; }  // 0 without an exposer
  int health_port() const { return health_port_; }    // 0 without --health_address
  int http_port() const { return http_ != nullptr ? http_->port() : 0; }  // 0 without a gateway
  int console_port() const { return console_ != nullptr ? console_->port() : 0; }  // 0: none
  // The statuses both ports report (a service's readiness follows its store: module.h).
  HealthService* health() const { return health_.get(); }

  // Graceful: health NOT_SERVING for every service, wait the grace period (load balancers stop
  // sending), then stop accepting and let in-flight calls finish within the drain timeout.
  void Shutdown();
  void Wait();
  bool shutting_down() const { return shutting_down_.load(); }
  ServiceEnv* env() const { return env_; }

 private:
  Server() = default;

  // Shuts the completion queues down (after the server) and joins their threads; idempotent.
  void StopQueues();
  void StopHealthQueue();  // the same for the health port's (after its server)

  ServerConfig config_;
  ServiceEnv* env_ = nullptr;
  std::vector<HostedService> services_;
  std::unique_ptr<HealthService> health_;                 // outlives server_ (declared before it)
  std::unique_ptr<HealthEndpoint> health_endpoint_;       // the main port's
  std::unique_ptr<HealthEndpoint> health_port_endpoint_;  // --health_address's
  // Declared before server_: the server is destroyed first, then its queues.
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> cqs_;
  std::vector<std::thread> cq_threads_;
  bool queues_stopped_ = false;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::ServerCompletionQueue> health_cq_;  // before health_server_, as cqs_
  std::thread health_cq_thread_;
  // Set once the server's shutdown returned: each queue's thread then shuts its queue down when
  // it is idle (PollQueue in server.cc).
  std::atomic<bool> queues_stopping_{false};
  std::atomic<bool> health_queue_stopping_{false};
  std::unique_ptr<grpc::Server> health_server_;  // --health_address: health only, plaintext
  std::unique_ptr<HttpGateway> http_;            // --http_address: stopped before server_
  std::unique_ptr<HttpGateway> console_;         // --console_address: likewise
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::shared_ptr<prometheus::Collectable> process_metrics_;  // the exposer holds only a weak_ptr
  int port_ = 0;
  int metrics_port_ = 0;
  int health_port_ = 0;
  std::atomic<bool> shutting_down_{false};
};

// The PEM file `path` that the flag --`flag` names (a certificate, a key, a CA), whole:
// ERR_BAD_FLAG when it cannot be read or is empty.
absl::StatusOr<std::string> ReadPem(const std::string& path, absl::string_view flag);

// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it starts afterwards;
// call it first in main, before any thread exists.
void BlockShutdownSignals();
// Starts a thread that waits for SIGTERM or SIGINT and then calls server->Shutdown() once; on
// SIGHUP it re-reads the keys file at once (TLS files are re-read every --tls_reload anyway).
void ShutdownOnSignals(Server* server);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_SERVER_H_
