#include "libs/service/auth.h"

#include <jwt.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "libs/base/error.h"
#include "libs/service/errors.h"
#include "nlohmann/json.hpp"

namespace service {
namespace {

// Every role, with the name tokens give it.
constexpr std::pair<Role, absl::string_view> kRoleNames[] = {{Role::kPlatform, "platform"},
                                                             {Role::kPlayer, "player"},
                                                             {Role::kArbiter, "arbiter"},
                                                             {Role::kObserver, "observer"},
                                                             {Role::kService, "service"}};

absl::Status Unauthenticated(absl::string_view why) {
  return base::Error(service::kErrUnauthenticated, why);
}

// A token's validity window ("exp", "nbf") at `now`, `leeway` forgiven either side: on
// verification and on every cached reuse.
absl::Status CheckValidity(absl::Time expires, absl::Time not_before, absl::Time now,
                           absl::Duration leeway) {
  if (now >= expires + leeway) return Unauthenticated("the token has expired");
  if (now + leeway < not_before) return Unauthenticated("the token is not valid yet");
  return absl::OkStatus();
}

// RFC 7518 §3.2: an HMAC key at least as long as the hash's output.
size_t MinSecretBytes(absl::string_view alg) {
  if (alg == "HS384") return 48;
  if (alg == "HS512") return 64;
  return 32;
}

absl::Status BadKeys(absl::string_view why) { return base::Error(service::kErrBadAuthKeys, why); }

bool KnownAlg(absl::string_view alg) {
  return jwt_str_alg(std::string(alg).c_str()) != JWT_ALG_INVAL && alg != "none";
}

bool IsSymmetric(absl::string_view alg) { return absl::StartsWith(alg, "HS"); }

struct JwtDeleter {
  void operator()(jwt_t* j) const { jwt_free(j); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtDeleter>;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return BadKeys(absl::StrCat("cannot read ", path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

absl::string_view RoleName(Role role) {
  for (const auto& [r, name] : kRoleNames) {
    if (r == role) return name;
  }
  return "unknown";
}

std::optional<Role> ParseRole(absl::string_view name) {
  for (const auto& [r, role_name] : kRoleNames) {
    if (role_name == name) return r;
  }
  return std::nullopt;
}

absl::StatusOr<KeySet> KeySet::FromJson(absl::string_view json, absl::string_view base_dir) {
  nlohmann::json doc = nlohmann::json::parse(std::string(json), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("keys") || !doc["keys"].is_array()) {
    return BadKeys("the keys file must be a JSON object {\"keys\": [...]}");
  }
  KeySet set;
  for (const nlohmann::json& k : doc["keys"]) {
    if (!k.is_object() || !k.contains("kid") || !k["kid"].is_string() || !k.contains("alg") ||
        !k["alg"].is_string()) {
      return BadKeys("every key needs a string \"kid\" and \"alg\"");
    }
    SigningKey key;
    key.kid = k["kid"].get<std::string>();
    key.alg = k["alg"].get<std::string>();
    if (!KnownAlg(key.alg))
      return BadKeys(absl::StrCat("key ", key.kid, ": unknown alg ", key.alg));
    auto text = [&](const char* inline_name, const char* file_name) -> absl::StatusOr<std::string> {
      if (k.contains(inline_name) && k[inline_name].is_string())
        return k[inline_name].get<std::string>();
      if (k.contains(file_name) && k[file_name].is_string()) {
        std::string path = k[file_name].get<std::string>();
        if (!path.empty() && path[0] != '/' && !base_dir.empty())
          path = absl::StrCat(base_dir, "/", path);
        return ReadFile(path);
      }
      return std::string();
    };
    if (IsSymmetric(key.alg)) {
      absl::StatusOr<std::string> secret = text("secret", "secret_file");
      if (!secret.ok()) return secret.status();
      if (secret->size() < MinSecretBytes(key.alg)) {
        return BadKeys(absl::StrCat("key ", key.kid, ": an ", key.alg, " secret needs at least ",
                                    MinSecretBytes(key.alg), " bytes (RFC 7518 section 3.2), not ",
                                    secret->size()));
      }
      key.material = *secret;
    } else {
      absl::StatusOr<std::string> pem = text("public_key_pem", "public_key_file");
      if (!pem.ok()) return pem.status();
      if (pem->empty())
        return BadKeys(absl::StrCat("key ", key.kid, ": needs public_key_pem or public_key_file"));
      key.material = *pem;
      absl::StatusOr<std::string> priv = text("private_key_pem", "private_key_file");
      if (!priv.ok()) return priv.status();
      key.private_pem = *priv;
    }
    if (!set.keys_.emplace(key.kid, key).second)
      return BadKeys(absl::StrCat("duplicate kid ", key.kid));
  }
  return set;
}

absl::StatusOr<KeySet> KeySet::FromFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  size_t slash = path.rfind('/');
  return FromJson(*text, slash == std::string::npos ? "" : path.substr(0, slash));
}

const SigningKey* KeySet::Find(absl::string_view kid) const {
  auto it = keys_.find(std::string(kid));
  return it == keys_.end() ? nullptr : &it->second;
}

absl::StatusOr<Principal> VerifyToken(const KeySet& keys, absl::string_view token, absl::Time now,
                                      const TokenRules& rules) {
  if (token.empty()) return Unauthenticated("no bearer token");
  if (token.size() > 8192) return Unauthenticated("token too long");
  // The key is chosen by the header's kid, so the header is read before the signature is checked;
  // nothing else from an unverified token is trusted.
  size_t dot = token.find('.');
  if (dot == absl::string_view::npos) return Unauthenticated("malformed token");
  std::string header_json;
  if (!absl::WebSafeBase64Unescape(token.substr(0, dot), &header_json)) {
    return Unauthenticated("malformed token header");
  }
  nlohmann::json header = nlohmann::json::parse(header_json, nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains("kid") ||
      !header["kid"].is_string()) {
    return Unauthenticated("the token header names no key (kid)");
  }
  const SigningKey* key = keys.Find(header["kid"].get<std::string>());
  if (key == nullptr) return Unauthenticated("the token's key is unknown");
  if (!header.contains("alg") || header["alg"] != key->alg) {
    return Unauthenticated("the token's algorithm is not its key's");
  }
  jwt_t* raw = nullptr;
  std::string token_str(token);
  int rc = jwt_decode(&raw, token_str.c_str(),
                      reinterpret_cast<const unsigned char*>(key->material.data()),
                      static_cast<int>(key->material.size()));
  JwtPtr jwt(raw);
  if (rc != 0 || jwt == nullptr) return Unauthenticated("the token's signature does not verify");
  if (jwt_get_alg(jwt.get()) != jwt_str_alg(key->alg.c_str())) {
    return Unauthenticated("the token's algorithm is not its key's");
  }
  errno = 0;
  long exp = jwt_get_grant_int(jwt.get(), "exp");
  if (errno != 0 || exp <= 0) return Unauthenticated("the token has no expiry (exp)");
  errno = 0;
  long nbf = jwt_get_grant_int(jwt.get(), "nbf");
  const bool has_nbf = errno == 0 && nbf > 0;
  // exp and nbf are whole seconds: comparing `now` with them equals comparing its whole seconds.
  const absl::Time expires = absl::FromUnixSeconds(exp);
  const absl::Time not_before = has_nbf ? absl::FromUnixSeconds(nbf) : absl::InfinitePast();
  if (absl::Status valid = CheckValidity(expires, not_before, now, rules.leeway); !valid.ok()) {
    return valid;
  }
  errno = 0;
  long iat = jwt_get_grant_int(jwt.get(), "iat");
  const bool has_iat = errno == 0 && iat > 0;
  if (has_iat && absl::FromUnixSeconds(iat) > now + rules.leeway) {
    return Unauthenticated("the token was issued in the future (iat)");
  }
  if (rules.max_lifetime != absl::InfiniteDuration()) {
    const absl::Time from = has_iat ? absl::FromUnixSeconds(iat) : now;
    if (expires - from > rules.max_lifetime + (has_iat ? absl::ZeroDuration() : rules.leeway)) {
      return Unauthenticated(
          absl::StrCat("the token lives longer than ", absl::FormatDuration(rules.max_lifetime)));
    }
  }
  if (!rules.issuer.empty()) {
    const char* iss = jwt_get_grant(jwt.get(), "iss");
    if (iss == nullptr || rules.issuer != iss) {
      return Unauthenticated("the token's issuer (iss) is not the one this server trusts");
    }
  }
  if (!rules.audience.empty()) {
    // "aud" is a string or an array of strings (RFC 7519 §4.1.3).
    bool ours = false;
    if (char* aud = jwt_get_grants_json(jwt.get(), "aud")) {
      nlohmann::json value = nlohmann::json::parse(aud, nullptr, false);
      std::free(aud);
      if (value.is_string()) ours = value.get<std::string>() == rules.audience;
      if (value.is_array()) {
        for (const nlohmann::json& a : value) ours = ours || (a.is_string() && a == rules.audience);
      }
    }
    if (!ours) return Unauthenticated("the token is not meant for this server (aud)");
  }
  const char* role_name = jwt_get_grant(jwt.get(), "role");
  std::optional<Role> role = role_name ? ParseRole(role_name) : std::nullopt;
  if (!role.has_value()) return Unauthenticated("the token has no known role");
  Principal p;
  p.role = *role;
  p.key_id = key->kid;
  p.expires = expires;
  p.not_before = not_before;
  // The subject is the caller's identity: rate bucket, stream count and command-id scope are
  // kept per subject, so a token without one would share them with every other such token.
  const char* sub = jwt_get_grant(jwt.get(), "sub");
  if (sub == nullptr || *sub == '\0') return Unauthenticated("the token has no subject (sub)");
  p.subject = sub;
  if (const char* event = jwt_get_grant(jwt.get(), "event"))
    p.event = event;  // an event-scoped token
  if (p.role == Role::kPlayer) {
    const char* game = jwt_get_grant(jwt.get(), "game");
    const char* color = jwt_get_grant(jwt.get(), "color");
    if ((game == nullptr || *game == '\0') && !p.event.empty()) {
      // A person's token for an event: each game of the event says which colour he plays (the
      // id that is his subject), so the token names none.
      if (color != nullptr) {
        return Unauthenticated("a player token for an event names no colour: its games do");
      }
      return p;
    }
    if (game == nullptr || *game == '\0')
      return Unauthenticated("a player token must name its game (or an event)");
    p.game_id = game;
    if (color == nullptr || (std::string(color) != "white" && std::string(color) != "black")) {
      return Unauthenticated("a player token must name its colour (white or black)");
    }
    p.color = std::string(color) == "white" ? arbiter::v1::COLOR_WHITE : arbiter::v1::COLOR_BLACK;
  }
  return p;
}

absl::StatusOr<Principal> VerifyBearer(const KeySet& keys, absl::string_view authorization,
                                       absl::Time now, const TokenRules& rules) {
  absl::string_view token = authorization;
  if (!absl::ConsumePrefix(&token, "Bearer ") && !absl::ConsumePrefix(&token, "bearer ")) {
    return Unauthenticated("expected 'authorization: Bearer <token>'");
  }
  return VerifyToken(keys, absl::StripAsciiWhitespace(token), now, rules);
}

absl::StatusOr<Principal> TokenCache::VerifyBearer(const KeySet& keys,
                                                   absl::string_view authorization, absl::Time now,
                                                   const TokenRules& rules,
                                                   uint64_t key_generation) {
  {
    absl::MutexLock lock(&mu_);
    if (generation_ != key_generation) {
      verified_.clear();
      generation_ = key_generation;
    }
    auto it = verified_.find(authorization);
    if (it != verified_.end()) {
      const Principal& p = it->second;
      if (absl::Status valid = CheckValidity(p.expires, p.not_before, now, rules.leeway);
          !valid.ok()) {
        return valid;
      }
      return p;
    }
  }
  absl::StatusOr<Principal> p = service::VerifyBearer(keys, authorization, now, rules);
  if (!p.ok()) return p;  // failures are not remembered: nothing to gain, and no memory to fill
  absl::MutexLock lock(&mu_);
  if (generation_ != key_generation) return p;  // the keys changed meanwhile: not remembered
  if (verified_.size() >= max_entries_) verified_.clear();
  verified_.emplace(std::string(authorization), *p);
  return p;
}

absl::StatusOr<std::string> MintToken(const SigningKey& key, const TokenClaims& claims) {
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) return absl::InternalError("jwt_new failed");
  JwtPtr jwt(raw);
  const std::string& material = IsSymmetric(key.alg) ? key.material : key.private_pem;
  if (material.empty()) return base::Error(service::kErrNoPrivateKey, "this key cannot sign");
  if (jwt_set_alg(jwt.get(), jwt_str_alg(key.alg.c_str()),
                  reinterpret_cast<const unsigned char*>(material.data()),
                  static_cast<int>(material.size())) != 0) {
    return base::Error(service::kErrBadAuthKeys, "cannot sign with this key");
  }
  jwt_add_header(jwt.get(), "kid", key.kid.c_str());
  jwt_add_grant(jwt.get(), "role", std::string(RoleName(claims.role)).c_str());
  if (!claims.subject.empty()) jwt_add_grant(jwt.get(), "sub", claims.subject.c_str());
  if (!claims.game_id.empty()) jwt_add_grant(jwt.get(), "game", claims.game_id.c_str());
  if (!claims.event.empty()) jwt_add_grant(jwt.get(), "event", claims.event.c_str());
  if (claims.color == arbiter::v1::COLOR_WHITE) jwt_add_grant(jwt.get(), "color", "white");
  if (claims.color == arbiter::v1::COLOR_BLACK) jwt_add_grant(jwt.get(), "color", "black");
  jwt_add_grant_int(jwt.get(), "exp", static_cast<long>(absl::ToUnixSeconds(claims.expires)));
  jwt_add_grant_int(jwt.get(), "iat",
                    static_cast<long>(absl::ToUnixSeconds(claims.issued_at.value_or(absl::Now()))));
  if (!claims.audience.empty()) jwt_add_grant(jwt.get(), "aud", claims.audience.c_str());
  if (!claims.issuer.empty()) jwt_add_grant(jwt.get(), "iss", claims.issuer.c_str());
  if (claims.not_before.has_value()) {
    jwt_add_grant_int(jwt.get(), "nbf", static_cast<long>(absl::ToUnixSeconds(*claims.not_before)));
  }
  char* out = jwt_encode_str(jwt.get());
  if (out == nullptr) return absl::InternalError("jwt_encode_str failed");
  std::string token(out);
  std::free(out);  // libjwt 1.10 allocates with malloc and has no jwt_free_str
  return token;
}

ReloadingKeySet::FileStamp ReloadingKeySet::Stamp(const std::string& path) {
  FileStamp stamp;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return stamp;
  stamp.inode = st.st_ino;
  stamp.size = static_cast<uint64_t>(st.st_size);
  stamp.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return stamp;
}

absl::Status ReloadingKeySet::LoadLocked(const FileStamp& stamp) {
  absl::StatusOr<KeySet> keys = KeySet::FromFile(path_);
  if (keys.ok() && keys->empty()) keys = BadKeys(absl::StrCat(path_, " has no keys"));
  if (!keys.ok()) return keys.status();
  keys_ = std::make_shared<const KeySet>(*std::move(keys));
  stamp_ = stamp;
  ++generation_;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ReloadingKeySet>> ReloadingKeySet::Open(std::string path,
                                                                       absl::Duration poll,
                                                                       Report report) {
  std::unique_ptr<ReloadingKeySet> set(
      new ReloadingKeySet(std::move(path), poll, std::move(report)));
  absl::Status loaded = set->Reload();
  if (!loaded.ok()) return loaded;
  return set;
}

absl::Status ReloadingKeySet::Reload() {
  absl::MutexLock lock(&mu_);
  return LoadLocked(Stamp(path_));
}

std::shared_ptr<const KeySet> ReloadingKeySet::Current(absl::Time now, uint64_t* generation) {
  absl::MutexLock lock(&mu_);
  if (now >= next_check_) {
    next_check_ = now + poll_;
    const FileStamp stamp = Stamp(path_);
    if (!(stamp == stamp_)) {
      absl::Status loaded = LoadLocked(stamp);
      if (!loaded.ok()) {
        stamp_ = stamp;  // reported once per change of the file, not at every poll
        if (report_) report_(loaded);
      }
    }
  }
  if (generation != nullptr) *generation = generation_;
  return keys_;
}

uint64_t ReloadingKeySet::generation() const {
  absl::MutexLock lock(&mu_);
  return generation_;
}

}  // namespace service
