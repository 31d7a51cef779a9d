// The standard gRPC health service (grpc.health.v1.Health: Check and Watch), our own, served from
// completion queues. Why not gRPC's default one: in this gRPC (1.51) it is built on the callback
// API, and a server with any callback method polls from extra "nexting" threads that take the
// completion-queue methods' events from the one thread meant to run them (async_unary.h):
// ValidateMove fell from ~40k to ~30k calls/s with the default health service enabled and nothing
// else changed. Why not synchronous: a Watch held one of the server's threads as long as it
// stayed open, and it needs no token; a thousand idle watchers took every thread of the main port
// (and seven the health port's), and the kubelet's probes, like every other call, were refused.
// Here a Watch holds no thread (async_stream.h); those opened without a token count against
// --max_unauthenticated_streams (stream_gate.h), beyond which they are refused, while Check, the
// probes' call, needs no stream and always answers.
//
// HealthService is the statuses, one per server process; each gRPC server that serves them
// (the main port, the --health_address port) has a HealthEndpoint of its own over them (gRPC
// takes an async service on one server only).
//
// Status per service name; "" is the whole server: the process is up and answering (what liveness
// asks), whatever its store does; a service's name is that service's readiness (a store-backed
// one follows its store: libs/service/module.h). Unknown names are NOT_FOUND for Check and
// SERVICE_UNKNOWN for Watch, as the protocol says.
#ifndef ARBITER_LIBS_SERVICE_HEALTH_H_
#define ARBITER_LIBS_SERVICE_HEALTH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "libs/service/async_stream.h"
#include "libs/service/async_unary.h"
#include "libs/service/stream_gate.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"

namespace service {

class HealthService {
 public:
  using ServingStatus = grpc::health::v1::HealthCheckResponse::ServingStatus;

  void SetServing(const std::string& service, bool serving);
  // Every service known, and the server ("").
  void SetAllServing(bool serving);
  // A status from a background check (a store-backed service's readiness, module.h): as
  // SetServing, but ignored once Drain was called, so that a check cannot undo a shutdown.
  void Follow(const std::string& service, bool serving);
  // Shutdown has begun: everything NOT_SERVING for good (Follow ignored from now on).
  void Drain();
  // Ends every Watch (after its last status was sent), so that they do not hold a drain up.
  void Shutdown();

  // Check's answer (NOT_FOUND for an unknown name).
  grpc::Status Check(grpc::ServerContext* ctx, const grpc::health::v1::HealthCheckRequest* req,
                     grpc::health::v1::HealthCheckResponse* resp);

  // A Watch: `out` gets the status of `service` now and at each change, until Shutdown (then
  // it is finished) or the call ends.
  void Watch(const std::string& service,
             std::shared_ptr<StreamWriter<grpc::health::v1::HealthCheckResponse>> out);

 private:
  struct Watcher {
    std::string service;
    std::shared_ptr<StreamWriter<grpc::health::v1::HealthCheckResponse>> out;
    ServingStatus sent = grpc::health::v1::HealthCheckResponse::UNKNOWN;
  };
  ServingStatus StatusOf(const std::string& service) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Sends each watcher its status if it changed; ends them all once stopping.
  void NotifyLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, bool> serving_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const void*, Watcher> watchers_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

using HealthBase = grpc::health::v1::Health::WithAsyncMethod_Check<
    grpc::health::v1::Health::WithAsyncMethod_Watch<grpc::health::v1::Health::Service>>;

// The health service on one gRPC server: Check and Watch from that server's completion queues.
// Every Watch takes a StreamGate slot, unauthenticated (the health service reads no token).
class HealthEndpoint final : public HealthBase {
 public:
  static constexpr char kWatchMethod[] = "/grpc.health.v1.Health/Watch";
  // `gate` may be null (no cap).
  HealthEndpoint(HealthService* health, StreamGate* gate);

  std::vector<AsyncUnaryMethod*> async_methods() const;

 private:
  grpc::Status CheckNow(grpc::ServerContext* ctx, const grpc::health::v1::HealthCheckRequest* req,
                        grpc::health::v1::HealthCheckResponse* resp);

  HealthService* const health_;
  StreamGate* const gate_;
  std::unique_ptr<AsyncUnaryMethod> check_;
  std::unique_ptr<AsyncUnaryMethod> watch_;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_HEALTH_H_
