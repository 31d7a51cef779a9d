// What each role sees when it calls each method of a service: a literal table, one row a method,
// checked by real calls. (policy_coverage_test checks the policy table itself; this checks what a
// caller gets back, and is not derived from that table.)
//
//   const std::vector<AuthRow> kMatrix = {
//       // method       platform player arbiter observer service
//       {"GetClock",    OK,      OK,    OK,     OK,      OK},
//       {"PauseClock",  NO,      NO,    OK,     NO,      OK},
//   };
//   ExpectAuthMatrix(ClockAuthorityService::kName, kMatrix, {
//       {"GetClock", [&](const TokenFor& token) {
//          return Unary(stub, &Stub::GetClock, Get(game), token(game, chess::Color::kWhite)); }},
//       ...});
#ifndef ARBITER_TESTS_INTEGRATION_TESTING_AUTH_MATRIX_H_
#define ARBITER_TESTS_INTEGRATION_TESTING_AUTH_MATRIX_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "grpcpp/support/status.h"
#include "libs/chess/types.h"

namespace integration {

// The codes of most cells, short so that a row of the matrix reads as one line.
inline constexpr grpc::StatusCode OK = grpc::StatusCode::OK;
inline constexpr grpc::StatusCode NO = grpc::StatusCode::PERMISSION_DENIED;

// The code each role's call ends with; PERMISSION_DENIED must carry ERR_PERMISSION_DENIED.
struct AuthRow {
  std::string method;  // the short name: "ValidateMove"
  grpc::StatusCode platform, player, arbiter, observer, service;
};

// The token a call is made with, for the game and colour it acts on (a player's token is bound to
// both; other roles' tokens ignore them).
using TokenFor = std::function<std::string(const std::string& game, chess::Color color)>;
// One call of a method, as a caller allowed to make it would: a fresh game where the method needs
// one in a certain state, made with the token `token` gives for it.
using MethodCall = std::function<grpc::Status(const TokenFor& token)>;

// Checks that `rows` names every method of the gRPC service `service` (its descriptor) exactly
// once and `calls` has a call for each; then, for each row, that each role's call ends with the
// row's code, and that the call without a token, with an expired, a forged or a garbage token is
// UNAUTHENTICATED with ERR_UNAUTHENTICATED.
void ExpectAuthMatrix(const std::string& service, const std::vector<AuthRow>& rows,
                      const std::map<std::string, MethodCall>& calls);

}  // namespace integration

#endif  // ARBITER_TESTS_INTEGRATION_TESTING_AUTH_MATRIX_H_
