#include "tests/integration/testing/calls.h"

#include <chrono>

#include "libs/service/grpc_status.h"

namespace integration {

Call::Call(const std::string& token, absl::Duration timeout) {
  if (!token.empty()) AddMetadata("authorization", "Bearer " + token);
  set_deadline(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(timeout));
}

std::string Code(const grpc::Status& status) { return service::ErrorInfoOf(status).code(); }

::testing::AssertionResult Succeeded(const grpc::Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << Code(status) << " " << status.error_message();
}

}  // namespace integration
