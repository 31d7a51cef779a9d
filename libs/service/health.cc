#include "libs/service/health.h"

#include <utility>

#include "libs/service/grpc_status.h"

namespace service {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

void HealthService::SetServing(const std::string& service, bool serving) {
  absl::MutexLock lock(&mu_);
  serving_[service] = serving;
  NotifyLocked();
}

void HealthService::SetAllServing(bool serving) {
  absl::MutexLock lock(&mu_);
  serving_[""] = serving;
  for (auto& [name, s] : serving_) s = serving;
  NotifyLocked();
}

void HealthService::Follow(const std::string& service, bool serving) {
  absl::MutexLock lock(&mu_);
  if (draining_) return;
  auto it = serving_.find(service);
  if (it != serving_.end() && it->second == serving) return;  // no change, nothing to send
  serving_[service] = serving;
  NotifyLocked();
}

void HealthService::Drain() {
  absl::MutexLock lock(&mu_);
  draining_ = true;
  for (auto& [name, s] : serving_) s = false;
  serving_[""] = false;
  NotifyLocked();
}

void HealthService::Shutdown() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  NotifyLocked();
}

HealthService::ServingStatus HealthService::StatusOf(const std::string& service) const {
  auto it = serving_.find(service);
  if (it == serving_.end()) return HealthCheckResponse::SERVICE_UNKNOWN;
  return it->second ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING;
}

grpc::Status HealthService::Check(grpc::ServerContext*, const HealthCheckRequest* req,
                                  HealthCheckResponse* resp) {
  absl::ReaderMutexLock lock(&mu_);
  ServingStatus status = StatusOf(req->service());
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service");
  }
  resp->set_status(status);
  return grpc::Status::OK;
}

void HealthService::NotifyLocked() {
  // Writes only queue (async_stream.h): nothing here waits for a client.
  for (auto it = watchers_.begin(); it != watchers_.end();) {
    Watcher& w = it->second;
    const ServingStatus now = StatusOf(w.service);
    if (now != w.sent) {
      HealthCheckResponse resp;
      resp.set_status(now);
      w.sent = now;
      // A watcher that cannot take even this (too far behind, or gone) is let go.
      if (!w.out->Write(std::move(resp))) {
        w.out->Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "too slow a watcher"));
        watchers_.erase(it++);
        continue;
      }
    }
    if (stopping_) {
      w.out->Finish(grpc::Status::OK);
      watchers_.erase(it++);
      continue;
    }
    ++it;
  }
}

void HealthService::Watch(const std::string& service,
                          std::shared_ptr<StreamWriter<HealthCheckResponse>> out) {
  const void* key = out.get();
  // The call's end removes it (the client gone); the lock is not held when OnDone runs it.
  {
    absl::MutexLock lock(&mu_);
    Watcher& w = watchers_[key];
    w.service = service;
    w.out = out;
    NotifyLocked();  // the status now
  }
  out->OnDone([this, key] {
    absl::MutexLock lock(&mu_);
    watchers_.erase(key);
  });
}

HealthEndpoint::HealthEndpoint(HealthService* health, StreamGate* gate)
    : health_(health), gate_(gate) {
  check_ = ServedFromQueue<HealthEndpoint, HealthCheckRequest, HealthCheckResponse>(
      this, &HealthEndpoint::RequestCheck, &HealthEndpoint::CheckNow);
  // A watcher is sent a status only when it changes: four waiting is plenty.
  watch_ =
      std::make_unique<AsyncServerStream<HealthEndpoint, HealthCheckRequest, HealthCheckResponse>>(
          this, &HealthEndpoint::RequestWatch,
          [this](grpc::ServerContext*, const HealthCheckRequest& req,
                 std::shared_ptr<StreamWriter<HealthCheckResponse>> out) {
            if (gate_ != nullptr) {
              absl::StatusOr<StreamGate::Slot> slot = gate_->Open(kWatchMethod, false);
              if (!slot.ok()) {
                out->Finish(ToGrpcStatus(slot.status()));
                return;
              }
              out->Keep(std::make_shared<StreamGate::Slot>(*std::move(slot)));
            }
            health_->Watch(req.service(), std::move(out));
          },
          /*max_backlog=*/4);
}

grpc::Status HealthEndpoint::CheckNow(grpc::ServerContext* ctx, const HealthCheckRequest* req,
                                      HealthCheckResponse* resp) {
  return health_->Check(ctx, req, resp);
}

std::vector<AsyncUnaryMethod*> HealthEndpoint::async_methods() const {
  return {check_.get(), watch_.get()};
}

}  // namespace service
