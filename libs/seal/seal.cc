#include "libs/seal/seal.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace seal {
namespace {

struct CtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

const unsigned char* Bytes(absl::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

absl::Status CheckKey(absl::string_view key) {
  if (key.size() != kKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a key is ", kKeyBytes, " bytes, got ", key.size()));
  }
  return absl::OkStatus();
}

std::string RandomBytes(std::size_t n) {
  std::string out(n, '\0');
  // RAND_bytes fails only without entropy, which a server cannot run without.
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    std::abort();
  }
  return out;
}

}  // namespace

std::string NewDataKey() { return RandomBytes(kKeyBytes); }

absl::StatusOr<std::string> Encrypt(absl::string_view key, absl::string_view plaintext,
                                    absl::string_view associated_data) {
  if (absl::Status k = CheckKey(key); !k.ok()) return k;
  const std::string nonce = RandomBytes(kNonceBytes);
  Ctx ctx(EVP_CIPHER_CTX_new());
  std::string out = nonce;
  out.resize(kNonceBytes + plaintext.size() + kTagBytes);
  unsigned char* body = reinterpret_cast<unsigned char*>(out.data()) + kNonceBytes;
  int len = 0;
  int total = 0;
  if (!ctx ||
      EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, Bytes(key), Bytes(nonce)) != 1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &len, Bytes(associated_data),
                        static_cast<int>(associated_data.size())) != 1 ||
      EVP_EncryptUpdate(ctx.get(), body, &len, Bytes(plaintext),
                        static_cast<int>(plaintext.size())) != 1) {
    return absl::InternalError("AES-256-GCM encryption failed");
  }
  total = len;
  if (EVP_EncryptFinal_ex(ctx.get(), body + total, &len) != 1) {
    return absl::InternalError("AES-256-GCM encryption failed");
  }
  total += len;
  if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                          body + total) != 1) {
    return absl::InternalError("AES-256-GCM: no tag");
  }
  out.resize(kNonceBytes + total + kTagBytes);
  return out;
}

absl::StatusOr<std::string> Decrypt(absl::string_view key, absl::string_view box,
                                    absl::string_view associated_data) {
  if (absl::Status k = CheckKey(key); !k.ok()) return k;
  if (box.size() < kNonceBytes + kTagBytes) return absl::DataLossError("the box is too short");
  const absl::string_view nonce = box.substr(0, kNonceBytes);
  const absl::string_view body = box.substr(kNonceBytes, box.size() - kNonceBytes - kTagBytes);
  std::string tag(box.substr(box.size() - kTagBytes));
  Ctx ctx(EVP_CIPHER_CTX_new());
  std::string out(body.size(), '\0');
  int len = 0;
  if (!ctx ||
      EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, Bytes(key), Bytes(nonce)) != 1 ||
      EVP_DecryptUpdate(ctx.get(), nullptr, &len, Bytes(associated_data),
                        static_cast<int>(associated_data.size())) != 1 ||
      EVP_DecryptUpdate(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len, Bytes(body),
                        static_cast<int>(body.size())) != 1) {
    return absl::InternalError("AES-256-GCM decryption failed");
  }
  int total = len;
  if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes),
                          tag.data()) != 1) {
    return absl::InternalError("AES-256-GCM: cannot set the tag");
  }
  // The tag check: a wrong key, wrong associated data or a damaged box fail here.
  if (EVP_DecryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(out.data()) + total, &len) !=
      1) {
    return absl::DataLossError("the sealed box does not open (wrong key, context or damaged)");
  }
  total += len;
  out.resize(total);
  return out;
}

MasterKey::MasterKey(std::string bytes) : bytes_(std::move(bytes)) {
  // The id: the first 8 bytes of the box of nothing under a fixed nonce would leak nothing either,
  // but a hash is simpler to reason about.
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  const std::string label = absl::StrCat("arbiter-seal-key-id:", bytes_);
  EVP_Digest(label.data(), label.size(), digest, &size, EVP_sha256(), nullptr);
  id_ = absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), std::min<unsigned int>(size, 8)));
}

absl::StatusOr<MasterKey> MasterKey::FromBytes(absl::string_view bytes) {
  if (absl::Status k = CheckKey(bytes); !k.ok()) return k;
  return MasterKey(std::string(bytes));
}

absl::StatusOr<MasterKey> MasterKey::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the seal key file ", path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() != kKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat("the seal key file ", path, " holds ",
                                                   bytes.size(), " bytes, not ", kKeyBytes,
                                                   " (head -c 32 /dev/urandom > seal.key)"));
  }
  return MasterKey(std::move(bytes));
}

MasterKey MasterKey::Generate() { return MasterKey(RandomBytes(kKeyBytes)); }

absl::StatusOr<std::string> MasterKey::Wrap(absl::string_view data_key,
                                            absl::string_view context) const {
  if (absl::Status k = CheckKey(data_key); !k.ok()) return k;
  return Encrypt(bytes_, data_key, absl::StrCat("wrap|", context));
}

absl::StatusOr<std::string> MasterKey::Unwrap(absl::string_view wrapped,
                                              absl::string_view context) const {
  absl::StatusOr<std::string> key = Decrypt(bytes_, wrapped, absl::StrCat("wrap|", context));
  if (key.ok() && key->size() != kKeyBytes) return absl::DataLossError("a wrapped key of bad size");
  return key;
}

}  // namespace seal
