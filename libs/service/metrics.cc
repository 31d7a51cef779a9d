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
#include "absl/strings/strip.h"
#include "google/protobuf/descriptor.h"
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

// grpc_code values as the standard families spell them: the names of grpc-go's codes, which the
// stock gRPC dashboards and alert rules match (grpc_code=~"Unknown|Internal|Unavailable|...").
constexpr const char* kStandardCodeNames[17] = {
    "OK",       "Canceled",       "Unknown",          "InvalidArgument",   "DeadlineExceeded",
    "NotFound", "AlreadyExists",  "PermissionDenied", "ResourceExhausted", "FailedPrecondition",
    "Aborted",  "OutOfRange",     "Unimplemented",    "Internal",          "Unavailable",
    "DataLoss", "Unauthenticated"};

int CodeIndex(int grpc_code) { return grpc_code >= 0 && grpc_code <= 16 ? grpc_code : 2; }

// The latency buckets of every handling histogram, server and client: 100 us to 10 s.
const prometheus::Histogram::BucketBoundaries& LatencyBuckets() {
  static const prometheus::Histogram::BucketBoundaries* const kBuckets =
      new prometheus::Histogram::BucketBoundaries{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                  0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                                  1,      2.5,     5,      10};
  return *kBuckets;
}

Metrics::GrpcType TypeOfCall(grpc::experimental::ServerRpcInfo::Type type) {
  using Type = grpc::experimental::ServerRpcInfo::Type;
  switch (type) {
    case Type::CLIENT_STREAMING:
      return Metrics::GrpcType::kClientStream;
    case Type::SERVER_STREAMING:
      return Metrics::GrpcType::kServerStream;
    case Type::BIDI_STREAMING:
      return Metrics::GrpcType::kBidiStream;
    default:
      return Metrics::GrpcType::kUnary;
  }
}

Metrics::GrpcType TypeOfMethod(const google::protobuf::MethodDescriptor& m) {
  if (m.client_streaming()) {
    return m.server_streaming() ? Metrics::GrpcType::kBidiStream : Metrics::GrpcType::kClientStream;
  }
  return m.server_streaming() ? Metrics::GrpcType::kServerStream : Metrics::GrpcType::kUnary;
}

class MetricsInterceptor : public grpc::experimental::Interceptor {
 public:
  MetricsInterceptor(grpc::experimental::ServerRpcInfo* info, Metrics* metrics)
      : info_(info),
        metrics_(metrics),
        method_(info->method()),
        series_(metrics->Series(method_, TypeOfCall(info->type()))) {}

  ~MetricsInterceptor() override {
    // A call that ended without sending a status (cancelled by the client) still counts.
    if (started_ && !finished_) Finish(static_cast<int>(grpc::StatusCode::CANCELLED));
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      start_ = std::chrono::steady_clock::now();
      started_ = true;
      metrics_->CallStarted(series_);
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
    // Each message of the call (a failed read at the end of a client stream has none).
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() != nullptr) {
      Metrics::MessageReceived(series_);
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      Metrics::MessageSent(series_);
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
    metrics_->CallFinished(series_, code, seconds);
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
  Metrics::MethodSeries* series_;
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
      grpc_started_(AddFamily<prometheus::Counter>(*registry_, "grpc_server_started_total",
                                                   "RPCs started on the server.")),
      grpc_handled_(AddFamily<prometheus::Counter>(
          *registry_, "grpc_server_handled_total",
          "RPCs completed on the server, regardless of success or failure.")),
      grpc_handling_(AddFamily<prometheus::Histogram>(
          *registry_, "grpc_server_handling_seconds",
          "Response latency of unary RPCs handled by the server (streams excluded).")),
      grpc_msg_received_(AddFamily<prometheus::Counter>(
          *registry_, "grpc_server_msg_received_total", "RPC messages received on the server.")),
      grpc_msg_sent_(AddFamily<prometheus::Counter>(*registry_, "grpc_server_msg_sent_total",
                                                    "RPC messages sent by the server.")),
      grpc_client_handled_(AddFamily<prometheus::Counter>(
          *registry_, "grpc_client_handled_total",
          "RPCs completed by the client, regardless of success or failure.")),
      grpc_client_handling_(AddFamily<prometheus::Histogram>(
          *registry_, "grpc_client_handling_seconds",
          "Response latency (seconds) of the unary RPCs this process made, until the status.")),
      insecure_(AddMetric<prometheus::Gauge>(
          *registry_, "arbiter_insecure_dev",
          "1 when the server runs without authentication (--insecure_dev).")),
      overloaded_(AddMetric<prometheus::Counter>(
          *registry_, "arbiter_calls_refused_overloaded_total",
          "Calls refused RESOURCE_EXHAUSTED ERR_OVERLOADED before any work: the server was "
          "serving --max_calls_in_flight calls already.")) {
  AddFamily<prometheus::Gauge>(*registry_, "arbiter_build_info",
                               "Build information; the value is always 1.")
      .Add({{"version", "0.1.0"}, {"compiler", __VERSION__}})
      .Set(1);
}

std::shared_ptr<prometheus::Collectable> Metrics::ProcessMetrics() {
  return std::make_shared<ProcessCollector>();
}

void Metrics::SetInsecureDev(bool insecure) { insecure_.Set(insecure ? 1 : 0); }

absl::string_view Metrics::TypeName(GrpcType type) {
  switch (type) {
    case GrpcType::kClientStream:
      return "client_stream";
    case GrpcType::kServerStream:
      return "server_stream";
    case GrpcType::kBidiStream:
      return "bidi_stream";
    case GrpcType::kUnary:
      break;
  }
  return "unary";
}

bool Metrics::AddService(absl::string_view full_service_name) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          std::string(full_service_name));
  if (service == nullptr) return false;
  for (int i = 0; i < service->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* m = service->method(i);
    Series(absl::StrCat("/", service->full_name(), "/", m->name()), TypeOfMethod(*m));
  }
  return true;
}

Metrics::MethodSeries* Metrics::Series(absl::string_view full_method) {
  std::string dotted(absl::StripPrefix(full_method, "/"));
  const size_t slash = dotted.rfind('/');
  if (slash != std::string::npos) dotted[slash] = '.';
  const google::protobuf::MethodDescriptor* m =
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(dotted);
  return Series(full_method, m != nullptr ? TypeOfMethod(*m) : GrpcType::kUnary);
}

Metrics::MethodSeries* Metrics::Series(absl::string_view full_method, GrpcType type) {
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = series_.find(full_method);
    if (it != series_.end()) return it->second.get();
  }
  absl::MutexLock lock(&mu_);
  std::unique_ptr<MethodSeries>& slot = series_[full_method];
  if (slot == nullptr) {
    const prometheus::Histogram::BucketBoundaries& kBuckets = LatencyBuckets();
    auto series = std::make_unique<MethodSeries>();
    std::tie(series->service, series->method) = SplitMethod(full_method);
    series->in_flight = &in_flight_.Add({{"service", series->service}, {"method", series->method}});
    series->latency =
        &latency_.Add({{"service", series->service}, {"method", series->method}}, kBuckets);
    series->type = type;
    const prometheus::Labels labels = {{"grpc_service", series->service},
                                       {"grpc_method", series->method},
                                       {"grpc_type", std::string(TypeName(type))}};
    series->started = &grpc_started_.Add(labels);
    series->msg_received = &grpc_msg_received_.Add(labels);
    series->msg_sent = &grpc_msg_sent_.Add(labels);
    // Every code from the start: an alert on a rate of errors then reads 0, not nothing.
    for (int code = 0; code < 17; ++code) {
      prometheus::Labels with_code = labels;
      with_code.emplace("grpc_code", kStandardCodeNames[code]);
      series->handled[code] = &grpc_handled_.Add(with_code);
    }
    if (type == GrpcType::kUnary) series->handling = &grpc_handling_.Add(labels, kBuckets);
    slot = std::move(series);
  }
  return slot.get();
}

Metrics::ClientSeries* Metrics::Client(absl::string_view full_method) {
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = client_series_.find(full_method);
    if (it != client_series_.end()) return it->second.get();
  }
  absl::MutexLock lock(&mu_);
  std::unique_ptr<ClientSeries>& slot = client_series_[full_method];
  if (slot == nullptr) {
    auto series = std::make_unique<ClientSeries>();
    const auto [service, method] = SplitMethod(full_method);
    const prometheus::Labels labels = {{"grpc_service", service},
                                       {"grpc_method", method},
                                       {"grpc_type", std::string(TypeName(GrpcType::kUnary))}};
    for (int code = 0; code < 17; ++code) {
      prometheus::Labels with_code = labels;
      with_code.emplace("grpc_code", kStandardCodeNames[code]);
      series->handled[code] = &grpc_client_handled_.Add(with_code);
    }
    series->handling = &grpc_client_handling_.Add(labels, LatencyBuckets());
    slot = std::move(series);
  }
  return slot.get();
}

void Metrics::ClientCallFinished(ClientSeries* series, int grpc_code, double seconds) {
  series->handled[CodeIndex(grpc_code)]->Increment();
  series->handling->Observe(seconds);
}

void Metrics::CallStarted(absl::string_view full_method) { CallStarted(Series(full_method)); }

void Metrics::CallFinished(absl::string_view full_method, int grpc_code, double seconds) {
  CallFinished(Series(full_method), grpc_code, seconds);
}

void Metrics::CallStarted(MethodSeries* series) {
  series->in_flight->Increment();
  series->started->Increment();
}

void Metrics::CallFinished(MethodSeries* series, int grpc_code, double seconds) {
  series->in_flight->Decrement();
  series->latency->Observe(seconds);
  const int index = CodeIndex(grpc_code);
  series->handled[index]->Increment();
  if (series->handling != nullptr) series->handling->Observe(seconds);
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
