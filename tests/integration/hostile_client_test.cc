// A hostile client against a real server: the arbitration, rules and
// clock services over gRPC on loopback, on the in-memory store and on a redis-server the test
// starts. Messages beyond --max_message_bytes, garbage and deeply nested bytes sent through a
// generic stub, unknown fields, a player calling an arbiter's method, a player of one game acting
// on another, stale expected versions, replayed command ids, a 100,000-character move and a clock
// adjustment at the limits of int64. Every
// refused call leaves the game as it was (version, moves) and the server goes on serving.
#include <future>
#include <limits>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "gtest/gtest.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/test_server.h"
#include "tests/integration/testing/tokens.h"

namespace integration {
namespace {

namespace v1 = arbiter::v1;
using service::Role;
using S = v1::Arbitration::Stub;

constexpr int kMaxMessageBytes = 256 << 10;
constexpr char kSubmitMove[] = "/arbiter.v1.Arbitration/SubmitMove";
constexpr char kGetGame[] = "/arbiter.v1.Arbitration/GetGame";
constexpr char kValidateMove[] = "/arbiter.v1.RulesValidation/ValidateMove";

// Appends a field number 4242 (unknown to every request) of wire type 0 with the value 7 and one
// of wire type 2 with a few bytes, as a newer client would send.
std::string WithUnknownFields(std::string bytes) {
  // Tag (4242 << 3 | 0) = 33936 as a varint: 0x90 0x89 0x02; then 7.
  bytes.append("\x90\x89\x02\x07", 4);
  // Tag (4242 << 3 | 2) = 33938: 0x92 0x89 0x02; length 3; "abc".
  bytes.append(
      "\x92\x89\x02\x03"
      "abc",
      7);
  return bytes;
}

// `depth` nested groups under an unknown field number: parsing them recurses once per level, far
// beyond protobuf's recursion limit (100).
std::string DeeplyNested(int depth) {
  std::string bytes;
  for (int i = 0; i < depth; ++i) bytes.push_back(static_cast<char>(15 << 3 | 3));  // start group
  for (int i = 0; i < depth; ++i) bytes.push_back(static_cast<char>(15 << 3 | 4));  // end group
  return bytes;
}

class HostileClientTest : public EachStoreTest<HostileClientTest> {
 public:
  static TestServerOptions Options(Store store) {
    TestServerOptions options({Service::kRules, Service::kArbitration, Service::kClock}, store);
    options.config.metrics_address = "none";
    options.config.max_message_bytes = kMaxMessageBytes;
    return options;
  }

 protected:
  std::unique_ptr<S> Stub() { return server()->Stub<v1::Arbitration>(); }

  // A game between alice and bob, created by the platform and started by the arbiter.
  std::string Ready(const std::string& name) {
    const std::string game = GameId(name);
    EXPECT_TRUE(
        Succeeded(Unary(Stub().get(), &S::CreateGame, AliceBobGame(game), Token(Role::kPlatform))));
    EXPECT_TRUE(Succeeded(Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(game),
                                Token(Role::kArbiter))));
    return game;
  }
  static std::string PlayerToken(const std::string& game, v1::Color side) {
    return Token(Role::kPlayer, game,
                 side == v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack);
  }
  static v1::SubmitMoveRequest MoveRequest(const std::string& game, v1::Color side,
                                           const std::string& move) {
    auto req = ForGame<v1::SubmitMoveRequest>(game);
    req.set_side(side);
    req.set_move(move);
    return req;
  }
  grpc::Status Move(const v1::SubmitMoveRequest& req, const std::string& token,
                    v1::GameReply* reply = nullptr) {
    return Unary(Stub().get(), &S::SubmitMove, req, token, reply);
  }
  v1::GameView Get(const std::string& game) {
    v1::GameReply resp;
    EXPECT_TRUE(Succeeded(Unary(Stub().get(), &S::GetGame, ForGame<v1::GetGameRequest>(game),
                                Token(Role::kArbiter), &resp)));
    return resp.game();
  }
  // The game is still at `before` (version and moves), and the server still answers.
  void ExpectUnchanged(const std::string& game, const v1::GameView& before) {
    const v1::GameView now = Get(game);
    EXPECT_EQ(now.version(), before.version());
    EXPECT_EQ(now.moves_san_size(), before.moves_san_size());
    EXPECT_EQ(now.fen(), before.fen());
  }
  // One unary call of `method` with `bytes` as the request, whatever they are; the reply's bytes
  // go to `reply` when given.
  grpc::Status Raw(const std::string& method, const std::string& bytes, const std::string& token,
                   std::string* reply = nullptr) {
    grpc::GenericStub generic(server()->channel());
    Call call(token);
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    generic.UnaryCall(&call, method, grpc::StubOptions(), &request, &response,
                      [&done](grpc::Status st) { done.set_value(std::move(st)); });
    grpc::Status st = done.get_future().get();
    if (st.ok() && reply != nullptr) {
      std::vector<grpc::Slice> slices;
      EXPECT_TRUE(response.Dump(&slices).ok());
      reply->clear();
      for (const grpc::Slice& s : slices) {
        reply->append(reinterpret_cast<const char*>(s.begin()), s.size());
      }
    }
    return st;
  }
};

TEST_P(HostileClientTest, OversizedMessageIsRefusedAndTheServerServes) {
  const std::string game = Ready("oversized");
  const v1::GameView before = Get(game);
  // A move string beyond the server's message limit.
  auto req = MoveRequest(game, v1::COLOR_WHITE, std::string(kMaxMessageBytes + 1024, 'e'));
  grpc::Status st = Move(req, PlayerToken(game, v1::COLOR_WHITE));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
  // And in raw bytes, to the rules service's completion-queue method.
  v1::ValidateMoveRequest big;
  big.mutable_position()->set_fen("startpos");
  big.set_move(std::string(2 * kMaxMessageBytes, 'x'));
  st = Raw(kValidateMove, big.SerializeAsString(), Token(Role::kObserver));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
  ExpectUnchanged(game, before);
  // The server goes on: a move within the limit is played.
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(
      Move(MoveRequest(game, v1::COLOR_WHITE, "e4"), PlayerToken(game, v1::COLOR_WHITE), &resp)));
  EXPECT_EQ(resp.game().version(), before.version() + 1);
  EXPECT_EQ(resp.game().moves_san_size(), 1);
}

TEST_P(HostileClientTest, GarbageAndDeeplyNestedBytesAreRefusedAndTheServerServes) {
  const std::string game = Ready("garbage");
  const v1::GameView before = Get(game);
  const std::string token = PlayerToken(game, v1::COLOR_WHITE);
  // A valid request with nesting appended: it parses up to the nesting, which fails the parse.
  const std::string valid = MoveRequest(game, v1::COLOR_WHITE, "e4").SerializeAsString();
  const std::string inputs[] = {
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11),  // an overlong varint tag
      std::string("\x0a\x7f", 2) + "short",       // a length beyond the end of the message
      std::string("\x0f", 1),                     // a start-group with no end
      DeeplyNested(100000),                       // 100,000 levels
      valid + DeeplyNested(5000),                 // a valid move, then 5,000 levels
      std::string("\x0a\x04\xc3\x28\xa0\xa1", 6)  // game_id: invalid UTF-8 in a proto3 string
  };
  for (const std::string& bytes : inputs) {
    for (const char* method : {kSubmitMove, kValidateMove}) {
      grpc::Status st = Raw(method, bytes, token);
      EXPECT_TRUE(st.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
                  st.error_code() == grpc::StatusCode::INTERNAL)
          << method << " with " << bytes.size() << " bytes: " << st.error_code() << " "
          << st.error_message();
    }
  }
  ExpectUnchanged(game, before);
  // The same client's well-formed bytes still work on both services.
  std::string reply_bytes;
  ASSERT_TRUE(Succeeded(Raw(kSubmitMove, valid, token, &reply_bytes)));
  v1::GameReply reply;
  ASSERT_TRUE(reply.ParseFromString(reply_bytes));
  EXPECT_EQ(reply.game().version(), before.version() + 1);
  v1::ValidateMoveRequest validate;
  validate.mutable_position()->set_fen("startpos");
  validate.set_move("Nf3");
  ASSERT_TRUE(Succeeded(Raw(kValidateMove, validate.SerializeAsString(), token, &reply_bytes)));
  v1::ValidateMoveResponse answer;
  ASSERT_TRUE(answer.ParseFromString(reply_bytes));
  EXPECT_TRUE(answer.legal());
}

TEST_P(HostileClientTest, UnknownFieldsAreIgnored) {
  const std::string game = Ready("unknown");
  const v1::GameView before = Get(game);
  std::string reply_bytes;
  ASSERT_TRUE(Succeeded(
      Raw(kGetGame, WithUnknownFields(ForGame<v1::GetGameRequest>(game).SerializeAsString()),
          Token(Role::kArbiter), &reply_bytes)));
  v1::GameReply reply;
  ASSERT_TRUE(reply.ParseFromString(reply_bytes));
  EXPECT_EQ(reply.game().version(), before.version());
  // A move with unknown fields is played once, as without them.
  ASSERT_TRUE(Succeeded(Raw(
      kSubmitMove, WithUnknownFields(MoveRequest(game, v1::COLOR_WHITE, "d4").SerializeAsString()),
      PlayerToken(game, v1::COLOR_WHITE), &reply_bytes)));
  ASSERT_TRUE(reply.ParseFromString(reply_bytes));
  EXPECT_EQ(reply.game().version(), before.version() + 1);
  ASSERT_EQ(reply.game().moves_san_size(), 1);
  EXPECT_EQ(reply.game().moves_san(0), "d4");
  EXPECT_EQ(Get(game).moves_san_size(), 1);
}

TEST_P(HostileClientTest, PlayerCallingAnArbitersMethodIsDenied) {
  const std::string game = Ready("role");
  const v1::GameView before = Get(game);
  const std::string token = PlayerToken(game, v1::COLOR_WHITE);
  auto set = ForGame<v1::SetResultRequest>(game);
  set.set_result(v1::RESULT_WHITE_WINS);
  set.set_article("6.9");
  set.set_reason("hostile");
  grpc::Status st = Unary(Stub().get(), &S::SetResult, set, token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED) << Code(st);
  auto rule = ForGame<v1::RuleRequest>(game);
  rule.set_decision(v1::RULING_DECISION_DRAW);
  st = Unary(Stub().get(), &S::Rule, rule, token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED) << Code(st);
  st = Unary(Stub().get(), &S::StartGame, ForGame<v1::StartGameRequest>(game), token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED) << Code(st);
  // Perft is not a player's either.
  auto rules = server()->Stub<v1::RulesValidation>();
  v1::PerftRequest perft;
  perft.mutable_position()->set_fen("startpos");
  perft.set_depth(1);
  st = Unary(rules.get(), &v1::RulesValidation::Stub::Perft, perft, token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED) << Code(st);
  ExpectUnchanged(game, before);
  EXPECT_EQ(Get(game).status(), v1::GAME_STATUS_ONGOING);
}

TEST_P(HostileClientTest, PlayerOfOneGameCannotActOnAnother) {
  const std::string mine = Ready("mine");
  const std::string theirs = Ready("theirs");
  const v1::GameView before = Get(theirs);
  const std::string token = PlayerToken(mine, v1::COLOR_WHITE);
  grpc::Status st = Move(MoveRequest(theirs, v1::COLOR_WHITE, "e4"), token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED) << Code(st);
  auto resign = ForGame<v1::ResignRequest>(theirs);
  resign.set_side(v1::COLOR_WHITE);
  st = Unary(Stub().get(), &S::Resign, resign, token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED) << Code(st);
  auto offer = ForGame<v1::OfferDrawRequest>(theirs);
  offer.set_side(v1::COLOR_WHITE);
  st = Unary(Stub().get(), &S::OfferDraw, offer, token);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED) << Code(st);
  ExpectUnchanged(theirs, before);
  EXPECT_EQ(Get(theirs).status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(Get(theirs).draw_offer(), v1::COLOR_UNSPECIFIED);
}

TEST_P(HostileClientTest, StaleExpectedVersionIsAbortedAndChangesNothing) {
  const std::string game = Ready("stale");
  v1::GameReply resp;
  ASSERT_TRUE(Succeeded(
      Move(MoveRequest(game, v1::COLOR_WHITE, "e4"), PlayerToken(game, v1::COLOR_WHITE), &resp)));
  const v1::GameView before = Get(game);
  auto req = MoveRequest(game, v1::COLOR_BLACK, "e5");
  for (std::int64_t stale : {before.version() - 1, std::int64_t{1}, before.version() + 5}) {
    req.set_expected_version(stale);
    grpc::Status st = Move(req, PlayerToken(game, v1::COLOR_BLACK));
    EXPECT_EQ(st.error_code(), grpc::StatusCode::ABORTED) << stale << ": " << Code(st);
    EXPECT_EQ(Code(st), "ERR_VERSION_CONFLICT") << stale;
    ExpectUnchanged(game, before);
  }
  // At the version it has, the move is played.
  req.set_expected_version(before.version());
  ASSERT_TRUE(Succeeded(Move(req, PlayerToken(game, v1::COLOR_BLACK), &resp)));
  EXPECT_EQ(resp.game().version(), before.version() + 1);
}

TEST_P(HostileClientTest, ReplayedCommandIsAppliedOnce) {
  const std::string game = Ready("replay");
  const v1::GameView before = Get(game);
  auto req = MoveRequest(game, v1::COLOR_WHITE, "e4");
  req.set_command_id("hostile-replay-1");
  v1::GameReply first, again;
  ASSERT_TRUE(Succeeded(Move(req, PlayerToken(game, v1::COLOR_WHITE), &first)));
  EXPECT_FALSE(first.replayed());
  EXPECT_EQ(first.game().version(), before.version() + 1);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(Succeeded(Move(req, PlayerToken(game, v1::COLOR_WHITE), &again)));
    EXPECT_TRUE(again.replayed());
    EXPECT_EQ(again.game().version(), first.game().version());
  }
  const v1::GameView now = Get(game);
  EXPECT_EQ(now.version(), first.game().version());
  ASSERT_EQ(now.moves_san_size(), 1);
  EXPECT_EQ(now.moves_san(0), "e4");
  // The id replayed with another move is refused, not played.
  req.set_move("d4");
  grpc::Status st = Move(req, PlayerToken(game, v1::COLOR_WHITE));
  EXPECT_FALSE(st.ok());
  ExpectUnchanged(game, now);
}

TEST_P(HostileClientTest, HugeMoveStringIsABadMove) {
  const std::string game = Ready("huge");
  const v1::GameView before = Get(game);
  // Within the message limit, far beyond any move: the error names the bad move (not the whole
  // text: echoed whole, its status no longer fits the client's metadata limit).
  const std::string move(100000, 'Q');
  grpc::Status st =
      Move(MoveRequest(game, v1::COLOR_WHITE, move), PlayerToken(game, v1::COLOR_WHITE));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message().size();
  // Refused by its length (ERR_BAD_ARGUMENT) or by the SAN reader (ERR_BAD_SAN).
  EXPECT_TRUE(Code(st) == "ERR_BAD_ARGUMENT" || Code(st) == "ERR_BAD_SAN") << Code(st);
  EXPECT_LT(st.error_message().size(), 1024u);
  // The rules service answers the same text as a malformed request too.
  auto rules = server()->Stub<v1::RulesValidation>();
  v1::ValidateMoveRequest validate;
  validate.mutable_position()->set_fen("startpos");
  validate.set_move(move);
  v1::ValidateMoveResponse answer;
  st = Unary(rules.get(), &v1::RulesValidation::Stub::ValidateMove, validate,
             PlayerToken(game, v1::COLOR_WHITE), &answer);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message().size();
  EXPECT_EQ(Code(st), "ERR_BAD_SAN");
  EXPECT_LT(st.error_message().size(), 1024u);
  ExpectUnchanged(game, before);
}

// An adjustment near the int64 limits once overflowed in libs/clock (Clock::Adjust: remaining +
// delta_ms) and left the player with negative time, a flag nobody earned; found by
// tests/fuzz/clock_request_fuzzer.cc.
TEST_P(HostileClientTest, ClockAdjustmentAtTheInt64LimitsIsRefused) {
  using C = v1::ClockAuthority::Stub;
  auto stub = server()->Stub<v1::ClockAuthority>();
  const std::string game = GameId("adjust");
  auto create = ForGame<v1::CreateClockRequest>(game);
  create.set_time_control("300+2");
  create.set_edition(v1::EDITION_FIDE_2023);
  ASSERT_TRUE(Succeeded(Unary(stub.get(), &C::CreateClock, create, Token(Role::kPlatform))));
  ASSERT_TRUE(Succeeded(Unary(stub.get(), &C::StartClock, ForGame<v1::StartClockRequest>(game),
                              Token(Role::kArbiter))));
  auto get = [&] {
    v1::ClockResponse resp;
    EXPECT_TRUE(Succeeded(Unary(stub.get(), &C::GetClock, ForGame<v1::GetClockRequest>(game),
                                Token(Role::kArbiter), &resp)));
    return resp;
  };
  const v1::ClockResponse before = get();
  for (std::int64_t delta :
       {std::numeric_limits<std::int64_t>::max() - 11071, std::numeric_limits<std::int64_t>::max(),
        std::numeric_limits<std::int64_t>::min()}) {
    auto adjust = ForGame<v1::AdjustClockRequest>(game);
    adjust.set_side(v1::COLOR_BLACK);
    adjust.set_delta_ms(delta);
    grpc::Status st = Unary(stub.get(), &C::AdjustClock, adjust, Token(Role::kArbiter));
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << delta << ": " << Code(st);
    EXPECT_EQ(Code(st), "ERR_BAD_ADJUSTMENT") << delta;
  }
  const v1::ClockResponse after = get();
  EXPECT_EQ(after.version(), before.version());
  EXPECT_EQ(after.clock().black_ms(), 300000);
  EXPECT_GT(after.clock().black_remaining_ms(), 0);
  EXPECT_FALSE(after.clock().has_black_flag_ms());
}

INSTANTIATE_TEST_SUITE_P(Stores, HostileClientTest, kEachStore, StoreName);

}  // namespace
}  // namespace integration
