// Appendix A end to end: a real redis-server (the store's redis.conf: appendonly yes, appendfsync
// always) and real arbiterd processes with authentication and a seal key. Two games are
// adjourned with 2. Nf3 sealed; before the envelope is opened the move is in none of Redis's AOF
// files, in no reply of GetGame, WatchGame or ExportPgn to the opponent, an observer or the
// platform, and not in the server's log. The server is restarted (same Redis, same key) and the
// games resumed in the next session: under A9a (the replier present: opened at once) and A9b
// (the replier absent: opened on his arrival). A server without a key refuses to seal.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "libs/store/testing/redis_server.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tests/integration/clock_process.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;
using Stub = v1::Arbitration::Stub;
using ::testing::HasSubstr;
using ::testing::Not;

// The sealed move in every spelling it could leak in: SAN (English, German), UCI.
const std::vector<std::string> kSecret = {"Nf3", "Sf3", "g1f3"};

std::string TmpDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return tmp != nullptr ? tmp : "/tmp";
}

// 32 random bytes, as `head -c 32 /dev/urandom` would make.
std::string WriteSealKey() {
  const std::string path = TmpDir() + "/seal.key";
  std::random_device random;
  std::string key(32, '\0');
  for (char& c : key) c = static_cast<char>(random());
  std::ofstream(path, std::ios::binary) << key;
  return path;
}

// Every byte of every file under `dir` (Redis 7 keeps its AOF in appendonlydir/).
std::string ReadAll(const std::string& dir) {
  std::string all;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return all;
}

void ExpectNoSecret(const std::string& text, const std::string& where) {
  for (const std::string& s : kSecret) EXPECT_THAT(text, Not(HasSubstr(s))) << where;
}

class AdjournmentServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> redis =
        store::testing::RedisServer::Start({.appendfsync = "always"});
    ASSERT_TRUE(redis.ok()) << redis.status() << " (redis-server is installed by tools/setup.sh)";
    redis_ = *std::move(redis);
    binary_ = testing_util::FindRunfile("services/arbiterd/arbiterd");
    keys_ = testing_util::FindRunfile(kKeysFile);
    ASSERT_FALSE(binary_.empty()) << "services/arbiterd/arbiterd is not in the runfiles";
    ASSERT_FALSE(keys_.empty()) << kKeysFile << " is not in the runfiles";
    seal_key_ = WriteSealKey();
  }

  // arbiterd on the Redis, with authentication; with the seal key unless `with_key` is false.
  void StartServer(bool with_key = true) {
    std::vector<std::string> flags = {
        "--services=arbitration",
        absl::StrCat("--store=redis://127.0.0.1:", redis_->port()),
        absl::StrCat("--auth_keys=", keys_),
        "--metrics_address=none",
        "--arbitration_engine_path=",
        "--shutdown_grace=0s",
        // The moves as protobuf bytes, their UCI in clear: the search of Redis's data for the
        // sealed move is then shown to find a move where there is one (the compact form would
        // hide every move, sealed or not; the envelope is encrypted either way).
        "--arbitration_compact_moves=false",
    };
    if (with_key) flags.push_back(absl::StrCat("--seal_key_file=", seal_key_));
    absl::StatusOr<std::unique_ptr<testing_util::ServerProcess>> p =
        testing_util::ServerProcess::Start(binary_, flags);
    ASSERT_TRUE(p.ok()) << p.status();
    server_ = *std::move(p);
    stub_ = v1::Arbitration::NewStub(grpc::CreateChannel(
        absl::StrCat("127.0.0.1:", server_->grpc_port()), grpc::InsecureChannelCredentials()));
  }

  template <typename Request, typename Method>
  v1::GameReply Ok(Method method, const Request& req, const std::string& token) {
    v1::GameReply reply;
    grpc::Status st = Unary(stub_.get(), method, req, token, &reply);
    EXPECT_TRUE(st.ok()) << Code(st) << " " << st.error_message();
    return reply;
  }

  std::string Player(const std::string& game, chess::Color color) {
    return Token(Role::kPlayer, game, color);
  }

  // Created with two sessions (the second from `resume_ms`), started, 1. e4 e5, then the arbiter
  // calls for the seal and White seals 2. Nf3 and stops his clock: adjourned.
  void Adjourn(const std::string& game, std::int64_t now_ms, std::int64_t resume_ms) {
    v1::CreateGameRequest create = AliceBobGame(game, "5400", v1::EDITION_FIDE_2001);
    create.set_scheduled_start_ms(now_ms - 60'000);
    v1::Session* first = create.add_sessions();
    first->set_start_ms(now_ms - 60'000);
    first->set_end_ms(resume_ms - 1000);
    v1::Session* second = create.add_sessions();
    second->set_start_ms(resume_ms);
    second->set_end_ms(resume_ms + 3'600'000);
    second->set_place("Hall B");
    Ok(&Stub::CreateGame, create, Token(Role::kPlatform));
    Ok(&Stub::StartGame, ForGame<v1::StartGameRequest>(game), Token(Role::kPlatform));
    for (const auto& [color, side, move] :
         {std::tuple{chess::Color::kWhite, v1::COLOR_WHITE, "e4"},
          std::tuple{chess::Color::kBlack, v1::COLOR_BLACK, "e5"}}) {
      v1::SubmitMoveRequest m = ForGame<v1::SubmitMoveRequest>(game);
      m.set_side(side);
      m.set_move(move);
      Ok(&Stub::SubmitMove, m, Player(game, color));
    }
    v1::AdjournGameRequest call = ForGame<v1::AdjournGameRequest>(game);
    call.set_reason("the session ends");
    EXPECT_TRUE(Ok(&Stub::AdjournGame, call, Token(Role::kArbiter)).game().seal_called());
    v1::SealMoveRequest seal = ForGame<v1::SealMoveRequest>(game);
    seal.set_side(v1::COLOR_WHITE);
    seal.set_move("Nf3");
    seal.set_stop_clock(true);
    const v1::GameReply sealed = Ok(&Stub::SealMove, seal, Player(game, chess::Color::kWhite));
    EXPECT_EQ(sealed.game().status(), v1::GAME_STATUS_ADJOURNED);
    ExpectNoSecret(sealed.DebugString(), "the sealer's own reply");
  }

  // Nothing the opponent, an observer or the platform can read holds the sealed move.
  void ExpectSecret(const std::string& game) {
    const std::vector<std::pair<std::string, std::string>> readers = {
        {"the opponent", Player(game, chess::Color::kBlack)},
        {"an observer", Token(Role::kObserver)},
        {"the platform", Token(Role::kPlatform)}};
    for (const auto& [who, token] : readers) {
      v1::GameReply got;
      ASSERT_TRUE(
          Unary(stub_.get(), &Stub::GetGame, ForGame<v1::GetGameRequest>(game), token, &got).ok());
      EXPECT_EQ(got.game().status(), v1::GAME_STATUS_ADJOURNED) << who;
      EXPECT_TRUE(got.game().move_sealed()) << who;
      EXPECT_EQ(got.game().envelope().sealer(), v1::COLOR_WHITE) << who;
      ExpectNoSecret(got.DebugString(), absl::StrCat("GetGame for ", who));
      v1::ExportPgnReply pgn;
      ASSERT_TRUE(
          Unary(stub_.get(), &Stub::ExportPgn, ForGame<v1::ExportPgnRequest>(game), token, &pgn)
              .ok());
      EXPECT_THAT(pgn.pgn(), HasSubstr("the game is adjourned")) << who;
      ExpectNoSecret(pgn.pgn(), absl::StrCat("ExportPgn for ", who));
      // WatchGame from the start: every event up to the head.
      Call call(token, absl::Seconds(3));
      v1::WatchGameRequest watch = ForGame<v1::WatchGameRequest>(game);
      std::unique_ptr<grpc::ClientReader<v1::GameUpdate>> reader = stub_->WatchGame(&call, watch);
      v1::GameUpdate update;
      bool saw_seal = false;
      while (reader->Read(&update)) {
        ExpectNoSecret(update.DebugString(), absl::StrCat("WatchGame for ", who));
        if (update.event().has_move_sealed()) {
          saw_seal = true;
          EXPECT_TRUE(update.event().move_sealed().box().empty()) << who;
        }
        if (update.version() == got.game().version()) break;
      }
      call.TryCancel();
      reader->Finish();
      EXPECT_TRUE(saw_seal) << who;
    }
  }

  std::unique_ptr<store::testing::RedisServer> redis_;
  std::unique_ptr<testing_util::ServerProcess> server_;
  std::unique_ptr<Stub> stub_;
  std::string binary_;
  std::string keys_;
  std::string seal_key_;
};

TEST_F(AdjournmentServerTest, SealedSecretAcrossARestartResumedUnderA9aAndA9b) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::int64_t now = absl::ToUnixMillis(absl::Now());
  const std::int64_t resume = now + 12'000;  // session 2 (A13: the server's clock governs)
  Adjourn("adj-a", now, resume);
  Adjourn("adj-b", now, resume);
  ExpectSecret("adj-a");
  ExpectSecret("adj-b");
  // At rest: the AOF (appendfsync always: every append is in it) has only the box.
  const std::string aof = ReadAll(redis_->dir());
  EXPECT_THAT(aof, HasSubstr("adj-a"));  // the games are there
  EXPECT_THAT(aof, HasSubstr("e2e4"));   // and their moves, in clear
  ExpectNoSecret(aof, "Redis's data directory");
  ExpectNoSecret(server_->Log(), "the server's log");
  // Too early: A13.
  v1::GameReply early;
  grpc::Status st =
      Unary(stub_.get(), &Stub::ResumeAdjournedGame,
            ForGame<v1::ResumeAdjournedGameRequest>("adj-a"), Token(Role::kArbiter), &early);
  EXPECT_EQ(Code(st), "ERR_SESSION_NOT_STARTED");

  // The server restarts: same Redis, same seal key.
  server_->Kill(SIGKILL);
  server_.reset();
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ExpectSecret("adj-a");
  const std::int64_t wait = resume - absl::ToUnixMillis(absl::Now()) + 200;
  if (wait > 0) absl::SleepFor(absl::Milliseconds(wait));

  // A9a: the replier is present: opened, played on the board, his clock runs.
  v1::GameReply a = Ok(&Stub::ResumeAdjournedGame, ForGame<v1::ResumeAdjournedGameRequest>("adj-a"),
                       Token(Role::kArbiter));
  EXPECT_EQ(a.game().status(), v1::GAME_STATUS_ONGOING);
  ASSERT_EQ(a.game().moves_san_size(), 3);
  EXPECT_EQ(a.game().moves_san(2), "Nf3");
  EXPECT_EQ(a.game().clock_running(), v1::COLOR_BLACK);
  v1::ExportPgnReply pgn;
  ASSERT_TRUE(Unary(stub_.get(), &Stub::ExportPgn, ForGame<v1::ExportPgnRequest>("adj-a"),
                    Token(Role::kObserver), &pgn)
                  .ok());
  EXPECT_THAT(pgn.pgn(), HasSubstr("2. Nf3"));
  // Opened, the move is in the record like any other (the search above would have found it).
  EXPECT_THAT(ReadAll(redis_->dir()), HasSubstr("g1f3"));
  v1::SubmitMoveRequest reply = ForGame<v1::SubmitMoveRequest>("adj-a");
  reply.set_side(v1::COLOR_BLACK);
  reply.set_move("Nc6");
  Ok(&Stub::SubmitMove, reply, Player("adj-a", chess::Color::kBlack));

  // A9b: the replier is absent: his clock runs, the envelope waits for him (A7).
  v1::ResumeAdjournedGameRequest b = ForGame<v1::ResumeAdjournedGameRequest>("adj-b");
  b.add_absent(v1::COLOR_BLACK);
  v1::GameReply waiting = Ok(&Stub::ResumeAdjournedGame, b, Token(Role::kArbiter));
  EXPECT_EQ(waiting.game().status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(waiting.game().moves_san_size(), 2);
  EXPECT_EQ(waiting.game().clock_running(), v1::COLOR_BLACK);
  ExpectNoSecret(waiting.DebugString(), "the resumption without the replier");
  v1::ArriveRequest arrive = ForGame<v1::ArriveRequest>("adj-b");
  arrive.set_side(v1::COLOR_BLACK);
  v1::GameReply opened = Ok(&Stub::Arrive, arrive, Player("adj-b", chess::Color::kBlack));
  ASSERT_EQ(opened.game().moves_san_size(), 3);
  EXPECT_EQ(opened.game().moves_san(2), "Nf3");
  EXPECT_LT(opened.game().black_ms(), waiting.game().black_ms() + 1);
}

// A10a through the deadline timers: both players absent at the resumption, the envelope waits
// for the replier (A9b); an hour after the session's scheduled start the server's timer records
// the default and, having the seal key, opens the envelope: the absent sealer's move mates, so he
// wins instead of both losing (6.7).
TEST_F(AdjournmentServerTest, BothAbsentTheTimerOpensTheEnvelopeAndTheSealedMateWins) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const std::string game = "adj-a10";
  const std::int64_t now = absl::ToUnixMillis(absl::Now());
  constexpr std::int64_t kHour = 3'600'000;
  // Session 2 began almost an hour ago: its default falls in 8 s.
  const std::int64_t resume = now - kHour + 8'000;
  v1::CreateGameRequest create = AliceBobGame(game, "5400", v1::EDITION_FIDE_2001);
  create.set_scheduled_start_ms(now - 3 * kHour);
  v1::Session* first = create.add_sessions();
  first->set_start_ms(now - 3 * kHour);
  first->set_end_ms(now - 2 * kHour);
  v1::Session* second = create.add_sessions();
  second->set_start_ms(resume);
  second->set_end_ms(resume + 4 * kHour);
  Ok(&Stub::CreateGame, create, Token(Role::kPlatform));
  Ok(&Stub::StartGame, ForGame<v1::StartGameRequest>(game), Token(Role::kPlatform));
  int ply = 0;
  for (const char* move : {"e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"}) {
    const bool white = ply++ % 2 == 0;
    v1::SubmitMoveRequest m = ForGame<v1::SubmitMoveRequest>(game);
    m.set_side(white ? v1::COLOR_WHITE : v1::COLOR_BLACK);
    m.set_move(move);
    Ok(&Stub::SubmitMove, m, Player(game, white ? chess::Color::kWhite : chess::Color::kBlack));
  }
  v1::SealMoveRequest seal = ForGame<v1::SealMoveRequest>(game);
  seal.set_side(v1::COLOR_WHITE);
  seal.set_move("Qxf7#");
  seal.set_stop_clock(true);
  EXPECT_EQ(Ok(&Stub::SealMove, seal, Player(game, chess::Color::kWhite)).game().status(),
            v1::GAME_STATUS_ADJOURNED);
  v1::ResumeAdjournedGameRequest both = ForGame<v1::ResumeAdjournedGameRequest>(game);
  both.add_absent(v1::COLOR_WHITE);
  both.add_absent(v1::COLOR_BLACK);
  const v1::GameReply waiting = Ok(&Stub::ResumeAdjournedGame, both, Token(Role::kArbiter));
  ASSERT_EQ(waiting.game().status(), v1::GAME_STATUS_ONGOING)
      << "the resumption took longer than the 8 s before the default";
  EXPECT_EQ(waiting.game().moves_san_size(), 6);  // A7: not opened without the replier
  EXPECT_THAT(waiting.DebugString(), Not(HasSubstr("h5f7")));
  // Nobody sends anything: the deadline timer records the default.
  v1::GameReply got;
  for (int i = 0; i < 100; ++i) {
    got.Clear();
    ASSERT_TRUE(Unary(stub_.get(), &Stub::GetGame, ForGame<v1::GetGameRequest>(game),
                      Token(Role::kObserver), &got)
                    .ok());
    if (got.game().status() == v1::GAME_STATUS_ENDED) break;
    absl::SleepFor(absl::Milliseconds(200));
  }
  ASSERT_EQ(got.game().status(), v1::GAME_STATUS_ENDED);
  EXPECT_EQ(got.game().outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(got.game().outcome().termination(), v1::TERMINATION_CHECKMATE);
  ASSERT_EQ(got.game().moves_san_size(), 7);
  EXPECT_EQ(got.game().moves_san(6), "Qxf7#");
  v1::ExportPgnReply pgn;
  ASSERT_TRUE(Unary(stub_.get(), &Stub::ExportPgn, ForGame<v1::ExportPgnRequest>(game),
                    Token(Role::kObserver), &pgn)
                  .ok());
  EXPECT_THAT(pgn.pgn(), HasSubstr("A10a"));
}

TEST_F(AdjournmentServerTest, WithoutASealKeyNothingIsSealed) {
  ASSERT_NO_FATAL_FAILURE(StartServer(/*with_key=*/false));
  const std::int64_t now = absl::ToUnixMillis(absl::Now());
  v1::CreateGameRequest create;
  create.set_game_id("no-key");
  create.set_white_id("alice");
  create.set_black_id("bob");
  create.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2001);
  create.set_time_control("5400");
  v1::Session* first = create.add_sessions();
  first->set_start_ms(now - 1000);
  first->set_end_ms(now + 1000);
  v1::Session* second = create.add_sessions();
  second->set_start_ms(now + 3'600'000);
  second->set_end_ms(now + 7'200'000);
  Ok(&Stub::CreateGame, create, Token(Role::kPlatform));
  Ok(&Stub::StartGame, ForGame<v1::StartGameRequest>("no-key"), Token(Role::kPlatform));
  v1::SealMoveRequest seal = ForGame<v1::SealMoveRequest>("no-key");
  seal.set_side(v1::COLOR_WHITE);
  seal.set_move("e4");
  v1::GameReply reply;
  grpc::Status st =
      Unary(stub_.get(), &Stub::SealMove, seal, Player("no-key", chess::Color::kWhite), &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Code(st), "ERR_SEAL_KEY_MISSING");
  // The observer may not seal (a player's, the platform's or a service's call).
  st = Unary(stub_.get(), &Stub::SealMove, seal, Token(Role::kObserver), &reply);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
}

}  // namespace
}  // namespace integration
