// Bearer tokens for tests, signed with the keys of libs/service/testdata/keys.json (HS256, RS256
// and ES256 keys; the services under test load the same file).
//
//   Call call(Token(Role::kArbiter));                               // subject "arbiter"
//   Call mine(Token(Role::kPlayer, game, chess::Color::kBlack));    // subject "player-black"
//   service::TokenClaims c = Claims(Role::kObserver);
//   c.expires = absl::Now() - absl::Seconds(5);  Sign(c);           // an expired token
#ifndef ARBITER_TESTS_INTEGRATION_TESTING_TOKENS_H_
#define ARBITER_TESTS_INTEGRATION_TESTING_TOKENS_H_

#include <string>

#include "libs/chess/types.h"
#include "libs/service/auth.h"

namespace integration {

// The keys file, relative to the runfiles root (data = ["//libs/service:testdata"]).
inline constexpr char kKeysFile[] = "libs/service/testdata/keys.json";
inline constexpr char kHsKey[] = "hs-2026-1";
inline constexpr char kRsKey[] = "rs-2026-1";
inline constexpr char kEsKey[] = "es-2026-1";

// Claims for `role`, valid for five minutes; the subject is the role's name ("player-white" for a
// player). A player's claims name `game` and `color`; other roles' ignore them.
service::TokenClaims Claims(service::Role role, const std::string& game = "g1",
                            chess::Color color = chess::Color::kWhite);
// `claims` signed with the key `kid`.
std::string Sign(const service::TokenClaims& claims, const char* kid = kHsKey);
// Sign(Claims(role, game, color)).
std::string Token(service::Role role, const std::string& game = "g1",
                  chess::Color color = chess::Color::kWhite);

}  // namespace integration

#endif  // ARBITER_TESTS_INTEGRATION_TESTING_TOKENS_H_
