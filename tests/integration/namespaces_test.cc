// A clock and a game are in separate namespaces: the clock authority serves standalone clocks
// (games whose moves Arbiter does not see) and the arbitration service keeps each game's clock in
// the game's own log, each service in its own store (memory: a store each; Redis: the key
// prefixes `arbiter:` and `arbiter:games:`, so that no key and no deadline entry is shared). A
// clock and a game may share an id and are unrelated: neither refuses the other's id, and neither
// sees the other's commands. On the in-memory store and on a real redis-server, with both services
// hosted by one server.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/game_server.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;

class NamespacesTest : public GamesAndClocksTest<NamespacesTest> {
 protected:
  v1::ClockResponse ClockOf(const std::string& id) {
    v1::ClockResponse reply;
    EXPECT_TRUE(Succeeded(Unary(ClockStub().get(), &C::GetClock, ForGame<v1::GetClockRequest>(id),
                                Token(Role::kArbiter), &reply)));
    return reply;
  }
};

TEST_P(NamespacesTest, AClockAndAGameWithOneIdAreUnrelated) {
  const std::string id = GameId("shared");
  // The game first, then a clock of the same id: not ERR_GAME_EXISTS.
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::CreateGame, AliceBobGame(id, "5400"), Token(Role::kPlatform))));
  auto create = ForGame<v1::CreateClockRequest>(id);
  create.set_time_control_human("90+30");
  create.set_edition(v1::EDITION_FIDE_2023);
  create.set_game_type(v1::GAME_TYPE_STANDARD);
  ASSERT_TRUE(Succeeded(Unary(ClockStub().get(), &C::CreateClock, create, Token(Role::kPlatform))));
  // Each still refuses a second of its own kind.
  grpc::Status st =
      Unary(Stub().get(), &S::CreateGame, AliceBobGame(id, "5400"), Token(Role::kPlatform));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(Code(st), "ERR_GAME_EXISTS");
  st = Unary(ClockStub().get(), &C::CreateClock, create, Token(Role::kPlatform));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(Code(st), "ERR_GAME_EXISTS");

  // The game is started and a move made: the clock of the same id is untouched.
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(id),
                              Token(Role::kArbiter))));
  auto move = ForGame<v1::SubmitMoveRequest>(id);
  move.set_side(v1::COLOR_WHITE);
  move.set_move("e4");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::SubmitMove, move, Token(Role::kPlatform))));
  const v1::ClockResponse clock = ClockOf(id);
  EXPECT_EQ(clock.version(), 1);  // created only
  EXPECT_EQ(clock.clock().status(), "not_started");
  EXPECT_EQ(clock.clock().white_moves(), 0);

  // The clock is started and pressed: the game of the same id is untouched.
  const v1::GameView before = Get(id).game();
  ASSERT_EQ(before.moves_san_size(), 1);
  ASSERT_TRUE(Succeeded(Unary(ClockStub().get(), &C::StartClock, ForGame<v1::StartClockRequest>(id),
                              Token(Role::kArbiter))));
  auto press = ForGame<v1::PressClockRequest>(id);
  press.set_color(v1::COLOR_WHITE);
  ASSERT_TRUE(Succeeded(Unary(ClockStub().get(), &C::PressClock, press, Token(Role::kPlatform))));
  const v1::ClockResponse pressed = ClockOf(id);
  EXPECT_EQ(pressed.version(), 3);
  EXPECT_EQ(pressed.clock().white_moves(), 1);
  EXPECT_EQ(pressed.clock().to_move(), v1::COLOR_BLACK);
  const v1::GameView after = Get(id).game();
  EXPECT_EQ(after.version(), before.version());
  EXPECT_EQ(after.moves_san_size(), 1);
  EXPECT_EQ(after.to_move(), v1::COLOR_BLACK);

  // A move in the game goes on from the game's own position and clock, whatever the clock did.
  move.set_side(v1::COLOR_BLACK);
  move.set_move("e5");
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::SubmitMove, move, Token(Role::kPlatform))));
  EXPECT_EQ(Get(id).game().moves_san_size(), 2);
  EXPECT_EQ(ClockOf(id).version(), 3);
}

INSTANTIATE_TEST_SUITE_P(Stores, NamespacesTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
