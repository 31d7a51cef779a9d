// Authentication: bearer tokens (JWT) in the call metadata ("authorization: Bearer <token>"),
// verified with libjwt against keys from --auth_keys, and the roles every RPC declares.
//
// Keys file (JSON): {"keys": [{"kid": "k1", "alg": "HS256", "secret": "..."},
//                             {"kid": "k2", "alg": "RS256", "public_key_file": "k2.pub.pem"},
//                             {"kid": "k3", "alg": "ES256", "public_key_pem": "-----BEGIN ..."}]}
// A token names its key in the header ("kid"), so keys rotate by adding the new one first. The
// algorithm must be the key's own (no alg confusion), "exp" is required and checked, "nbf" too.
// HMAC secrets must be at least as long as their hash (RFC 7518 §3.2: HS256 32 bytes, HS384 48,
// HS512 64). The server's TokenRules add "aud" and "iss" (when configured), a maximum lifetime
// (exp - iat) and a leeway for clock skew; ReloadingKeySet re-reads the keys file when it changes.
// Claims: "role" (platform | player | arbiter | observer | service), "sub", and for a player
// either "game" and "color" (white | black): a token bound to one game and colour, or "event" and
// no game: a person's token, serving its subject in every game of that event whose white_id or
// black_id is the subject, for that colour (policy.h, BindPlayer). Optional "event" on other
// roles: an arbiter token with one acts only on the games of that event.
#ifndef ARBITER_LIBS_SERVICE_AUTH_H_
#define ARBITER_LIBS_SERVICE_AUTH_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/arbiter/v1/common.pb.h"

namespace service {

enum class Role { kPlatform, kPlayer, kArbiter, kObserver, kService };
absl::string_view RoleName(Role role);
std::optional<Role> ParseRole(absl::string_view name);

struct Principal {
  Role role = Role::kObserver;
  std::string subject;
  std::string game_id;                      // players only
  std::optional<arbiter::v1::Color> color;  // players only: COLOR_WHITE or COLOR_BLACK
  // The event the token serves (claim "event", optional; CreateGameRequest.event): an arbiter
  // token with one acts only on that event's games. "" = not limited to one event.
  std::string event;
  std::string key_id;
  // A player's token for an event rather than one game (no "game" claim): it serves its subject
  // in the event's games that name him as a player (BindPlayer, policy.h).
  bool person() const { return role == Role::kPlayer && game_id.empty(); }
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

// The keys file, re-read when it changes (its inode, size or mtime, looked at no more than once per
// `poll`), so that keys rotate without a restart: a Kubernetes Secret's atomic update or a file
// renamed over the old one. Files a key names (public_key_file, secret_file) are re-read with it,
// but only a change of the keys file itself triggers a reload. A file that no longer loads keeps
// the keys last loaded (and `report` is told why).
class ReloadingKeySet {
 public:
  using Report = std::function<void(const absl::Status&)>;
  // The first load must succeed (ERR_BAD_AUTH_KEYS otherwise, or when the file has no keys).
  static absl::StatusOr<std::unique_ptr<ReloadingKeySet>> Open(std::string path,
                                                               absl::Duration poll,
                                                               Report report = nullptr);
  // The keys at `now` (reloaded first if the poll interval has passed and the file changed), and
  // their generation in `*generation` when given.
  std::shared_ptr<const KeySet> Current(absl::Time now, uint64_t* generation = nullptr);
  // Re-reads the file at once, changed or not (SIGHUP); the error if it does not load.
  absl::Status Reload();
  // Changes at every successful reload (verifications cached under another one are dropped).
  uint64_t generation() const;

 private:
  struct FileStamp {
    uint64_t inode = 0, size = 0;
    int64_t mtime_ns = 0;
    bool operator==(const FileStamp&) const = default;
  };
  ReloadingKeySet(std::string path, absl::Duration poll, Report report)
      : path_(std::move(path)), poll_(poll), report_(std::move(report)) {}
  static FileStamp Stamp(const std::string& path);
  absl::Status LoadLocked(const FileStamp& stamp) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  const absl::Duration poll_;
  const Report report_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const KeySet> keys_ ABSL_GUARDED_BY(mu_);
  FileStamp stamp_ ABSL_GUARDED_BY(mu_);
  absl::Time next_check_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
};

// What a token must carry besides a good signature and a role (the server's --jwt_* flags). The
// defaults check nothing more (tools and tests); servers use ServerConfig's.
struct TokenRules {
  std::string audience;  // when set: "aud" must be it (a string, or an array holding it)
  std::string issuer;    // when set: "iss" must be it
  // exp - iat at most this (exp - now for a token without "iat").
  absl::Duration max_lifetime = absl::InfiniteDuration();
  // Clock skew forgiven on exp (still valid this long after), nbf and iat (this long before).
  absl::Duration leeway = absl::ZeroDuration();
};

// UNAUTHENTICATED ERR_UNAUTHENTICATED (no token, malformed, bad signature, unknown key, expired,
// not yet valid, issued in the future, living longer than rules.max_lifetime, another audience or
// issuer, missing or unknown role) or the principal.
absl::StatusOr<Principal> VerifyToken(const KeySet& keys, absl::string_view token, absl::Time now,
                                      const TokenRules& rules = {});
// Takes "Bearer <token>" as sent in the authorization metadata.
absl::StatusOr<Principal> VerifyBearer(const KeySet& keys, absl::string_view authorization,
                                       absl::Time now, const TokenRules& rules = {});

// Verified tokens remembered, so that a client sending the same token on every call pays for its
// signature once (about 30 µs of a ~60 µs ValidateMove on the development VM). The key is the
// whole token, signature included: a forged or altered token never matches and is verified in
// full. A hit is checked against the token's own exp/nbf at `now` (with the rules' leeway). The
// verifications are of one generation of the keys (ReloadingKeySet::generation): a call with
// another generation empties the cache first, so a key removed or replaced stops working at once.
// When full, the cache starts over (bounded memory, no LRU).
class TokenCache {
 public:
  explicit TokenCache(size_t max_entries = 10'000) : max_entries_(max_entries) {}
  absl::StatusOr<Principal> VerifyBearer(const KeySet& keys, absl::string_view authorization,
                                         absl::Time now, const TokenRules& rules = {},
                                         uint64_t key_generation = 0);

 private:
  const size_t max_entries_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Principal> verified_ ABSL_GUARDED_BY(mu_);
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
};

struct TokenClaims {
  Role role = Role::kObserver;
  std::string subject;
  std::string game_id;
  std::optional<arbiter::v1::Color> color;  // "color": white or black; neither names none
  std::string event;                        // "event", when not empty
  absl::Time expires;
  std::optional<absl::Time> not_before;
  std::optional<absl::Time> issued_at;  // "iat"; the time of minting when not given
  std::string audience;                 // "aud", when not empty
  std::string issuer;                   // "iss", when not empty
};

// Signs a token with `key` (HS* secret, or RS*/ES* private_pem). For tools, tests and platforms.
absl::StatusOr<std::string> MintToken(const SigningKey& key, const TokenClaims& claims);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_AUTH_H_
