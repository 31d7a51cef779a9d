#include "libs/service/health.h"

#include <string>

#include "grpcpp/server_context.h"
#include "gtest/gtest.h"

namespace service {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// "SERVING", "NOT_SERVING", or "NOT_FOUND" for an unknown name.
std::string Status(HealthService& health, const std::string& name) {
  grpc::ServerContext ctx;
  HealthCheckRequest req;
  req.set_service(name);
  HealthCheckResponse resp;
  grpc::Status s = health.Check(&ctx, &req, &resp);
  if (!s.ok()) return s.error_code() == grpc::StatusCode::NOT_FOUND ? "NOT_FOUND" : "ERROR";
  return HealthCheckResponse::ServingStatus_Name(resp.status());
}

TEST(HealthServiceTest, FollowSetsAStatusUntilTheDrain) {
  HealthService health;
  health.SetServing("", true);
  health.SetServing("arbiter.v1.Arbitration", false);
  EXPECT_EQ(Status(health, "arbiter.v1.Arbitration"), "NOT_SERVING");
  EXPECT_EQ(Status(health, "arbiter.v1.Nothing"), "NOT_FOUND");
  health.Follow("arbiter.v1.Arbitration", true);  // the store answered
  EXPECT_EQ(Status(health, "arbiter.v1.Arbitration"), "SERVING");
  health.Follow("arbiter.v1.Arbitration", false);  // it stopped answering
  EXPECT_EQ(Status(health, "arbiter.v1.Arbitration"), "NOT_SERVING");
  health.Follow("arbiter.v1.Arbitration", true);
  EXPECT_EQ(Status(health, ""), "SERVING");

  // Shutdown: everything NOT_SERVING, and a store check arriving late cannot undo it.
  health.Drain();
  EXPECT_EQ(Status(health, ""), "NOT_SERVING");
  EXPECT_EQ(Status(health, "arbiter.v1.Arbitration"), "NOT_SERVING");
  health.Follow("arbiter.v1.Arbitration", true);
  EXPECT_EQ(Status(health, "arbiter.v1.Arbitration"), "NOT_SERVING");
}

}  // namespace
}  // namespace service
