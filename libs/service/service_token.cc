#include "libs/service/service_token.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/service/errors.h"

namespace service {

absl::StatusOr<std::unique_ptr<ServiceTokenSource>> ServiceTokenSource::Open(
    ServiceTokenOptions options) {
  if (options.keys_file.empty()) {
    return base::Error(kErrBadFlag, "a service token needs the keys file (--auth_keys)");
  }
  if (options.key_id.empty() || options.subject.empty()) {
    return base::Error(kErrBadFlag, "a service token needs a key id and a subject");
  }
  if (options.lifetime < absl::Seconds(30)) {
    return base::Error(kErrBadFlag, "a service token must live at least 30s");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ReloadingKeySet> keys,
                   ReloadingKeySet::Open(options.keys_file, options.keys_reload));
  std::unique_ptr<ServiceTokenSource> source(
      new ServiceTokenSource(std::move(options), std::move(keys)));
  // A key that cannot sign is a configuration error at the start, not at the first call.
  ASSIGN_OR_RETURN(std::string first, source->Authorization(absl::Now()));
  return source;
}

absl::StatusOr<std::string> ServiceTokenSource::Mint(const KeySet& keys, absl::Time now) const {
  const SigningKey* key = keys.Find(options_.key_id);
  if (key == nullptr) {
    return base::Error(kErrBadFlag, absl::StrCat("the keys file has no key \"", options_.key_id,
                                                 "\" to sign this service's tokens"));
  }
  TokenClaims claims;
  claims.role = Role::kService;
  claims.subject = options_.subject;
  claims.issued_at = now;
  claims.expires = now + options_.lifetime;
  claims.audience = options_.audience;
  claims.issuer = options_.issuer;
  absl::StatusOr<std::string> token = MintToken(*key, claims);
  if (!token.ok()) {
    return base::Error(kErrBadFlag, absl::StrCat("key \"", options_.key_id,
                                                 "\" cannot sign: ", token.status().message()));
  }
  return absl::StrCat("Bearer ", *token);
}

absl::StatusOr<std::string> ServiceTokenSource::Authorization(absl::Time now) {
  std::uint64_t generation = 0;
  std::shared_ptr<const KeySet> keys = keys_->Current(now, &generation);
  absl::MutexLock lock(&mu_);
  if (!authorization_.empty() && now < renew_at_ && generation == generation_) {
    return authorization_;
  }
  ASSIGN_OR_RETURN(std::string authorization, Mint(*keys, now));
  authorization_ = std::move(authorization);
  renew_at_ = now + options_.lifetime * 2 / 3;
  generation_ = generation;
  return authorization_;
}

}  // namespace service
