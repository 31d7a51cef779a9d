// The standard gRPC health service (grpc.health.v1.Health: Check and Watch), our own, synchronous.
// Why not gRPC's default one: in this gRPC (1.51) it is built on the callback API, and a server
// with any callback method polls from extra "nexting" threads that take the completion-queue
// methods' events from the one thread meant to run them (async_unary.h): ValidateMove fell from
// ~40k to ~30k calls/s with the default health service enabled and nothing else changed. A
// synchronous service runs on gRPC's own thread pool and costs nothing until it is called.
//
// Status per service name; "" is the whole server: the process is up and answering (what liveness
// asks), whatever its store does; a service's name is that service's readiness (a store-backed
// one follows its store: libs/service/module.h). Unknown names are NOT_FOUND for Check and
// SERVICE_UNKNOWN for Watch, as the protocol says.
#ifndef ARBITER_LIBS_SERVICE_HEALTH_H_
#define ARBITER_LIBS_SERVICE_HEALTH_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"

namespace service {

class HealthService final : public grpc::health::v1::Health::Service {
 public:
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

  grpc::Status Check(grpc::ServerContext* ctx, const grpc::health::v1::HealthCheckRequest* req,
                     grpc::health::v1::HealthCheckResponse* resp) override;
  grpc::Status Watch(grpc::ServerContext* ctx, const grpc::health::v1::HealthCheckRequest* req,
                     grpc::ServerWriter<grpc::health::v1::HealthCheckResponse>* writer) override;

 private:
  using ServingStatus = grpc::health::v1::HealthCheckResponse::ServingStatus;
  ServingStatus StatusOf(const std::string& service) const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, bool> serving_ ABSL_GUARDED_BY(mu_);
  std::uint64_t changes_ ABSL_GUARDED_BY(mu_) = 0;  // watchers wait for it to move
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_HEALTH_H_
