// The service framework (libs/service) over real gRPC on loopback, hosting the rules-validation
// service: tokens signed with each kind of key, message-size limits, deadlines that stop the work
// on the server, /metrics with its labels, health during shutdown (Check and Watch), insecure
// development mode, TLS and mutual TLS, and flags that fail at start.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using grpc::health::v1::HealthCheckResponse;
using service::Role;

// The rules service with a 256 KiB message limit; /metrics only when asked for (stopping an
// exposer takes 2 s).
TestServerOptions RulesOnly(bool metrics = false) {
  TestServerOptions options;
  options.services = {Service::kRules};
  options.config.max_message_bytes = 256 << 10;
  if (!metrics) options.config.metrics_address = "none";
  return options;
}

class FrameworkTest : public SuiteServerTest<FrameworkTest> {
 public:
  static TestServerOptions Options() { return RulesOnly(/*metrics=*/true); }

 protected:
  std::unique_ptr<v1::RulesValidation::Stub> Stub() {
    return server()->Stub<v1::RulesValidation>();
  }
};

v1::LegalMovesRequest StartLegalMoves() {
  v1::LegalMovesRequest req;
  req.mutable_position()->set_fen("startpos");
  return req;
}

TEST_F(FrameworkTest, TokensOfEachKeyAlgorithmAreAccepted) {
  for (const char* kid : {kHsKey, kRsKey, kEsKey}) {
    EXPECT_TRUE(Unary(Stub().get(), &v1::RulesValidation::Stub::LegalMoves, StartLegalMoves(),
                      Sign(Claims(Role::kObserver), kid))
                    .ok())
        << kid;
  }
}

TEST_F(FrameworkTest, OversizeMessagesAreRejected) {
  v1::ValidatePgnRequest req;
  req.set_pgn(std::string(300 << 10, ' '));  // the server's limit here is 256 KiB
  grpc::Status st =
      Unary(Stub().get(), &v1::RulesValidation::Stub::ValidatePgn, req, Token(Role::kArbiter));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST_F(FrameworkTest, DeadlineStopsTheWork) {
  auto stub = Stub();
  v1::PerftRequest req;
  req.mutable_position()->set_fen("startpos");
  req.set_depth(8);  // minutes of work
  v1::PerftResponse resp;
  Call ctx(Token(Role::kArbiter), absl::Milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(stub->Perft(&ctx, req, &resp).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  // The server stops too: its in-flight gauge for Perft returns to zero promptly.
  EXPECT_TRUE(server()->MetricsReach(
      "arbiter_grpc_in_flight_requests{method=\"Perft\",service=\"arbiter.v1.RulesValidation\"} 0",
      absl::Milliseconds(2500)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST_F(FrameworkTest, MetricsAreScrapedWithLabels) {
  auto stub = Stub();
  v1::ValidateMoveRequest req;
  req.mutable_position()->set_fen("startpos");
  req.set_move("e4");
  ASSERT_TRUE(
      Unary(stub.get(), &v1::RulesValidation::Stub::ValidateMove, req, Token(Role::kPlatform))
          .ok());
  Unary(stub.get(), &v1::RulesValidation::Stub::ValidateMove, req, "");
  const std::string metrics = server()->Metrics();
  for (const char* series :
       {"arbiter_grpc_requests_total{code=\"OK\",method=\"ValidateMove\",service=\"arbiter.v1."
        "RulesValidation\"}",
        "arbiter_grpc_requests_total{code=\"UNAUTHENTICATED\",method=\"ValidateMove\",service="
        "\"arbiter.v1.RulesValidation\"}",
        "arbiter_grpc_request_duration_seconds_bucket{method=\"ValidateMove\",service=\"arbiter.v1."
        "RulesValidation\",le=\"0.001\"}",
        "arbiter_grpc_in_flight_requests{method=\"ValidateMove\",service=\"arbiter.v1."
        "RulesValidation\"}",
        "arbiter_build_info{", "arbiter_insecure_dev 0", "process_resident_memory_bytes",
        "process_cpu_seconds_total", "process_open_fds"}) {
    EXPECT_TRUE(absl::StrContains(metrics, series)) << series << "\n" << metrics.substr(0, 3000);
  }
}

TEST(FrameworkShutdownTest, HealthIsNotServingWhileDraining) {
  TestServerOptions options = RulesOnly();
  options.config.shutdown_grace = absl::Milliseconds(1500);
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(options);
  EXPECT_EQ(s->Health(""), HealthCheckResponse::SERVING);
  EXPECT_EQ(s->Health("arbiter.v1.RulesValidation"), HealthCheckResponse::SERVING);
  std::thread stopper([&] { s->Shutdown(); });
  bool saw_not_serving = false;
  for (int i = 0; i < 40 && !saw_not_serving; ++i) {
    saw_not_serving = s->Health("arbiter.v1.RulesValidation") == HealthCheckResponse::NOT_SERVING;
    if (!saw_not_serving) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(saw_not_serving);
  // Calls made during the grace period are still served (draining, not dropping).
  EXPECT_TRUE(Unary(s->Stub<v1::RulesValidation>().get(), &v1::RulesValidation::Stub::LegalMoves,
                    StartLegalMoves(), Token(Role::kObserver))
                  .ok());
  stopper.join();
}

// grpc.health.v1 Watch (libs/service/health.h): the status at once, each change, and the stream
// ends when the server shuts down, so a watcher never holds the drain up. An unknown service is
// NOT_FOUND for Check and SERVICE_UNKNOWN for Watch, as the protocol says.
TEST(FrameworkShutdownTest, HealthWatchFollowsTheStatusAndEndsAtShutdown) {
  TestServerOptions options = RulesOnly();
  options.config.shutdown_grace = absl::Milliseconds(300);
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(options);
  auto health = grpc::health::v1::Health::NewStub(s->channel());
  grpc::health::v1::HealthCheckRequest unknown;
  unknown.set_service("no.such.Service");
  {
    grpc::ClientContext ctx;
    HealthCheckResponse resp;
    EXPECT_EQ(health->Check(&ctx, unknown, &resp).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  {
    Call ctx("", absl::Milliseconds(500));
    auto reader = health->Watch(&ctx, unknown);
    HealthCheckResponse resp;
    ASSERT_TRUE(reader->Read(&resp));
    EXPECT_EQ(resp.status(), HealthCheckResponse::SERVICE_UNKNOWN);
  }
  Call ctx("", absl::Seconds(10));
  grpc::health::v1::HealthCheckRequest req;
  req.set_service("arbiter.v1.RulesValidation");
  auto reader = health->Watch(&ctx, req);
  HealthCheckResponse resp;
  ASSERT_TRUE(reader->Read(&resp));
  EXPECT_EQ(resp.status(), HealthCheckResponse::SERVING);
  const auto begin = std::chrono::steady_clock::now();
  std::thread stopper([&] { s->Shutdown(); });
  ASSERT_TRUE(reader->Read(&resp));
  EXPECT_EQ(resp.status(), HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(reader->Read(&resp));  // the server ended the stream
  EXPECT_TRUE(reader->Finish().ok());
  stopper.join();
  // Ended by the shutdown, not by the 2 s drain timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::milliseconds(1900));
}

TEST(FrameworkInsecureTest, InsecureDevNeedsNoTokenAndSaysSo) {
  TestServerOptions options;
  options.services = {Service::kRules};
  options.config = service::ServerConfig();
  options.config.insecure_dev = true;
  options.config.shutdown_grace = absl::Milliseconds(10);
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(options);
  v1::PerftRequest req;
  req.mutable_position()->set_fen("startpos");
  req.set_depth(2);
  v1::PerftResponse resp;
  grpc::ClientContext ctx;
  EXPECT_TRUE(s->Stub<v1::RulesValidation>()->Perft(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.nodes(), 400u);
  EXPECT_TRUE(absl::StrContains(s->Metrics(), "arbiter_insecure_dev 1"));
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::shared_ptr<grpc::Channel> TlsChannel(int port, bool with_client_cert) {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = Read("libs/service/testdata/ca.pem");
  if (with_client_cert) {
    options.pem_cert_chain = Read("libs/service/testdata/client.pem");
    options.pem_private_key = Read("libs/service/testdata/client.key.pem");
  }
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("localhost");
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port), grpc::SslCredentials(options),
                                   args);
}

grpc::StatusCode LegalMovesOver(const std::shared_ptr<grpc::Channel>& channel) {
  auto stub = v1::RulesValidation::NewStub(channel);
  v1::LegalMovesResponse resp;
  Call ctx(Token(Role::kObserver), absl::Seconds(3));
  return stub->LegalMoves(&ctx, StartLegalMoves(), &resp).error_code();
}

TEST(FrameworkTlsTest, TlsAndMutualTls) {
  TestServerOptions tls = RulesOnly();
  tls.config.tls_cert = "libs/service/testdata/server.pem";
  tls.config.tls_key = "libs/service/testdata/server.key.pem";
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(tls);
  EXPECT_EQ(LegalMovesOver(TlsChannel(s->port(), false)), grpc::StatusCode::OK);
  // A plaintext client cannot talk to a TLS server.
  EXPECT_EQ(LegalMovesOver(s->channel()), grpc::StatusCode::UNAVAILABLE);

  TestServerOptions mtls = tls;
  mtls.config.tls_ca = "libs/service/testdata/ca.pem";
  std::unique_ptr<TestServer> m = TestServer::StartOrDie(mtls);
  EXPECT_EQ(LegalMovesOver(TlsChannel(m->port(), true)), grpc::StatusCode::OK);
  EXPECT_EQ(LegalMovesOver(TlsChannel(m->port(), false)), grpc::StatusCode::UNAVAILABLE);
}

// A TLS channel trusting `roots` (PEM text), on its own connections (no subchannel shared with
// earlier channels, so that every call here makes a new handshake).
grpc::StatusCode LegalMovesTrusting(int port, const std::string& roots) {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = roots;
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("localhost");
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return LegalMovesOver(grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port),
                                                  grpc::SslCredentials(options), args));
}

void CopyFile(const std::string& from, const std::string& to) {
  const std::string tmp = to + ".new";
  std::ofstream(tmp) << Read(from);
  ASSERT_EQ(std::rename(tmp.c_str(), to.c_str()), 0);
}

// A renewed certificate is served without a restart (the files re-read every
// --tls_reload): after the certificate and key are replaced by a new self-signed pair, new
// connections see the new certificate.
TEST(FrameworkTlsTest, CertificatesAreReloadedWithoutARestart) {
  const char* tmpdir = std::getenv("TEST_TMPDIR");
  const std::string dir = tmpdir != nullptr ? tmpdir : "/tmp";
  const std::string cert = dir + "/server.pem", key = dir + "/server.key.pem";
  CopyFile("libs/service/testdata/server.pem", cert);
  CopyFile("libs/service/testdata/server.key.pem", key);
  const std::string fresh_cert = dir + "/fresh.pem", fresh_key = dir + "/fresh.key.pem";
  const std::string openssl = absl::StrCat(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "
      "/CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout ",
      fresh_key, " -out ", fresh_cert, " 2>/dev/null");
  if (std::system(openssl.c_str()) != 0) GTEST_SKIP() << "no openssl to make a certificate";

  TestServerOptions tls = RulesOnly();
  tls.config.tls_cert = cert;
  tls.config.tls_key = key;
  tls.config.tls_reload = absl::Seconds(1);
  std::unique_ptr<TestServer> s = TestServer::StartOrDie(tls);
  const std::string ca = Read("libs/service/testdata/ca.pem");
  const std::string fresh = Read(fresh_cert);
  EXPECT_EQ(LegalMovesTrusting(s->port(), ca), grpc::StatusCode::OK);
  EXPECT_EQ(LegalMovesTrusting(s->port(), fresh), grpc::StatusCode::UNAVAILABLE);

  CopyFile(fresh_key, key);
  CopyFile(fresh_cert, cert);
  grpc::StatusCode with_fresh = grpc::StatusCode::UNKNOWN;
  for (int i = 0; i < 50 && with_fresh != grpc::StatusCode::OK; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    with_fresh = LegalMovesTrusting(s->port(), fresh);
  }
  EXPECT_EQ(with_fresh, grpc::StatusCode::OK);
  EXPECT_EQ(LegalMovesTrusting(s->port(), ca), grpc::StatusCode::UNAVAILABLE);
}

TEST(FrameworkConfigTest, BadFlagsFailAtStart) {
  service::ServerConfig no_keys;  // neither --auth_keys nor --insecure_dev
  EXPECT_FALSE(service::ServiceEnv::Create(no_keys).ok());
  service::ServerConfig half_tls = TestServerOptions().config;
  half_tls.tls_cert = "libs/service/testdata/server.pem";
  auto env = service::ServiceEnv::Create(half_tls);
  ASSERT_TRUE(env.ok());
  half_tls.grpc_address = "127.0.0.1:0";
  EXPECT_FALSE(service::Server::Start(half_tls, env->get(), {}).ok());
  service::ServerConfig level = TestServerOptions().config;
  level.log_level = "loud";
  EXPECT_FALSE(service::ServiceEnv::Create(level).ok());
}

}  // namespace
}  // namespace integration
