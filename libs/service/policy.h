// Who may call what: one declarative table, method -> allowed roles, consulted for every call by
// the framework's single entry (Serve in server.h). Deny by default: a method without a row is
// PERMISSION_DENIED for everyone.
//
// gRPC C++ server interceptors cannot reject a call (grpc/grpc#24017), so the check runs in the
// one function every handler is entered through rather than in an interceptor; metrics and request
// logs, which only observe, are an interceptor (metrics.h).
#ifndef ARBITER_LIBS_SERVICE_POLICY_H_
#define ARBITER_LIBS_SERVICE_POLICY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "libs/service/auth.h"

namespace service {

struct MethodPolicy {
  std::string method;       // full name: "/arbiter.v1.RulesValidation/ValidateMove"
  std::vector<Role> roles;  // who may call it
  // A player may call it only for the game and colour of the token: the request's "game_id" field
  // must equal the token's game, and its "color" field (if the message has one) the token's colour.
  bool game_bound = false;
  // The service binds a person's token (an event's player token, Principal::person) to the game
  // with BindPlayer before acting. A game-bound method without it refuses such tokens.
  bool binds_player = false;
};

class Policy {
 public:
  // One row per method, naming a method of a service linked into the process (its generated
  // descriptor): a misspelt row would otherwise refuse the method to everyone, silently, so a
  // row for no such method, or a second row for one, aborts at start-up.
  void Add(MethodPolicy policy);
  const MethodPolicy* Find(absl::string_view method) const;
  const absl::flat_hash_map<std::string, MethodPolicy>& rows() const { return rows_; }

 private:
  absl::flat_hash_map<std::string, MethodPolicy> rows_;
};

// PERMISSION_DENIED ERR_PERMISSION_DENIED unless `principal` may call `policy`'s method with
// `request` (nullptr for streams, whose messages are checked one by one).
absl::Status Authorize(const MethodPolicy* policy, const Principal& principal,
                       const google::protobuf::Message* request);

// PERMISSION_DENIED ERR_OTHER_EVENT unless a token that names an event (Principal::event: an
// arbiter's) is used on a game or clock of that event (`event`: the one it was created
// for, CreateGameRequest.event / CreateClockRequest.event). A token without an event claim, and a
// player's (bound to its game already), pass.
absl::Status CheckEvent(const Principal& principal, absl::string_view event);

// Who acts in the game `game_id` of `event` between `white_id` and `black_id`. A person's token
// (Principal::person) acts there only if the game is of its event (PERMISSION_DENIED
// ERR_OTHER_EVENT) and names its subject as a player (ERR_NOT_YOUR_GAME), and only for that colour:
// the principal comes back bound to the game and the colour (to neither colour when the game names
// the subject for both). Any other token comes back as it is, once CheckEvent passes.
absl::StatusOr<Principal> BindPlayer(const Principal& principal, absl::string_view game_id,
                                     absl::string_view event, absl::string_view white_id,
                                     absl::string_view black_id);

inline const std::vector<Role> kAllRoles = {Role::kPlatform, Role::kPlayer, Role::kArbiter,
                                            Role::kObserver, Role::kService};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_POLICY_H_
