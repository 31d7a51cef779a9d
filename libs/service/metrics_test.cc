// The standard gRPC server families (metrics.h) over a real server on loopback, the interceptor
// recording them: every series of a registered service at zero before any call, a unary call
// moving started/handled/latency, a server stream counting its messages and staying out of the
// latency histogram, and no label named `service` in the standard families.
#include "libs/service/metrics.h"

#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "libs/service/health.h"
#include "prometheus/text_serializer.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"

namespace service {
namespace {

using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

constexpr char kCheck[] =
    "grpc_service=\"grpc.health.v1.Health\",grpc_method=\"Check\",grpc_type=\"unary\"";
constexpr char kWatch[] =
    "grpc_service=\"grpc.health.v1.Health\",grpc_method=\"Watch\",grpc_type=\"server_stream\"";

std::string Exposition(const Metrics& metrics) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, metrics.registry()->Collect());
  return out.str();
}

// The value of the exposition line that starts with `series` (name and labels up to the value),
// or -1 when there is none.
double Value(const std::string& text, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, series + " ")) {
      return std::stod(std::string(line.substr(series.size() + 1)));
    }
  }
  return -1;
}

// The label pairs of the exposition are written in sorted order: grpc_code, grpc_method,
// grpc_service, grpc_type (and le).
std::string Labels(const char* sorted_without_code, const std::string& code = "") {
  std::vector<std::string> parts = absl::StrSplit(sorted_without_code, ',');
  // parts: service, method, type -> sorted: [code,] method, service, type
  std::string out = code.empty() ? "" : absl::StrCat("grpc_code=\"", code, "\",");
  return absl::StrCat(out, parts[1], ",", parts[0], ",", parts[2]);
}

class MetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(metrics_.AddService("grpc.health.v1.Health"));
    health_.SetServing("", true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&endpoint_);
    cq_ = builder.AddCompletionQueue();
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> factories;
    factories.push_back(std::make_unique<MetricsInterceptorFactory>(&metrics_));
    builder.experimental().SetInterceptorCreators(std::move(factories));
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    for (AsyncUnaryMethod* m : endpoint_.async_methods()) m->Arm(cq_.get());
    poller_ = std::thread([this] {
      void* tag = nullptr;
      bool ok = false;
      while (cq_->Next(&tag, &ok)) static_cast<CompletionTag*>(tag)->Proceed(ok);
    });
    stub_ = Health::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port_), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    health_.Shutdown();
    if (server_ != nullptr) server_->Shutdown();
    if (cq_ != nullptr) cq_->Shutdown();
    if (poller_.joinable()) poller_.join();
  }

  // Waits (a bounded while) for the exposition line `series` to read `value`: a call's status
  // reaches the client a moment before the interceptor's last hook has run on the server.
  double WaitFor(const std::string& series, double value) {
    double now = -1;
    for (int i = 0; i < 500; ++i) {
      now = Value(Exposition(metrics_), series);
      if (now == value) break;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return now;
  }

  Metrics metrics_;
  HealthService health_;
  HealthEndpoint endpoint_{&health_, nullptr};
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  std::thread poller_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<Health::Stub> stub_;
};

TEST_F(MetricsTest, EverySeriesOfARegisteredServiceExistsAtZeroBeforeAnyCall) {
  const std::string text = Exposition(metrics_);
  for (const char* code :
       {"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound",
        "AlreadyExists", "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted",
        "OutOfRange", "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated"}) {
    for (const char* method : {kCheck, kWatch}) {
      const std::string series =
          absl::StrCat("grpc_server_handled_total{", Labels(method, code), "}");
      EXPECT_EQ(Value(text, series), 0) << series << "\n" << text;
    }
  }
  for (const char* family : {"grpc_server_started_total", "grpc_server_msg_received_total",
                             "grpc_server_msg_sent_total"}) {
    for (const char* method : {kCheck, kWatch}) {
      const std::string series = absl::StrCat(family, "{", Labels(method), "}");
      EXPECT_EQ(Value(text, series), 0) << series;
    }
  }
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_handling_seconds_count{", Labels(kCheck), "}")),
            0);
  // An unknown service adds nothing.
  EXPECT_FALSE(metrics_.AddService("no.such.Service"));
}

TEST_F(MetricsTest, AUnaryCallMovesStartedHandledAndTheHistogram) {
  HealthCheckRequest req;
  HealthCheckResponse resp;
  grpc::ClientContext ok_call;
  ASSERT_TRUE(stub_->Check(&ok_call, req, &resp).ok());
  req.set_service("unknown");
  grpc::ClientContext not_found_call;
  EXPECT_EQ(stub_->Check(&not_found_call, req, &resp).error_code(), grpc::StatusCode::NOT_FOUND);

  EXPECT_EQ(WaitFor(absl::StrCat("grpc_server_handled_total{", Labels(kCheck, "NotFound"), "}"), 1),
            1);
  const std::string text = Exposition(metrics_);
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_started_total{", Labels(kCheck), "}")), 2);
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_handled_total{", Labels(kCheck, "OK"), "}")), 1);
  EXPECT_EQ(
      Value(text, absl::StrCat("grpc_server_handled_total{", Labels(kCheck, "Internal"), "}")), 0);
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_handling_seconds_count{", Labels(kCheck), "}")),
            2);
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_msg_received_total{", Labels(kCheck), "}")), 2);
  // The error sent no reply message.
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_msg_sent_total{", Labels(kCheck), "}")), 1);
  // The original family is unchanged, with its codes as before.
  EXPECT_TRUE(absl::StrContains(text,
                                "arbiter_grpc_requests_total{code=\"NOT_FOUND\",method=\"Check\","
                                "service=\"grpc.health.v1.Health\"} 1"))
      << text;
}

TEST_F(MetricsTest, AStreamCountsItsMessagesAndStaysOutOfTheLatencyHistogram) {
  HealthCheckRequest req;
  grpc::ClientContext ctx;
  std::unique_ptr<grpc::ClientReader<HealthCheckResponse>> reader = stub_->Watch(&ctx, req);
  HealthCheckResponse resp;
  ASSERT_TRUE(reader->Read(&resp));
  EXPECT_EQ(resp.status(), HealthCheckResponse::SERVING);
  health_.SetServing("", false);
  ASSERT_TRUE(reader->Read(&resp));
  EXPECT_EQ(resp.status(), HealthCheckResponse::NOT_SERVING);
  health_.Shutdown();  // ends the stream with OK
  while (reader->Read(&resp)) {
  }
  EXPECT_TRUE(reader->Finish().ok());

  EXPECT_EQ(WaitFor(absl::StrCat("grpc_server_handled_total{", Labels(kWatch, "OK"), "}"), 1), 1);
  const std::string text = Exposition(metrics_);
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_started_total{", Labels(kWatch), "}")), 1);
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_msg_received_total{", Labels(kWatch), "}")), 1);
  EXPECT_GE(Value(text, absl::StrCat("grpc_server_msg_sent_total{", Labels(kWatch), "}")), 2);
  // No latency series for a stream at all, and the unary histogram did not move.
  EXPECT_FALSE(absl::StrContains(text, "grpc_server_handling_seconds_count{grpc_method=\"Watch\""))
      << text;
  EXPECT_FALSE(absl::StrContains(text, "grpc_type=\"server_stream\",le="));
  EXPECT_EQ(Value(text, absl::StrCat("grpc_server_handling_seconds_count{", Labels(kCheck), "}")),
            0);
}

TEST_F(MetricsTest, TheStandardFamiliesHaveNoLabelNamedService) {
  HealthCheckRequest req;
  HealthCheckResponse resp;
  grpc::ClientContext call;
  ASSERT_TRUE(stub_->Check(&call, req, &resp).ok());
  WaitFor(absl::StrCat("grpc_server_handled_total{", Labels(kCheck, "OK"), "}"), 1);
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(Exposition(metrics_), '\n')) {
    if (!absl::StartsWith(line, "grpc_server_")) continue;
    ++lines;
    EXPECT_FALSE(absl::StrContains(line, "{service=")) << line;
    EXPECT_FALSE(absl::StrContains(line, ",service=")) << line;
    EXPECT_TRUE(absl::StrContains(line, "grpc_service=")) << line;
  }
  EXPECT_GT(lines, 40);
}

// The client families: a method's every code at zero from its first call, each attempt counted
// under its own code, and the unary latency histogram.
TEST(ClientMetricsTest, StandardClientFamilies) {
  Metrics metrics;
  constexpr char kUnwinnable[] =
      "grpc_service=\"arbiter.v1.SearchAnalysis\",grpc_method=\"Unwinnable\",grpc_type=\"unary\"";
  Metrics::ClientSeries* series = metrics.Client("/arbiter.v1.SearchAnalysis/Unwinnable");
  EXPECT_EQ(series, metrics.Client("/arbiter.v1.SearchAnalysis/Unwinnable"));
  Metrics::ClientCallFinished(series, 14, 0.003);  // UNAVAILABLE, then retried
  Metrics::ClientCallFinished(series, 0, 0.002);
  const std::string text = Exposition(metrics);
  EXPECT_EQ(Value(text, "grpc_client_handled_total{" + Labels(kUnwinnable, "Unavailable") + "}"),
            1);
  EXPECT_EQ(Value(text, "grpc_client_handled_total{" + Labels(kUnwinnable, "OK") + "}"), 1);
  EXPECT_EQ(
      Value(text, "grpc_client_handled_total{" + Labels(kUnwinnable, "DeadlineExceeded") + "}"), 0);
  EXPECT_EQ(Value(text, "grpc_client_handling_seconds_count{" + Labels(kUnwinnable) + "}"), 2);
  EXPECT_EQ(
      Value(text, "grpc_client_handling_seconds_bucket{" + Labels(kUnwinnable) + ",le=\"0.0025\"}"),
      1);
}

}  // namespace
}  // namespace service
