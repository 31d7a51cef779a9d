// docs/ROLES.md, who may call what, written from the policy table itself: every hosted service's
// rows (libs/service/policy.h) as the services add them at start. The table is built in code by
// each service (its `Register`), so the document is generated from a running table rather than
// from the source text, and roles_doc_test fails when the committed document differs.
//
//   bazel run //tests/integration:roles_doc > docs/ROLES.md
#ifndef ARBITER_TESTS_INTEGRATION_ROLES_DOC_H_
#define ARBITER_TESTS_INTEGRATION_ROLES_DOC_H_

#include <string>

#include "libs/service/policy.h"

namespace integration {

// The document for `policy`: one table per service, its methods in the proto's order.
std::string RolesDoc(const service::Policy& policy);

// The document for the policy table of a server hosting every service.
std::string HostedRolesDoc();

}  // namespace integration

#endif  // ARBITER_TESTS_INTEGRATION_ROLES_DOC_H_
