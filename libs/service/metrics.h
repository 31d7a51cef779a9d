// Prometheus metrics for every server: per service and method, requests by gRPC code, a latency
// histogram and an in-flight gauge, all recorded by one server interceptor (not by handlers);
// build info; process metrics (CPU, memory, open files, threads, start time); and whether the
// server runs without authentication (--insecure_dev). Served by a pull exposer on
// --metrics_address at /metrics.
#ifndef ARBITER_LIBS_SERVICE_METRICS_H_
#define ARBITER_LIBS_SERVICE_METRICS_H_

#include <array>
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
  // Process metrics (CPU, memory, threads, open files, start time), read at scrape time.
  static std::shared_ptr<prometheus::Collectable> ProcessMetrics();
  // Called by the interceptor.
  void CallStarted(absl::string_view full_method);
  void CallFinished(absl::string_view full_method, int grpc_code, double seconds);

 private:
  // The series of one method, looked up once: label maps are costly to build on every call.
  struct MethodSeries {
    prometheus::Gauge* in_flight;
    prometheus::Histogram* latency;
    std::array<std::atomic<prometheus::Counter*>, 17>
        requests{};  // by gRPC code, made on first use
    std::string service, method;
  };
  MethodSeries* Series(absl::string_view full_method);

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<MethodSeries>> series_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& latency_;
  prometheus::Family<prometheus::Gauge>& in_flight_;
  prometheus::Gauge& insecure_;
};

// "/arbiter.v1.RulesValidation/ValidateMove" -> {"arbiter.v1.RulesValidation", "ValidateMove"}.
std::pair<std::string, std::string> SplitMethod(absl::string_view full_method);

// The interceptor: metrics for every RPC, a request id (from x-request-id or generated, echoed in
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
