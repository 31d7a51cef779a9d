// Callers who try to learn or take more than their token gives, against a real server with JWT
// auth, on the in-memory store and on a redis-server the test starts: a token without a subject
// (which would share one rate bucket, stream count and command-id scope with every other such
// token), an observer probing the game's true progress during the broadcast delay, a platform
// sending durations and counts at the int64 limits, and players and observers reading who did
// what (subjects, command ids) in WatchGame.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
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

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

class HostileCallerTest : public GamesAndClocksTest<HostileCallerTest> {
 protected:
  // WatchGame's status when it resumes after `after_version`.
  grpc::Status WatchFrom(const std::string& game, const std::string& token,
                         std::int64_t after_version) {
    Call call(token, absl::Seconds(2));
    auto req = ForGame<v1::WatchGameRequest>(game);
    req.set_after_version(after_version);
    auto reader = Stub()->WatchGame(&call, req);
    return FirstMessage(&call, reader.get());
  }
};

// A token without "sub" is refused before anything is served: it would share one rate bucket,
// one stream count and one command-id scope with every other token without one.
TEST_P(HostileCallerTest, ATokenWithoutSubjectIsRefused) {
  const std::string game = GameId("nosub");
  for (Role role : {Role::kPlatform, Role::kArbiter, Role::kObserver, Role::kPlayer}) {
    service::TokenClaims claims = Claims(role, game);
    claims.subject.clear();
    grpc::Status st = Unary(Stub().get(), &S::CreateGame, AliceBobGame(game), Sign(claims));
    EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << static_cast<int>(role);
    EXPECT_EQ(Code(st), "ERR_UNAUTHENTICATED");
  }
  // With a subject, the same call is served.
  EXPECT_TRUE(
      Succeeded(Unary(Stub().get(), &S::CreateGame, AliceBobGame(game), Token(Role::kPlatform))));
}

// An observer's answers come from the delayed view only: the version a watch may resume from,
// its error's message, and GetGame's instant and clocks never tell how far the game really is.
TEST_P(HostileCallerTest, AnObserverLearnsNothingDuringTheBroadcastDelay) {
  const std::string game = GameId("delay");
  v1::CreateGameRequest req = AliceBobGame(game);
  req.set_broadcast_delay_plies(1);
  Ready(req);
  const std::string observer = Token(Role::kObserver);
  const v1::GameReply before = Get(game, observer);
  absl::SleepFor(absl::Milliseconds(50));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4")));  // held back
  absl::SleepFor(absl::Milliseconds(50));
  const v1::GameReply truth = Get(game, Token(Role::kArbiter));
  const v1::GameReply seen = Get(game, observer);
  ASSERT_GT(truth.game().version(), seen.game().version());
  EXPECT_EQ(seen.game().version(), before.game().version());
  EXPECT_EQ(seen.game().moves_san_size(), 0);
  // The instant and the clocks of the view: as they stood at the last event he sees, the same
  // as before the hidden move was made (not the instant it was made).
  EXPECT_EQ(seen.game().now_ms(), before.game().now_ms());
  EXPECT_EQ(seen.game().white_ms(), before.game().white_ms());
  EXPECT_EQ(seen.game().black_ms(), before.game().black_ms());
  // No deadline that appears or vanishes with a hidden move.
  EXPECT_EQ(before.game().deadline_ms(), 0);
  EXPECT_EQ(seen.game().deadline_ms(), 0);
  std::int64_t moved_at = 0;
  for (const v1::GameUpdate& u : Watch(game, Token(Role::kArbiter), truth.game().version())) {
    if (u.event().has_move()) moved_at = u.event().at_ms();
  }
  ASSERT_GT(moved_at, 0);
  EXPECT_LT(seen.game().now_ms(), moved_at);
  // Resuming beyond the delayed view is refused with the delayed view's version, for any
  // version beyond it: the true one included.
  for (std::int64_t after : {std::int64_t{999}, truth.game().version()}) {
    grpc::Status st = WatchFrom(game, observer, after);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::OUT_OF_RANGE) << after;
    EXPECT_EQ(Code(st), "ERR_BAD_VERSION");
    EXPECT_TRUE(
        absl::StrContains(st.error_message(), absl::StrCat("[0, ", seen.game().version(), "]")))
        << st.error_message();
    EXPECT_FALSE(
        absl::StrContains(st.error_message(), absl::StrCat("[0, ", truth.game().version(), "]")))
        << st.error_message();
  }
  // The arbiter's watch resumes from the true version.
  EXPECT_EQ(WatchFrom(game, Token(Role::kArbiter), 999).error_code(),
            grpc::StatusCode::OUT_OF_RANGE);
  EXPECT_TRUE(Succeeded(WatchFrom(game, Token(Role::kArbiter), truth.game().version() - 1)));
}

// Durations and counts at the int64 limits: refused with INVALID_ARGUMENT ERR_OUT_OF_BOUNDS, and
// nothing is created or changed (a default time of INT64_MAX used to end the game by 6.7 at once).
TEST_P(HostileCallerTest, DurationsAndCountsBeyondTheirBoundsAreRefused) {
  const std::string game = GameId("bounds");
  std::vector<v1::CreateGameRequest> bad;
  for (int i = 0; i < 5; ++i) bad.push_back(AliceBobGame(game));
  bad[0].mutable_ruleset()->mutable_regulations()->set_default_time_ms(kInt64Max);
  bad[1].mutable_ruleset()->mutable_regulations()->set_illegal_move_extra_ms(kInt64Max);
  bad[2].mutable_ruleset()->mutable_regulations()->set_max_draw_offers(
      std::numeric_limits<std::int32_t>::max());
  bad[3].mutable_ruleset()->mutable_regulations()->set_no_draw_offers_before_move(
      std::numeric_limits<std::int32_t>::max());
  bad[4].set_scheduled_start_ms(kInt64Max);
  for (size_t i = 0; i < bad.size(); ++i) {
    grpc::Status st = Unary(Stub().get(), &S::CreateGame, bad[i], Token(Role::kPlatform));
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << i;
    EXPECT_EQ(Code(st), "ERR_OUT_OF_BOUNDS") << i;
  }
  EXPECT_EQ(
      Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(game), Token(Role::kArbiter))
          .error_code(),
      grpc::StatusCode::NOT_FOUND);
  // A generous but real default time (two hours) is served.
  v1::CreateGameRequest good = AliceBobGame(game);
  good.mutable_ruleset()->mutable_regulations()->set_default_time_ms(7'200'000);
  Ready(good);
  const v1::GameReply before = Get(game, Token(Role::kArbiter));
  EXPECT_EQ(before.game().status(), v1::GAME_STATUS_ONGOING);
  // The arbiter's commands carry durations too.
  auto adjust = ForGame<v1::AdjustTimeRequest>(game);
  adjust.set_side(v1::COLOR_BLACK);
  adjust.set_delta_ms(kInt64Max);
  adjust.set_reason("hostile");
  EXPECT_EQ(Code(Unary(Stub().get(), &S::AdjustTime, adjust, Token(Role::kArbiter))),
            "ERR_OUT_OF_BOUNDS");
  auto set = ForGame<v1::SetClocksRequest>(game);
  set.set_white_ms(kInt64Max);
  set.set_black_ms(600'000);
  set.set_reason("hostile");
  EXPECT_EQ(Code(Unary(Stub().get(), &S::SetClocks, set, Token(Role::kArbiter))),
            "ERR_OUT_OF_BOUNDS");
  auto report = ForGame<v1::ReportIllegalMoveRequest>(game);
  report.set_from("e1");
  report.set_to("e3");
  report.set_white_ms(kInt64Max);
  report.set_black_ms(kInt64Max);
  EXPECT_EQ(Code(Unary(Stub().get(), &S::ReportIllegalMove, report, Token(Role::kArbiter))),
            "ERR_OUT_OF_BOUNDS");
  const v1::GameReply after = Get(game, Token(Role::kArbiter));
  EXPECT_EQ(after.game().version(), before.game().version());
  EXPECT_EQ(after.game().status(), v1::GAME_STATUS_ONGOING);

  // The clock service: CreateClock with a default time of INT64_MAX.
  using C = v1::ClockAuthority::Stub;
  auto clocks = server()->Stub<v1::ClockAuthority>();
  auto create = ForGame<v1::CreateClockRequest>(GameId("clockbounds"));
  create.set_time_control("300+2");
  create.set_edition(v1::EDITION_FIDE_2023);
  create.set_default_time_ms(kInt64Max);
  grpc::Status st = Unary(clocks.get(), &C::CreateClock, create, Token(Role::kPlatform));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Code(st), "ERR_OUT_OF_BOUNDS");
  create.set_default_time_ms(3'600'000);
  EXPECT_TRUE(Succeeded(Unary(clocks.get(), &C::CreateClock, create, Token(Role::kPlatform))));
}

// Who did what is the arbiters' and the platform's: a player sees his own subject and command ids,
// never the opponent's or the server's; an observer sees no subject and no command id; both still
// see every actor's role.
TEST_P(HostileCallerTest, PlayersAndObserversSeeNoOneElsesSubjectOrCommandIds) {
  const std::string game = GameId("actors");
  Ready(AliceBobGame(game));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_WHITE, "e4", nullptr, false, "white-1")));
  ASSERT_TRUE(Succeeded(Move(game, v1::COLOR_BLACK, "e5", nullptr, false, "black-1")));
  const size_t events = static_cast<size_t>(Get(game, Token(Role::kArbiter)).game().version());
  // The arbiter sees everyone.
  std::vector<v1::GameUpdate> all = Watch(game, Token(Role::kArbiter), events);
  ASSERT_EQ(all.size(), events);
  bool saw_white = false;
  bool saw_black = false;
  for (const v1::GameUpdate& u : all) {
    EXPECT_FALSE(u.event().actor().subject().empty());
    saw_white = saw_white || u.command_id() == "white-1";
    saw_black = saw_black || u.command_id() == "black-1";
  }
  EXPECT_TRUE(saw_white && saw_black);
  // White sees his own.
  for (const v1::GameUpdate& u : Watch(game, PlayerToken(game, v1::COLOR_WHITE), events)) {
    EXPECT_FALSE(u.event().actor().role().empty());
    if (u.event().actor().role() == "player" && u.event().move().san() == "e4") {
      EXPECT_EQ(u.event().actor().subject(), "player-white");
      EXPECT_EQ(u.command_id(), "white-1");
    } else {
      EXPECT_EQ(u.event().actor().subject(), "") << u.ShortDebugString();
      EXPECT_EQ(u.command_id(), "") << u.ShortDebugString();
    }
  }
  // An observer sees no one's.
  const std::vector<v1::GameUpdate> observed = Watch(game, Token(Role::kObserver), events);
  ASSERT_EQ(observed.size(), events);
  for (const v1::GameUpdate& u : observed) {
    EXPECT_FALSE(u.event().actor().role().empty());
    EXPECT_EQ(u.event().actor().subject(), "") << u.ShortDebugString();
    EXPECT_EQ(u.command_id(), "") << u.ShortDebugString();
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, HostileCallerTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
