// How many streams a server holds open at once. A stream costs no thread (every streaming method
// is served from a completion queue: async_stream.h) but memory and, while it is being admitted,
// work; so a server caps the streams it keeps in all (--max_streams) and those opened without a
// token (--max_unauthenticated_streams: the health Watch, the one stream that needs none), and a
// stream beyond a cap is refused at once with RESOURCE_EXHAUSTED ERR_TOO_MANY_STREAMS. The
// per-caller cap (--max_streams_per_caller) is the ServiceEnv's, by token subject.
//
// Open streams and refusals are metrics: arbiter_grpc_open_streams{grpc_method, authenticated}
// and arbiter_grpc_stream_refusals_total{grpc_method, reason} (reason: server, unauthenticated,
// caller).
//
//   absl::StatusOr<StreamGate::Slot> slot = gate->Open("/grpc.health.v1.Health/Watch", false);
//   if (!slot.ok()) return ToGrpcStatus(slot.status());
//   // the stream counts until the slot is destroyed
#ifndef ARBITER_LIBS_SERVICE_STREAM_GATE_H_
#define ARBITER_LIBS_SERVICE_STREAM_GATE_H_

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace service {

class StreamGate {
 public:
  // 0 for a cap: no cap.
  StreamGate(int max_streams, int max_unauthenticated_streams, prometheus::Registry& registry);

  // One open stream; it stops counting when destroyed.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept { *this = std::move(other); }
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { Release(); }
    void Release();

   private:
    friend class StreamGate;
    StreamGate* gate_ = nullptr;
    prometheus::Gauge* open_ = nullptr;
    bool authenticated_ = false;
  };

  // A place for a stream of `full_method`, or RESOURCE_EXHAUSTED ERR_TOO_MANY_STREAMS when the
  // server holds max_streams streams (or max_unauthenticated_streams without a token).
  absl::StatusOr<Slot> Open(absl::string_view full_method, bool authenticated);
  // A refusal decided elsewhere (the per-caller cap), for the metric.
  void Refused(absl::string_view full_method, absl::string_view reason);

  int open() const;
  int open_unauthenticated() const;

 private:
  prometheus::Gauge* OpenSeries(absl::string_view full_method, bool authenticated)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int max_streams_;
  const int max_unauthenticated_;
  prometheus::Family<prometheus::Gauge>& open_family_;
  prometheus::Family<prometheus::Counter>& refusals_family_;
  mutable absl::Mutex mu_;
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  int open_unauthenticated_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, prometheus::Gauge*> open_series_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, prometheus::Counter*> refusal_series_ ABSL_GUARDED_BY(mu_);
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_STREAM_GATE_H_
