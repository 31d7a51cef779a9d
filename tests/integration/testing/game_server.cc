#include "tests/integration/testing/game_server.h"

namespace integration {

std::string PlayerToken(const std::string& game, arbiter::v1::Color side) {
  return Token(service::Role::kPlayer, game,
               side == arbiter::v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack);
}

arbiter::v1::CreateGameRequest EventGame(const std::string& game, const std::string& time_control,
                                         arbiter::v1::Edition edition, const std::string& event) {
  arbiter::v1::CreateGameRequest req = AliceBobGame(game, time_control, edition);
  req.set_event(event);
  return req;
}

}  // namespace integration
