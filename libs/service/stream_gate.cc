#include "libs/service/stream_gate.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/service/errors.h"
#include "libs/service/metric_families.h"
#include "libs/service/metrics.h"

namespace service {

StreamGate::StreamGate(int max_streams, int max_unauthenticated_streams,
                       prometheus::Registry& registry)
    : max_streams_(max_streams),
      max_unauthenticated_(max_unauthenticated_streams),
      open_family_(AddFamily<prometheus::Gauge>(
          registry, "arbiter_grpc_open_streams",
          "Streams open now, by method and whether the caller gave a token")),
      refusals_family_(AddFamily<prometheus::Counter>(
          registry, "arbiter_grpc_stream_refusals_total",
          "Streams refused at their start because a cap was reached (reason: server = "
          "--max_streams, unauthenticated = --max_unauthenticated_streams, caller = "
          "--max_streams_per_caller)")) {}

StreamGate::Slot& StreamGate::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    Release();
    gate_ = std::exchange(other.gate_, nullptr);
    open_ = std::exchange(other.open_, nullptr);
    authenticated_ = other.authenticated_;
  }
  return *this;
}

void StreamGate::Slot::Release() {
  if (gate_ == nullptr) return;
  absl::MutexLock lock(&gate_->mu_);
  --gate_->open_;
  if (!authenticated_) --gate_->open_unauthenticated_;
  open_->Decrement();
  gate_ = nullptr;
}

prometheus::Gauge* StreamGate::OpenSeries(absl::string_view full_method, bool authenticated) {
  const std::string key = absl::StrCat(full_method, authenticated ? "|1" : "|0");
  auto it = open_series_.find(key);
  if (it != open_series_.end()) return it->second;
  auto [service, method] = SplitMethod(full_method);
  prometheus::Gauge* g = &open_family_.Add({{"grpc_service", service},
                                            {"grpc_method", method},
                                            {"authenticated", authenticated ? "true" : "false"}});
  open_series_.emplace(key, g);
  return g;
}

absl::StatusOr<StreamGate::Slot> StreamGate::Open(absl::string_view full_method,
                                                  bool authenticated) {
  absl::MutexLock lock(&mu_);
  if (max_streams_ > 0 && open_ >= max_streams_) {
    mu_.Unlock();
    Refused(full_method, "server");
    mu_.Lock();
    return base::Error(service::kErrTooManyStreams,
                       absl::StrCat("this server already holds ", max_streams_,
                                    " open streams; try another replica or later"));
  }
  if (!authenticated && max_unauthenticated_ > 0 && open_unauthenticated_ >= max_unauthenticated_) {
    mu_.Unlock();
    Refused(full_method, "unauthenticated");
    mu_.Lock();
    return base::Error(service::kErrTooManyStreams,
                       absl::StrCat("this server already holds ", max_unauthenticated_,
                                    " streams opened without a token"));
  }
  ++open_;
  if (!authenticated) ++open_unauthenticated_;
  Slot slot;
  slot.gate_ = this;
  slot.open_ = OpenSeries(full_method, authenticated);
  slot.authenticated_ = authenticated;
  slot.open_->Increment();
  return slot;
}

void StreamGate::Refused(absl::string_view full_method, absl::string_view reason) {
  prometheus::Counter* c = nullptr;
  {
    absl::MutexLock lock(&mu_);
    const std::string key = absl::StrCat(full_method, "|", reason);
    auto it = refusal_series_.find(key);
    if (it == refusal_series_.end()) {
      auto [service, method] = SplitMethod(full_method);
      c = &refusals_family_.Add(
          {{"grpc_service", service}, {"grpc_method", method}, {"reason", std::string(reason)}});
      refusal_series_.emplace(key, c);
    } else {
      c = it->second;
    }
  }
  c->Increment();
}

int StreamGate::open() const {
  absl::MutexLock lock(&mu_);
  return open_;
}

int StreamGate::open_unauthenticated() const {
  absl::MutexLock lock(&mu_);
  return open_unauthenticated_;
}

}  // namespace service
