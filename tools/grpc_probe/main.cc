// grpc_probe: one grpc.health.v1.Health/Check, as the kubelet's gRPC probe makes it (plaintext,
// no credentials, the probe's `service` name, a timeout), for tests and for operators:
//
//   grpc_probe --address=127.0.0.1:8081 --service=arbiter.v1.Arbitration
//
// Prints the status (SERVING, NOT_SERVING, ...) or the call's error on stdout; exits 0 when
// SERVING, 1 when the server answered anything else, 2 when the call failed (no answer, or not
// gRPC over plaintext: a TLS port).
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"

ABSL_FLAG(std::string, address, "127.0.0.1:8081", "host:port to probe");
ABSL_FLAG(std::string, service, "", "the service name to ask about; '' = the whole server");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(1), "the call's deadline (the kubelet: 1s)");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("grpc_probe --address=host:port [--service=NAME] [--timeout=1s]");
  absl::ParseCommandLine(argc, argv);
  // Plaintext, as the kubelet's probe: no TLS, no token.
  auto channel =
      grpc::CreateChannel(absl::GetFlag(FLAGS_address), grpc::InsecureChannelCredentials());
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::GetFlag(FLAGS_timeout)));
  grpc::health::v1::HealthCheckRequest req;
  req.set_service(absl::GetFlag(FLAGS_service));
  grpc::health::v1::HealthCheckResponse resp;
  grpc::Status status = stub->Check(&ctx, req, &resp);
  if (!status.ok()) {
    std::printf("error %d: %s\n", static_cast<int>(status.error_code()),
                status.error_message().c_str());
    return 2;
  }
  std::printf("%s\n",
              grpc::health::v1::HealthCheckResponse::ServingStatus_Name(resp.status()).c_str());
  return resp.status() == grpc::health::v1::HealthCheckResponse::SERVING ? 0 : 1;
}
