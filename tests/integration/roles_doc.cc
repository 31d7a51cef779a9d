#include "tests/integration/roles_doc.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "libs/service/auth.h"
#include "tests/integration/testing/test_server.h"

namespace integration {
namespace {

constexpr char kHeader[] =
    "# Who may call what\n"
    "\n"
    "Generated from the policy table (`libs/service/policy.h`: the rows each service adds at\n"
    "start) by `bazel run //tests/integration:roles_doc > docs/ROLES.md`;\n"
    "`//tests/integration:roles_doc_test` fails when this file is not current. Do not edit it by\n"
    "hand.\n"
    "\n"
    "A call's role is its token's `role` claim (docs/INTEGRATING.md, \"The token's claims\").\n"
    "A method without a row is refused to everyone. The refusals: no token, a bad one or one\n"
    "without `sub`, `UNAUTHENTICATED`; a role the row does not name, `PERMISSION_DENIED`\n"
    "`ERR_PERMISSION_DENIED` (docs/ERRORS.md).\n"
    "\n"
    "- **yes**: the role may call the method.\n"
    "- **own game**: a player's token may call it only for the game its `game` claim names (the\n"
    "  request's `game_id`) and, where the request names a colour, for the token's `color`.\n"
    "- A token with an `event` claim (an arbiter's, a platform's or a service's serving one\n"
    "  event) acts only on the games and clocks created for that event: `PERMISSION_DENIED`\n"
    "  `ERR_OTHER_EVENT` on any other.\n"
    "- `SubmitMoves` is a stream opened by whoever may move; each of its moves is admitted by\n"
    "  SubmitMove's row (a player's only in his own game).\n"
    "- The health service (`grpc.health.v1.Health`: Check, Watch) needs no token.\n"
    "- Arbiter's services call each other as **service**: the arbitration service asks\n"
    "  search-analysis (`--analysis_target`) with tokens it mints itself, signed with the key\n"
    "  `--analysis_token_key` names in its `--auth_keys` (`role` service, `sub` its replica id,\n"
    "  five minutes' life; `libs/service/service_token.h`).\n";

// The roles in the order of the token's claim values.
constexpr service::Role kRoles[] = {service::Role::kPlatform, service::Role::kPlayer,
                                    service::Role::kArbiter, service::Role::kObserver,
                                    service::Role::kService};

std::string Cell(const service::MethodPolicy& row, service::Role role) {
  if (std::find(row.roles.begin(), row.roles.end(), role) == row.roles.end()) return "";
  return role == service::Role::kPlayer && row.game_bound ? "own game" : "yes";
}

}  // namespace

std::string RolesDoc(const service::Policy& policy) {
  std::set<std::string> services;  // "arbiter.v1.Arbitration"
  for (const auto& [method, row] : policy.rows()) {
    services.insert(method.substr(1, method.rfind('/') - 1));
  }
  std::string doc = kHeader;
  for (const std::string& name : services) {
    absl::StrAppend(&doc, "\n## ", name, "\n\n| method |");
    for (service::Role role : kRoles) absl::StrAppend(&doc, " ", service::RoleName(role), " |");
    absl::StrAppend(&doc, "\n|---|");
    for (size_t i = 0; i < std::size(kRoles); ++i) absl::StrAppend(&doc, "---|");
    absl::StrAppend(&doc, "\n");
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name);
    for (int i = 0; service != nullptr && i < service->method_count(); ++i) {
      const service::MethodPolicy* row =
          policy.Find(absl::StrCat("/", name, "/", service->method(i)->name()));
      absl::StrAppend(&doc, "| ", service->method(i)->name(), " |");
      for (service::Role role : kRoles) {
        absl::StrAppend(&doc, " ", row == nullptr ? "" : Cell(*row, role), " |");
      }
      absl::StrAppend(&doc, "\n");
    }
  }
  return doc;
}

std::string HostedRolesDoc() {
  std::unique_ptr<TestServer> server = TestServer::StartOrDie(EveryServiceForItsPolicy());
  return RolesDoc(server->env()->policy());
}

}  // namespace integration
