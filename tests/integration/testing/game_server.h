// The started-game fixture of the cross-service tests: the arbitration service on each store
// (EachStoreTest), and the calls a test makes on a game by role: the platform creates it, the
// arbiter starts it, the players move, the board relay feeds it, anyone reads it back.
//
//   class FeedTest : public GameServerTest<FeedTest> {};   // Options: arbitration alone
//   TEST_P(FeedTest, ...) {
//     const std::string game = GameId("g");
//     Ready(game, "G/90", v1::EDITION_FIDE_2001);             // created and started
//     ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4")));
//     EXPECT_EQ(Get(game).game().version(), 3);
//   }
//   INSTANTIATE_TEST_SUITE_P(Stores, FeedTest, kEachStore, StoreName);
#ifndef ARBITER_TESTS_INTEGRATION_TESTING_GAME_SERVER_H_
#define ARBITER_TESTS_INTEGRATION_TESTING_GAME_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "libs/service/auth.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {

// The token of `side`'s player in `game`.
std::string PlayerToken(const std::string& game, arbiter::v1::Color side);

// A request that names the game and the side it acts for.
template <typename Request>
Request ForSide(const std::string& game, arbiter::v1::Color side) {
  auto req = ForGame<Request>(game);
  req.set_side(side);
  return req;
}

// A game between "alice" and "bob" at the event "Integration" (an arbiter of that event may act
// on it), as the platform creates it.
arbiter::v1::CreateGameRequest EventGame(
    const std::string& game, const std::string& time_control = "5400",
    arbiter::v1::Edition edition = arbiter::v1::EDITION_FIDE_2023,
    const std::string& event = "Integration");

template <typename Derived>
class GameServerTest : public EachStoreTest<Derived> {
 public:
  // The arbitration service alone; a suite that needs more services says so in its own Options.
  static TestServerOptions Options(Store store) {
    return WithoutMetrics({Service::kArbitration}, store);
  }

 protected:
  using S = arbiter::v1::Arbitration::Stub;

  std::unique_ptr<S> Stub() const {
    return this->server()->template Stub<arbiter::v1::Arbitration>();
  }
  // The clock-authority service's, for the suites whose Options host it beside the games.
  std::unique_ptr<arbiter::v1::ClockAuthority::Stub> ClockStub() const {
    return this->server()->template Stub<arbiter::v1::ClockAuthority>();
  }

  // The platform creates the game; the arbiter starts it (with the `absent` players, 6.7).
  grpc::Status Create(const arbiter::v1::CreateGameRequest& req,
                      arbiter::v1::GameReply* reply = nullptr) {
    return Unary(Stub().get(), &S::CreateGame, req, Token(service::Role::kPlatform), reply);
  }
  grpc::Status Start(const std::string& game, const std::vector<arbiter::v1::Color>& absent = {}) {
    auto req = ForGame<arbiter::v1::StartGameRequest>(game);
    for (arbiter::v1::Color c : absent) req.add_absent(c);
    return Unary(Stub().get(), &S::StartGame, req, Token(service::Role::kArbiter));
  }
  // Created from `req` and started.
  void Ready(const arbiter::v1::CreateGameRequest& req) {
    ASSERT_TRUE(Succeeded(Create(req)));
    ASSERT_TRUE(Succeeded(Start(req.game_id())));
  }
  // EventGame(...) created and started.
  void Ready(const std::string& game, const std::string& time_control,
             arbiter::v1::Edition edition = arbiter::v1::EDITION_FIDE_2023,
             const std::string& event = "Integration") {
    Ready(EventGame(game, time_control, edition, event));
  }

  // `side`'s player moves (offering a draw, under a command id, when told).
  grpc::Status Move(const std::string& game, arbiter::v1::Color side, const std::string& move,
                    arbiter::v1::GameReply* reply = nullptr, bool offer_draw = false,
                    const std::string& command_id = "") {
    auto req = ForSide<arbiter::v1::SubmitMoveRequest>(game, side);
    req.set_move(move);
    req.set_offer_draw(offer_draw);
    req.set_command_id(command_id);
    return Unary(Stub().get(), &S::SubmitMove, req, PlayerToken(game, side), reply);
  }
  // The board relay's report of these placements (at the server's instant); `pressed`: the
  // clock was pressed with the last one.
  grpc::Status Feed(const std::string& game, const std::vector<std::string>& placements,
                    arbiter::v1::GameReply* reply = nullptr, bool pressed = false) {
    auto req = ForGame<arbiter::v1::SubmitBoardFeedRequest>(game);
    for (const std::string& p : placements) req.add_placements()->set_placement(p);
    if (pressed) req.mutable_placements()->rbegin()->set_clock_pressed(true);
    return Unary(Stub().get(), &S::SubmitBoardFeed, req, Token(service::Role::kService), reply);
  }

  // The game as `token`'s holder sees it (a failed call fails the test).
  arbiter::v1::GameReply Get(const std::string& game, const std::string& token) {
    arbiter::v1::GameReply reply;
    EXPECT_TRUE(Succeeded(Unary(Stub().get(), &S::GetGame,
                                ForGame<arbiter::v1::GetGameRequest>(game), token, &reply)));
    return reply;
  }
  arbiter::v1::GameReply Get(const std::string& game,
                             service::Role role = service::Role::kArbiter) {
    return Get(game, Token(role, game));
  }
  std::string Pgn(const std::string& game, service::Role role = service::Role::kArbiter) {
    arbiter::v1::ExportPgnReply reply;
    EXPECT_TRUE(
        Succeeded(Unary(Stub().get(), &S::ExportPgn, ForGame<arbiter::v1::ExportPgnRequest>(game),
                        Token(role, game), &reply)));
    return reply.pgn();
  }

  // The first `count` updates of WatchGame with `token`.
  std::vector<arbiter::v1::GameUpdate> Watch(const std::string& game, const std::string& token,
                                             size_t count) {
    Call call(token, absl::Seconds(5));
    auto reader = Stub()->WatchGame(&call, ForGame<arbiter::v1::WatchGameRequest>(game));
    std::vector<arbiter::v1::GameUpdate> updates;
    arbiter::v1::GameUpdate update;
    while (updates.size() < count && reader->Read(&update)) updates.push_back(update);
    call.TryCancel();
    while (reader->Read(&update)) {
    }
    reader->Finish();
    return updates;
  }
  // The game's whole log, as the arbiter's WatchGame sends it.
  std::vector<arbiter::v1::ArbitrationEvent> Log(const std::string& game) {
    const std::int64_t head = Get(game).game().version();
    std::vector<arbiter::v1::ArbitrationEvent> events;
    for (const arbiter::v1::GameUpdate& u :
         Watch(game, Token(service::Role::kArbiter), static_cast<size_t>(head))) {
      events.push_back(u.event());
    }
    return events;
  }
};

// GameServerTest on a server that hosts the clock-authority service beside the games.
template <typename Derived>
class GamesAndClocksTest : public GameServerTest<Derived> {
 public:
  static TestServerOptions Options(Store store) {
    return WithoutMetrics({Service::kClock, Service::kArbitration}, store);
  }

 protected:
  using C = arbiter::v1::ClockAuthority::Stub;
};

// Boards as the board relay reports them (the placement alone): the start; White's knight g1
// lifted; the knight on f3.
inline constexpr char kStart[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
inline constexpr char kNoG1[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R";
inline constexpr char kNf3[] = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R";

}  // namespace integration

#endif  // ARBITER_TESTS_INTEGRATION_TESTING_GAME_SERVER_H_
