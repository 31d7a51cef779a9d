// SHA-256 as lowercase hex (OpenSSL's), for digests a person or a platform compares: the record
// an archived game's tombstone keeps (libs/arbitration/archive.h).
#ifndef ARBITER_LIBS_BASE_SHA256_H_
#define ARBITER_LIBS_BASE_SHA256_H_

#include <string>

#include "absl/strings/string_view.h"

namespace base {

std::string Sha256Hex(absl::string_view data);

}  // namespace base

#endif  // ARBITER_LIBS_BASE_SHA256_H_
