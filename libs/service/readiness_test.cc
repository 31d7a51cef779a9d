#include "libs/service/readiness.h"

#include <memory>
#include <string>
#include <vector>

#include "grpcpp/server_context.h"
#include "gtest/gtest.h"
#include "libs/base/error.h"
#include "libs/base/status_matchers.h"

namespace service {
namespace {

using base::HasErrorCode;
using base::IsOk;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

constexpr char kName[] = "arbiter.v1.Arbitration";
constexpr char kMethod[] = "/arbiter.v1.Arbitration/SubmitMove";

// A store-backed module whose store answers when the test says so.
class FakeModule final : public ServiceModule {
 public:
  HostedService hosted() override { return {kName, nullptr}; }
  void Start() override { ++started; }
  bool store_backed() const override { return true; }
  absl::Status Connect() override { return Ping(); }
  absl::Status Ping() override {
    return store_up ? absl::OkStatus() : absl::UnavailableError("redis 127.0.0.1:1: refused");
  }
  bool store_up = false;
  int started = 0;
};

std::string Health(Server& server, const std::string& name) {
  grpc::ServerContext ctx;
  HealthCheckRequest req;
  req.set_service(name);
  HealthCheckResponse resp;
  grpc::Status s = server.health()->Check(&ctx, &req, &resp);
  return s.ok() ? HealthCheckResponse::ServingStatus_Name(resp.status()) : "ERROR";
}

class StoreReadinessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.grpc_address = "127.0.0.1:0";
    config_.metrics_address = "none";
    config_.insecure_dev = true;
    config_.shutdown_grace = absl::ZeroDuration();
    env_ = *ServiceEnv::Create(config_);
    // The module was not connected at start: as ServeModules leaves it.
    env_->SetNotReady(kName, NotReadyMessage(kName, module_.Connect()));
    server_ = *Server::Start(config_, env_.get(), {{kName, &dummy_, {}, /*serving=*/false}});
  }
  absl::Status Call() {
    grpc::ServerContext ctx;
    return env_->Admit(ctx, kMethod, nullptr).status();
  }

  // A service with no methods: the server needs one to register under the name.
  class Dummy final : public grpc::Service {};
  ServerConfig config_;
  Dummy dummy_;
  FakeModule module_;
  std::unique_ptr<ServiceEnv> env_;
  std::unique_ptr<Server> server_;
};

TEST_F(StoreReadinessTest, ConnectsOnceThenFollowsTheStore) {
  StoreReadiness readiness(server_.get(), env_.get(), {{&module_, kName, false}},
                           absl::Hours(1));  // rounds run by hand (CheckOnce)
  EXPECT_EQ(Health(*server_, kName), "NOT_SERVING");
  EXPECT_EQ(Health(*server_, ""), "SERVING");
  absl::Status refused = Call();
  EXPECT_THAT(refused, HasErrorCode("ERR_NOT_READY"));
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(refused.message().find("127.0.0.1:1"), absl::string_view::npos) << refused.message();

  readiness.CheckOnce();  // still down
  EXPECT_EQ(module_.started, 0);
  EXPECT_EQ(Health(*server_, kName), "NOT_SERVING");

  module_.store_up = true;
  readiness.CheckOnce();  // connected: started, opened, SERVING
  EXPECT_EQ(module_.started, 1);
  EXPECT_EQ(Health(*server_, kName), "SERVING");
  EXPECT_THAT(Call(), IsOk());

  module_.store_up = false;
  readiness.CheckOnce();  // the store went away: readiness follows, calls reach the service
  EXPECT_EQ(Health(*server_, kName), "NOT_SERVING");
  EXPECT_EQ(Health(*server_, ""), "SERVING");
  EXPECT_THAT(Call(), IsOk());

  module_.store_up = true;
  readiness.CheckOnce();
  EXPECT_EQ(Health(*server_, kName), "SERVING");
  EXPECT_EQ(module_.started, 1);  // started once only

  server_->Shutdown();
  readiness.CheckOnce();  // a shutdown is not undone
  EXPECT_EQ(Health(*server_, kName), "NOT_SERVING");
}

}  // namespace
}  // namespace service
