#include "libs/service/auth.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/service/policy.h"
#include "libs/service/testdata/policy_test.pb.h"

namespace service {
namespace {

using ::base::HasErrorCode;

KeySet Keys() {
  absl::StatusOr<KeySet> keys = KeySet::FromFile("libs/service/testdata/keys.json");
  EXPECT_TRUE(keys.ok()) << keys.status();
  return *keys;
}

TokenClaims Claims(Role role) {
  TokenClaims c;
  c.role = role;
  c.subject = "tester";
  c.expires = absl::Now() + absl::Minutes(5);
  return c;
}

TEST(AuthTest, EveryAlgorithmVerifies) {
  KeySet keys = Keys();
  for (const char* kid : {"hs-2026-1", "rs-2026-1", "es-2026-1"}) {
    absl::StatusOr<std::string> token = MintToken(*keys.Find(kid), Claims(Role::kArbiter));
    ASSERT_OK(token) << kid;
    absl::StatusOr<Principal> p = VerifyToken(keys, *token, absl::Now());
    ASSERT_OK(p) << kid;
    EXPECT_EQ(p->role, Role::kArbiter);
    EXPECT_EQ(p->key_id, kid);
    EXPECT_OK(VerifyBearer(keys, "Bearer " + *token, absl::Now()));
  }
}

TEST(AuthTest, RejectsExpiredForgedUnknownAndMissing) {
  KeySet keys = Keys();
  const SigningKey& hs = *keys.Find("hs-2026-1");
  TokenClaims expired = Claims(Role::kPlatform);
  expired.expires = absl::Now() - absl::Seconds(1);
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, expired), absl::Now()),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  TokenClaims early = Claims(Role::kPlatform);
  early.not_before = absl::Now() + absl::Minutes(1);
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, early), absl::Now()),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  // Forged: signed with another secret under a known kid.
  SigningKey forger = hs;
  forger.material = "another-secret-of-enough-length!";
  EXPECT_THAT(VerifyToken(keys, *MintToken(forger, Claims(Role::kArbiter)), absl::Now()),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  // Tampered payload.
  std::string token = *MintToken(hs, Claims(Role::kObserver));
  size_t dot = token.find('.');
  token[dot + 3] = token[dot + 3] == 'A' ? 'B' : 'A';
  EXPECT_THAT(VerifyToken(keys, token, absl::Now()), HasErrorCode("ERR_UNAUTHENTICATED"));
  SigningKey unknown = hs;
  unknown.kid = "nobody";
  EXPECT_THAT(VerifyToken(keys, *MintToken(unknown, Claims(Role::kArbiter)), absl::Now()),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  // Algorithm confusion: an HS256 token under the RSA key's kid.
  SigningKey confused = hs;
  confused.kid = "rs-2026-1";
  EXPECT_THAT(VerifyToken(keys, *MintToken(confused, Claims(Role::kArbiter)), absl::Now()),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  EXPECT_THAT(VerifyBearer(keys, "", absl::Now()), HasErrorCode("ERR_UNAUTHENTICATED"));
  EXPECT_THAT(VerifyBearer(keys, "Basic abc", absl::Now()), HasErrorCode("ERR_UNAUTHENTICATED"));
  EXPECT_THAT(VerifyToken(keys, "not.a.token", absl::Now()), HasErrorCode("ERR_UNAUTHENTICATED"));
}

// A verified token is remembered, yet its exp/nbf still count on every call, and a token differing
// in any byte (a forgery) is verified in full.
TEST(AuthTest, TokenCacheRechecksValidityAndNeverTrustsAnAlteredToken) {
  KeySet keys = Keys();
  const SigningKey& hs = *keys.Find("hs-2026-1");
  TokenCache cache(/*max_entries=*/2);
  const absl::Time now = absl::Now();
  TokenClaims claims = Claims(Role::kPlatform);
  claims.expires = now + absl::Seconds(10);
  claims.not_before = now - absl::Seconds(10);
  const std::string bearer = "Bearer " + *MintToken(hs, claims);
  absl::StatusOr<Principal> first = cache.VerifyBearer(keys, bearer, now);
  ASSERT_OK(first);
  EXPECT_EQ(first->role, Role::kPlatform);
  absl::StatusOr<Principal> again = cache.VerifyBearer(keys, bearer, now + absl::Seconds(1));
  ASSERT_OK(again);
  EXPECT_EQ(again->subject, "tester");
  // Past its exp, and before its nbf, the cached token is refused like any other.
  EXPECT_THAT(cache.VerifyBearer(keys, bearer, now + absl::Seconds(11)),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  EXPECT_THAT(cache.VerifyBearer(keys, bearer, now - absl::Seconds(11)),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  // The same token with its signature altered is not a hit. (A middle character: all six of its
  // bits are signature; the last one's low bits are padding.)
  std::string forged = bearer;
  char& c = forged[forged.size() - 5];
  c = c == 'A' ? 'Q' : 'A';
  EXPECT_THAT(cache.VerifyBearer(keys, forged, now), HasErrorCode("ERR_UNAUTHENTICATED"));
  // A full cache starts over and still answers.
  for (Role r : {Role::kArbiter, Role::kObserver, Role::kService}) {
    EXPECT_OK(cache.VerifyBearer(keys, "Bearer " + *MintToken(hs, Claims(r)), now));
  }
  EXPECT_OK(cache.VerifyBearer(keys, bearer, now));
}

TEST(AuthTest, PlayerTokensNameGameAndColour) {
  KeySet keys = Keys();
  const SigningKey& hs = *keys.Find("hs-2026-1");
  TokenClaims player = Claims(Role::kPlayer);
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, player), absl::Now()),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  player.game_id = "g1";
  player.color = chess::Color::kBlack;
  absl::StatusOr<Principal> p = VerifyToken(keys, *MintToken(hs, player), absl::Now());
  ASSERT_OK(p);
  EXPECT_EQ(p->game_id, "g1");
  EXPECT_EQ(p->color, chess::Color::kBlack);
}

TEST(AuthTest, BadKeyFiles) {
  EXPECT_THAT(KeySet::FromJson("{}"), HasErrorCode("ERR_BAD_AUTH_KEYS"));
  EXPECT_THAT(KeySet::FromJson(R"({"keys": [{"kid": "a", "alg": "HS256", "secret": "short"}]})"),
              HasErrorCode("ERR_BAD_AUTH_KEYS"));
  EXPECT_THAT(
      KeySet::FromJson(R"({"keys": [{"kid": "a", "alg": "none", "secret": "0123456789abcdef"}]})"),
      HasErrorCode("ERR_BAD_AUTH_KEYS"));
  EXPECT_THAT(KeySet::FromFile("/nonexistent.json"), HasErrorCode("ERR_BAD_AUTH_KEYS"));
}

TEST(PolicyTest, RolesAndGameBinding) {
  Policy policy;
  policy.Add({"/arbiter.test.S/Read", kAllRoles, false});
  policy.Add({"/arbiter.test.S/Move", {Role::kPlatform, Role::kPlayer}, true});
  Principal observer{Role::kObserver};
  Principal player{Role::kPlayer, "p", "g1", chess::Color::kWhite};
  arbiter::test::GameBoundRequest mine;
  mine.set_game_id("g1");
  mine.set_color(arbiter::v1::COLOR_WHITE);
  arbiter::test::GameBoundRequest other_game = mine;
  other_game.set_game_id("g2");
  arbiter::test::GameBoundRequest other_colour = mine;
  other_colour.set_color(arbiter::v1::COLOR_BLACK);
  EXPECT_OK(Authorize(policy.Find("/arbiter.test.S/Read"), observer, nullptr));
  EXPECT_THAT(Authorize(policy.Find("/arbiter.test.S/Move"), observer, &mine),
              HasErrorCode("ERR_PERMISSION_DENIED"));
  EXPECT_OK(Authorize(policy.Find("/arbiter.test.S/Move"), player, &mine));
  EXPECT_THAT(Authorize(policy.Find("/arbiter.test.S/Move"), player, &other_game),
              HasErrorCode("ERR_PERMISSION_DENIED"));
  EXPECT_THAT(Authorize(policy.Find("/arbiter.test.S/Move"), player, &other_colour),
              HasErrorCode("ERR_PERMISSION_DENIED"));
  EXPECT_THAT(Authorize(policy.Find("/arbiter.test.S/Unknown"), observer, nullptr),
              HasErrorCode("ERR_PERMISSION_DENIED"));
}

// Issue 11.2: a row for no real method, or a second row, is a start-up failure, never a silent
// refusal of the method to everyone.
TEST(PolicyDeathTest, RowsNameRealMethodsOnce) {
  Policy policy;
  EXPECT_DEATH(policy.Add({"/arbiter.test.S/Raed", kAllRoles, false}), "no method");
  EXPECT_DEATH(policy.Add({"/arbiter.test.Nope/Read", kAllRoles, false}), "no method");
  policy.Add({"/arbiter.test.S/Read", kAllRoles, false});
  EXPECT_DEATH(policy.Add({"/arbiter.test.S/Read", kAllRoles, false}), "second policy row");
}

}  // namespace
}  // namespace service
