#include "libs/service/health.h"

#include "absl/time/time.h"

namespace service {

using grpc::health::v1::HealthCheckResponse;

void HealthService::SetServing(const std::string& service, bool serving) {
  absl::MutexLock lock(&mu_);
  serving_[service] = serving;
  ++changes_;
}

void HealthService::SetAllServing(bool serving) {
  absl::MutexLock lock(&mu_);
  serving_[""] = serving;
  for (auto& [name, s] : serving_) s = serving;
  ++changes_;
}

void HealthService::Follow(const std::string& service, bool serving) {
  absl::MutexLock lock(&mu_);
  if (draining_) return;
  auto it = serving_.find(service);
  if (it != serving_.end() && it->second == serving) return;  // no change, no wake-up
  serving_[service] = serving;
  ++changes_;
}

void HealthService::Drain() {
  absl::MutexLock lock(&mu_);
  draining_ = true;
  for (auto& [name, s] : serving_) s = false;
  serving_[""] = false;
  ++changes_;
}

void HealthService::Shutdown() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  ++changes_;
}

HealthService::ServingStatus HealthService::StatusOf(const std::string& service) const {
  auto it = serving_.find(service);
  if (it == serving_.end()) return HealthCheckResponse::SERVICE_UNKNOWN;
  return it->second ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING;
}

grpc::Status HealthService::Check(grpc::ServerContext*,
                                  const grpc::health::v1::HealthCheckRequest* req,
                                  HealthCheckResponse* resp) {
  absl::ReaderMutexLock lock(&mu_);
  ServingStatus status = StatusOf(req->service());
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service");
  }
  resp->set_status(status);
  return grpc::Status::OK;
}

grpc::Status HealthService::Watch(grpc::ServerContext* ctx,
                                  const grpc::health::v1::HealthCheckRequest* req,
                                  grpc::ServerWriter<HealthCheckResponse>* writer) {
  // The current status at once, then each change, until the client leaves.
  ServingStatus sent = HealthCheckResponse::UNKNOWN;
  std::uint64_t seen = 0;
  absl::MutexLock lock(&mu_);
  while (true) {
    const ServingStatus now = StatusOf(req->service());
    if (now != sent) {
      HealthCheckResponse resp;
      resp.set_status(now);
      mu_.Unlock();
      const bool written = writer->Write(resp);
      mu_.Lock();
      if (!written) return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
      sent = now;
    }
    if (stopping_) return grpc::Status::OK;
    seen = changes_;
    // A change wakes the watcher; so, within a poll, does the client leaving.
    auto changed = [this, seen]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return changes_ != seen; };
    while (!mu_.AwaitWithTimeout(absl::Condition(&changed), absl::Milliseconds(200))) {
      if (ctx->IsCancelled()) return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
    }
  }
}

}  // namespace service
