#include "libs/service/auth.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/base/test_files.h"
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

// The subject keys the caller's rate bucket, stream count and command ids: a token without one
// (or with an empty one) is refused rather than pooled with every other such token.
TEST(AuthTest, RejectsATokenWithoutSubject) {
  KeySet keys = Keys();
  const SigningKey& hs = *keys.Find("hs-2026-1");
  TokenClaims anonymous = Claims(Role::kPlatform);
  anonymous.subject.clear();
  absl::StatusOr<Principal> p = VerifyToken(keys, *MintToken(hs, anonymous), absl::Now());
  EXPECT_THAT(p, HasErrorCode("ERR_UNAUTHENTICATED"));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_OK(VerifyToken(keys, *MintToken(hs, Claims(Role::kPlatform)), absl::Now()));
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
  player.color = arbiter::v1::COLOR_BLACK;
  absl::StatusOr<Principal> p = VerifyToken(keys, *MintToken(hs, player), absl::Now());
  ASSERT_OK(p);
  EXPECT_EQ(p->game_id, "g1");
  EXPECT_EQ(p->color, arbiter::v1::COLOR_BLACK);
  EXPECT_FALSE(p->person());
}

// A person's token: an event and no game; the games name his colour, so the token names none.
TEST(AuthTest, PlayerTokensForAnEventNameNoGameAndNoColour) {
  KeySet keys = Keys();
  const SigningKey& hs = *keys.Find("hs-2026-1");
  TokenClaims person = Claims(Role::kPlayer);
  person.event = "Open";
  absl::StatusOr<Principal> p = VerifyToken(keys, *MintToken(hs, person), absl::Now());
  ASSERT_OK(p);
  EXPECT_TRUE(p->person());
  EXPECT_EQ(p->event, "Open");
  EXPECT_EQ(p->game_id, "");
  EXPECT_FALSE(p->color.has_value());
  person.color = arbiter::v1::COLOR_WHITE;
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, person), absl::Now()),
              HasErrorCode("ERR_UNAUTHENTICATED"));
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

// RFC 7518 §3.2: an HMAC key at least as long as its hash; shorter ones fail at start.
TEST(AuthTest, HmacSecretsShorterThanTheirHashAreRefused) {
  auto key = [](const char* alg, size_t bytes) {
    return KeySet::FromJson(absl::StrCat(R"({"keys": [{"kid": "a", "alg": ")", alg,
                                         R"(", "secret": ")", std::string(bytes, 'k'), R"("}]})"));
  };
  EXPECT_THAT(key("HS256", 16), HasErrorCode("ERR_BAD_AUTH_KEYS"));  // accepted before
  EXPECT_THAT(key("HS256", 31), HasErrorCode("ERR_BAD_AUTH_KEYS"));
  EXPECT_OK(key("HS256", 32));
  EXPECT_THAT(key("HS384", 47), HasErrorCode("ERR_BAD_AUTH_KEYS"));
  EXPECT_OK(key("HS384", 48));
  EXPECT_THAT(key("HS512", 63), HasErrorCode("ERR_BAD_AUTH_KEYS"));
  EXPECT_OK(key("HS512", 64));
}

TEST(AuthTest, AudienceAndIssuerAreRequiredWhenConfigured) {
  KeySet keys = Keys();
  const SigningKey& hs = *keys.Find("hs-2026-1");
  TokenRules rules;
  rules.audience = "arbiter-prod";
  rules.issuer = "https://platform.example";
  TokenClaims good = Claims(Role::kArbiter);
  good.audience = rules.audience;
  good.issuer = rules.issuer;
  EXPECT_OK(VerifyToken(keys, *MintToken(hs, good), absl::Now(), rules));
  // Without a rule, any audience and issuer (or none) are accepted.
  EXPECT_OK(VerifyToken(keys, *MintToken(hs, Claims(Role::kArbiter)), absl::Now()));
  for (auto change : std::vector<std::function<void(TokenClaims&)>>{
           [](TokenClaims& c) { c.audience.clear(); },
           [](TokenClaims& c) { c.audience = "arbiter-staging"; },
           [](TokenClaims& c) { c.issuer.clear(); },
           [](TokenClaims& c) { c.issuer = "https://evil.example"; }}) {
    TokenClaims bad = good;
    change(bad);
    EXPECT_THAT(VerifyToken(keys, *MintToken(hs, bad), absl::Now(), rules),
                HasErrorCode("ERR_UNAUTHENTICATED"));
  }
}

TEST(AuthTest, MaximumLifetimeAndLeeway) {
  KeySet keys = Keys();
  const SigningKey& hs = *keys.Find("hs-2026-1");
  const absl::Time now = absl::Now();
  TokenRules rules;
  rules.max_lifetime = absl::Hours(24);
  rules.leeway = absl::Seconds(30);
  TokenClaims day = Claims(Role::kService);
  day.issued_at = now;
  day.expires = now + absl::Hours(24);
  EXPECT_OK(VerifyToken(keys, *MintToken(hs, day), now, rules));
  TokenClaims year = day;
  year.expires = now + absl::Hours(24 * 365);
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, year), now, rules),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  // Issued long ago with a long life, though only minutes are left: still too long a lifetime.
  TokenClaims old = day;
  old.issued_at = now - absl::Hours(48);
  old.expires = now + absl::Minutes(5);
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, old), now, rules),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  // Clock skew: expired 10 s ago, valid from 10 s on, issued 10 s ahead: all forgiven by 30 s.
  TokenClaims skewed = day;
  skewed.expires = now - absl::Seconds(10);
  skewed.issued_at = now - absl::Hours(1);
  EXPECT_OK(VerifyToken(keys, *MintToken(hs, skewed), now, rules));
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, skewed), now), HasErrorCode("ERR_UNAUTHENTICATED"));
  skewed.expires = now - absl::Seconds(40);
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, skewed), now, rules),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  TokenClaims early = day;
  early.not_before = now + absl::Seconds(10);
  early.issued_at = now + absl::Seconds(10);
  EXPECT_OK(VerifyToken(keys, *MintToken(hs, early), now, rules));
  early.not_before = now + absl::Seconds(40);
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, early), now, rules),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  TokenClaims future = day;
  future.issued_at = now + absl::Seconds(40);
  EXPECT_THAT(VerifyToken(keys, *MintToken(hs, future), now, rules),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  // The cache applies the leeway to its hits too.
  TokenCache cache;
  TokenClaims brief = day;
  brief.expires = now + absl::Seconds(5);
  const std::string bearer = "Bearer " + *MintToken(hs, brief);
  EXPECT_OK(cache.VerifyBearer(keys, bearer, now, rules));
  EXPECT_OK(cache.VerifyBearer(keys, bearer, now + absl::Seconds(20), rules));
  EXPECT_THAT(cache.VerifyBearer(keys, bearer, now + absl::Seconds(40), rules),
              HasErrorCode("ERR_UNAUTHENTICATED"));
}

using ::base::testing::TempPath;

void WriteFile(const std::string& path, const std::string& text) {
  ::base::testing::WriteFileAtomically(path, text);
}

std::string HsKeysJson(const std::string& kid, const std::string& secret) {
  return absl::StrCat(R"({"keys": [{"kid": ")", kid, R"(", "alg": "HS256", "secret": ")", secret,
                      R"("}]})");
}

// Rotation without a restart: the file replaced, the new keys are used at the next look, tokens
// cached under the old ones are dropped; a broken file keeps the keys last loaded.
TEST(AuthTest, ReloadingKeySetFollowsTheFile) {
  const std::string path = TempPath("reloading_keys.json");
  const std::string old_secret(40, 'o'), new_secret(40, 'n');
  WriteFile(path, HsKeysJson("k", old_secret));
  std::vector<absl::Status> reported;
  absl::StatusOr<std::unique_ptr<ReloadingKeySet>> set = ReloadingKeySet::Open(
      path, absl::ZeroDuration(), [&](const absl::Status& s) { reported.push_back(s); });
  ASSERT_OK(set);
  SigningKey old_key{"k", "HS256", old_secret}, new_key{"k", "HS256", new_secret};
  const std::string old_bearer = "Bearer " + *MintToken(old_key, Claims(Role::kArbiter));
  const std::string new_bearer = "Bearer " + *MintToken(new_key, Claims(Role::kArbiter));
  TokenCache cache;
  const absl::Time now = absl::Now();
  uint64_t gen = 0;
  std::shared_ptr<const KeySet> keys = (*set)->Current(now, &gen);
  EXPECT_OK(cache.VerifyBearer(*keys, old_bearer, now, {}, gen));
  EXPECT_THAT(cache.VerifyBearer(*keys, new_bearer, now, {}, gen),
              HasErrorCode("ERR_UNAUTHENTICATED"));

  WriteFile(path, HsKeysJson("k", new_secret));
  keys = (*set)->Current(now, &gen);
  EXPECT_THAT(cache.VerifyBearer(*keys, old_bearer, now, {}, gen),
              HasErrorCode("ERR_UNAUTHENTICATED"));
  EXPECT_OK(cache.VerifyBearer(*keys, new_bearer, now, {}, gen));

  WriteFile(path, "{not json");
  const uint64_t before = gen;
  keys = (*set)->Current(now, &gen);
  EXPECT_EQ(gen, before);
  EXPECT_OK(cache.VerifyBearer(*keys, new_bearer, now, {}, gen));
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_THAT(reported[0], HasErrorCode("ERR_BAD_AUTH_KEYS"));
  EXPECT_THAT((*set)->Reload(), HasErrorCode("ERR_BAD_AUTH_KEYS"));

  // With a poll interval, the file is looked at no more often than that.
  WriteFile(path, HsKeysJson("k", old_secret));
  absl::StatusOr<std::unique_ptr<ReloadingKeySet>> slow =
      ReloadingKeySet::Open(path, absl::Minutes(1));
  ASSERT_OK(slow);
  (*slow)->Current(now);
  WriteFile(path, HsKeysJson("k", new_secret));
  EXPECT_OK(VerifyBearer(*(*slow)->Current(now + absl::Seconds(1)), old_bearer, now));
  EXPECT_OK(VerifyBearer(*(*slow)->Current(now + absl::Minutes(2)), new_bearer, now));
  EXPECT_THAT(ReloadingKeySet::Open(TempPath("no_such_keys.json"), absl::Seconds(1)),
              HasErrorCode("ERR_BAD_AUTH_KEYS"));
}

TEST(PolicyTest, RolesAndGameBinding) {
  Policy policy;
  policy.Add({"/arbiter.test.S/Read", kAllRoles, false});
  policy.Add({"/arbiter.test.S/Move", {Role::kPlatform, Role::kPlayer}, true});
  Principal observer{Role::kObserver};
  Principal player{Role::kPlayer, "p", "g1", arbiter::v1::COLOR_WHITE};
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

// A person's token (an event's, no game) passes the table only where the service binds it to
// the game; BindPlayer gives it the colour the game names its subject for, and nothing else.
TEST(PolicyTest, PersonTokensAreBoundByTheGamesPlayers) {
  Policy policy;
  policy.Add({"/arbiter.test.S/Read", kAllRoles, true});
  policy.Add({"/arbiter.test.S/Move", {Role::kPlayer}, true, true});
  Principal alice{Role::kPlayer, "alice"};
  alice.event = "Open";
  arbiter::test::GameBoundRequest request;
  request.set_game_id("g1");
  EXPECT_THAT(Authorize(policy.Find("/arbiter.test.S/Read"), alice, &request),
              HasErrorCode("ERR_PERMISSION_DENIED"));
  EXPECT_OK(Authorize(policy.Find("/arbiter.test.S/Move"), alice, &request));

  absl::StatusOr<Principal> white = BindPlayer(alice, "g1", "Open", "alice", "bob");
  ASSERT_OK(white);
  EXPECT_EQ(white->game_id, "g1");
  EXPECT_EQ(white->color, arbiter::v1::COLOR_WHITE);
  absl::StatusOr<Principal> black = BindPlayer(alice, "g2", "Open", "bob", "alice");
  ASSERT_OK(black);
  EXPECT_EQ(black->color, arbiter::v1::COLOR_BLACK);
  EXPECT_THAT(BindPlayer(alice, "g3", "Open", "bob", "carol"), HasErrorCode("ERR_NOT_YOUR_GAME"));
  EXPECT_THAT(BindPlayer(alice, "g4", "Open", "", ""), HasErrorCode("ERR_NOT_YOUR_GAME"));
  EXPECT_THAT(BindPlayer(alice, "g5", "Other", "alice", "bob"), HasErrorCode("ERR_OTHER_EVENT"));
  // Named for both colours: bound to neither, the request names the side.
  absl::StatusOr<Principal> both = BindPlayer(alice, "g6", "Open", "alice", "alice");
  ASSERT_OK(both);
  EXPECT_FALSE(both->color.has_value());
  // A token for one game and colour comes back as it is, whatever the game's ids.
  Principal per_game{Role::kPlayer, "p", "g1", arbiter::v1::COLOR_BLACK};
  absl::StatusOr<Principal> same = BindPlayer(per_game, "g1", "Open", "alice", "bob");
  ASSERT_OK(same);
  EXPECT_EQ(same->color, arbiter::v1::COLOR_BLACK);
}

// A row for no real method, or a second row, is a start-up failure, never a silent
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
