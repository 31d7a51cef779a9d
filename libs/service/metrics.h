// Prometheus metrics for every server, all recorded by one server interceptor (not by handlers):
// - the standard gRPC server families that stock gRPC dashboards and alerts read
//   (grpc_server_started_total, grpc_server_handled_total, grpc_server_handling_seconds,
//   grpc_server_msg_received_total, grpc_server_msg_sent_total; labels grpc_service, grpc_method,
//   grpc_type (unary, client_stream, server_stream, bidi_stream) and grpc_code, spelt as
//   grpc-go spells codes (OK, InvalidArgument, Unavailable, ...), which those dashboards match;
//   no label named `service`, which Prometheus's own target labels use). Every series of a hosted
//   method exists from the start (AddService), at zero, so rates and alerts see 0 rather than
//   nothing. Only unary calls enter the latency histogram: a stream's duration is how long a
//   watcher stayed, not how fast it was served;
// - Arbiter's original families, kept as they were (an existing interface):
//   arbiter_grpc_requests_total, arbiter_grpc_request_duration_seconds and
//   arbiter_grpc_in_flight_requests, labelled service, method and code (codes in UPPER_CASE;
//   a registered method's latency and in-flight series also exist from the start);
// - the standard gRPC client families for the calls this process makes to another service
//   (grpc_client_handled_total by grpc_service, grpc_method, grpc_type and grpc_code;
//   grpc_client_handling_seconds, unary calls), recorded by the client (ClientSeries), every
//   code's series made with the method's first call;
// build info; process metrics (CPU, memory, open files, threads, start time); and whether the
// server runs without authentication (--insecure_dev); the calls refused because the server was
// serving --max_calls_in_flight already (arbiter_calls_refused_overloaded_total). Served by a
// pull exposer on --metrics_address at /metrics.
#ifndef ARBITER_LIBS_SERVICE_METRICS_H_
#define ARBITER_LIBS_SERVICE_METRICS_H_

#include <array>
#include <atomic>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/server_interceptor.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace service {

class Metrics {
 public:
  Metrics();
  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

  void SetInsecureDev(bool insecure);
  // A call refused RESOURCE_EXHAUSTED ERR_OVERLOADED (--max_calls_in_flight).
  void CallRefusedOverloaded() const { overloaded_.Increment(); }
  // Makes every series of every method of `full_service_name` ("arbiter.v1.RulesValidation"),
  // as the linked protobuf descriptors describe it, at zero. False when no descriptor is linked.
  bool AddService(absl::string_view full_service_name);
  // Process metrics (CPU, memory, threads, open files, start time), read at scrape time.
  static std::shared_ptr<prometheus::Collectable> ProcessMetrics();
  // One call from its start to its status, for a method found by its full name (its kind from
  // the descriptors, unary when unknown). The interceptor resolves the method once per call
  // instead (MethodSeries).
  void CallStarted(absl::string_view full_method);
  void CallFinished(absl::string_view full_method, int grpc_code, double seconds);

  enum class GrpcType { kUnary, kClientStream, kServerStream, kBidiStream };
  // The series of one method, made once with every label: building and hashing label maps on
  // each call would cost more than the rest of the bookkeeping. Pointers stay valid for the
  // life of the Metrics.
  struct MethodSeries {
    prometheus::Gauge* in_flight;
    prometheus::Histogram* latency;
    std::array<std::atomic<prometheus::Counter*>, 17>
        requests{};  // by gRPC code, made on first use
    std::string service, method;
    GrpcType type = GrpcType::kUnary;
    prometheus::Counter* started = nullptr;
    std::array<prometheus::Counter*, 17> handled{};  // by gRPC code, all made up front
    prometheus::Histogram* handling = nullptr;       // unary methods only
    prometheus::Counter* msg_received = nullptr;
    prometheus::Counter* msg_sent = nullptr;
  };
  // The method's series, made with `type` on first use (one shared lock and lookup after that).
  MethodSeries* Series(absl::string_view full_method, GrpcType type);
  void CallStarted(MethodSeries* series);
  void CallFinished(MethodSeries* series, int grpc_code, double seconds);
  static void MessageReceived(MethodSeries* series) { series->msg_received->Increment(); }
  static void MessageSent(MethodSeries* series) { series->msg_sent->Increment(); }
  static absl::string_view TypeName(GrpcType type);

  // The standard client series of one unary method this process calls.
  struct ClientSeries {
    std::array<prometheus::Counter*, 17> handled{};  // by gRPC code, all made up front
    prometheus::Histogram* handling = nullptr;
  };
  // "/arbiter.v1.SearchAnalysis/Unwinnable": its series, made on first use (pointers stay valid
  // for the life of the Metrics).
  ClientSeries* Client(absl::string_view full_method);
  // One call (one attempt: a retry is a call of its own) ended with `grpc_code` after `seconds`.
  static void ClientCallFinished(ClientSeries* series, int grpc_code, double seconds);

 private:
  MethodSeries* Series(absl::string_view full_method);  // its kind from the descriptors

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<MethodSeries>> series_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::unique_ptr<ClientSeries>> client_series_
      ABSL_GUARDED_BY(mu_);
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& latency_;
  prometheus::Family<prometheus::Gauge>& in_flight_;
  prometheus::Family<prometheus::Counter>& grpc_started_;
  prometheus::Family<prometheus::Counter>& grpc_handled_;
  prometheus::Family<prometheus::Histogram>& grpc_handling_;
  prometheus::Family<prometheus::Counter>& grpc_msg_received_;
  prometheus::Family<prometheus::Counter>& grpc_msg_sent_;
  prometheus::Family<prometheus::Counter>& grpc_client_handled_;
  prometheus::Family<prometheus::Histogram>& grpc_client_handling_;
  prometheus::Gauge& insecure_;
  prometheus::Counter& overloaded_;
};

// "/arbiter.v1.RulesValidation/ValidateMove" -> {"arbiter.v1.RulesValidation", "ValidateMove"}.
std::pair<std::string, std::string> SplitMethod(absl::string_view full_method);

// The interceptor: metrics for every RPC (its method's series resolved once, when the call
// starts; messages counted as they pass), a request id (from x-request-id or generated, echoed in
// the response metadata) and one debug log line per request.
class MetricsInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit MetricsInterceptorFactory(Metrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  Metrics* metrics_;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_METRICS_H_
