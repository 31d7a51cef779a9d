#include "libs/service/policy.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "libs/base/error.h"
#include "libs/service/errors.h"

namespace service {
namespace {

absl::Status Denied(absl::string_view why) {
  return base::Error(service::kErrPermissionDenied, why);
}

absl::Status OtherEvent(const Principal& principal) {
  return base::Error(kErrOtherEvent, absl::StrCat("this token serves the event \"",
                                                  absl::string_view(principal.event).substr(0, 64),
                                                  "\", not this game's"));
}

}  // namespace

void Policy::Add(MethodPolicy policy) {
  // "/arbiter.v1.Arbitration/SubmitMove": the service and the method must exist in the
  // generated descriptors.
  const size_t slash = policy.method.rfind('/');
  const google::protobuf::ServiceDescriptor* service =
      slash == std::string::npos || slash == 0
          ? nullptr
          : google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
                policy.method.substr(1, slash - 1));
  if (service == nullptr || service->FindMethodByName(policy.method.substr(slash + 1)) == nullptr) {
    std::fprintf(stderr, "FATAL: a policy row for %s, which is no method of a linked service\n",
                 policy.method.c_str());
    std::abort();
  }
  if (rows_.contains(policy.method)) {
    std::fprintf(stderr, "FATAL: a second policy row for %s\n", policy.method.c_str());
    std::abort();
  }
  std::string method = policy.method;
  rows_.emplace(std::move(method), std::move(policy));
}

const MethodPolicy* Policy::Find(absl::string_view method) const {
  auto it = rows_.find(method);
  return it == rows_.end() ? nullptr : &it->second;
}

absl::Status Authorize(const MethodPolicy* policy, const Principal& principal,
                       const google::protobuf::Message* request) {
  if (policy == nullptr) return Denied("no policy allows this method");
  if (std::find(policy->roles.begin(), policy->roles.end(), principal.role) ==
      policy->roles.end()) {
    return Denied(
        absl::StrCat("role ", RoleName(principal.role), " may not call ", policy->method));
  }
  if (!policy->game_bound || principal.role != Role::kPlayer || request == nullptr) {
    return absl::OkStatus();
  }
  if (principal.person()) {
    // Its game and colour are known once the game is read: the service binds it (BindPlayer).
    if (policy->binds_player) return absl::OkStatus();
    return Denied(absl::StrCat("a player token for an event may not call ", policy->method,
                               ": it needs a token for the game and colour"));
  }
  // A player acts only in his own game and for his own colour.
  const google::protobuf::Descriptor* d = request->GetDescriptor();
  const google::protobuf::Reflection* r = request->GetReflection();
  const google::protobuf::FieldDescriptor* game = d->FindFieldByName("game_id");
  if (game == nullptr || r->GetString(*request, game) != principal.game_id) {
    return Denied("a player token acts only in its own game");
  }
  const google::protobuf::FieldDescriptor* color = d->FindFieldByName("color");
  if (color != nullptr && color->type() == google::protobuf::FieldDescriptor::TYPE_ENUM) {
    // arbiter.v1.Color: 1 = white, 2 = black.
    int value = r->GetEnumValue(*request, color);
    int expected = principal.color == arbiter::v1::COLOR_WHITE ? 1 : 2;
    if (value != expected) return Denied("a player token acts only for its own colour");
  }
  return absl::OkStatus();
}

absl::Status CheckEvent(const Principal& principal, absl::string_view event) {
  if (principal.event.empty() || principal.role == Role::kPlayer || principal.event == event) {
    return absl::OkStatus();
  }
  return OtherEvent(principal);
}

absl::StatusOr<Principal> BindPlayer(const Principal& principal, absl::string_view game_id,
                                     absl::string_view event, absl::string_view white_id,
                                     absl::string_view black_id) {
  if (!principal.person()) {
    if (absl::Status in_event = CheckEvent(principal, event); !in_event.ok()) return in_event;
    return principal;
  }
  if (principal.event != event) return OtherEvent(principal);
  // The ids the game was created with are who plays it: the token's subject must be one of them.
  const bool white = !white_id.empty() && white_id == principal.subject;
  const bool black = !black_id.empty() && black_id == principal.subject;
  if (!white && !black) {
    return base::Error(kErrNotYourGame,
                       "this game names the token's subject as neither White nor Black");
  }
  Principal bound = principal;
  bound.game_id = std::string(game_id);
  if (white != black) bound.color = white ? arbiter::v1::COLOR_WHITE : arbiter::v1::COLOR_BLACK;
  return bound;
}

}  // namespace service
