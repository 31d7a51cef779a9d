// Authentication: bearer tokens (JWT) in the call metadata ("authorization: Bearer <token>"),
// verified with libjwt against keys from --auth_keys, and the roles every RPC declares.
//
// Keys file (JSON): {"keys": [{"kid": "k1", "alg": "HS256", "secret": "..."},
//                             {"kid": "k2", "alg": "RS256", "public_key_file": "k2.pub.pem"},
//                             {"kid": "k3", "alg": "ES256", "public_key_pem": "-----BEGIN ..."}]}
// A token names its key in the header ("kid"), so keys rotate by adding the new one first. The
// algorithm must be the key's own (no alg confusion), "exp" is required and checked, "nbf" too.
// Claims: "role" (platform | player | arbiter | observer | service), "sub", and for a player
// "game" and "color" (white | black): a player token is bound to one game and colour.
#ifndef ARBITER_LIBS_SERVICE_AUTH_H_
#define ARBITER_LIBS_SERVICE_AUTH_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "libs/chess/types.h"

namespace service {

enum class Role { kPlatform, kPlayer, kArbiter, kObserver, kService };
absl::string_view RoleName(Role role);
std::optional<Role> ParseRole(absl::string_view name);

struct Principal {
  Role role = Role::kObserver;
  std::string subject;
  std::string game_id;                // players only
  std::optional<chess::Color> color;  // players only
  std::string key_id;
  // The token's validity ("exp", "nbf"), checked again whenever a cached verification is reused.
  absl::Time expires = absl::InfiniteFuture();
  absl::Time not_before = absl::InfinitePast();
};

struct SigningKey {
  std::string kid;
  std::string alg;          // HS256, HS384, HS512, RS256, RS384, RS512, ES256, ES384, ES512
  std::string material;     // the shared secret (HS*) or a PEM public key (RS*, ES*)
  std::string private_pem;  // optional: lets tools and tests mint tokens with this key
};

class KeySet {
 public:
  // INVALID_ARGUMENT ERR_BAD_AUTH_KEYS on malformed JSON, unknown algorithms or unreadable files.
  static absl::StatusOr<KeySet> FromJson(absl::string_view json, absl::string_view base_dir = "");
  static absl::StatusOr<KeySet> FromFile(const std::string& path);
  const SigningKey* Find(absl::string_view kid) const;
  bool empty() const { return keys_.empty(); }

 private:
  std::map<std::string, SigningKey> keys_;
};

// UNAUTHENTICATED ERR_UNAUTHENTICATED (no token, malformed, bad signature, unknown key, expired,
// not yet valid, missing or unknown role) or the principal.
absl::StatusOr<Principal> VerifyToken(const KeySet& keys, absl::string_view token, absl::Time now);
// Takes "Bearer <token>" as sent in the authorization metadata.
absl::StatusOr<Principal> VerifyBearer(const KeySet& keys, absl::string_view authorization,
                                       absl::Time now);

// Verified tokens remembered, so that a client sending the same token on every call pays for its
// signature once (about 30 µs of a ~60 µs ValidateMove on the development VM). The key is the
// whole token, signature included: a forged or altered token never matches and is verified in
// full. A hit is checked against the token's own exp/nbf at `now`. Keys are loaded once at start,
// so a verification cannot go stale. When full, the cache starts over (bounded memory, no LRU).
class TokenCache {
 public:
  explicit TokenCache(size_t max_entries = 10'000) : max_entries_(max_entries) {}
  absl::StatusOr<Principal> VerifyBearer(const KeySet& keys, absl::string_view authorization,
                                         absl::Time now);

 private:
  const size_t max_entries_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Principal> verified_ ABSL_GUARDED_BY(mu_);
};

struct TokenClaims {
  Role role = Role::kObserver;
  std::string subject;
  std::string game_id;
  std::optional<chess::Color> color;
  absl::Time expires;
  std::optional<absl::Time> not_before;
};

// Signs a token with `key` (HS* secret, or RS*/ES* private_pem). For tools, tests and platforms.
absl::StatusOr<std::string> MintToken(const SigningKey& key, const TokenClaims& claims);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_AUTH_H_
