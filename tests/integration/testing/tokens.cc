#include "tests/integration/testing/tokens.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "libs/laws/proto_convert.h"

namespace integration {

namespace {

const service::KeySet& Keys() {
  static const service::KeySet* keys = [] {
    absl::StatusOr<service::KeySet> loaded = service::KeySet::FromFile(kKeysFile);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s: %s\n", kKeysFile, loaded.status().ToString().c_str());
      std::abort();
    }
    return new service::KeySet(*std::move(loaded));
  }();
  return *keys;
}

}  // namespace

service::TokenClaims Claims(service::Role role, const std::string& game, chess::Color color) {
  service::TokenClaims claims;
  claims.role = role;
  claims.subject = std::string(service::RoleName(role));
  if (role == service::Role::kPlayer) {
    absl::StrAppend(&claims.subject, "-", chess::ColorName(color));
    claims.game_id = game;
    claims.color = laws::ToProto(color);
  }
  claims.expires = absl::Now() + absl::Minutes(5);
  return claims;
}

std::string Sign(const service::TokenClaims& claims, const char* kid) {
  const service::SigningKey* key = Keys().Find(kid);
  if (key == nullptr) {
    std::fprintf(stderr, "no key %s in %s\n", kid, kKeysFile);
    std::abort();
  }
  absl::StatusOr<std::string> token = service::MintToken(*key, claims);
  if (!token.ok()) {
    std::fprintf(stderr, "MintToken: %s\n", token.status().ToString().c_str());
    std::abort();
  }
  return *token;
}

std::string Token(service::Role role, const std::string& game, chess::Color color) {
  return Sign(Claims(role, game, color));
}

}  // namespace integration
