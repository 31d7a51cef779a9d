// The service framework (libs/service), over real gRPC on loopback around
// the rules-validation service: tokens' audience, issuer and lifetime, keys rotated without a
// restart, reflection only when asked for, the synchronous server's thread cap, the default
// deadline, per-caller rate and stream limits, --insecure_dev refused beyond loopback, error
// messages that no longer echo their input unbounded, and a negative bound of calls in flight
// refused (the bound's refusals: arbitration_server_test, OverloadTest).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "gtest/gtest.h"
#include "libs/base/test_files.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "proto/grpc/health/v1/health.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using grpc::health::v1::HealthCheckResponse;
using service::Role;
using S = v1::RulesValidation::Stub;

// A rules-only server (no /metrics) with `tweak` applied to its configuration.
std::unique_ptr<TestServer> RulesServer(
    const std::function<void(service::ServerConfig&)>& tweak = nullptr) {
  TestServerOptions options;
  options.services = {Service::kRules};
  options.config.metrics_address = "none";
  if (tweak) tweak(options.config);
  return TestServer::StartOrDie(options);
}

v1::LegalMovesRequest StartLegalMoves() {
  v1::LegalMovesRequest req;
  req.mutable_position()->set_fen("startpos");
  return req;
}

grpc::Status LegalMoves(TestServer* s, const std::string& token) {
  return Unary(s->Stub<v1::RulesValidation>().get(), &S::LegalMoves, StartLegalMoves(), token);
}

using ::base::testing::TempPath;
using ::base::testing::WriteFileAtomically;

std::string HsKeys(const std::string& kid, const std::string& secret) {
  return absl::StrCat(R"({"keys": [{"kid": ")", kid, R"(", "alg": "HS256", "secret": ")", secret,
                      R"("}]})");
}

std::string MintWith(const service::SigningKey& key, const service::TokenClaims& claims) {
  absl::StatusOr<std::string> token = service::MintToken(key, claims);
  EXPECT_TRUE(token.ok()) << token.status();
  return token.ok() ? *token : "";
}

// The key file replaced while the server runs: tokens signed with the new key are accepted and
// the old key's refused, without a restart (and the old key's token, cached, is dropped too).
TEST(LimitsTest, KeysRotateWithoutARestart) {
  const std::string path = TempPath("rotating_keys.json");
  const std::string old_secret = "old-secret-for-the-rotation-test-0123456789";
  const std::string new_secret = "new-secret-for-the-rotation-test-0123456789";
  WriteFileAtomically(path, HsKeys("rot-1", old_secret));
  std::unique_ptr<TestServer> s = RulesServer([&](service::ServerConfig& c) {
    c.auth_keys = path;
    c.auth_keys_reload = absl::ZeroDuration();  // looked at on every call
  });
  const std::string old_token = MintWith({"rot-1", "HS256", old_secret}, Claims(Role::kObserver));
  const std::string new_token = MintWith({"rot-1", "HS256", new_secret}, Claims(Role::kObserver));
  const std::string new_kid_token =
      MintWith({"rot-2", "HS256", new_secret}, Claims(Role::kObserver));
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), old_token)));
  EXPECT_EQ(Code(LegalMoves(s.get(), new_token)), "ERR_UNAUTHENTICATED");

  WriteFileAtomically(path, HsKeys("rot-1", new_secret));
  grpc::Status old_after = LegalMoves(s.get(), old_token);
  EXPECT_EQ(old_after.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Code(old_after), "ERR_UNAUTHENTICATED");
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), new_token)));

  // Rotation by kid: the new key added under its own name, then the old one removed.
  WriteFileAtomically(
      path,
      absl::StrCat(R"({"keys": [{"kid": "rot-1", "alg": "HS256", "secret": ")", new_secret,
                   R"("}, {"kid": "rot-2", "alg": "HS256", "secret": ")", new_secret, R"("}]})"));
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), new_kid_token)));
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), new_token)));
  WriteFileAtomically(path, HsKeys("rot-2", new_secret));
  EXPECT_EQ(Code(LegalMoves(s.get(), new_token)), "ERR_UNAUTHENTICATED");
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), new_kid_token)));

  // A broken file keeps the keys last loaded; SIGHUP's reload says why it failed.
  WriteFileAtomically(
      path, "{\"keys\": [{\"kid\": \"rot-3\", \"alg\": \"HS256\", \"secret\": \"short\"}]}");
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), new_kid_token)));
  EXPECT_FALSE(s->env()->ReloadKeys().ok());
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), new_kid_token)));
}

TEST(LimitsTest, AudienceIssuerAndLifetimeAreEnforced) {
  std::unique_ptr<TestServer> s = RulesServer([](service::ServerConfig& c) {
    c.jwt_audience = "arbiter-test";
    c.jwt_issuer = "https://platform.test";
  });
  service::TokenClaims good = Claims(Role::kObserver);
  good.audience = "arbiter-test";
  good.issuer = "https://platform.test";
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), Sign(good))));
  // A token minted for another service or environment sharing the key.
  for (auto change : std::vector<std::function<void(service::TokenClaims&)>>{
           [](service::TokenClaims& c) { c.audience.clear(); },
           [](service::TokenClaims& c) { c.audience = "arbiter-staging"; },
           [](service::TokenClaims& c) { c.issuer.clear(); },
           [](service::TokenClaims& c) { c.issuer = "https://other.test"; },
           // Longer than the 24 h default maximum.
           [](service::TokenClaims& c) { c.expires = absl::Now() + absl::Hours(48); }}) {
    service::TokenClaims bad = good;
    change(bad);
    grpc::Status st = LegalMoves(s.get(), Sign(bad));
    EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << st.error_message();
    EXPECT_EQ(Code(st), "ERR_UNAUTHENTICATED");
  }
  // A few seconds of clock skew are forgiven (30 s by default), not more.
  service::TokenClaims skewed = good;
  skewed.expires = absl::Now() - absl::Seconds(5);
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), Sign(skewed))));
  skewed.expires = absl::Now() - absl::Minutes(2);
  EXPECT_EQ(Code(LegalMoves(s.get(), Sign(skewed))), "ERR_UNAUTHENTICATED");
}

// grpc.reflection: UNIMPLEMENTED unless --grpc_reflection; health stays open either way.
grpc::StatusCode ReflectionListServices(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  const char list_services[] = {0x3a, 0x00};  // ServerReflectionRequest{list_services: ""}
  grpc::Slice slice(list_services, sizeof(list_services));
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  std::promise<grpc::Status> done;
  stub.UnaryCall(&ctx, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                 grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status st) { done.set_value(std::move(st)); });
  return done.get_future().get().error_code();
}

TEST(LimitsTest, ReflectionOnlyWhenAskedFor) {
  std::unique_ptr<TestServer> off = RulesServer();
  EXPECT_EQ(ReflectionListServices(off->channel()), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(off->Health(""), HealthCheckResponse::SERVING);  // no token needed
  std::unique_ptr<TestServer> on =
      RulesServer([](service::ServerConfig& c) { c.grpc_reflection = true; });
  EXPECT_EQ(ReflectionListServices(on->channel()), grpc::StatusCode::OK);
  // Enabling it for one server does not enable it for the next.
  std::unique_ptr<TestServer> again = RulesServer();
  EXPECT_EQ(ReflectionListServices(again->channel()), grpc::StatusCode::UNIMPLEMENTED);
}

// The synchronous server's thread cap bounds its unary calls; streams hold no thread (they are
// served from completion queues), so twenty health watchers on a server of six threads are all
// served and unary calls still answer. Before, the sixth watcher took the last thread and the
// rest, and every other call, were RESOURCE_EXHAUSTED.
TEST(LimitsTest, ThreadCapDoesNotCountStreams) {
  std::unique_ptr<TestServer> s =
      RulesServer([](service::ServerConfig& c) { c.grpc_max_threads = 6; });
  auto health = grpc::health::v1::Health::NewStub(s->channel());
  grpc::health::v1::HealthCheckRequest req;
  req.set_service("");
  struct Watcher {
    std::unique_ptr<Call> ctx;
    std::unique_ptr<grpc::ClientReader<HealthCheckResponse>> reader;
  };
  std::vector<Watcher> open;
  int served = 0, exhausted = 0;
  for (int i = 0; i < 20; ++i) {
    Watcher w{std::make_unique<Call>("", absl::Seconds(20))};
    w.reader = health->Watch(w.ctx.get(), req);
    HealthCheckResponse resp;
    if (w.reader->Read(&resp)) {
      ++served;
      open.push_back(std::move(w));
    } else {
      grpc::Status st = w.reader->Finish();
      if (st.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++exhausted;
    }
  }
  EXPECT_EQ(served, 20);
  EXPECT_EQ(exhausted, 0);
  // The synchronous methods still have their threads.
  v1::GetStatusRequest status_req;
  status_req.mutable_position()->set_fen("startpos");
  EXPECT_TRUE(Succeeded(Unary(s->Stub<v1::RulesValidation>().get(), &S::GetStatus, status_req,
                              Token(Role::kArbiter))));
  EXPECT_EQ(s->Health(""), HealthCheckResponse::SERVING);
  for (Watcher& w : open) w.ctx->TryCancel();
  for (Watcher& w : open) w.reader->Finish();
  bool serving = false;
  for (int i = 0; i < 40 && !serving; ++i) {
    serving = s->Health("") == HealthCheckResponse::SERVING;
    if (!serving) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(serving);
}

// A call without a deadline (or with a long one) gets the server's default.
TEST(LimitsTest, DefaultDeadlineStopsCallsWithoutOne) {
  std::unique_ptr<TestServer> s =
      RulesServer([](service::ServerConfig& c) { c.default_deadline = absl::Milliseconds(300); });
  auto stub = s->Stub<v1::RulesValidation>();
  v1::PerftRequest req;
  req.mutable_position()->set_fen("startpos");
  req.set_depth(8);  // minutes of work
  v1::PerftResponse resp;
  grpc::ClientContext no_deadline;
  no_deadline.AddMetadata("authorization", "Bearer " + Token(Role::kArbiter));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(stub->Perft(&no_deadline, req, &resp).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  Call long_deadline(Token(Role::kArbiter), absl::Minutes(10));
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(stub->Perft(&long_deadline, req, &resp).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  // Short work is unaffected.
  req.set_depth(2);
  EXPECT_TRUE(Succeeded(Unary(stub.get(), &S::Perft, req, Token(Role::kArbiter), &resp)));
  EXPECT_EQ(resp.nodes(), 400u);
}

TEST(LimitsTest, RateLimitPerCaller) {
  std::unique_ptr<TestServer> s = RulesServer([](service::ServerConfig& c) {
    c.rate_limit_qps = 2;
    c.rate_limit_burst = 3;
  });
  const std::string greedy = Token(Role::kObserver);
  int ok = 0, limited = 0;
  for (int i = 0; i < 6; ++i) {
    grpc::Status st = LegalMoves(s.get(), greedy);
    if (st.ok()) ++ok;
    if (st.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      EXPECT_EQ(Code(st), "ERR_RATE_LIMITED");
      ++limited;
    }
  }
  EXPECT_GE(ok, 3);
  EXPECT_LE(ok, 4);  // the burst, and perhaps one refill if the calls were slow
  EXPECT_GE(limited, 2);
  // Another caller is not affected; the greedy one gets tokens back over time.
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), Token(Role::kArbiter))));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_TRUE(Succeeded(LegalMoves(s.get(), greedy)));
}

// Every message of a ValidateMoveStream counts against the caller's rate limit, as a ValidateMove
// call would: one stream carried 4,096 validations a second through a limit of 20 when the
// stream was charged once, at its start.
TEST(LimitsTest, RateLimitCountsEveryMessageOfAStream) {
  std::unique_ptr<TestServer> s = RulesServer([](service::ServerConfig& c) {
    c.rate_limit_qps = 2;
    c.rate_limit_burst = 5;
  });
  auto stub = s->Stub<v1::RulesValidation>();
  const std::string greedy = Token(Role::kObserver);
  Call ctx(greedy, absl::Seconds(20));
  auto stream = stub->ValidateMoveStream(&ctx);
  v1::ValidateMoveRequest item;
  item.mutable_position()->set_fen("startpos");
  item.set_move("e4");
  int legal = 0, limited = 0;
  for (int i = 0; i < 20; ++i) {
    item.set_id(absl::StrCat("m", i));
    ASSERT_TRUE(stream->Write(item));
    v1::ValidateMoveResponse resp;
    ASSERT_TRUE(stream->Read(&resp));
    EXPECT_EQ(resp.id(), item.id());  // every message is answered, in order
    if (resp.legal()) ++legal;
    if (resp.error().code() == "ERR_RATE_LIMITED") ++limited;
  }
  stream->WritesDone();
  EXPECT_TRUE(Succeeded(stream->Finish()));
  // The stream's own admission takes one token of the burst of 5: at most 4 validations, and a
  // refill or two if the calls were slow.
  EXPECT_GE(legal, 3);
  EXPECT_LE(legal, 6);
  EXPECT_GE(limited, 14);
  EXPECT_EQ(legal + limited, 20);
  // The stream spent the caller's allowance: a unary call is refused too.
  EXPECT_EQ(Code(LegalMoves(s.get(), greedy)), "ERR_RATE_LIMITED");
}

TEST(LimitsTest, OpenStreamLimitPerCaller) {
  std::unique_ptr<TestServer> s =
      RulesServer([](service::ServerConfig& c) { c.max_streams_per_caller = 2; });
  auto stub = s->Stub<v1::RulesValidation>();
  using Stream = grpc::ClientReaderWriter<v1::ValidateMoveRequest, v1::ValidateMoveResponse>;
  struct Open {
    std::unique_ptr<Call> ctx;
    std::unique_ptr<Stream> stream;
  };
  v1::ValidateMoveRequest item;
  item.mutable_position()->set_fen("startpos");
  item.set_move("e4");
  // The stream's first answer, or the status it ended with.
  auto open = [&](const std::string& token, Open* out) -> grpc::Status {
    out->ctx = std::make_unique<Call>(token, absl::Seconds(20));
    out->stream = stub->ValidateMoveStream(out->ctx.get());
    v1::ValidateMoveResponse resp;
    if (out->stream->Write(item) && out->stream->Read(&resp)) return grpc::Status::OK;
    return out->stream->Finish();
  };
  auto close = [](Open* o) {
    o->stream->WritesDone();
    return o->stream->Finish();
  };
  const std::string watcher = Token(Role::kObserver);
  Open a, b, c, other;
  ASSERT_TRUE(Succeeded(open(watcher, &a)));
  ASSERT_TRUE(Succeeded(open(watcher, &b)));
  grpc::Status third = open(watcher, &c);
  EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(Code(third), "ERR_TOO_MANY_STREAMS");
  // Another caller has its own allowance.
  ASSERT_TRUE(Succeeded(open(Token(Role::kArbiter), &other)));
  EXPECT_TRUE(Succeeded(close(&other)));
  // A stream closed frees its place.
  EXPECT_TRUE(Succeeded(close(&a)));
  grpc::Status again;
  for (int i = 0; i < 20; ++i) {
    Open d;
    again = open(watcher, &d);
    if (again.ok()) {
      close(&d);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(Succeeded(again));
  EXPECT_TRUE(Succeeded(close(&b)));
}

TEST(LimitsTest, InsecureDevIsRefusedBeyondLoopback) {
  for (const char* address : {"0.0.0.0:0", "[::]:0"}) {
    service::ServerConfig config;
    config.insecure_dev = true;
    config.grpc_address = address;
    config.metrics_address = "none";
    absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
    ASSERT_TRUE(env.ok()) << env.status();
    absl::StatusOr<std::unique_ptr<service::Server>> server =
        service::Server::Start(config, env->get(), {});
    ASSERT_FALSE(server.ok()) << address;
    EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(server.status().message().find("loopback"), absl::string_view::npos);
  }
}

// A huge move string: the caller gets the move's error with a short message, not a status too big
// for its metadata limit (RESOURCE_EXHAUSTED before the fix).
// A negative bound of the calls being served is refused at start (0 turns it off).
TEST(LimitsTest, ANegativeBoundOfCallsInFlightIsABadFlag) {
  service::ServerConfig config;
  config.insecure_dev = true;
  config.metrics_address = "none";
  config.max_calls_in_flight = -1;
  absl::StatusOr<std::unique_ptr<service::ServiceEnv>> env = service::ServiceEnv::Create(config);
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(env.status().message().find("--max_calls_in_flight"), absl::string_view::npos);
  config.max_calls_in_flight = 0;
  EXPECT_TRUE(service::ServiceEnv::Create(config).ok());
}

TEST(LimitsTest, ErrorMessagesDoNotEchoInputUnbounded) {
  std::unique_ptr<TestServer> s = RulesServer();
  auto stub = s->Stub<v1::RulesValidation>();
  for (size_t length : {3'000u, 100'000u}) {
    v1::ValidateMoveRequest req;
    req.mutable_position()->set_fen("startpos");
    req.set_move(std::string(length, 'Z'));
    v1::ValidateMoveResponse resp;
    grpc::Status st = Unary(stub.get(), &S::ValidateMove, req, Token(Role::kPlatform), &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << length << " " << Code(st);
    EXPECT_EQ(Code(st), "ERR_BAD_SAN") << length;
    EXPECT_LE(st.error_message().size(), 512u) << length;
  }
}

}  // namespace
}  // namespace integration
