// An Arbiter server for cross-service tests, in the test's process: the chosen services on the
// in-memory store or on a real redis-server it starts (libs/store/testing/redis_server.h), served
// over gRPC on a free loopback port with the test keys (tokens.h), /metrics on another.
//
//   TestServerOptions options({Service::kClock}, Store::kRedis);
//   std::unique_ptr<TestServer> server = TestServer::StartOrDie(options);
//   auto stub = server->Stub<v1::ClockAuthority>();
//   server->redis()->Stop(SIGKILL);  server->MetricsReach("arbiter_clock_running_clocks");
//
// Fixtures that start one server for a whole suite: SuiteServerTest (one server) and
// EachStoreTest (a server on each store, the test run once for each; see the end of the file).
#ifndef ARBITER_TESTS_INTEGRATION_TESTING_TEST_SERVER_H_
#define ARBITER_TESTS_INTEGRATION_TESTING_TEST_SERVER_H_

#include <array>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "gtest/gtest.h"
#include "libs/service/server.h"
#include "libs/store/testing/redis_server.h"
#include "proto/grpc/health/v1/health.pb.h"
#include "services/arbitration/host.h"
#include "services/clock_authority/host.h"
#include "services/rules_validation/rules_service.h"
#include "services/search_analysis/analysis_service.h"

namespace integration {

enum class Service { kRules, kAnalysis, kClock, kArbitration };
enum class Store { kMemory, kRedis };
void PrintTo(Store store, std::ostream* os);  // for gtest's messages

struct TestServerOptions {
  TestServerOptions();
  // The defaults below, with `services` on `store`.
  explicit TestServerOptions(std::vector<Service> services, Store store = Store::kMemory);

  std::vector<Service> services;
  Store store = Store::kMemory;
  // Authenticated by the test keys, gRPC and /metrics on free loopback ports, 10 ms of shutdown
  // grace, 2 s of drain. The addresses and the store are set by Start.
  service::ServerConfig config;
  rules_validation::RulesLimits rules;              // perft to depth 8
  search_analysis::AnalysisOptions analysis;        // 2 workers, a queue of 16, 50M nodes, 60 s
  clock_authority_service::ClockHostOptions clock;  // 8 workers, 4 flag workers, 16 shards
  arbitration_service::ArbitrationHostOptions arbitration;  // 8 shards, 200 ms sweeps
};

// `services` on `store` without the /metrics exposer, for suites that do not read it (stopping
// an exposer takes 2 s).
TestServerOptions WithoutMetrics(std::vector<Service> services, Store store = Store::kMemory);

// Every service hosted on the memory store for what their policy table says, with nothing running
// that the table does not need: no engine, no clock scheduler, no timers, no /metrics.
TestServerOptions EveryServiceForItsPolicy();

class TestServer {
 public:
  static absl::StatusOr<std::unique_ptr<TestServer>> Start(TestServerOptions options);
  // Start, or the test binary ends with the reason (for fixtures' SetUpTestSuite).
  static std::unique_ptr<TestServer> StartOrDie(TestServerOptions options);
  // Ends the server (gracefully, as Shutdown, when it hosts the clock or arbitration), stops the
  // hosts, then the redis-server.
  ~TestServer();

  // A plaintext channel to the server (messages up to 64 MiB each way).
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  template <typename GrpcService>
  std::unique_ptr<typename GrpcService::Stub> Stub() const {
    return GrpcService::NewStub(channel_);
  }

  service::ServiceEnv* env() const { return env_.get(); }
  service::Server* server() const { return server_.get(); }
  int port() const { return server_->port(); }
  // nullptr unless on Store::kRedis.
  store::testing::RedisServer* redis() const { return redis_.get(); }
  // nullptr unless chosen.
  search_analysis::SearchAnalysisService* analysis() const { return analysis_.get(); }
  clock_authority_service::ClockAuthorityHost* clock() const { return clock_.get(); }
  arbitration_service::ArbitrationHost* arbitration() const { return arbitration_.get(); }

  // Graceful (service::Server::Shutdown): NOT_SERVING, the grace period, the drain.
  void Shutdown() { server_->Shutdown(); }

  // The /metrics page ("" without an exposer).
  std::string Metrics() const;
  // Waits up to `timeout` for /metrics to contain `series`.
  bool MetricsReach(absl::string_view series, absl::Duration timeout = absl::Seconds(3)) const;
  // grpc.health.v1 Check for `service` ("" is the server): its status, UNKNOWN if the call fails.
  grpc::health::v1::HealthCheckResponse::ServingStatus Health(const std::string& service) const;

 private:
  TestServer() = default;

  std::unique_ptr<store::testing::RedisServer> redis_;
  std::unique_ptr<service::ServiceEnv> env_;
  std::unique_ptr<rules_validation::RulesValidationService> rules_;
  std::unique_ptr<search_analysis::SearchAnalysisService> analysis_;
  std::unique_ptr<clock_authority_service::ClockAuthorityHost> clock_;
  std::unique_ptr<arbitration_service::ArbitrationHost> arbitration_;
  std::unique_ptr<service::Server> server_;  // destroyed before the services
  std::shared_ptr<grpc::Channel> channel_;
};

// A game id unique to the running test: its name (the store's, for EachStoreTest) and `name`.
std::string GameId(absl::string_view name);

// One server for the whole suite, from Derived::Options():
//   class RulesTest : public SuiteServerTest<RulesTest> {
//    public: static TestServerOptions Options() { ... }
//   };
template <typename Derived>
class SuiteServerTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() { server_ = TestServer::StartOrDie(Derived::Options()).release(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

 protected:
  static TestServer* server() { return server_; }

 private:
  static inline TestServer* server_ = nullptr;
};

// A server on each store for the whole suite, from Derived::Options(store); every test runs on
// both: INSTANTIATE_TEST_SUITE_P(Stores, ClockTest, kEachStore, StoreName).
template <typename Derived>
class EachStoreTest : public ::testing::TestWithParam<Store> {
 public:
  static void SetUpTestSuite() {
    for (Store store : {Store::kMemory, Store::kRedis}) {
      servers_[static_cast<int>(store)] = TestServer::StartOrDie(Derived::Options(store)).release();
    }
  }
  static void TearDownTestSuite() {
    for (TestServer*& s : servers_) {
      delete s;
      s = nullptr;
    }
  }

 protected:
  TestServer* server() const { return servers_[static_cast<int>(GetParam())]; }

 private:
  static inline std::array<TestServer*, 2> servers_ = {};
};

inline const auto kEachStore = ::testing::Values(Store::kMemory, Store::kRedis);
std::string StoreName(const ::testing::TestParamInfo<Store>& info);

}  // namespace integration

#endif  // ARBITER_TESTS_INTEGRATION_TESTING_TEST_SERVER_H_
