// The service framework and the rules-validation service over real gRPC on loopback: every RPC,
// the error codes, the auth matrix (each role x each method, expired and forged tokens), oversize
// messages, deadlines, health during shutdown, and /metrics with its labels.
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "libs/service/auth.h"
#include "libs/service/grpc_status.h"
#include "libs/service/server.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"
#include "services/rules_validation/rules_service.h"
#include "tests/integration/http_get.h"

namespace {

namespace v1 = arbiter::v1;
using service::Role;

constexpr char kKeys[] = "libs/service/testdata/keys.json";

struct Running {
  std::unique_ptr<service::ServiceEnv> env;
  std::unique_ptr<rules_validation::RulesValidationService> rules;
  std::unique_ptr<service::Server> server;
  std::shared_ptr<grpc::Channel> channel;
};

std::unique_ptr<Running> StartServer(service::ServerConfig config) {
  auto r = std::make_unique<Running>();
  config.grpc_address = "127.0.0.1:0";
  config.metrics_address = "127.0.0.1:0";
  auto env = service::ServiceEnv::Create(config);
  EXPECT_TRUE(env.ok()) << env.status();
  r->env = std::move(*env);
  rules_validation::RulesLimits limits;
  limits.max_perft_depth = 8;
  r->rules = std::make_unique<rules_validation::RulesValidationService>(r->env.get(), limits);
  auto server = service::Server::Start(config, r->env.get(),
                                       {{rules_validation::RulesValidationService::kName,
                                         r->rules.get(), r->rules->async_methods()}});
  EXPECT_TRUE(server.ok()) << server.status();
  r->server = std::move(*server);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  r->channel = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(r->server->port()),
                                         grpc::InsecureChannelCredentials(), args);
  return r;
}

service::ServerConfig SecureConfig() {
  service::ServerConfig c;
  c.auth_keys = kKeys;
  c.shutdown_grace = absl::Milliseconds(10);
  c.drain_timeout = absl::Seconds(2);
  c.max_message_bytes = 256 << 10;
  return c;
}

std::string Token(Role role, absl::Duration ttl = absl::Minutes(5), const char* kid = "hs-2026-1") {
  static service::KeySet* keys = new service::KeySet(*service::KeySet::FromFile(kKeys));
  service::TokenClaims claims;
  claims.role = role;
  claims.subject = "test";
  if (role == Role::kPlayer) {
    claims.game_id = "g1";
    claims.color = chess::Color::kWhite;
  }
  claims.expires = absl::Now() + ttl;
  return *service::MintToken(*keys->Find(kid), claims);
}

void Authorize(grpc::ClientContext* ctx, const std::string& token, int timeout_ms = 5000) {
  if (!token.empty()) ctx->AddMetadata("authorization", "Bearer " + token);
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
}

std::string Code(const grpc::Status& st) { return service::ErrorInfoOf(st).code(); }

class RulesServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { running_ = StartServer(SecureConfig()).release(); }
  static void TearDownTestSuite() {
    delete running_;
    running_ = nullptr;
  }
  std::unique_ptr<v1::RulesValidation::Stub> Stub() {
    return v1::RulesValidation::NewStub(running_->channel);
  }
  static Running* running_;
};
Running* RulesServerTest::running_ = nullptr;

TEST_F(RulesServerTest, ValidateMoveLegalIllegalAmbiguousAndMalformed) {
  auto stub = Stub();
  const std::string token = Token(Role::kPlayer);
  v1::ValidateMoveRequest req;
  req.mutable_position()->set_fen("startpos");
  req.set_move("Sf3");
  req.set_letters(v1::LETTERS_GERMAN);
  v1::ValidateMoveResponse resp;
  {
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->ValidateMove(&ctx, req, &resp).ok());
    EXPECT_TRUE(resp.legal());
    EXPECT_EQ(resp.move().uci(), "g1f3");
    EXPECT_EQ(resp.move().san(), "Nf3");
    EXPECT_EQ(resp.move().appendix_e(), "Sf3");
    EXPECT_FALSE(resp.draw_offer());
  }
  {  // Appendix E12 / 9.1: "Sf3 (=)" is the move with a draw offer (issue 14.8).
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    v1::ValidateMoveRequest offer = req;
    offer.set_move("Sf3 (=)");
    v1::ValidateMoveResponse r;
    ASSERT_TRUE(stub->ValidateMove(&ctx, offer, &r).ok());
    EXPECT_TRUE(r.legal());
    EXPECT_EQ(r.move().uci(), "g1f3");
    EXPECT_TRUE(r.draw_offer());
  }
  {  // 3.9: a pinned knight; the answer carries the reason.
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    req.mutable_position()->set_fen("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
    req.set_move("Nc3");
    ASSERT_TRUE(stub->ValidateMove(&ctx, req, &resp).ok());
    EXPECT_FALSE(resp.legal());
    EXPECT_EQ(resp.error().code(), "ERR_ILLEGAL_MOVE");
    EXPECT_EQ(resp.error().illegal_move_reason(), "LEAVES_KING_IN_CHECK");
  }
  {
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    req.mutable_position()->set_fen("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    req.set_move("Nd2");
    ASSERT_TRUE(stub->ValidateMove(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.error().code(), "ERR_AMBIGUOUS_SAN");
  }
  for (auto [fen, move, code] :
       {std::tuple{"startpos", "Zz9", "ERR_BAD_SAN"}, std::tuple{"nonsense", "e4", "ERR_BAD_FEN"},
        std::tuple{"8/8/8/8/8/8/8/8 w - - 0 1", "e4", "ERR_BAD_SETUP"},
        std::tuple{"startpos", "", "ERR_BAD_ARGUMENT"}}) {
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    req.mutable_position()->set_fen(fen);
    req.set_move(move);
    grpc::Status st = stub->ValidateMove(&ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << fen << " " << move;
    EXPECT_EQ(Code(st), code);
  }
}

TEST_F(RulesServerTest, BatchAndStreamAnswerEachItem) {
  auto stub = Stub();
  v1::ValidateMoveBatchRequest batch;
  for (const char* m : {"e4", "e5", "Nf3", "bad!"}) {
    v1::ValidateMoveRequest* r = batch.add_requests();
    r->mutable_position()->set_fen("startpos");
    r->set_move(m);
    r->set_id(m);
  }
  v1::ValidateMoveBatchResponse out;
  grpc::ClientContext ctx;
  Authorize(&ctx, Token(Role::kPlatform));
  ASSERT_TRUE(stub->ValidateMoveBatch(&ctx, batch, &out).ok());
  ASSERT_EQ(out.responses_size(), 4);
  EXPECT_TRUE(out.responses(0).legal());
  EXPECT_FALSE(out.responses(1).legal());  // e5 is Black's move
  EXPECT_TRUE(out.responses(2).legal());
  EXPECT_EQ(out.responses(3).error().code(), "ERR_BAD_SAN");
  EXPECT_EQ(out.responses(3).id(), "bad!");

  grpc::ClientContext sctx;
  Authorize(&sctx, Token(Role::kObserver));
  auto stream = stub->ValidateMoveStream(&sctx);
  for (const v1::ValidateMoveRequest& r : batch.requests()) ASSERT_TRUE(stream->Write(r));
  stream->WritesDone();
  v1::ValidateMoveResponse r;
  int n = 0;
  while (stream->Read(&r)) EXPECT_EQ(r.id(), batch.requests(n++).id());
  EXPECT_EQ(n, 4);
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(RulesServerTest, ApplyMovesStatusConvertSetupPgnPerft) {
  auto stub = Stub();
  const std::string token = Token(Role::kArbiter);
  {
    v1::ApplyMovesRequest req;
    req.mutable_position()->set_fen("startpos");
    for (const char* m : {"f3", "e5", "g4", "Qh4#"}) req.add_moves(m);
    v1::ApplyMovesResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->ApplyMoves(&ctx, req, &resp).ok());
    ASSERT_EQ(resp.moves_size(), 4);
    EXPECT_EQ(resp.moves(3).move().san(), "Qh4#");
    EXPECT_TRUE(resp.status().checkmate());
    EXPECT_EQ(resp.status().automatic_outcome().termination(), v1::TERMINATION_CHECKMATE);
    EXPECT_EQ(resp.status().automatic_outcome().winner(), v1::COLOR_BLACK);
  }
  {  // The first illegal move fails the call, naming it.
    v1::ApplyMovesRequest req;
    req.mutable_position()->set_fen("startpos");
    req.add_moves("e4");
    req.add_moves("e4");
    v1::ApplyMovesResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    grpc::Status st = stub->ApplyMoves(&ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(Code(st), "ERR_ILLEGAL_MOVE");
    EXPECT_TRUE(absl::StrContains(st.error_message(), "moves[1]"));
  }
  {  // 9.2a and, under 2023, the automatic draws.
    v1::GetStatusRequest req;
    req.mutable_position()->set_fen("startpos");
    for (const char* m : {"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"}) req.add_moves(m);
    v1::GetStatusResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->GetStatus(&ctx, req, &resp).ok());
    EXPECT_FALSE(resp.status().threefold().now());
    ASSERT_EQ(resp.status().threefold().by_moves_size(), 1);
    EXPECT_EQ(resp.status().threefold().by_moves(0).san(), "Ng8");
  }
  {
    v1::GetStatusRequest req;
    req.mutable_position()->set_fen("8/8/4k3/8/8/3K4/8/5B2 w - - 0 1");
    req.set_edition(v1::EDITION_FIDE_2001);
    v1::GetStatusResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->GetStatus(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.status().automatic_outcome().termination(), v1::TERMINATION_DEAD_POSITION);
  }
  {
    v1::ConvertMoveRequest req;
    req.mutable_position()->set_fen("3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1");
    req.set_move("e7d8q");
    req.set_to(v1::NOTATION_APPENDIX_E);
    req.set_letters(v1::LETTERS_GERMAN);
    v1::ConvertMoveResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->ConvertMove(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.text(), "exd8D+");
    EXPECT_EQ(resp.move().san(), "exd8=Q+");
  }
  {
    v1::ValidateSetupRequest req;
    req.mutable_position()->set_fen("kk6/8/8/8/8/8/8/P3K3 w KQ - 0 1");
    v1::ValidateSetupResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->ValidateSetup(&ctx, req, &resp).ok());
    EXPECT_FALSE(resp.valid());
    EXPECT_EQ(resp.problems_size(), 4);  // two kings, a pawn on a1, rights K and Q without rooks
  }
  {
    v1::ValidatePgnRequest req;
    req.set_pgn("[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. e4 e5 2. Ke3 *\n");
    v1::ValidatePgnResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->ValidatePgn(&ctx, req, &resp).ok());
    EXPECT_FALSE(resp.ok());
    ASSERT_EQ(resp.games_size(), 2);
    EXPECT_TRUE(resp.games(0).ok());
    EXPECT_EQ(resp.games(1).ply(), 3);
    EXPECT_EQ(resp.games(1).san(), "Ke3");
    EXPECT_EQ(resp.games(1).line(), 7);
    EXPECT_EQ(resp.games(1).error().code(), "ERR_ILLEGAL_MOVE");
  }
  {
    v1::PerftRequest req;
    req.mutable_position()->set_fen("startpos");
    req.set_depth(4);
    req.set_divide(true);
    v1::PerftResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->Perft(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.nodes(), 197281u);
    EXPECT_EQ(resp.divide_size(), 20);
    req.set_depth(9);
    grpc::ClientContext ctx2;
    Authorize(&ctx2, token);
    EXPECT_EQ(Code(stub->Perft(&ctx2, req, &resp)), "ERR_BAD_ARGUMENT");
  }
  {
    v1::LegalMovesRequest req;
    req.mutable_position()->set_fen("startpos");
    v1::LegalMovesResponse resp;
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    ASSERT_TRUE(stub->LegalMoves(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.moves_size(), 20);
    EXPECT_EQ(resp.moves(0).uci(), "a2a3");
  }
}

// Each role x each method: allowed or denied as the policy table says; and bad tokens.
TEST_F(RulesServerTest, AuthMatrix) {
  auto stub = Stub();
  struct Call {
    const char* name;
    std::function<grpc::Status(grpc::ClientContext*)> run;
  };
  v1::ValidateMoveRequest vm;
  vm.mutable_position()->set_fen("startpos");
  vm.set_move("e4");
  std::vector<Call> calls = {
      {"ValidateMove",
       [&](grpc::ClientContext* c) {
         v1::ValidateMoveResponse r;
         return stub->ValidateMove(c, vm, &r);
       }},
      {"ValidateMoveBatch",
       [&](grpc::ClientContext* c) {
         v1::ValidateMoveBatchRequest q;
         v1::ValidateMoveBatchResponse r;
         return stub->ValidateMoveBatch(c, q, &r);
       }},
      {"ValidateMoveStream",
       [&](grpc::ClientContext* c) {
         auto s = stub->ValidateMoveStream(c);
         s->WritesDone();
         return s->Finish();
       }},
      {"ApplyMoves",
       [&](grpc::ClientContext* c) {
         v1::ApplyMovesRequest q;
         q.mutable_position()->set_fen("startpos");
         v1::ApplyMovesResponse r;
         return stub->ApplyMoves(c, q, &r);
       }},
      {"LegalMoves",
       [&](grpc::ClientContext* c) {
         v1::LegalMovesRequest q;
         q.mutable_position()->set_fen("startpos");
         v1::LegalMovesResponse r;
         return stub->LegalMoves(c, q, &r);
       }},
      {"GetStatus",
       [&](grpc::ClientContext* c) {
         v1::GetStatusRequest q;
         q.mutable_position()->set_fen("startpos");
         v1::GetStatusResponse r;
         return stub->GetStatus(c, q, &r);
       }},
      {"ConvertMove",
       [&](grpc::ClientContext* c) {
         v1::ConvertMoveRequest q;
         q.mutable_position()->set_fen("startpos");
         q.set_move("e4");
         v1::ConvertMoveResponse r;
         return stub->ConvertMove(c, q, &r);
       }},
      {"ValidateSetup",
       [&](grpc::ClientContext* c) {
         v1::ValidateSetupRequest q;
         q.mutable_position()->set_fen("startpos");
         v1::ValidateSetupResponse r;
         return stub->ValidateSetup(c, q, &r);
       }},
      {"ValidatePgn",
       [&](grpc::ClientContext* c) {
         v1::ValidatePgnRequest q;
         q.set_pgn("1. e4 *");
         v1::ValidatePgnResponse r;
         return stub->ValidatePgn(c, q, &r);
       }},
      {"Perft",
       [&](grpc::ClientContext* c) {
         v1::PerftRequest q;
         q.mutable_position()->set_fen("startpos");
         q.set_depth(2);
         v1::PerftResponse r;
         return stub->Perft(c, q, &r);
       }},
  };
  const service::Policy& policy = running_->env->policy();
  for (Role role : service::kAllRoles) {
    for (const Call& call : calls) {
      const service::MethodPolicy* row =
          policy.Find(std::string("/arbiter.v1.RulesValidation/") + call.name);
      ASSERT_NE(row, nullptr) << call.name;
      const bool allowed =
          std::find(row->roles.begin(), row->roles.end(), role) != row->roles.end();
      grpc::ClientContext ctx;
      Authorize(&ctx, Token(role));
      grpc::Status st = call.run(&ctx);
      if (allowed) {
        EXPECT_TRUE(st.ok()) << service::RoleName(role) << " " << call.name << ": "
                             << st.error_message();
      } else {
        EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED)
            << service::RoleName(role) << " " << call.name;
        EXPECT_EQ(Code(st), "ERR_PERMISSION_DENIED");
      }
    }
  }
  // Perft is not for players or observers.
  EXPECT_EQ(policy.Find("/arbiter.v1.RulesValidation/Perft")->roles.size(), 3u);
  // No token, an expired one, a forged one, RS256 and ES256 keys.
  std::string forged = Token(Role::kArbiter);
  forged[forged.size() - 5] = forged[forged.size() - 5] == 'A' ? 'B' : 'A';
  for (const std::string& bad :
       {std::string(), Token(Role::kArbiter, -absl::Seconds(5)), forged, std::string("garbage")}) {
    for (const Call& call : calls) {
      grpc::ClientContext ctx;
      Authorize(&ctx, bad);
      grpc::Status st = call.run(&ctx);
      EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << call.name;
      EXPECT_EQ(Code(st), "ERR_UNAUTHENTICATED");
    }
  }
  for (const char* kid : {"rs-2026-1", "es-2026-1"}) {
    grpc::ClientContext ctx;
    Authorize(&ctx, Token(Role::kObserver, absl::Minutes(1), kid));
    EXPECT_TRUE(calls[0].run(&ctx).ok()) << kid;
  }
}

TEST_F(RulesServerTest, OversizeMessagesAreRejected) {
  auto stub = Stub();
  v1::ValidatePgnRequest req;
  req.set_pgn(std::string(300 << 10, ' '));  // the server's limit here is 256 KiB
  v1::ValidatePgnResponse resp;
  grpc::ClientContext ctx;
  Authorize(&ctx, Token(Role::kArbiter));
  EXPECT_EQ(stub->ValidatePgn(&ctx, req, &resp).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  v1::ApplyMovesRequest many;
  many.mutable_position()->set_fen("startpos");
  for (int i = 0; i < 10001; ++i) many.add_moves("Nf3");
  v1::ApplyMovesResponse out;
  grpc::ClientContext ctx2;
  Authorize(&ctx2, Token(Role::kArbiter));
  grpc::Status st = stub->ApplyMoves(&ctx2, many, &out);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Code(st), "ERR_TOO_LARGE");
}

TEST_F(RulesServerTest, DeadlineStopsTheWork) {
  auto stub = Stub();
  v1::PerftRequest req;
  req.mutable_position()->set_fen("startpos");
  req.set_depth(8);  // minutes of work
  v1::PerftResponse resp;
  grpc::ClientContext ctx;
  Authorize(&ctx, Token(Role::kArbiter), /*timeout_ms=*/300);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(stub->Perft(&ctx, req, &resp).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  // The server stops too: its in-flight gauge for Perft returns to zero promptly.
  bool stopped = false;
  for (int i = 0; i < 50 && !stopped; ++i) {
    std::string metrics = testing_util::HttpGet(running_->server->metrics_port(), "/metrics");
    stopped = absl::StrContains(metrics,
                                "arbiter_grpc_in_flight_requests{method=\"Perft\",service="
                                "\"arbiter.v1.RulesValidation\"} 0");
    if (!stopped) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(stopped);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST_F(RulesServerTest, MetricsAreScrapedWithLabels) {
  auto stub = Stub();
  v1::ValidateMoveRequest req;
  req.mutable_position()->set_fen("startpos");
  req.set_move("e4");
  v1::ValidateMoveResponse resp;
  grpc::ClientContext ctx;
  Authorize(&ctx, Token(Role::kPlatform));
  ASSERT_TRUE(stub->ValidateMove(&ctx, req, &resp).ok());
  grpc::ClientContext bad;
  Authorize(&bad, "");
  stub->ValidateMove(&bad, req, &resp);
  std::string metrics = testing_util::HttpGet(running_->server->metrics_port(), "/metrics");
  for (const char* series :
       {"arbiter_grpc_requests_total{code=\"OK\",method=\"ValidateMove\",service=\"arbiter.v1."
        "RulesValidation\"}",
        "arbiter_grpc_requests_total{code=\"UNAUTHENTICATED\",method=\"ValidateMove\",service="
        "\"arbiter.v1.RulesValidation\"}",
        "arbiter_grpc_request_duration_seconds_bucket{method=\"ValidateMove\",service=\"arbiter.v1."
        "RulesValidation\",le=\"0.001\"}",
        "arbiter_grpc_in_flight_requests{method=\"ValidateMove\",service=\"arbiter.v1."
        "RulesValidation\"}",
        "arbiter_build_info{", "arbiter_insecure_dev 0", "process_resident_memory_bytes",
        "process_cpu_seconds_total", "process_open_fds"}) {
    EXPECT_TRUE(absl::StrContains(metrics, series)) << series << "\n" << metrics.substr(0, 3000);
  }
}

TEST(RulesServerShutdownTest, HealthIsNotServingWhileDraining) {
  service::ServerConfig config = SecureConfig();
  config.shutdown_grace = absl::Milliseconds(1500);
  std::unique_ptr<Running> r = StartServer(config);
  auto health = grpc::health::v1::Health::NewStub(r->channel);
  auto check = [&](const std::string& name) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    grpc::health::v1::HealthCheckRequest req;
    req.set_service(name);
    grpc::health::v1::HealthCheckResponse resp;
    grpc::Status st = health->Check(&ctx, req, &resp);
    return st.ok() ? resp.status() : grpc::health::v1::HealthCheckResponse::UNKNOWN;
  };
  EXPECT_EQ(check(""), grpc::health::v1::HealthCheckResponse::SERVING);
  EXPECT_EQ(check("arbiter.v1.RulesValidation"), grpc::health::v1::HealthCheckResponse::SERVING);
  std::thread stopper([&] { r->server->Shutdown(); });
  bool saw_not_serving = false;
  for (int i = 0; i < 40 && !saw_not_serving; ++i) {
    saw_not_serving =
        check("arbiter.v1.RulesValidation") == grpc::health::v1::HealthCheckResponse::NOT_SERVING;
    if (!saw_not_serving) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(saw_not_serving);
  // Calls made during the grace period are still served (draining, not dropping).
  auto stub = v1::RulesValidation::NewStub(r->channel);
  v1::LegalMovesRequest req;
  req.mutable_position()->set_fen("startpos");
  v1::LegalMovesResponse resp;
  grpc::ClientContext ctx;
  Authorize(&ctx, Token(Role::kObserver));
  EXPECT_TRUE(stub->LegalMoves(&ctx, req, &resp).ok());
  stopper.join();
}

// grpc.health.v1 Watch (libs/service/health.h): the status at once, each change, and the stream
// ends when the server shuts down, so a watcher never holds the drain up. An unknown service is
// NOT_FOUND for Check and SERVICE_UNKNOWN for Watch, as the protocol says.
TEST(RulesServerShutdownTest, HealthWatchFollowsTheStatusAndEndsAtShutdown) {
  using grpc::health::v1::HealthCheckResponse;
  service::ServerConfig config = SecureConfig();
  config.shutdown_grace = absl::Milliseconds(300);
  std::unique_ptr<Running> r = StartServer(config);
  auto health = grpc::health::v1::Health::NewStub(r->channel);
  {
    grpc::ClientContext ctx;
    grpc::health::v1::HealthCheckRequest req;
    req.set_service("no.such.Service");
    HealthCheckResponse resp;
    EXPECT_EQ(health->Check(&ctx, req, &resp).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    grpc::health::v1::HealthCheckRequest req;
    req.set_service("no.such.Service");
    auto reader = health->Watch(&ctx, req);
    HealthCheckResponse resp;
    ASSERT_TRUE(reader->Read(&resp));
    EXPECT_EQ(resp.status(), HealthCheckResponse::SERVICE_UNKNOWN);
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::health::v1::HealthCheckRequest req;
  req.set_service("arbiter.v1.RulesValidation");
  auto reader = health->Watch(&ctx, req);
  HealthCheckResponse resp;
  ASSERT_TRUE(reader->Read(&resp));
  EXPECT_EQ(resp.status(), HealthCheckResponse::SERVING);
  const auto begin = std::chrono::steady_clock::now();
  std::thread stopper([&] { r->server->Shutdown(); });
  ASSERT_TRUE(reader->Read(&resp));
  EXPECT_EQ(resp.status(), HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(reader->Read(&resp));  // the server ended the stream
  EXPECT_TRUE(reader->Finish().ok());
  stopper.join();
  // Ended by the shutdown, not by the 2 s drain timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::milliseconds(1900));
}

TEST(RulesServerInsecureTest, InsecureDevNeedsNoTokenAndSaysSo) {
  service::ServerConfig config;
  config.insecure_dev = true;
  config.shutdown_grace = absl::Milliseconds(10);
  std::unique_ptr<Running> r = StartServer(config);
  auto stub = v1::RulesValidation::NewStub(r->channel);
  v1::PerftRequest req;
  req.mutable_position()->set_fen("startpos");
  req.set_depth(2);
  v1::PerftResponse resp;
  grpc::ClientContext ctx;
  EXPECT_TRUE(stub->Perft(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.nodes(), 400u);
  EXPECT_TRUE(absl::StrContains(testing_util::HttpGet(r->server->metrics_port(), "/metrics"),
                                "arbiter_insecure_dev 1"));
}

}  // namespace

namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::shared_ptr<grpc::Channel> TlsChannel(int port, bool with_client_cert) {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = Read("libs/service/testdata/ca.pem");
  if (with_client_cert) {
    options.pem_cert_chain = Read("libs/service/testdata/client.pem");
    options.pem_private_key = Read("libs/service/testdata/client.key.pem");
  }
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("localhost");
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::SslCredentials(options), args);
}

grpc::StatusCode LegalMovesOver(const std::shared_ptr<grpc::Channel>& channel) {
  auto stub = v1::RulesValidation::NewStub(channel);
  v1::LegalMovesRequest req;
  req.mutable_position()->set_fen("startpos");
  v1::LegalMovesResponse resp;
  grpc::ClientContext ctx;
  Authorize(&ctx, Token(Role::kObserver), 3000);
  return stub->LegalMoves(&ctx, req, &resp).error_code();
}

TEST(RulesServerTlsTest, TlsAndMutualTls) {
  service::ServerConfig tls = SecureConfig();
  tls.tls_cert = "libs/service/testdata/server.pem";
  tls.tls_key = "libs/service/testdata/server.key.pem";
  std::unique_ptr<Running> r = StartServer(tls);
  EXPECT_EQ(LegalMovesOver(TlsChannel(r->server->port(), false)), grpc::StatusCode::OK);
  // A plaintext client cannot talk to a TLS server.
  EXPECT_EQ(LegalMovesOver(r->channel), grpc::StatusCode::UNAVAILABLE);

  service::ServerConfig mtls = tls;
  mtls.tls_ca = "libs/service/testdata/ca.pem";
  std::unique_ptr<Running> m = StartServer(mtls);
  EXPECT_EQ(LegalMovesOver(TlsChannel(m->server->port(), true)), grpc::StatusCode::OK);
  EXPECT_EQ(LegalMovesOver(TlsChannel(m->server->port(), false)), grpc::StatusCode::UNAVAILABLE);
}

TEST(RulesServerConfigTest, BadFlagsFailAtStart) {
  service::ServerConfig no_keys;
  EXPECT_FALSE(
      service::ServiceEnv::Create(no_keys).ok());  // neither --auth_keys nor --insecure_dev
  service::ServerConfig half_tls = SecureConfig();
  half_tls.tls_cert = "libs/service/testdata/server.pem";
  auto env = service::ServiceEnv::Create(half_tls);
  ASSERT_TRUE(env.ok());
  half_tls.grpc_address = "127.0.0.1:0";
  EXPECT_FALSE(service::Server::Start(half_tls, env->get(), {}).ok());
  service::ServerConfig level = SecureConfig();
  level.log_level = "loud";
  EXPECT_FALSE(service::ServiceEnv::Create(level).ok());
}

}  // namespace
