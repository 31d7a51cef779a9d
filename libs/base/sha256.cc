#include "libs/base/sha256.h"

#include <openssl/evp.h>

#include "absl/strings/escaping.h"

namespace base {

std::string Sha256Hex(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), static_cast<size_t>(size)));
}

}  // namespace base
