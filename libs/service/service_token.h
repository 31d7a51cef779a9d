// A service's own credential for the calls it makes to another Arbiter service (arbitration asking
// search-analysis): bearer tokens with the role "service", minted in this process with a signing
// key of the keys file every server already reads (--auth_keys), so the callee verifies them as it
// verifies every token (auth.h) and no token has to be handed out, stored or renewed by hand. The
// key must be able to sign: an HMAC secret, or an RS*/ES* key with its private_key_file. Tokens are
// short-lived and minted again before they expire, or at once when the keys file changes (a key
// rotated or removed).
//
//   ASSIGN_OR_RETURN(auto tokens, ServiceTokenSource::Open({.keys_file = config.auth_keys,
//                                                           .key_id = "svc", .subject =
//                                                           "arbitration"}));
//   context.AddMetadata("authorization", *tokens->Authorization(absl::Now()));
#ifndef ARBITER_LIBS_SERVICE_SERVICE_TOKEN_H_
#define ARBITER_LIBS_SERVICE_SERVICE_TOKEN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "libs/service/auth.h"

namespace service {

struct ServiceTokenOptions {
  std::string keys_file;  // the keys file (auth.h)
  std::string key_id;     // the "kid" of the key that signs
  std::string subject;    // "sub": who calls, for the callee's log and limits
  // "aud" and "iss" as the callee's --jwt_audience and --jwt_issuer require them ("" = none).
  std::string audience, issuer;
  // Each token's life; a new one is minted once less than a third of it remains.
  absl::Duration lifetime = absl::Minutes(5);
  absl::Duration keys_reload = absl::Seconds(5);  // how often the keys file is looked at
};

class ServiceTokenSource {
 public:
  // INVALID_ARGUMENT ERR_BAD_AUTH_KEYS when the keys file does not load; ERR_BAD_FLAG when it has
  // no key `key_id`, the key cannot sign, or the options are incomplete.
  static absl::StatusOr<std::unique_ptr<ServiceTokenSource>> Open(ServiceTokenOptions options);

  // "Bearer <token>" valid at `now` for at least two thirds of the lifetime; the error when the
  // key can no longer sign (removed from the keys file).
  absl::StatusOr<std::string> Authorization(absl::Time now);

 private:
  ServiceTokenSource(ServiceTokenOptions options, std::unique_ptr<ReloadingKeySet> keys)
      : options_(std::move(options)), keys_(std::move(keys)) {}
  absl::StatusOr<std::string> Mint(const KeySet& keys, absl::Time now) const;

  const ServiceTokenOptions options_;
  std::unique_ptr<ReloadingKeySet> keys_;
  absl::Mutex mu_;
  std::string authorization_ ABSL_GUARDED_BY(mu_);
  absl::Time renew_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_SERVICE_TOKEN_H_
