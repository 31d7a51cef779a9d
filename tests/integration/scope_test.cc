// Over real gRPC, on the in-memory store and on a real redis-server: whose command ids
// (the server's own are refused to clients; one caller's ids do not block another's; the flag is
// still recorded once, at its instant), and scope (a player reads and watches only the clock of
// his own game; a token that serves one event acts only on its games; every clock command
// records who sent it).
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
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

class ScopeTest : public GamesAndClocksTest<ScopeTest> {
 protected:
  // A clock for `game` (the arbiters' form `human`, 2005 standard), created by the platform.
  void CreateClock(const std::string& game, const std::string& human) {
    auto req = ForGame<v1::CreateClockRequest>(game);
    req.set_time_control_human(human);
    req.set_edition(v1::EDITION_FIDE_2005);
    req.set_game_type(v1::GAME_TYPE_STANDARD);
    ASSERT_TRUE(Succeeded(Unary(ClockStub().get(), &C::CreateClock, req, Token(Role::kPlatform))));
  }
  void StartClock(const std::string& game) {
    ASSERT_TRUE(Succeeded(Unary(ClockStub().get(), &C::StartClock,
                                ForGame<v1::StartClockRequest>(game), Token(Role::kArbiter))));
  }
  grpc::Status PressAs(const std::string& game, v1::Color side, const std::string& command_id,
                       v1::ClockResponse* reply = nullptr) {
    auto req = ForGame<v1::PressClockRequest>(game);
    req.set_color(side);
    req.set_command_id(command_id);
    const chess::Color c = side == v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack;
    return Unary(ClockStub().get(), &C::PressClock, req, Token(Role::kPlayer, game, c), reply);
  }
  std::vector<v1::ClockUpdate> ClockLog(const std::string& game) {
    v1::WatchClockRequest req;
    req.set_game_id(game);
    Call call(Token(Role::kArbiter), absl::Milliseconds(500));
    std::unique_ptr<grpc::ClientReader<v1::ClockUpdate>> reader =
        ClockStub()->WatchClock(&call, req);
    std::vector<v1::ClockUpdate> out;
    v1::ClockResponse head;
    EXPECT_TRUE(Succeeded(Unary(ClockStub().get(), &C::GetClock, ForGame<v1::GetClockRequest>(game),
                                Token(Role::kArbiter), &head)));
    v1::ClockUpdate u;
    while (static_cast<std::int64_t>(out.size()) < head.version() && reader->Read(&u)) {
      out.push_back(u);
    }
    call.TryCancel();
    reader->Finish();
    return out;
  }
  // WatchClock of `game` with `token`, which must end before its first update: how it ended.
  grpc::Status RefusedWatch(const std::string& game, const std::string& token) {
    Call call(token, absl::Seconds(2));
    auto reader = ClockStub()->WatchClock(&call, ForGame<v1::WatchClockRequest>(game));
    v1::ClockUpdate u;
    EXPECT_FALSE(reader->Read(&u));
    return reader->Finish();
  }
  // Refused as a call on another event's game: PERMISSION_DENIED, ERR_OTHER_EVENT.
  static void ExpectOtherEvent(const grpc::Status& st) {
    EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  }
  static v1::CreateGameRequest GameRequest(const std::string& game, const std::string& event) {
    return EventGame(game, "5400", v1::EDITION_FIDE_2023, event);
  }
  static std::string EventToken(Role role, const std::string& event) {
    service::TokenClaims claims = Claims(role);
    claims.event = event;
    return Sign(claims);
  }
};

// An attack: White presses with the id the scheduler will use for Black's flag.
// Refused (INVALID_ARGUMENT ERR_RESERVED_COMMAND_ID), nothing written; the flag falls by itself,
// is recorded once at its instant, and play after it is not stuck on ERR_COMMAND_ID_REUSED.
TEST_P(ScopeTest, APressWithTheSchedulersIdIsRefusedAndTheFlagIsRecordedOnce) {
  const std::string game = GameId("x2");
  CreateClock(game, "G/0.01");  // 600 ms each
  StartClock(game);
  for (const std::string& id :
       {absl::StrCat("flag:", game, ":3"), absl::StrCat("flag:", game, ":2"), std::string("a:1"),
        absl::StrCat("settle:", game, ":3")}) {
    grpc::Status st = PressAs(game, v1::COLOR_WHITE, id);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << id;
    EXPECT_EQ(Code(st), "ERR_RESERVED_COMMAND_ID") << id;
  }
  v1::ClockResponse pressed;
  ASSERT_TRUE(Succeeded(PressAs(game, v1::COLOR_WHITE, "m1", &pressed)));
  EXPECT_EQ(pressed.version(), 3);          // the refused presses wrote nothing
  absl::SleepFor(absl::Milliseconds(900));  // Black's 600 ms run out
  std::vector<v1::ClockUpdate> log = ClockLog(game);
  ASSERT_EQ(log.size(), 4u);
  ASSERT_TRUE(log[3].event().has_flag_fell());
  EXPECT_EQ(log[3].event().flag_fell().side(), v1::COLOR_BLACK);
  EXPECT_EQ(log[3].event().flag_fell().fell_at_ms(), log[2].event().pressed().at_ms() + 600);
  EXPECT_EQ(log[3].command_id(), absl::StrCat("flag:", game, ":3"));
  EXPECT_EQ(log[3].event().actor().role(), "server");
  // The press is shown with the id its player sent, and who sent it.
  EXPECT_EQ(log[2].command_id(), "m1");
  EXPECT_EQ(log[2].event().actor().subject(), "player-white");
  EXPECT_EQ(log[2].event().actor().role(), "player");
  EXPECT_EQ(log[1].event().actor().role(), "arbiter");
  EXPECT_EQ(log[0].event().actor().role(), "platform");
  // The game goes on being arbitrated: a press now is refused for the fallen flag, not for ids.
  grpc::Status late = PressAs(game, v1::COLOR_BLACK, "m2");
  EXPECT_NE(Code(late), "ERR_COMMAND_ID_REUSED");
}

// A command id is its caller's: White's "c1" does not block Black's "c1", and White's retry is
// still answered from the record (replayed).
TEST_P(ScopeTest, OneCallersCommandIdDoesNotBlockAnothers) {
  const std::string game = GameId("ids");
  CreateClock(game, "G/60");
  StartClock(game);
  v1::ClockResponse white, black, retry;
  ASSERT_TRUE(Succeeded(PressAs(game, v1::COLOR_WHITE, "c1", &white)));
  ASSERT_TRUE(Succeeded(PressAs(game, v1::COLOR_BLACK, "c1", &black)));
  EXPECT_FALSE(black.replayed());
  EXPECT_EQ(black.version(), white.version() + 1);
  ASSERT_TRUE(Succeeded(PressAs(game, v1::COLOR_WHITE, "c1", &retry)));
  EXPECT_TRUE(retry.replayed());
  EXPECT_EQ(retry.version(), white.version());

  // The same in a game: Black's "c1" is not White's.
  const std::string g = GameId("ids-game");
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::CreateGame, GameRequest(g, "Open"), Token(Role::kPlatform))));
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(g), Token(Role::kArbiter))));
  for (auto [side, move, color] : {std::tuple{v1::COLOR_WHITE, "e4", chess::Color::kWhite},
                                   std::tuple{v1::COLOR_BLACK, "e5", chess::Color::kBlack}}) {
    auto req = ForGame<v1::SubmitMoveRequest>(g);
    req.set_side(side);
    req.set_move(move);
    req.set_command_id("c1");
    v1::GameReply reply;
    ASSERT_TRUE(
        Succeeded(Unary(Stub().get(), &S::SubmitMove, req, Token(Role::kPlayer, g, color), &reply)))
        << move;
  }
  // And the server's ids are refused to a game's players too.
  auto bad = ForGame<v1::SubmitMoveRequest>(g);
  bad.set_side(v1::COLOR_WHITE);
  bad.set_move("Nf3");
  bad.set_command_id(absl::StrCat("settle:", g, ":4"));
  grpc::Status st =
      Unary(Stub().get(), &S::SubmitMove, bad, Token(Role::kPlayer, g, chess::Color::kWhite));
  EXPECT_EQ(Code(st), "ERR_RESERVED_COMMAND_ID");
}

// A player reads and watches only the clock of his own game.
TEST_P(ScopeTest, APlayerReadsAndWatchesOnlyHisOwnClock) {
  const std::string mine = GameId("mine");
  const std::string other = GameId("other");
  CreateClock(mine, "G/60");
  CreateClock(other, "G/60");
  const std::string token = Token(Role::kPlayer, mine, chess::Color::kWhite);
  EXPECT_TRUE(
      Succeeded(Unary(ClockStub().get(), &C::GetClock, ForGame<v1::GetClockRequest>(mine), token)));
  grpc::Status st =
      Unary(ClockStub().get(), &C::GetClock, ForGame<v1::GetClockRequest>(other), token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Code(st), "ERR_PERMISSION_DENIED");

  st = RefusedWatch(other, token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // Observers still read any clock.
  EXPECT_TRUE(Succeeded(Unary(ClockStub().get(), &C::GetClock, ForGame<v1::GetClockRequest>(other),
                              Token(Role::kObserver))));
}

// An arbiter token that serves one event acts (and reads) only on that event's games; one without
// an event claim acts on every game, as before.
TEST_P(ScopeTest, AnArbiterOfOneEventActsOnlyOnItsGames) {
  const std::string ours = GameId("ours");
  const std::string theirs = GameId("theirs");
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::CreateGame, GameRequest(ours, "Open A"), Token(Role::kPlatform))));
  ASSERT_TRUE(Succeeded(
      Unary(Stub().get(), &S::CreateGame, GameRequest(theirs, "Open B"), Token(Role::kPlatform))));
  const std::string arbiter_a = EventToken(Role::kArbiter, "Open A");
  EXPECT_TRUE(Succeeded(
      Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(ours), arbiter_a)));
  grpc::Status st =
      Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(theirs), arbiter_a);
  ExpectOtherEvent(st);
  auto rule = ForGame<v1::SetResultRequest>(theirs);
  rule.set_result(v1::RESULT_DRAW);
  rule.set_article("12.2");
  rule.set_reason("test");
  st = Unary(Stub().get(), &S::SetResult, rule, arbiter_a);
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  st = Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(theirs), arbiter_a);
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  // Nothing happened to their game; an arbiter without an event claim still starts it.
  v1::GameReply reply;
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(theirs),
                              Token(Role::kArbiter), &reply)));
  EXPECT_EQ(reply.game().version(), 1);
  EXPECT_TRUE(Succeeded(Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(theirs),
                              Token(Role::kArbiter))));
  // A platform token that serves one event creates only that event's games.
  st = Unary(Stub().get(), &S::CreateGame, GameRequest(GameId("new"), "Open B"),
             EventToken(Role::kPlatform, "Open A"));
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  // ... and moves only in them (SubmitMove, the completion-queue path): refused on theirs,
  // played on ours.
  auto move = ForGame<v1::SubmitMoveRequest>(theirs);
  move.set_side(v1::COLOR_WHITE);
  move.set_move("e4");
  st = Unary(Stub().get(), &S::SubmitMove, move, EventToken(Role::kPlatform, "Open A"));
  ExpectOtherEvent(st);
  ASSERT_TRUE(Succeeded(Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(theirs),
                              Token(Role::kArbiter), &reply)));
  EXPECT_TRUE(reply.game().moves_san().empty());
  move.set_game_id(ours);
  EXPECT_TRUE(
      Succeeded(Unary(Stub().get(), &S::SubmitMove, move, EventToken(Role::kPlatform, "Open A"))));
}

// The same for clocks (CreateClockRequest.event).
TEST_P(ScopeTest, AnArbiterOfOneEventActsOnlyOnItsClocks) {
  const std::string ours = GameId("clock-ours");
  const std::string theirs = GameId("clock-theirs");
  for (auto [game, event] : {std::pair{ours, "Open A"}, std::pair{theirs, "Open B"}}) {
    auto req = ForGame<v1::CreateClockRequest>(game);
    req.set_time_control_human("G/60");
    req.set_edition(v1::EDITION_FIDE_2023);
    req.set_event(event);
    ASSERT_TRUE(Succeeded(Unary(ClockStub().get(), &C::CreateClock, req, Token(Role::kPlatform))));
  }
  const std::string arbiter_a = EventToken(Role::kArbiter, "Open A");
  EXPECT_TRUE(Succeeded(
      Unary(ClockStub().get(), &C::StartClock, ForGame<v1::StartClockRequest>(ours), arbiter_a)));
  EXPECT_TRUE(Succeeded(
      Unary(ClockStub().get(), &C::PauseClock, ForGame<v1::PauseClockRequest>(ours), arbiter_a)));
  grpc::Status st =
      Unary(ClockStub().get(), &C::StartClock, ForGame<v1::StartClockRequest>(theirs), arbiter_a);
  ExpectOtherEvent(st);
  st = Unary(ClockStub().get(), &C::GetClock, ForGame<v1::GetClockRequest>(theirs), arbiter_a);
  EXPECT_EQ(Code(st), "ERR_OTHER_EVENT");
  EXPECT_EQ(Code(RefusedWatch(theirs, arbiter_a)), "ERR_OTHER_EVENT");
  // Their clock was not started; an arbiter without an event claim starts it.
  v1::ClockResponse got;
  ASSERT_TRUE(Succeeded(Unary(ClockStub().get(), &C::GetClock, ForGame<v1::GetClockRequest>(theirs),
                              Token(Role::kArbiter), &got)));
  EXPECT_EQ(got.version(), 1);
  EXPECT_TRUE(Succeeded(Unary(ClockStub().get(), &C::StartClock,
                              ForGame<v1::StartClockRequest>(theirs), Token(Role::kArbiter))));
}

INSTANTIATE_TEST_SUITE_P(Stores, ScopeTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
