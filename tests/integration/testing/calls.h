// Making calls in tests: a client context that carries a bearer token and a deadline, the stable
// error code of a status, requests naming a game or a position, one unary call in a line, and
// the first message of a server stream.
//
//   Call call(Token(Role::kArbiter));              // deadline: 5 s from now
//   grpc::Status st = stub->GetClock(&call, req, &resp);
//   EXPECT_EQ(Code(st), "ERR_CLOCK_NOT_FOUND");
//   st = Unary(stub.get(), &v1::ClockAuthority::Stub::GetClock, req, token);  // reply dropped
//   ASSERT_TRUE(Succeeded(st));                    // on failure: "ERR_... message"
//   auto start = ForGame<v1::StartClockRequest>(game);
#ifndef ARBITER_TESTS_INTEGRATION_TESTING_CALLS_H_
#define ARBITER_TESTS_INTEGRATION_TESTING_CALLS_H_

#include <memory>
#include <string>
#include <type_traits>

#include "absl/time/time.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace integration {

inline constexpr absl::Duration kCallTimeout = absl::Seconds(5);

// A ClientContext with "authorization: Bearer <token>" (none if `token` is empty) and a deadline
// `timeout` from now. Pass it where a stub wants a grpc::ClientContext*.
class Call : public grpc::ClientContext {
 public:
  explicit Call(const std::string& token, absl::Duration timeout = kCallTimeout);
};

// The stable error code of the status's ErrorInfo ("ERR_..."), "" when it has none.
std::string Code(const grpc::Status& status);

// Success for an OK status; otherwise a failure that says its stable code and message.
::testing::AssertionResult Succeeded(const grpc::Status& status);

// A request that names only the game `game` (any request with a game_id).
// A game between "alice" and "bob" (FIDE 2023 unless told, an arbiter present), as the platform
// creates it.
arbiter::v1::CreateGameRequest AliceBobGame(
    const std::string& game, const std::string& time_control = "5400",
    arbiter::v1::Edition edition = arbiter::v1::EDITION_FIDE_2023);

template <typename Request>
Request ForGame(const std::string& game) {
  Request request;
  request.set_game_id(game);
  return request;
}

// A request on the position `fen`, "startpos" or a FEN (any request with a position).
template <typename Request>
Request OnPosition(const std::string& fen) {
  Request request;
  request.mutable_position()->set_fen(fen);
  return request;
}

// One unary call with `token` and a deadline `timeout` from now; the reply goes to `reply` when
// given.
template <typename Stub, typename Request, typename Reply>
grpc::Status Unary(Stub* stub,
                   grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Reply*),
                   const Request& request, const std::string& token,
                   std::type_identity_t<Reply>* reply = nullptr,
                   absl::Duration timeout = kCallTimeout) {
  Call call(token, timeout);
  Reply dropped;
  return (stub->*method)(&call, request, reply != nullptr ? reply : &dropped);
}

// Reads a server stream's first message into `first` (when given): OK if one came (the stream is
// then cancelled), else the status the stream ended with.
template <typename Message>
grpc::Status FirstMessage(grpc::ClientContext* ctx, grpc::ClientReader<Message>* reader,
                          Message* first = nullptr) {
  Message m;
  if (!reader->Read(&m)) return reader->Finish();
  if (first != nullptr) *first = m;
  ctx->TryCancel();
  while (reader->Read(&m)) {
  }
  reader->Finish();
  return grpc::Status::OK;
}

}  // namespace integration

#endif  // ARBITER_TESTS_INTEGRATION_TESTING_CALLS_H_
