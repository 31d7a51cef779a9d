#include "tests/integration/testing/test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "libs/base/status_macros.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"
#include "tests/integration/testing/tokens.h"

namespace integration {

namespace {

// A minimal HTTP/1.0 GET over loopback: the response, headers and all ("" if nobody listens).
std::string HttpGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return "";
  }
  std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  (void)!write(fd, req.data(), req.size());
  std::string out;
  char buf[8192];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

bool Chosen(const TestServerOptions& options, Service s) {
  return std::find(options.services.begin(), options.services.end(), s) != options.services.end();
}

// A host just created (the clock's, the arbitration's): kept in `*kept` and listed in `hosted`.
template <typename Host>
absl::Status KeepHost(absl::StatusOr<std::unique_ptr<Host>> host, std::unique_ptr<Host>* kept,
                      std::vector<service::HostedService>* hosted) {
  if (!host.ok()) return host.status();
  *kept = *std::move(host);
  hosted->push_back((*kept)->hosted());
  return absl::OkStatus();
}

}  // namespace

TestServerOptions::TestServerOptions() {
  config.auth_keys = kKeysFile;
  config.shutdown_grace = absl::Milliseconds(10);
  config.drain_timeout = absl::Seconds(2);
  rules.max_perft_depth = 8;
  analysis.workers = 2;
  analysis.max_queue = 16;
  analysis.max_nodes = 50'000'000;
  analysis.max_time = absl::Seconds(60);
  analysis.max_perft_depth = 8;
  analysis.metrics_refresh = absl::Milliseconds(20);
  clock.replica_id = "test-replica";
  clock.service.workers = 8;
  clock.scheduler.workers = 4;
  clock.deadline_shards = 16;
  arbitration.replica_id = "test-replica";
  arbitration.deadline_shards = 8;
  arbitration.timers.sweep_interval = absl::Milliseconds(200);
}

TestServerOptions::TestServerOptions(std::vector<Service> services, Store store)
    : TestServerOptions() {
  this->services = std::move(services);
  this->store = store;
}

TestServerOptions WithoutMetrics(std::vector<Service> services, Store store) {
  TestServerOptions options(std::move(services), store);
  options.config.metrics_address = "none";
  return options;
}

TestServerOptions EveryServiceForItsPolicy() {
  TestServerOptions options =
      WithoutMetrics({Service::kRules, Service::kAnalysis, Service::kClock, Service::kArbitration});
  options.analysis.engine_path = "/nonexistent/engine";
  options.clock.run_scheduler = false;
  options.arbitration.run_timers = false;
  return options;
}

absl::StatusOr<std::unique_ptr<TestServer>> TestServer::Start(TestServerOptions options) {
  std::unique_ptr<TestServer> s(new TestServer());
  service::ServerConfig& config = options.config;
  config.grpc_address = "127.0.0.1:0";
  if (config.metrics_address != "none") config.metrics_address = "127.0.0.1:0";
  config.store = "memory";
  if (options.store == Store::kRedis) {
    absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> redis =
        store::testing::RedisServer::Start();
    if (!redis.ok()) return redis.status();
    s->redis_ = *std::move(redis);
    config.store = absl::StrCat("redis://127.0.0.1:", s->redis_->port());
  }
  absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
  if (!env.ok()) return env.status();
  s->env_ = *std::move(env);

  std::vector<service::HostedService> hosted;
  if (Chosen(options, Service::kRules)) {
    s->rules_ =
        std::make_unique<rules_validation::RulesValidationService>(s->env_.get(), options.rules);
    hosted.push_back({rules_validation::RulesValidationService::kName, s->rules_.get(),
                      s->rules_->async_methods()});
  }
  if (Chosen(options, Service::kAnalysis)) {
    auto analysis = search_analysis::SearchAnalysisService::Create(s->env_.get(), options.analysis);
    if (!analysis.ok()) return analysis.status();
    s->analysis_ = *std::move(analysis);
    hosted.push_back({search_analysis::SearchAnalysisService::kName, s->analysis_.get()});
  }
  if (Chosen(options, Service::kClock)) {
    RETURN_IF_ERROR(KeepHost(
        clock_authority_service::ClockAuthorityHost::Create(config, s->env_.get(), options.clock),
        &s->clock_, &hosted));
  }
  if (Chosen(options, Service::kArbitration)) {
    RETURN_IF_ERROR(KeepHost(
        arbitration_service::ArbitrationHost::Create(config, s->env_.get(), options.arbitration),
        &s->arbitration_, &hosted));
  }
  absl::StatusOr<std::unique_ptr<service::Server>> server =
      service::Server::Start(config, s->env_.get(), std::move(hosted));
  if (!server.ok()) return server.status();
  s->server_ = *std::move(server);
  if (s->clock_ != nullptr) s->clock_->Start();
  if (s->arbitration_ != nullptr) s->arbitration_->Start();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  s->channel_ = grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", s->server_->port()),
                                          grpc::InsecureChannelCredentials(), args);
  return s;
}

std::unique_ptr<TestServer> TestServer::StartOrDie(TestServerOptions options) {
  absl::StatusOr<std::unique_ptr<TestServer>> s = Start(std::move(options));
  if (!s.ok()) {
    std::fprintf(stderr, "the test server did not start: %s\n", s.status().ToString().c_str());
    std::abort();
  }
  return *std::move(s);
}

TestServer::~TestServer() {
  // The hosts' calls may finish on their own threads: drain them before the hosts stop. Without a
  // host, the server's destructor ends it at once (a drain would wait out the queues' calls).
  if (server_ != nullptr && (clock_ != nullptr || arbitration_ != nullptr)) server_->Shutdown();
  if (clock_ != nullptr) clock_->Stop();
  if (arbitration_ != nullptr) arbitration_->Stop();
  channel_.reset();
  server_.reset();
  arbitration_.reset();
  clock_.reset();
  analysis_.reset();
  rules_.reset();
  env_.reset();
  redis_.reset();
}

std::string TestServer::Metrics() const {
  return server_->metrics_port() == 0 ? "" : HttpGet(server_->metrics_port(), "/metrics");
}

bool TestServer::MetricsReach(absl::string_view series, absl::Duration timeout) const {
  const absl::Time until = absl::Now() + timeout;
  while (absl::Now() < until) {
    if (absl::StrContains(Metrics(), series)) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return false;
}

grpc::health::v1::HealthCheckResponse::ServingStatus TestServer::Health(
    const std::string& service) const {
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  grpc::health::v1::HealthCheckRequest req;
  req.set_service(service);
  grpc::health::v1::HealthCheckResponse resp;
  return health->Check(&ctx, req, &resp).ok() ? resp.status()
                                              : grpc::health::v1::HealthCheckResponse::UNKNOWN;
}

std::string GameId(absl::string_view name) {
  std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(test.begin(), test.end(), '/', '-');  // game ids: [A-Za-z0-9._~:-]
  return absl::StrCat(test, "-", name);
}

void PrintTo(Store store, std::ostream* os) {
  *os << (store == Store::kRedis ? "redis" : "memory");
}

std::string StoreName(const ::testing::TestParamInfo<Store>& info) {
  return info.param == Store::kRedis ? "Redis" : "Memory";
}

}  // namespace integration
