// The arbitration service over real gRPC on loopback, on a real redis-server started by the test
// (and on the in-memory store): two players and an arbiter play games that end by mate,
// resignation, agreement, threefold claims (correct, and incorrect with the 9.5b penalty), a
// 10.2 claim ruled by the arbiter, a flag that falls by itself (6.9) and a default (6.7); a
// player's token acts only in its game and colour; retries apply once; observers see moves only
// after the broadcast delay; the PGN of a game replays by the Laws.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "libs/chess/pgn.h"
#include "libs/service/auth.h"
#include "libs/service/grpc_status.h"
#include "libs/service/server.h"
#include "libs/store/testing/redis_server.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "services/arbitration/host.h"

namespace {

namespace v1 = arbiter::v1;
using service::Role;

constexpr char kKeys[] = "libs/service/testdata/keys.json";

std::string Token(Role role, const std::string& game = "",
                  chess::Color color = chess::Color::kWhite) {
  static service::KeySet* keys = new service::KeySet(*service::KeySet::FromFile(kKeys));
  service::TokenClaims claims;
  claims.role = role;
  claims.subject = absl::StrCat(
      service::RoleName(role), role == Role::kPlayer ? "-" : "",
      role == Role::kPlayer ? (color == chess::Color::kWhite ? "white" : "black") : "");
  if (role == Role::kPlayer) {
    claims.game_id = game;
    claims.color = color;
  }
  claims.expires = absl::Now() + absl::Minutes(5);
  return *service::MintToken(*keys->Find("hs-2026-1"), claims);
}

struct Call {
  explicit Call(const std::string& token, int timeout_ms = 5000) {
    if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  }
  grpc::ClientContext ctx;
};

std::string Code(const grpc::Status& st) { return service::ErrorInfoOf(st).code(); }

struct Running {
  std::unique_ptr<store::testing::RedisServer> redis;
  std::unique_ptr<service::ServiceEnv> env;
  std::unique_ptr<arbitration_service::ArbitrationHost> host;
  std::unique_ptr<service::Server> server;
  std::shared_ptr<grpc::Channel> channel;
  ~Running() {
    if (server) server->Shutdown();
    if (host) host->Stop();
  }
};

std::unique_ptr<Running> StartServer(bool use_redis) {
  auto r = std::make_unique<Running>();
  service::ServerConfig config;
  config.auth_keys = kKeys;
  config.grpc_address = "127.0.0.1:0";
  config.metrics_address = "none";
  config.shutdown_grace = absl::Milliseconds(10);
  config.drain_timeout = absl::Seconds(2);
  config.store = "memory";
  if (use_redis) {
    absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> redis =
        store::testing::RedisServer::Start();
    EXPECT_TRUE(redis.ok()) << redis.status();
    r->redis = std::move(*redis);
    config.store = absl::StrCat("redis://127.0.0.1:", r->redis->port());
  }
  auto env = service::ServiceEnv::Create(config);
  EXPECT_TRUE(env.ok()) << env.status();
  r->env = std::move(*env);
  arbitration_service::ArbitrationHostOptions options;
  options.replica_id = "test-replica";
  options.deadline_shards = 8;
  options.timers.sweep_interval = absl::Milliseconds(200);
  auto host = arbitration_service::ArbitrationHost::Create(config, r->env.get(), options);
  EXPECT_TRUE(host.ok()) << host.status();
  r->host = std::move(*host);
  auto server = service::Server::Start(config, r->env.get(), {r->host->hosted()});
  EXPECT_TRUE(server.ok()) << server.status();
  r->server = std::move(*server);
  r->host->Start();
  r->channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(r->server->port()),
                                   grpc::InsecureChannelCredentials());
  return r;
}

class ArbitrationServerTest : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() {
    memory_ = StartServer(false).release();
    redis_ = StartServer(true).release();
  }
  static void TearDownTestSuite() {
    delete memory_;
    delete redis_;
  }
  Running* running() { return GetParam() ? redis_ : memory_; }
  std::unique_ptr<v1::Arbitration::Stub> Stub() {
    return v1::Arbitration::NewStub(running()->channel);
  }
  // A game id unique to this test and store.
  std::string Game(const std::string& name) {
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '-');  // game ids: [A-Za-z0-9._~:-]
    return absl::StrCat(test, "-", GetParam() ? "redis" : "memory", "-", name);
  }

  static v1::CreateGameRequest Request(const std::string& game, const std::string& time_control,
                                       v1::Edition edition = v1::EDITION_FIDE_2023) {
    v1::CreateGameRequest req;
    req.set_game_id(game);
    req.set_white_id("alice");
    req.set_black_id("bob");
    req.set_time_control(time_control);
    req.mutable_ruleset()->set_edition(edition);
    req.mutable_ruleset()->mutable_regulations()->set_arbiter_present(true);
    req.set_event("Integration");
    return req;
  }
  grpc::Status Create(const v1::CreateGameRequest& req, v1::GameReply* reply = nullptr) {
    v1::GameReply resp;
    Call call(Token(Role::kPlatform));
    return Stub()->CreateGame(&call.ctx, req, reply ? reply : &resp);
  }
  grpc::Status Start(const std::string& game, std::vector<v1::Color> absent = {}) {
    v1::StartGameRequest req;
    req.set_game_id(game);
    for (v1::Color c : absent) req.add_absent(c);
    v1::GameReply resp;
    Call call(Token(Role::kArbiter));
    return Stub()->StartGame(&call.ctx, req, &resp);
  }
  // Created with `time_control` and started.
  void Ready(const std::string& game, const std::string& time_control,
             v1::Edition edition = v1::EDITION_FIDE_2023) {
    grpc::Status st = Create(Request(game, time_control, edition));
    ASSERT_TRUE(st.ok()) << st.error_message();
    st = Start(game);
    ASSERT_TRUE(st.ok()) << st.error_message();
  }
  static chess::Color ColorOf(v1::Color c) {
    return c == v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack;
  }
  grpc::Status Move(const std::string& game, v1::Color side, const std::string& move,
                    v1::GameReply* reply = nullptr, bool offer_draw = false,
                    const std::string& command_id = "") {
    v1::SubmitMoveRequest req;
    req.set_game_id(game);
    req.set_side(side);
    req.set_move(move);
    req.set_offer_draw(offer_draw);
    req.set_command_id(command_id);
    v1::GameReply resp;
    Call call(Token(Role::kPlayer, game, ColorOf(side)));
    return Stub()->SubmitMove(&call.ctx, req, reply ? reply : &resp);
  }
  // Plays `moves` alternately from White.
  void Play(const std::string& game, const std::vector<std::string>& moves,
            v1::GameReply* last = nullptr) {
    v1::Color side = v1::COLOR_WHITE;
    for (const std::string& m : moves) {
      grpc::Status st = Move(game, side, m, last);
      ASSERT_TRUE(st.ok()) << m << ": " << Code(st) << " " << st.error_message();
      side = side == v1::COLOR_WHITE ? v1::COLOR_BLACK : v1::COLOR_WHITE;
    }
  }
  v1::GameReply Get(const std::string& game, Role role = Role::kArbiter) {
    v1::GetGameRequest req;
    req.set_game_id(game);
    v1::GameReply resp;
    Call call(Token(role, game));
    grpc::Status st = Stub()->GetGame(&call.ctx, req, &resp);
    EXPECT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
    return resp;
  }
  std::string Pgn(const std::string& game, Role role = Role::kArbiter) {
    v1::ExportPgnRequest req;
    req.set_game_id(game);
    v1::ExportPgnReply resp;
    Call call(Token(role, game));
    grpc::Status st = Stub()->ExportPgn(&call.ctx, req, &resp);
    EXPECT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
    return resp.pgn();
  }
  // The PGN passes `arbiterctl pgn check`: it parses and its main line replays by the Laws.
  void ExpectPgnReplays(const std::string& game, const std::string& result) {
    const std::string pgn = Pgn(game);
    absl::StatusOr<std::vector<chess::PgnGame>> games = chess::ParsePgn(pgn);
    ASSERT_TRUE(games.ok()) << games.status() << "\n" << pgn;
    ASSERT_EQ(games->size(), 1u);
    EXPECT_TRUE(chess::ReplayGame(&(*games)[0]).ok()) << pgn;
    EXPECT_EQ((*games)[0].result, result) << pgn;
  }
  // Waits (polling GetGame) until the game has ended, up to `timeout`.
  v1::GameReply AwaitEnd(const std::string& game, absl::Duration timeout) {
    const absl::Time until = absl::Now() + timeout;
    v1::GameReply r;
    do {
      r = Get(game);
      if (r.game().status() == v1::GAME_STATUS_ENDED) return r;
      absl::SleepFor(absl::Milliseconds(50));
    } while (absl::Now() < until);
    return r;
  }

  static Running* memory_;
  static Running* redis_;
};
Running* ArbitrationServerTest::memory_ = nullptr;
Running* ArbitrationServerTest::redis_ = nullptr;

TEST_P(ArbitrationServerTest, FoolsMate) {
  const std::string game = Game("g");
  v1::GameReply created;
  grpc::Status st = Create(Request(game, "5400"), &created);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(created.game().version(), 1);
  EXPECT_EQ(created.game().status(), v1::GAME_STATUS_CREATED);
  EXPECT_EQ(created.game().ruleset().game_type(), v1::GAME_TYPE_STANDARD);
  ASSERT_TRUE(Start(game).ok());
  v1::GameReply last;
  Play(game, {"f3", "e5", "g4", "Qh4#"}, &last);
  EXPECT_EQ(last.game().status(), v1::GAME_STATUS_ENDED);
  EXPECT_EQ(last.game().outcome().result(), v1::RESULT_BLACK_WINS);
  EXPECT_EQ(last.game().outcome().termination(), v1::TERMINATION_CHECKMATE);
  EXPECT_EQ(last.game().black_points(), 1.0);
  EXPECT_EQ(last.game().deadline_ms(), 0);
  EXPECT_EQ(last.game().moves_san_size(), 4);
  // No move after the end (5.1a).
  st = Move(game, v1::COLOR_WHITE, "a3");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_GAME_OVER");
  ExpectPgnReplays(game, "0-1");
}

TEST_P(ArbitrationServerTest, ResignationAndConfirmation) {
  const std::string game = Game("g");
  Ready(game, "5400");
  Play(game, {"e4", "e5"});
  v1::ResignRequest req;
  req.set_game_id(game);
  req.set_side(v1::COLOR_BLACK);
  v1::GameReply resp;
  {
    Call call(Token(Role::kPlayer, game, chess::Color::kBlack));
    grpc::Status st = Stub()->Resign(&call.ctx, req, &resp);
    ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  }
  EXPECT_EQ(resp.game().outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(resp.game().outcome().termination(), v1::TERMINATION_RESIGNATION);
  // 8.7: the players sign.
  for (v1::Color side : {v1::COLOR_WHITE, v1::COLOR_BLACK}) {
    v1::ConfirmResultRequest confirm;
    confirm.set_game_id(game);
    confirm.set_side(side);
    Call call(Token(Role::kPlayer, game, ColorOf(side)));
    grpc::Status st = Stub()->ConfirmResult(&call.ctx, confirm, &resp);
    ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  }
  EXPECT_TRUE(resp.game().white_confirmed());
  EXPECT_TRUE(resp.game().black_confirmed());
  ExpectPgnReplays(game, "1-0");
}

TEST_P(ArbitrationServerTest, DrawByAgreement) {
  const std::string game = Game("g");
  Ready(game, "5400");
  v1::GameReply resp;
  ASSERT_TRUE(Move(game, v1::COLOR_WHITE, "d4", &resp, /*offer_draw=*/true).ok());
  EXPECT_EQ(resp.game().draw_offer(), v1::COLOR_WHITE);
  v1::RespondDrawRequest req;
  req.set_game_id(game);
  req.set_side(v1::COLOR_BLACK);
  req.set_accept(true);
  Call call(Token(Role::kPlayer, game, chess::Color::kBlack));
  grpc::Status st = Stub()->RespondDraw(&call.ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  EXPECT_EQ(resp.game().outcome().result(), v1::RESULT_DRAW);
  EXPECT_EQ(resp.game().outcome().termination(), v1::TERMINATION_AGREEMENT);
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, ThreefoldClaimCorrect) {
  const std::string game = Game("g");
  Ready(game, "5400");
  Play(game, {"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"});
  v1::ClaimRequest req;
  req.set_game_id(game);
  req.set_side(v1::COLOR_WHITE);
  req.set_kind(v1::CLAIM_KIND_THREEFOLD);
  v1::GameReply resp;
  Call call(Token(Role::kPlayer, game, chess::Color::kWhite));
  grpc::Status st = Stub()->Claim(&call.ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_CORRECT);
  EXPECT_EQ(resp.game().outcome().result(), v1::RESULT_DRAW);
  EXPECT_EQ(resp.game().outcome().termination(), v1::TERMINATION_THREEFOLD_REPETITION);
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, ThreefoldClaimIncorrectCostsTwoMinutes) {
  const std::string game = Game("g");
  Ready(game, "5400");
  Play(game, {"Nf3", "Nf6"});
  v1::ClaimRequest req;
  req.set_game_id(game);
  req.set_side(v1::COLOR_WHITE);
  req.set_kind(v1::CLAIM_KIND_THREEFOLD);
  req.set_intended_move("Ng1");
  v1::GameReply resp;
  Call call(Token(Role::kPlayer, game, chess::Color::kWhite));
  grpc::Status st = Stub()->Claim(&call.ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_INCORRECT);
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ONGOING);
  // 2023 9.5.2: the opponent gets two minutes, and the intended move is played.
  EXPECT_GT(resp.game().black_ms(), 5'400'000 + 120'000 - 10'000);
  EXPECT_LE(resp.game().black_ms(), 5'400'000 + 120'000);
  ASSERT_EQ(resp.game().moves_san_size(), 3);
  EXPECT_EQ(resp.game().moves_san(2), "Ng1");
  EXPECT_EQ(resp.game().to_move(), v1::COLOR_BLACK);
}

TEST_P(ArbitrationServerTest, QuickplayClaimRuledByTheArbiter) {
  const std::string game = Game("g");
  // One minute plus a minute a move: standard play under 2023 (60 s + 60 x 60 s > 60 min, A.1),
  // in its only (last) period and under two minutes from the start, so 10.2 applies with an
  // arbiter present.
  Ready(game, "60+60", v1::EDITION_FIDE_2023);
  v1::ClaimRequest req;
  req.set_game_id(game);
  req.set_side(v1::COLOR_WHITE);
  req.set_kind(v1::CLAIM_KIND_QUICKPLAY);
  v1::GameReply resp;
  {
    Call call(Token(Role::kPlayer, game, chess::Color::kWhite));
    grpc::Status st = Stub()->Claim(&call.ctx, req, &resp);
    ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  }
  EXPECT_EQ(resp.claim_ruling(), v1::CLAIM_RULING_PENDING);
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_AWAITING_RULING);
  EXPECT_TRUE(resp.game().has_pending_claim());
  // Play waits for the ruling.
  grpc::Status st = Move(game, v1::COLOR_WHITE, "e4");
  EXPECT_EQ(Code(st), "ERR_AWAITING_RULING");
  // A player cannot rule.
  v1::RuleRequest rule;
  rule.set_game_id(game);
  rule.set_decision(v1::RULING_DECISION_DRAW);
  rule.set_reason("White cannot be beaten by normal means");
  {
    Call call(Token(Role::kPlayer, game, chess::Color::kWhite));
    st = Stub()->Rule(&call.ctx, rule, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  {
    Call call(Token(Role::kArbiter));
    st = Stub()->Rule(&call.ctx, rule, &resp);
    ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  }
  EXPECT_EQ(resp.game().status(), v1::GAME_STATUS_ENDED);
  EXPECT_EQ(resp.game().outcome().result(), v1::RESULT_DRAW);
  // The arbiter's decision is recorded with who made it.
  v1::WatchGameRequest watch;
  watch.set_game_id(game);
  Call call(Token(Role::kArbiter), 2000);
  auto reader = Stub()->WatchGame(&call.ctx, watch);
  v1::GameUpdate update;
  bool ruled = false;
  while (reader->Read(&update)) {
    if (update.event().has_ruled()) {
      ruled = true;
      EXPECT_EQ(update.event().actor().role(), "arbiter");
      EXPECT_EQ(update.event().actor().subject(), "arbiter");
      break;
    }
  }
  call.ctx.TryCancel();
  EXPECT_TRUE(ruled);
  ExpectPgnReplays(game, "1/2-1/2");
}

TEST_P(ArbitrationServerTest, FlagFallsByItself) {
  const std::string game = Game("g");
  // One second sudden death; 2023: the flag counts when it falls (the arbiter calls it).
  Ready(game, "1");
  const v1::GameReply r = AwaitEnd(game, absl::Seconds(5));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
  EXPECT_EQ(r.game().outcome().result(), v1::RESULT_BLACK_WINS);
  EXPECT_EQ(r.game().outcome().termination(), v1::TERMINATION_TIME_FORFEIT);
  EXPECT_EQ(r.game().white_ms(), 0);
  // A move after the fall is refused.
  grpc::Status st = Move(game, v1::COLOR_WHITE, "e4");
  EXPECT_EQ(Code(st), "ERR_GAME_OVER");
}

TEST_P(ArbitrationServerTest, DefaultWhenAbsent) {
  const std::string game = Game("g");
  v1::CreateGameRequest req = Request(game, "5400");
  req.mutable_ruleset()->mutable_regulations()->set_default_time_ms(1000);  // 6.7
  ASSERT_TRUE(Create(req).ok());
  ASSERT_TRUE(Start(game, {v1::COLOR_BLACK}).ok());
  const v1::GameReply r = AwaitEnd(game, absl::Seconds(5));
  ASSERT_EQ(r.game().status(), v1::GAME_STATUS_ENDED);
  EXPECT_EQ(r.game().outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(r.game().outcome().termination(), v1::TERMINATION_DEFAULT);
}

TEST_P(ArbitrationServerTest, PlayersActOnlyInTheirGameAndColour) {
  const std::string game = Game("g");
  const std::string other = Game("other");
  Ready(game, "5400");
  Ready(other, "5400");
  v1::SubmitMoveRequest req;
  req.set_game_id(game);
  req.set_side(v1::COLOR_WHITE);
  req.set_move("e4");
  v1::GameReply resp;
  {  // Black's token for White.
    Call call(Token(Role::kPlayer, game, chess::Color::kBlack));
    grpc::Status st = Stub()->SubmitMove(&call.ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(Code(st), "ERR_PERMISSION_DENIED");
  }
  {  // White's token of another game.
    Call call(Token(Role::kPlayer, other, chess::Color::kWhite));
    grpc::Status st = Stub()->SubmitMove(&call.ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  {  // An observer.
    Call call(Token(Role::kObserver));
    grpc::Status st = Stub()->SubmitMove(&call.ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  {  // No token.
    Call call("");
    grpc::Status st = Stub()->SubmitMove(&call.ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  {  // A player may not create games.
    Call call(Token(Role::kPlayer, game, chess::Color::kWhite));
    grpc::Status st = Stub()->CreateGame(&call.ctx, Request(Game("mine"), "5400"), &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  // Nothing changed; White's own token moves, with the side left to the token.
  EXPECT_EQ(Get(game).game().moves_san_size(), 0);
  req.clear_side();
  Call call(Token(Role::kPlayer, game, chess::Color::kWhite));
  grpc::Status st = Stub()->SubmitMove(&call.ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  EXPECT_EQ(resp.game().moves_san_size(), 1);
}

TEST_P(ArbitrationServerTest, RetriedCommandAppliesOnce) {
  const std::string game = Game("g");
  Ready(game, "5400");
  v1::GameReply first, again;
  ASSERT_TRUE(Move(game, v1::COLOR_WHITE, "e4", &first, false, "cmd-1").ok());
  grpc::Status st = Move(game, v1::COLOR_WHITE, "e4", &again, false, "cmd-1");
  ASSERT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
  EXPECT_FALSE(first.replayed());
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.game().version(), first.game().version());
  EXPECT_EQ(Get(game).game().moves_san_size(), 1);
  // The same id for another request.
  st = Move(game, v1::COLOR_WHITE, "d4", nullptr, false, "cmd-1");
  EXPECT_EQ(Code(st), "ERR_COMMAND_ID_REUSED");
}

TEST_P(ArbitrationServerTest, ErrorsAreStable) {
  v1::GetGameRequest get;
  get.set_game_id(Game("nope"));
  v1::GameReply resp;
  {
    Call call(Token(Role::kArbiter));
    grpc::Status st = Stub()->GetGame(&call.ctx, get, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(Code(st), "ERR_GAME_NOT_FOUND");
  }
  const std::string game = Game("g");
  Ready(game, "5400");
  grpc::Status st = Move(game, v1::COLOR_WHITE, "e5");
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << Code(st);
  st = Move(game, v1::COLOR_WHITE, std::string(1000, 'e'));
  EXPECT_EQ(Code(st), "ERR_BAD_ARGUMENT");
  st = Move(game, v1::COLOR_BLACK, "e5");
  EXPECT_EQ(Code(st), "ERR_NOT_YOUR_TURN");
  {
    v1::CreateGameRequest again = Request(game, "5400");
    st = Create(again);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  }
  {
    v1::CreateGameRequest bad = Request(Game("bad"), "not a time control");
    st = Create(bad);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  {
    v1::SubmitMoveRequest req;
    req.set_game_id(game);
    req.set_side(v1::COLOR_WHITE);
    req.set_move("e4");
    req.set_expected_version(1);
    Call call(Token(Role::kPlayer, game, chess::Color::kWhite));
    st = Stub()->SubmitMove(&call.ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::ABORTED);
    EXPECT_EQ(Code(st), "ERR_VERSION_CONFLICT");
  }
  EXPECT_EQ(Get(game).game().moves_san_size(), 0);
}

TEST_P(ArbitrationServerTest, ObserversSeeMovesAfterTheDelay) {
  const std::string game = Game("plies");
  v1::CreateGameRequest req = Request(game, "5400");
  req.set_broadcast_delay_plies(2);
  ASSERT_TRUE(Create(req).ok());
  ASSERT_TRUE(Start(game).ok());
  Play(game, {"e4", "e5", "Nf3", "Nc6"});
  EXPECT_EQ(Get(game, Role::kArbiter).game().moves_san_size(), 4);
  v1::GameReply seen = Get(game, Role::kObserver);
  ASSERT_EQ(seen.game().moves_san_size(), 2);
  EXPECT_EQ(seen.game().moves_san(1), "e5");
  EXPECT_FALSE(absl::StrContains(Pgn(game, Role::kObserver), "Nf3"));
  EXPECT_TRUE(absl::StrContains(Pgn(game, Role::kArbiter), "Nf3"));

  // By time: a move is seen 1.5 s after it was made, on GetGame and on the watch.
  const std::string timed = Game("ms");
  req = Request(timed, "5400");
  req.set_broadcast_delay_ms(1500);
  ASSERT_TRUE(Create(req).ok());
  ASSERT_TRUE(Start(timed).ok());
  v1::WatchGameRequest watch;
  watch.set_game_id(timed);
  Call call(Token(Role::kObserver), 10'000);
  auto reader = Stub()->WatchGame(&call.ctx, watch);
  const absl::Time moved = absl::Now();
  Play(timed, {"d4"});
  EXPECT_EQ(Get(timed, Role::kObserver).game().moves_san_size(), 0);
  v1::GameUpdate update;
  bool saw_move = false;
  while (reader->Read(&update)) {
    if (update.event().has_move()) {
      saw_move = true;
      EXPECT_GE(absl::Now() - moved, absl::Milliseconds(1400));
      EXPECT_EQ(update.event().move().san(), "d4");
      break;
    }
  }
  call.ctx.TryCancel();
  EXPECT_TRUE(saw_move);
  EXPECT_EQ(Get(timed, Role::kObserver).game().moves_san_size(), 1);
}

TEST_P(ArbitrationServerTest, WatchResumesFromAVersion) {
  const std::string game = Game("g");
  Ready(game, "5400");
  Play(game, {"e4", "e5"});
  const std::int64_t head = Get(game).game().version();
  v1::WatchGameRequest watch;
  watch.set_game_id(game);
  watch.set_after_version(head);
  Call call(Token(Role::kPlayer, game, chess::Color::kWhite), 5000);
  auto reader = Stub()->WatchGame(&call.ctx, watch);
  Play(game, {"Nf3"});
  v1::GameUpdate update;
  ASSERT_TRUE(reader->Read(&update));
  EXPECT_EQ(update.version(), head + 1);
  call.ctx.TryCancel();
  {
    watch.set_after_version(head + 100);
    Call bad(Token(Role::kArbiter));
    auto r = Stub()->WatchGame(&bad.ctx, watch);
    while (r->Read(&update)) {
    }
    EXPECT_EQ(r->Finish().error_code(), grpc::StatusCode::OUT_OF_RANGE);
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, ArbitrationServerTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Redis" : "Memory";
                         });

}  // namespace
