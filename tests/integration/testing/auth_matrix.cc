#include "tests/integration/testing/auth_matrix.h"

#include <set>
#include <utility>

#include "absl/time/clock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "libs/service/auth.h"
#include "tests/integration/testing/calls.h"
#include "tests/integration/testing/tokens.h"

namespace integration {

namespace {

using service::Role;

// Tokens the framework refuses before any policy: none, expired, a bad signature, not a JWT.
std::vector<std::pair<std::string, std::string>> BadTokens() {
  service::TokenClaims expired = Claims(Role::kArbiter);
  expired.expires = absl::Now() - absl::Minutes(5);  // beyond the servers' leeway (30 s)
  std::string forged = Token(Role::kArbiter);
  char& c = forged[forged.size() - 5];
  c = c == 'A' ? 'B' : 'A';
  return {{"no token", ""}, {"expired", Sign(expired)}, {"forged", forged}, {"garbage", "garbage"}};
}

}  // namespace

void ExpectAuthMatrix(const std::string& service, const std::vector<AuthRow>& rows,
                      const std::map<std::string, MethodCall>& calls) {
  const google::protobuf::ServiceDescriptor* descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
  ASSERT_NE(descriptor, nullptr) << service;
  std::set<std::string> methods, named;
  for (int i = 0; i < descriptor->method_count(); ++i)
    methods.insert(descriptor->method(i)->name());
  for (const AuthRow& row : rows) {
    EXPECT_TRUE(named.insert(row.method).second) << row.method << ": a second row";
    EXPECT_TRUE(methods.count(row.method)) << row.method << " is no method of " << service;
    ASSERT_TRUE(calls.count(row.method)) << row.method << ": no call to make";
  }
  for (const std::string& m : methods) EXPECT_TRUE(named.count(m)) << service << "/" << m;

  const std::vector<std::pair<std::string, std::string>> bad = BadTokens();
  for (const AuthRow& row : rows) {
    const MethodCall& call = calls.at(row.method);
    for (auto [role, code] :
         {std::pair{Role::kPlatform, row.platform}, std::pair{Role::kPlayer, row.player},
          std::pair{Role::kArbiter, row.arbiter}, std::pair{Role::kObserver, row.observer},
          std::pair{Role::kService, row.service}}) {
      grpc::Status st = call([role = role](const std::string& game, chess::Color color) {
        return Token(role, game, color);
      });
      EXPECT_EQ(st.error_code(), code) << row.method << " as " << service::RoleName(role) << ": "
                                       << Code(st) << " " << st.error_message();
      if (code == grpc::StatusCode::PERMISSION_DENIED) {
        EXPECT_EQ(Code(st), "ERR_PERMISSION_DENIED") << row.method;
      }
    }
    for (const auto& [what, token] : bad) {
      grpc::Status st = call([&token = token](const std::string&, chess::Color) { return token; });
      EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << row.method << ", " << what;
      EXPECT_EQ(Code(st), "ERR_UNAUTHENTICATED") << row.method << ", " << what;
    }
  }
}

}  // namespace integration
