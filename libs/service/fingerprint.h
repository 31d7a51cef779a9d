// A request's identity for the store's command ids: a retry with the same command id must be the
// same request, byte for byte (libs/store/game_store.h, "Idempotent by command id").
#ifndef ARBITER_LIBS_SERVICE_FINGERPRINT_H_
#define ARBITER_LIBS_SERVICE_FINGERPRINT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace service {

// "<method>:<32 hex digits>": a stable 128-bit digest (two FNV-1a lanes) of the request's
// deterministic serialisation.
std::string RequestFingerprint(absl::string_view method, const google::protobuf::Message& request);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_FINGERPRINT_H_
