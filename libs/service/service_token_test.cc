// A service's own tokens: minted with a key of the keys file, verified as the callee verifies
// every token (role "service", its subject, audience and issuer), reused while fresh, minted again
// before they expire or when the keys change, and refused at the start when the key cannot sign.
#include "libs/service/service_token.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/base/test_files.h"

namespace service {
namespace {

using ::base::HasErrorCode;
using ::base::testing::TempPath;
using ::base::testing::WriteFileAtomically;

std::string KeysJson(const std::string& kid, const std::string& secret) {
  return absl::StrCat(R"({"keys": [{"kid": ")", kid, R"(", "alg": "HS256", "secret": ")", secret,
                      R"("}]})");
}

constexpr char kSecret[] = "service-token-test-secret-0123456789abcdef";
constexpr char kOtherSecret[] = "service-token-test-secret-fedcba9876543210";

// A source of arbitration's tokens signed with the key "svc" (kSecret) of a keys file written at
// `path`, read again at every token; `options` may add the audience and the issuer.
absl::StatusOr<std::unique_ptr<ServiceTokenSource>> SourceSigningWithSvc(
    const std::string& path, ServiceTokenOptions options = {}) {
  WriteFileAtomically(path, KeysJson("svc", kSecret));
  options.keys_file = path;
  options.key_id = "svc";
  options.subject = "arbitration";
  options.keys_reload = absl::ZeroDuration();
  return ServiceTokenSource::Open(std::move(options));
}

TEST(ServiceTokenTest, MintsServiceTokensTheCalleeAccepts) {
  const std::string path = TempPath("service_token_keys.json");
  absl::StatusOr<std::unique_ptr<ServiceTokenSource>> source =
      SourceSigningWithSvc(path, {.audience = "arbiter", .issuer = "arbiter-internal"});
  ASSERT_OK(source);
  const absl::Time now = absl::Now();
  absl::StatusOr<std::string> first = (*source)->Authorization(now);
  ASSERT_OK(first);
  absl::StatusOr<KeySet> keys = KeySet::FromFile(path);
  ASSERT_OK(keys);
  absl::StatusOr<Principal> who =
      VerifyBearer(*keys, *first, now, {.audience = "arbiter", .issuer = "arbiter-internal"});
  ASSERT_OK(who);
  EXPECT_EQ(who->role, Role::kService);
  EXPECT_EQ(who->subject, "arbitration");
  EXPECT_LE(who->expires, now + absl::Minutes(5) + absl::Seconds(1));
  // Fresh: the same token. Two thirds of its life gone: a new one, valid for longer.
  EXPECT_EQ(*(*source)->Authorization(now + absl::Minutes(1)), *first);
  absl::StatusOr<std::string> renewed = (*source)->Authorization(now + absl::Minutes(4));
  ASSERT_OK(renewed);
  EXPECT_NE(*renewed, *first);
  absl::StatusOr<Principal> later =
      VerifyBearer(*keys, *renewed, now + absl::Minutes(6),
                   {.audience = "arbiter", .issuer = "arbiter-internal"});
  EXPECT_OK(later);
}

TEST(ServiceTokenTest, FollowsTheKeysFile) {
  const std::string path = TempPath("service_token_rotated.json");
  absl::StatusOr<std::unique_ptr<ServiceTokenSource>> source = SourceSigningWithSvc(path);
  ASSERT_OK(source);
  // The secret rotated: the next token is signed with the new one at once.
  WriteFileAtomically(path, KeysJson("svc", kOtherSecret));
  const absl::Time now = absl::Now();
  absl::StatusOr<std::string> rotated = (*source)->Authorization(now);
  ASSERT_OK(rotated);
  absl::StatusOr<KeySet> keys = KeySet::FromFile(path);
  ASSERT_OK(keys);
  EXPECT_OK(VerifyBearer(*keys, *rotated, now));
  // The key removed: no token rather than one the callee refuses.
  WriteFileAtomically(path, KeysJson("other", kOtherSecret));
  EXPECT_THAT((*source)->Authorization(now), HasErrorCode("ERR_BAD_FLAG"));
}

TEST(ServiceTokenTest, RefusedAtTheStartWhenItCannotSign) {
  const std::string path = TempPath("service_token_start.json");
  WriteFileAtomically(path, KeysJson("svc", kSecret));
  EXPECT_THAT(ServiceTokenSource::Open({.keys_file = path, .key_id = "absent", .subject = "a"}),
              HasErrorCode("ERR_BAD_FLAG"));
  EXPECT_THAT(ServiceTokenSource::Open({.keys_file = "", .key_id = "svc", .subject = "a"}),
              HasErrorCode("ERR_BAD_FLAG"));
  EXPECT_THAT(ServiceTokenSource::Open({.keys_file = path, .key_id = "svc", .subject = ""}),
              HasErrorCode("ERR_BAD_FLAG"));
  EXPECT_THAT(ServiceTokenSource::Open(
                  {.keys_file = TempPath("no_such.json"), .key_id = "svc", .subject = "a"}),
              HasErrorCode("ERR_BAD_AUTH_KEYS"));
}

}  // namespace
}  // namespace service
