// The clock-authority service over real gRPC on loopback, on the in-memory store and on a real
// redis-server started by the test: every RPC, stable error codes, retries, the auth matrix
// (roles x methods, a player's own game and colour), WatchClock with resume, flags that fire
// from the server in real time, and /metrics.
#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "libs/store/redis_game_store.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "tests/integration/testing/auth_matrix.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;
using S = v1::ClockAuthority::Stub;

class ClockServerTest : public EachStoreTest<ClockServerTest> {
 public:
  static TestServerOptions Options(Store store) {
    return TestServerOptions({Service::kClock}, store);
  }

 protected:
  std::unique_ptr<S> Stub() { return server()->Stub<v1::ClockAuthority>(); }
  grpc::Status Create(const std::string& game, const std::string& human, v1::Edition edition,
                      v1::GameType type = v1::GAME_TYPE_UNSPECIFIED) {
    auto req = ForGame<v1::CreateClockRequest>(game);
    req.set_time_control_human(human);
    req.set_edition(edition);
    req.set_game_type(type);
    return Unary(Stub().get(), &S::CreateClock, req, Token(Role::kPlatform));
  }
  grpc::Status Start(const std::string& game) {
    return Unary(Stub().get(), &S::StartClock, ForGame<v1::StartClockRequest>(game),
                 Token(Role::kArbiter));
  }
  v1::ClockResponse Get(const std::string& game) {
    v1::ClockResponse resp;
    grpc::Status st = Unary(Stub().get(), &S::GetClock, ForGame<v1::GetClockRequest>(game),
                            Token(Role::kObserver), &resp);
    EXPECT_TRUE(st.ok()) << st.error_message();
    return resp;
  }
  // The platform presses `press` (for whoever is to move unless it names a colour).
  grpc::Status Press(const v1::PressClockRequest& press, v1::ClockResponse* reply = nullptr) {
    return Unary(Stub().get(), &S::PressClock, press, Token(Role::kPlatform), reply);
  }
  // A fresh game for `name`, created (G/60 under 2023) and, when `started`, started.
  std::string Ready(const std::string& name, bool started = true) {
    const std::string game = GameId(name);
    EXPECT_TRUE(Create(game, "G/60", v1::EDITION_FIDE_2023).ok()) << game;
    if (started) {
      EXPECT_TRUE(Start(game).ok()) << game;
    }
    return game;
  }
};

TEST_P(ClockServerTest, CreateStartPressGet) {
  const std::string game = GameId("g");
  auto stub = Stub();
  v1::CreateClockRequest create;
  create.set_game_id(game);
  create.set_time_control("40/5400+30:1800+30");
  create.set_edition(v1::EDITION_FIDE_2001);
  v1::ClockResponse resp;
  ASSERT_TRUE(Unary(stub.get(), &S::CreateClock, create, Token(Role::kPlatform), &resp).ok());
  EXPECT_EQ(resp.version(), 1);
  EXPECT_EQ(resp.clock().status(), "not_started");
  EXPECT_EQ(resp.clock().white_ms(), 5'400'000);
  EXPECT_EQ(resp.clock().speed(), v1::GAME_TYPE_STANDARD);
  EXPECT_EQ(resp.clock().time_control(), "40/5400+30:1800+30");
  ASSERT_TRUE(Start(game).ok());
  const std::int64_t started_at = Get(game).clock().server_time_ms();
  absl::SleepFor(absl::Milliseconds(30));
  auto press = ForGame<v1::PressClockRequest>(game);
  press.set_color(v1::COLOR_WHITE);
  grpc::Status st = Unary(stub.get(), &S::PressClock, press,
                          Token(Role::kPlayer, game, chess::Color::kWhite), &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.version(), 3);
  EXPECT_EQ(resp.clock().white_moves(), 1);
  EXPECT_EQ(resp.clock().running(), v1::COLOR_BLACK);
  // 6.8a + increment: white used ~30 ms and got 30 s.
  EXPECT_GT(resp.clock().white_ms(), 5'400'000 + 30'000 - 1'000);
  EXPECT_LT(resp.clock().white_ms(), 5'400'000 + 30'000 - 25);
  v1::ClockResponse got = Get(game);
  EXPECT_EQ(got.version(), 3);
  EXPECT_GE(got.clock().server_time_ms(), started_at);
  ASSERT_TRUE(got.clock().has_deadline_ms());
  EXPECT_EQ(got.clock().deadline_ms(),
            got.clock().server_time_ms() + got.clock().black_ms() + got.clock().delay_left_ms());
}

TEST_P(ClockServerTest, ARetryIsReplayedNotAppliedTwice) {
  const std::string game = GameId("g");
  ASSERT_TRUE(Create(game, "G/60", v1::EDITION_FIDE_2023).ok());
  ASSERT_TRUE(Start(game).ok());
  auto press = ForGame<v1::PressClockRequest>(game);
  press.set_command_id("move-1");
  v1::ClockResponse first, second;
  ASSERT_TRUE(Press(press, &first).ok());
  ASSERT_TRUE(Press(press, &second).ok());
  EXPECT_FALSE(first.replayed());
  EXPECT_TRUE(second.replayed());
  EXPECT_EQ(second.version(), first.version());
  EXPECT_EQ(Get(game).clock().white_moves() + Get(game).clock().black_moves(), 1);
  // The same id for another request is refused.
  press.set_lag_ms(5);
  grpc::Status st = Press(press, &second);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_COMMAND_ID_REUSED");
}

// Presses race on the same games from many callers: each is decided on the replica's cached
// state and appended without a thread waiting (or, having lost the compare-and-set, decided again
// on the store's state). Every press is in the log exactly once, none is lost or doubled, and a
// press the race refused is applied once when sent again.
TEST_P(ClockServerTest, ConcurrentPressesAreEachAppliedOnce) {
  constexpr int kGames = 6;
  constexpr int kThreads = 8;
  constexpr int kPressesPerThread = 30;
  std::vector<std::string> games;
  for (int g = 0; g < kGames; ++g) {
    games.push_back(GameId(absl::StrCat("g", g)));
    ASSERT_TRUE(Create(games.back(), "G/60", v1::EDITION_FIDE_2023).ok());
    ASSERT_TRUE(Start(games.back()).ok());
  }
  std::vector<std::array<int, kGames>> ok(kThreads);
  std::vector<std::thread> threads;
  const std::string token = Token(Role::kPlatform);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto stub = Stub();
      ok[t].fill(0);
      for (int i = 0; i < kPressesPerThread; ++i) {
        const int g = (i + t) % kGames;
        auto press = ForGame<v1::PressClockRequest>(games[g]);  // no colour: whoever is to move
        press.set_command_id(absl::StrCat("t", t, "-", i));
        v1::ClockResponse resp;
        grpc::Status st = Unary(stub.get(), &S::PressClock, press, token, &resp);
        // A press that lost the compare-and-set max_attempts times in a row is refused ABORTED
        // ERR_VERSION_CONFLICT, applied nowhere; the caller sends it again, as a platform does,
        // under the same command id.
        for (int retry = 0; retry < 20 && st.error_code() == grpc::StatusCode::ABORTED; ++retry) {
          EXPECT_EQ(Code(st), "ERR_VERSION_CONFLICT") << st.error_message();
          st = Unary(stub.get(), &S::PressClock, press, token, &resp);
        }
        EXPECT_TRUE(st.ok()) << st.error_message();
        if (st.ok()) {
          EXPECT_FALSE(resp.replayed());
          ++ok[t][g];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int g = 0; g < kGames; ++g) {
    int presses = 0;
    for (int t = 0; t < kThreads; ++t) presses += ok[t][g];
    const v1::ClockResponse now = Get(games[g]);
    EXPECT_EQ(now.version(), 2 + presses) << games[g];  // created, started, the presses
    EXPECT_EQ(now.clock().white_moves() + now.clock().black_moves(), presses) << games[g];
  }
}

// Redis stopped: a press is UNAVAILABLE (ERR_STORE_UNAVAILABLE) and changes nothing; once it is
// back, the platform's retry of the same command applies it, once.
TEST_P(ClockServerTest, APressWhileRedisIsDownIsUnavailableAndItsRetryAppliesOnce) {
  if (GetParam() != Store::kRedis) GTEST_SKIP() << "the memory store cannot go down";
  const std::string game = GameId("g");
  ASSERT_TRUE(Create(game, "G/60", v1::EDITION_FIDE_2023).ok());
  ASSERT_TRUE(Start(game).ok());
  const std::int64_t before = Get(game).version();
  auto press = ForGame<v1::PressClockRequest>(game);
  press.set_command_id("during-outage");
  v1::ClockResponse resp;
  ASSERT_TRUE(server()->redis()->Stop(SIGKILL).ok());
  grpc::Status st = Press(press, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
  EXPECT_EQ(Code(st), "ERR_STORE_UNAVAILABLE");
  ASSERT_TRUE(server()->redis()->Restart().ok());
  st = Press(press, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_FALSE(resp.replayed());
  EXPECT_EQ(resp.version(), before + 1);
  ASSERT_TRUE(Press(press, &resp).ok());
  EXPECT_TRUE(resp.replayed());
  EXPECT_EQ(resp.version(), before + 1);
  EXPECT_EQ(Get(game).version(), before + 1);
}

TEST_P(ClockServerTest, ErrorsCarryStableCodes) {
  grpc::Status st = Unary(Stub().get(), &S::GetClock, ForGame<v1::GetClockRequest>(GameId("none")),
                          Token(Role::kObserver));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Code(st), "ERR_CLOCK_NOT_FOUND");
  const std::string game = GameId("g");
  ASSERT_TRUE(Create(game, "G/60", v1::EDITION_FIDE_2023).ok());
  st = Create(game, "G/60", v1::EDITION_FIDE_2023);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(Code(st), "ERR_GAME_EXISTS");
  st = Create(GameId("bad"), "G/sixty", v1::EDITION_FIDE_2023);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Code(st), "ERR_BAD_TIME_CONTROL");
  st = Create("no spaces allowed", "G/60", v1::EDITION_FIDE_2023);
  EXPECT_EQ(Code(st), "ERR_BAD_ARGUMENT");
  auto press = ForGame<v1::PressClockRequest>(game);
  st = Press(press);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_CLOCK_NOT_STARTED");
  ASSERT_TRUE(Start(game).ok());
  press.set_color(v1::COLOR_BLACK);
  EXPECT_EQ(Code(Press(press)), "ERR_NOT_YOUR_TURN");
  press.set_color(v1::COLOR_WHITE);
  press.set_expected_version(1);
  st = Press(press);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_EQ(Code(st), "ERR_VERSION_CONFLICT");
}

TEST_P(ClockServerTest, ArbiterOperations) {
  const std::string game = GameId("g");
  ASSERT_TRUE(Create(game, "90+30", v1::EDITION_FIDE_2001).ok());
  ASSERT_TRUE(Start(game).ok());
  auto stub = Stub();
  const std::string arbiter = Token(Role::kArbiter);
  v1::ClockResponse resp;
  ASSERT_TRUE(
      Unary(stub.get(), &S::PauseClock, ForGame<v1::PauseClockRequest>(game), arbiter, &resp).ok());
  EXPECT_EQ(resp.clock().status(), "paused");
  EXPECT_FALSE(resp.clock().has_deadline_ms());
  auto adjust = ForGame<v1::AdjustClockRequest>(game);  // 7.4b: an illegal move gives time
  adjust.set_side(v1::COLOR_BLACK);
  adjust.set_delta_ms(120'000);
  adjust.set_reason("7.4b");
  ASSERT_TRUE(Unary(stub.get(), &S::AdjustClock, adjust, arbiter, &resp).ok());
  EXPECT_EQ(resp.clock().black_ms(), 5'400'000 + 120'000);
  adjust.set_delta_ms(-1);
  EXPECT_EQ(Code(Unary(stub.get(), &S::AdjustClock, adjust, arbiter, &resp)), "ERR_BAD_ADJUSTMENT");
  ASSERT_TRUE(
      Unary(stub.get(), &S::ResumeClock, ForGame<v1::ResumeClockRequest>(game), arbiter, &resp)
          .ok());
  EXPECT_EQ(resp.clock().status(), "running");
  auto set = ForGame<v1::SetClockRequest>(game);  // 6.14
  set.set_white_ms(600'000);
  set.set_black_ms(700'000);
  set.set_white_moves(12);
  set.set_black_moves(12);
  ASSERT_TRUE(Unary(stub.get(), &S::SetClock, set, arbiter, &resp).ok());
  EXPECT_EQ(resp.clock().white_moves(), 12);
  EXPECT_EQ(resp.clock().black_ms(), 700'000);
  auto replace = ForGame<v1::ReplaceClockRequest>(game);  // 6.11
  replace.set_white_ms(500'000);
  replace.set_black_ms(400'000);
  ASSERT_TRUE(Unary(stub.get(), &S::ReplaceClock, replace, arbiter, &resp).ok());
  EXPECT_EQ(resp.clock().black_ms(), 400'000);
  EXPECT_EQ(resp.clock().white_moves(), 12);
}

// What each role gets from each method; bad tokens are refused (auth_matrix.h). Each call acts on
// a fresh game in the state its method needs; a player's token is for that game and White.
TEST_P(ClockServerTest, AuthMatrix) {
  // clang-format off
  const std::vector<AuthRow> matrix = {
      // method           platform  player  arbiter  observer  service
      {"CreateClock",     OK,       NO,     OK,      NO,       OK},
      {"StartClock",      OK,       NO,     OK,      NO,       OK},
      {"RecordArrival",   OK,       NO,     OK,      NO,       OK},
      {"PressClock",      OK,       OK,     OK,      NO,       OK},
      {"ClaimFlag",       OK,       OK,     OK,      NO,       OK},
      {"GetClock",        OK,       OK,     OK,      OK,       OK},
      {"WatchClock",      OK,       OK,     OK,      OK,       OK},
      {"PauseClock",      NO,       NO,     OK,      NO,       OK},
      {"ResumeClock",     NO,       NO,     OK,      NO,       OK},
      {"AdjustClock",     NO,       NO,     OK,      NO,       OK},
      {"SetClock",        NO,       NO,     OK,      NO,       OK},
      {"ReplaceClock",    NO,       NO,     OK,      NO,       OK},
  };
  // clang-format on
  auto stub = Stub();
  int n = 0;
  auto fresh = [&](bool started = true) { return Ready(absl::StrCat("m", n++), started); };
  auto as_white = [&](auto method, const auto& req, const TokenFor& t) {
    return Unary(stub.get(), method, req, t(req.game_id(), chess::Color::kWhite));
  };
  // The request for a fresh game (started unless told), with nothing else set.
  auto on_fresh = [&](auto req, bool started = true) {
    req.set_game_id(fresh(started));
    return req;
  };
  ExpectAuthMatrix(
      clock_authority_service::ClockAuthorityService::kName, matrix,
      {
          {"CreateClock",
           [&](auto& t) {
             v1::CreateClockRequest req;
             req.set_game_id(GameId(absl::StrCat("m", n++)));
             req.set_time_control("300");
             req.set_edition(v1::EDITION_FIDE_2023);
             return as_white(&S::CreateClock, req, t);
           }},
          {"StartClock",
           [&](auto& t) {
             return as_white(&S::StartClock, on_fresh(v1::StartClockRequest(), false), t);
           }},
          {"RecordArrival",
           [&](auto& t) {  // Black absent at the start, within the default time of an hour (6.7)
             auto create = ForGame<v1::CreateClockRequest>(GameId(absl::StrCat("m", n++)));
             create.set_time_control_human("G/60");
             create.set_edition(v1::EDITION_FIDE_2023);
             create.set_default_time_ms(3'600'000);
             EXPECT_TRUE(Unary(stub.get(), &S::CreateClock, create, Token(Role::kPlatform)).ok());
             auto start = ForGame<v1::StartClockRequest>(create.game_id());
             start.add_absent(v1::COLOR_BLACK);
             EXPECT_TRUE(Unary(stub.get(), &S::StartClock, start, Token(Role::kArbiter)).ok());
             auto req = ForGame<v1::RecordArrivalRequest>(start.game_id());
             req.set_side(v1::COLOR_BLACK);
             return as_white(&S::RecordArrival, req, t);
           }},
          {"PressClock",
           [&](auto& t) {
             v1::PressClockRequest req = on_fresh(v1::PressClockRequest());
             req.set_color(v1::COLOR_WHITE);
             return as_white(&S::PressClock, req, t);
           }},
          {"ClaimFlag",
           [&](auto& t) {
             v1::ClaimFlagRequest req = on_fresh(v1::ClaimFlagRequest());
             req.set_color(v1::COLOR_WHITE);
             return as_white(&S::ClaimFlag, req, t);
           }},
          {"GetClock",
           [&](auto& t) {
             return as_white(&S::GetClock, on_fresh(v1::GetClockRequest(), /*started=*/false), t);
           }},
          {"WatchClock",
           [&](auto& t) {
             v1::WatchClockRequest req;
             req.set_game_id(fresh(/*started=*/false));
             Call call(t(req.game_id(), chess::Color::kWhite));
             return FirstMessage(&call, stub->WatchClock(&call, req).get());
           }},
          {"PauseClock",
           [&](auto& t) { return as_white(&S::PauseClock, on_fresh(v1::PauseClockRequest()), t); }},
          {"ResumeClock",
           [&](auto& t) {
             auto pause = ForGame<v1::PauseClockRequest>(fresh());
             EXPECT_TRUE(Unary(stub.get(), &S::PauseClock, pause, Token(Role::kArbiter)).ok());
             return as_white(&S::ResumeClock, ForGame<v1::ResumeClockRequest>(pause.game_id()), t);
           }},
          {"AdjustClock",
           [&](auto& t) {
             v1::AdjustClockRequest req = on_fresh(v1::AdjustClockRequest());
             req.set_side(v1::COLOR_WHITE);
             req.set_delta_ms(1000);
             return as_white(&S::AdjustClock, req, t);
           }},
          {"SetClock",
           [&](auto& t) {
             v1::SetClockRequest req = on_fresh(v1::SetClockRequest());
             req.set_white_ms(600'000);
             req.set_black_ms(600'000);
             return as_white(&S::SetClock, req, t);
           }},
          {"ReplaceClock",
           [&](auto& t) {
             v1::ReplaceClockRequest req = on_fresh(v1::ReplaceClockRequest());
             req.set_white_ms(500'000);
             req.set_black_ms(400'000);
             return as_white(&S::ReplaceClock, req, t);
           }},
      });
  // A player presses only in his own game and for his own colour.
  const std::string game = fresh();
  const std::string mine = Token(Role::kPlayer, game, chess::Color::kWhite);
  for (auto [colour, in] :
       {std::pair{v1::COLOR_BLACK, game}, std::pair{v1::COLOR_UNSPECIFIED, game},
        std::pair{v1::COLOR_WHITE, GameId("other")}}) {
    auto req = ForGame<v1::PressClockRequest>(in);
    req.set_color(colour);
    grpc::Status st = Unary(stub.get(), &S::PressClock, req, mine);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED) << colour << " " << in;
  }
}

// Reads a watch stream until `until` returns true for an update or the deadline passes.
std::vector<v1::ClockUpdate> Watch(v1::ClockAuthority::Stub* stub, const std::string& game,
                                   std::int64_t after, absl::Duration timeout,
                                   const std::function<bool(const v1::ClockUpdate&)>& until) {
  v1::WatchClockRequest req;
  req.set_game_id(game);
  req.set_after_version(after);
  Call call(Token(Role::kObserver), timeout);
  std::unique_ptr<grpc::ClientReader<v1::ClockUpdate>> reader = stub->WatchClock(&call, req);
  std::vector<v1::ClockUpdate> out;
  v1::ClockUpdate update;
  while (reader->Read(&update)) {
    out.push_back(update);
    if (until(update)) {
      call.TryCancel();
      break;
    }
  }
  reader->Finish();
  return out;
}

TEST_P(ClockServerTest, FlagFiresFromTheServerWithoutAnyClientMessage) {
  const std::string game = GameId("g");
  // 300 ms, standard: the flag counts when observed (6.9).
  ASSERT_TRUE(Create(game, "G/0.005", v1::EDITION_FIDE_2005, v1::GAME_TYPE_STANDARD).ok());
  auto stub = Stub();
  std::vector<v1::ClockUpdate> updates;
  std::thread watcher([&] {
    updates = Watch(stub.get(), game, 0, absl::Milliseconds(5000),
                    [](const v1::ClockUpdate& u) { return u.event().has_flag_fell(); });
  });
  absl::SleepFor(absl::Milliseconds(50));
  ASSERT_TRUE(Start(game).ok());
  watcher.join();
  ASSERT_EQ(updates.size(), 3u);
  EXPECT_TRUE(updates[0].event().has_created());
  EXPECT_TRUE(updates[1].event().has_started());
  const v1::FlagFell& flag = updates[2].event().flag_fell();
  const std::int64_t started = updates[1].event().started().at_ms();
  EXPECT_EQ(flag.side(), v1::COLOR_WHITE);
  EXPECT_EQ(flag.fell_at_ms(), started + 300);  // the instant it fell, exactly
  EXPECT_TRUE(flag.counts());
  EXPECT_EQ(flag.article(), "6.9");
  EXPECT_GE(flag.noticed_at_ms(), flag.fell_at_ms());
  EXPECT_LE(flag.noticed_at_ms() - flag.fell_at_ms(), 100);  // loose for CI; see the benchmark
  EXPECT_EQ(updates[2].clock().white_ms(), 0);
  EXPECT_EQ(updates[2].command_id(), absl::StrCat("flag:", game, ":2"));
  v1::ClockResponse got = Get(game);
  // 6.10: the flag is not a win by itself (not "Black wins");
  // the clock says White's flag fell and that the result follows from 6.10.
  EXPECT_EQ(got.clock().decision().kind(), v1::ClockDecision::KIND_FLAG_FELL);
  EXPECT_EQ(got.clock().decision().flagged(), v1::COLOR_WHITE);
  EXPECT_EQ(got.clock().decision().result_article(), "6.10");
  EXPECT_EQ(got.clock().decision().outcome().result(), v1::RESULT_UNSPECIFIED);
  EXPECT_EQ(got.clock().decision().outcome().termination(), v1::TERMINATION_TIME_FORFEIT);
  EXPECT_EQ(got.clock().decision().outcome().winner(), v1::COLOR_UNSPECIFIED);
  EXPECT_EQ(got.clock().flag_event().fell_at_ms(), flag.fell_at_ms());
  EXPECT_EQ(got.clock().status(), "paused");
  // A late press is refused, and nothing more is written.
  EXPECT_EQ(Code(Press(ForGame<v1::PressClockRequest>(game))), "ERR_FLAG_FALLEN");
  EXPECT_EQ(Get(game).version(), 3);

  const std::string metrics = server()->Metrics();
  EXPECT_TRUE(absl::StrContains(metrics, "arbiter_clock_flags_fired_total{counts=\"true\"}"))
      << metrics.substr(0, 3000);
  EXPECT_TRUE(absl::StrContains(metrics, "arbiter_clock_flag_detection_delay_seconds_bucket"));
  EXPECT_TRUE(
      absl::StrContains(metrics, "arbiter_clock_store_latency_seconds_count{op=\"append\"}"));
  EXPECT_TRUE(absl::StrContains(metrics, "arbiter_clock_presses_total{result=\"refused\"}"));
  EXPECT_TRUE(absl::StrContains(metrics, "arbiter_clock_running_clocks"));
}

// 6.7 from the server: Black absent at the start, the event's default time (here 200 ms) runs
// out, and the loss is recorded without any client message, at the first instant after it.
TEST_P(ClockServerTest, ADefaultFiresFromTheServerWhenTheDefaultTimeRunsOut) {
  const std::string game = GameId("g");
  auto stub = Stub();
  auto create = ForGame<v1::CreateClockRequest>(game);
  create.set_time_control_human("G/60");
  create.set_edition(v1::EDITION_FIDE_2005);
  create.set_default_time_ms(200);  // the event's regulations (6.7: "unless ...")
  ASSERT_TRUE(Unary(stub.get(), &S::CreateClock, create, Token(Role::kPlatform)).ok());
  std::vector<v1::ClockUpdate> updates;
  std::thread watcher([&] {
    updates = Watch(stub.get(), game, 0, absl::Milliseconds(5000),
                    [](const v1::ClockUpdate& u) { return u.event().has_defaulted(); });
  });
  absl::SleepFor(absl::Milliseconds(50));
  auto start = ForGame<v1::StartClockRequest>(game);
  start.add_absent(v1::COLOR_BLACK);
  ASSERT_TRUE(Unary(stub.get(), &S::StartClock, start, Token(Role::kArbiter)).ok());
  watcher.join();
  ASSERT_EQ(updates.size(), 3u);
  const v1::PlayerDefaulted& d = updates[2].event().defaulted();
  ASSERT_EQ(d.sides_size(), 1);
  EXPECT_EQ(d.sides(0), v1::COLOR_BLACK);
  EXPECT_EQ(d.at_ms(), updates[1].event().started().at_ms() + 200 + 1);
  EXPECT_EQ(d.article(), "6.7");
  EXPECT_LE(d.noticed_at_ms() - d.at_ms(), 100);  // loose for CI
  const v1::ClockResponse got = Get(game);
  EXPECT_EQ(got.clock().decision().outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(got.clock().decision().outcome().termination(), v1::TERMINATION_DEFAULT);
  // Black arrives too late: refused, and nothing more is written.
  auto arrive = ForGame<v1::RecordArrivalRequest>(game);
  arrive.set_side(v1::COLOR_BLACK);
  EXPECT_EQ(Code(Unary(stub.get(), &S::RecordArrival, arrive, Token(Role::kPlatform))),
            "ERR_GAME_DECIDED");
  EXPECT_EQ(Get(game).version(), 3);
  const std::string metrics = server()->Metrics();
  EXPECT_TRUE(absl::StrContains(metrics, "arbiter_clock_defaults_total"));
  EXPECT_TRUE(absl::StrContains(metrics, "arbiter_clock_pending_deadlines"));
}

TEST_P(ClockServerTest, BlitzFlagIsRecordedAndCountsOnlyWhenClaimed) {
  const std::string game = GameId("g");
  ASSERT_TRUE(Create(game, "G/0.005", v1::EDITION_FIDE_2001).ok());  // blitz, B6
  ASSERT_TRUE(Start(game).ok());
  auto stub = Stub();
  std::vector<v1::ClockUpdate> updates =
      Watch(stub.get(), game, 2, absl::Milliseconds(5000),
            [](const v1::ClockUpdate& u) { return u.event().has_flag_fell(); });
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_FALSE(updates[0].event().flag_fell().counts());
  EXPECT_EQ(updates[0].event().flag_fell().article(), "B6");
  EXPECT_FALSE(Get(game).clock().has_decision());
  EXPECT_EQ(Get(game).clock().status(), "running");
  // B7: black claims; granted, both clocks stopped.
  auto claim = ForGame<v1::ClaimFlagRequest>(game);
  claim.set_color(v1::COLOR_BLACK);
  v1::ClockResponse resp;
  grpc::Status st = Unary(stub.get(), &S::ClaimFlag, claim,
                          Token(Role::kPlayer, game, chess::Color::kBlack), &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(resp.claim().granted());
  EXPECT_EQ(resp.claim().article(), "B7");
  // Not "Black wins": White's flag counts; 6.10 decides.
  EXPECT_EQ(resp.claim().outcome().result(), v1::RESULT_UNSPECIFIED);
  EXPECT_EQ(resp.claim().outcome().article(), "6.10");
  EXPECT_EQ(resp.clock().decision().kind(), v1::ClockDecision::KIND_FLAG_FELL);
  EXPECT_EQ(resp.clock().decision().flagged(), v1::COLOR_WHITE);
  EXPECT_EQ(resp.clock().decision().article(), "B7");
  EXPECT_EQ(resp.clock().decision().outcome().result(), v1::RESULT_UNSPECIFIED);
  EXPECT_EQ(resp.clock().status(), "paused");
}

// 6.7 "mehr als eine Stunde nach dem angesetzten Spielbeginn": the clock carries
// the scheduled start (Unix ms, the authority's time base) and the default time counts from it.
// With the event's default time of 2 s and the start scheduled 1 s before the clock is started
// with Black absent, the server records Black's default at the scheduled start + 2 s + 1 ms, not
// 2 s after the start.
TEST_P(ClockServerTest, TheDefaultCountsFromTheScheduledStart) {
  auto stub = Stub();
  auto create = [&](const std::string& game, std::int64_t scheduled, std::int64_t default_ms) {
    auto req = ForGame<v1::CreateClockRequest>(game);
    req.set_time_control_human("G/90");
    req.set_edition(v1::EDITION_FIDE_2001);
    req.set_default_time_ms(default_ms);
    req.set_scheduled_start_ms(scheduled);
    return Unary(stub.get(), &S::CreateClock, req, Token(Role::kPlatform));
  };
  auto start = [&](const std::string& game, bool black_absent, v1::ClockResponse* resp) {
    auto req = ForGame<v1::StartClockRequest>(game);
    if (black_absent) req.add_absent(v1::COLOR_BLACK);
    return Unary(stub.get(), &S::StartClock, req, Token(Role::kArbiter), resp);
  };

  const std::string game = GameId("g");
  const std::int64_t scheduled = absl::ToUnixMillis(absl::Now()) - 1'000;
  ASSERT_TRUE(create(game, scheduled, 2'000).ok());
  std::vector<v1::ClockUpdate> updates;
  std::thread watcher([&] {
    updates = Watch(stub.get(), game, 0, absl::Milliseconds(5000),
                    [](const v1::ClockUpdate& u) { return u.event().has_defaulted(); });
  });
  absl::SleepFor(absl::Milliseconds(50));
  v1::ClockResponse resp;
  grpc::Status st = start(game, /*black_absent=*/true, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  watcher.join();
  ASSERT_EQ(updates.size(), 3u);
  const v1::PlayerDefaulted& d = updates[2].event().defaulted();
  ASSERT_EQ(d.sides_size(), 1);
  EXPECT_EQ(d.sides(0), v1::COLOR_BLACK);
  EXPECT_EQ(d.at_ms(), scheduled + 2'000 + 1);
  EXPECT_LT(d.at_ms(), updates[1].event().started().at_ms() + 2'000 + 1);
  EXPECT_EQ(Get(game).clock().decision().outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(Get(game).clock().decision().kind(), v1::ClockDecision::KIND_RESULT);

  // Scheduled 61 minutes ago (6.7's hour), the clock started only now that both are present:
  // both came more than an hour late, recorded with the start.
  const std::string late = GameId("late");
  const std::int64_t long_ago = absl::ToUnixMillis(absl::Now()) - 61 * 60'000;
  ASSERT_TRUE(create(late, long_ago, 3'600'000).ok());
  st = start(late, /*black_absent=*/false, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.clock().decision().outcome().result(), v1::RESULT_DOUBLE_FORFEIT);
  EXPECT_EQ(resp.clock().decision().outcome().termination(), v1::TERMINATION_DEFAULT);
  EXPECT_EQ(resp.clock().decision().at_ms(), long_ago + 3'600'000 + 1);
  EXPECT_EQ(resp.version(), 3);  // created, started, defaulted
}

TEST_P(ClockServerTest, WatchResumesFromAVersion) {
  const std::string game = GameId("g");
  ASSERT_TRUE(Create(game, "G/60", v1::EDITION_FIDE_2023).ok());
  ASSERT_TRUE(Start(game).ok());
  auto stub = Stub();
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(Press(ForGame<v1::PressClockRequest>(game)).ok());
  // From the start: every event, each with the clock as it read then.
  std::vector<v1::ClockUpdate> all =
      Watch(stub.get(), game, 0, absl::Milliseconds(3000),
            [](const v1::ClockUpdate& u) { return u.version() == 4; });
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[2].clock().white_moves(), 1);
  EXPECT_EQ(all[2].clock().running(), v1::COLOR_BLACK);
  // Resumed after version 3: version 4 first, then the live press.
  std::vector<v1::ClockUpdate> resumed;
  std::thread watcher([&] {
    resumed = Watch(stub.get(), game, 3, absl::Milliseconds(3000),
                    [](const v1::ClockUpdate& u) { return u.version() == 5; });
  });
  absl::SleepFor(absl::Milliseconds(100));
  ASSERT_TRUE(Press(ForGame<v1::PressClockRequest>(game)).ok());
  watcher.join();
  ASSERT_EQ(resumed.size(), 2u);
  EXPECT_EQ(resumed[0].version(), 4);
  EXPECT_EQ(resumed[1].version(), 5);
  EXPECT_TRUE(resumed[1].event().has_pressed());
  EXPECT_EQ(resumed[1].clock().white_moves(), 2);
  // A version beyond the head is out of range.
  auto req = ForGame<v1::WatchClockRequest>(game);
  req.set_after_version(99);
  Call bad(Token(Role::kObserver));
  auto reader = stub->WatchClock(&bad, req);
  v1::ClockUpdate update;
  EXPECT_FALSE(reader->Read(&update));
  grpc::Status st = reader->Finish();
  EXPECT_EQ(st.error_code(), grpc::StatusCode::OUT_OF_RANGE);
}

// A replica shut down (SIGTERM's path: NOT_SERVING, grace, drain) while presses are in flight,
// some of them waiting for Redis with no thread of their own: every call is answered, the
// process stops cleanly, and every press answered OK is in the log.
TEST(ClockServerShutdown, PressesInFlightAreAnsweredAndTheAcknowledgedOnesKept) {
  std::unique_ptr<TestServer> r = TestServer::StartOrDie(ClockServerTest::Options(Store::kRedis));
  auto stub = r->Stub<v1::ClockAuthority>();
  constexpr int kGames = 8;
  std::vector<std::string> games;
  for (int g = 0; g < kGames; ++g) {
    games.push_back(absl::StrCat("shutdown-", g));
    auto create = ForGame<v1::CreateClockRequest>(games.back());
    create.set_time_control_human("G/60");
    create.set_edition(v1::EDITION_FIDE_2023);
    ASSERT_TRUE(Unary(stub.get(), &S::CreateClock, create, Token(Role::kPlatform)).ok());
    ASSERT_TRUE(Unary(stub.get(), &S::StartClock, ForGame<v1::StartClockRequest>(games.back()),
                      Token(Role::kArbiter))
                    .ok());
  }
  std::atomic<bool> stop{false};
  std::vector<std::array<int, kGames>> ok(6);
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  const std::string token = Token(Role::kPlatform);
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      ok[t].fill(0);
      for (int i = 0; !stop.load(); ++i) {
        const auto press = ForGame<v1::PressClockRequest>(games[(i + t) % kGames]);
        if (Unary(stub.get(), &S::PressClock, press, token, nullptr, absl::Milliseconds(3000))
                .ok()) {
          ++ok[t][(i + t) % kGames];
        } else {
          ++failed;  // refused by a stopping server, or unknown: it may or may not have landed
          if (failed.load() > 50) return;
        }
      }
    });
  }
  absl::SleepFor(absl::Milliseconds(300));
  const absl::Time begin = absl::Now();
  r->Shutdown();
  EXPECT_LT(absl::Now() - begin, absl::Seconds(5));  // grace + drain, not a hang
  stop = true;
  for (std::thread& t : threads) t.join();
  r->clock()->Stop();

  store::RedisGameStoreOptions options;
  options.connection.port = r->redis()->port();
  options.num_deadline_shards = 16;  // as the test server's clock host
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      store::RedisGameStore::Create(options);
  ASSERT_TRUE(store.ok()) << store.status();
  int total_ok = 0;
  for (int g = 0; g < kGames; ++g) {
    int acknowledged = 0;
    for (const auto& per_thread : ok) acknowledged += per_thread[g];
    total_ok += acknowledged;
    absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = (*store)->ReadSnapshot(games[g]);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    EXPECT_GE(snapshot->version() - 2, acknowledged) << games[g];
    EXPECT_LE(snapshot->version() - 2, acknowledged + failed.load()) << games[g];
  }
  EXPECT_GT(total_ok, 0);
}

INSTANTIATE_TEST_SUITE_P(Stores, ClockServerTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
