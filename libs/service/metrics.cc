#include "libs/service/metrics.h"

#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "grpcpp/server_context.h"
#include "libs/service/grpc_status.h"
#include "libs/service/log.h"
#include "libs/service/metric_families.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace service {
namespace {

// Process metrics read from /proc at scrape time, named as the Prometheus conventions name them.
class ProcessCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> out;
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    std::ifstream stat("/proc/self/stat");
    std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    size_t close = content.rfind(')');
    if (close != std::string::npos) {
      std::vector<std::string> f = absl::StrSplit(content.substr(close + 2), ' ');
      // Fields after the command: index 0 is field 3 (state); utime=14, stime=15, threads=20,
      // starttime=22, rss=24 (1-based field numbers of proc(5)).
      auto field = [&](int n) {
        return n - 3 < static_cast<int>(f.size()) ? std::atof(f[n - 3].c_str()) : 0.0;
      };
      std::ifstream uptime_file("/proc/uptime");
      double uptime = 0;
      uptime_file >> uptime;
      const double boot = static_cast<double>(std::time(nullptr)) - uptime;
      out.push_back(Gauge("process_cpu_seconds_total", "CPU time of the process.",
                          (field(14) + field(15)) / ticks, prometheus::MetricType::Counter));
      out.push_back(Gauge("process_resident_memory_bytes", "Resident memory.", field(24) * page));
      out.push_back(Gauge("process_start_time_seconds", "Start time since the epoch.",
                          boot + field(22) / ticks));
      out.push_back(Gauge("process_threads", "Threads.", field(20)));
    }
    int fds = 0;
    if (DIR* dir = opendir("/proc/self/fd")) {
      while (readdir(dir) != nullptr) ++fds;
      closedir(dir);
      fds -= 2;  // . and ..
    }
    out.push_back(Gauge("process_open_fds", "Open file descriptors.", fds));
    return out;
  }

 private:
  static prometheus::MetricFamily Gauge(
      const std::string& name, const std::string& help, double value,
      prometheus::MetricType type = prometheus::MetricType::Gauge) {
    prometheus::MetricFamily family;
    family.name = name;
    family.help = help;
    family.type = type;
    prometheus::ClientMetric metric;
    if (type == prometheus::MetricType::Counter) {
      metric.counter.value = value;
    } else {
      metric.gauge.value = value;
    }
    family.metric.push_back(metric);
    return family;
  }
};

std::string NewRequestId() {
  static absl::BitGen* gen = new absl::BitGen();
  static std::atomic<std::uint64_t> counter{0};
  return absl::StrFormat("%016x-%08x", absl::Uniform<std::uint64_t>(*gen), counter.fetch_add(1));
}

class MetricsInterceptor : public grpc::experimental::Interceptor {
 public:
  MetricsInterceptor(grpc::experimental::ServerRpcInfo* info, Metrics* metrics)
      : info_(info), metrics_(metrics), method_(info->method()) {}

  ~MetricsInterceptor() override {
    // A call that ended without sending a status (cancelled by the client) still counts.
    if (started_ && !finished_) Finish(static_cast<int>(grpc::StatusCode::CANCELLED));
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      start_ = std::chrono::steady_clock::now();
      started_ = true;
      metrics_->CallStarted(method_);
      auto* md = methods->GetRecvInitialMetadata();
      auto it = md->find("x-request-id");
      request_id_ = it != md->end()
                        ? std::string(it->second.data(), std::min<size_t>(it->second.size(), 128))
                        : NewRequestId();
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      if (!request_id_.empty())
        methods->GetSendInitialMetadata()->emplace("x-request-id", request_id_);
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      Finish(static_cast<int>(methods->GetSendStatus().error_code()));
    }
    methods->Proceed();
  }

 private:
  void Finish(int code) {
    if (finished_ || !started_) return;
    finished_ = true;
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    metrics_->CallFinished(method_, code, seconds);
    if (LogEnabled(LogLevel::kDebug)) {
      Log(LogLevel::kDebug, "request",
          {{"method", method_},
           {"code", GrpcCodeName(code)},
           {"request_id", request_id_},
           {"duration_ms", absl::StrFormat("%.3f", seconds * 1000)},
           {"peer", info_->server_context() ? info_->server_context()->peer() : ""}});
    }
  }

  grpc::experimental::ServerRpcInfo* info_;
  Metrics* metrics_;
  std::string method_;
  std::string request_id_;
  std::chrono::steady_clock::time_point start_;
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace

std::pair<std::string, std::string> SplitMethod(absl::string_view full_method) {
  absl::string_view m = full_method;
  if (!m.empty() && m[0] == '/') m.remove_prefix(1);
  size_t slash = m.find('/');
  if (slash == absl::string_view::npos) return {std::string(m), ""};
  return {std::string(m.substr(0, slash)), std::string(m.substr(slash + 1))};
}

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(AddFamily<prometheus::Counter>(
          *registry_, "arbiter_grpc_requests_total",
          "gRPC requests handled, by service, method and status code.")),
      latency_(AddFamily<prometheus::Histogram>(*registry_, "arbiter_grpc_request_duration_seconds",
                                                "gRPC request latency, by service and method.")),
      in_flight_(
          AddFamily<prometheus::Gauge>(*registry_, "arbiter_grpc_in_flight_requests",
                                       "gRPC requests being handled now, by service and method.")),
      insecure_(AddMetric<prometheus::Gauge>(
          *registry_, "arbiter_insecure_dev",
          "1 when the server runs without authentication (--insecure_dev).")) {
  AddFamily<prometheus::Gauge>(*registry_, "arbiter_build_info",
                               "Build information; the value is always 1.")
      .Add({{"version", "0.1.0"}, {"compiler", __VERSION__}})
      .Set(1);
}

std::shared_ptr<prometheus::Collectable> Metrics::ProcessMetrics() {
  return std::make_shared<ProcessCollector>();
}

void Metrics::SetInsecureDev(bool insecure) { insecure_.Set(insecure ? 1 : 0); }

Metrics::MethodSeries* Metrics::Series(absl::string_view full_method) {
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = series_.find(full_method);
    if (it != series_.end()) return it->second.get();
  }
  absl::MutexLock lock(&mu_);
  std::unique_ptr<MethodSeries>& slot = series_[full_method];
  if (slot == nullptr) {
    static const prometheus::Histogram::BucketBoundaries kBuckets = {
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
        0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
    auto series = std::make_unique<MethodSeries>();
    std::tie(series->service, series->method) = SplitMethod(full_method);
    series->in_flight = &in_flight_.Add({{"service", series->service}, {"method", series->method}});
    series->latency =
        &latency_.Add({{"service", series->service}, {"method", series->method}}, kBuckets);
    slot = std::move(series);
  }
  return slot.get();
}

void Metrics::CallStarted(absl::string_view full_method) {
  Series(full_method)->in_flight->Increment();
}

void Metrics::CallFinished(absl::string_view full_method, int grpc_code, double seconds) {
  MethodSeries* series = Series(full_method);
  series->in_flight->Decrement();
  series->latency->Observe(seconds);
  const int index = grpc_code >= 0 && grpc_code <= 16 ? grpc_code : 2;  // UNKNOWN
  prometheus::Counter* counter = series->requests[index].load(std::memory_order_acquire);
  if (counter == nullptr) {
    // Family::Add returns the same series for the same labels, so a race here is harmless.
    counter = &requests_.Add(
        {{"service", series->service}, {"method", series->method}, {"code", GrpcCodeName(index)}});
    series->requests[index].store(counter, std::memory_order_release);
  }
  counter->Increment();
}

grpc::experimental::Interceptor* MetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new MetricsInterceptor(info, metrics_);
}

}  // namespace service
