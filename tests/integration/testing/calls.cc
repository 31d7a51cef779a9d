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

arbiter::v1::CreateGameRequest AliceBobGame(const std::string& game,
                                            const std::string& time_control,
                                            arbiter::v1::Edition edition) {
  arbiter::v1::CreateGameRequest req;
  req.set_game_id(game);
  req.set_white_id("alice");
  req.set_black_id("bob");
  req.set_time_control(time_control);
  req.mutable_ruleset()->set_edition(edition);
  req.mutable_ruleset()->mutable_regulations()->set_arbiter_present(true);
  return req;
}

}  // namespace integration
