// The sealed move's cryptography (Appendix A): a sealed move is a secret of the sealer and the
// arbiter until it is opened (A7, A9), so it is kept encrypted at rest and the store never holds
// a key to it in clear.
//
// Envelope encryption: the server holds one master key (32 random bytes, a file: a Kubernetes
// Secret in production); each game gets a random data key, which the log keeps only wrapped
// (encrypted) by the master key; the sealed move is encrypted with the data key. Both are
// AES-256-GCM (OpenSSL EVP) with associated data binding the ciphertext to its place (the game
// and the log's version), so a ciphertext copied to another game or another place in the log
// does not open.
//
//   ASSIGN_OR_RETURN(seal::MasterKey master, seal::MasterKey::FromFile("/etc/arbiter/seal.key"));
//   std::string data_key = seal::NewDataKey();
//   ASSIGN_OR_RETURN(std::string wrapped, master.Wrap(data_key, "g1"));
//   ASSIGN_OR_RETURN(std::string box, seal::Encrypt(data_key, "Nf3", "g1|17"));
//   ASSIGN_OR_RETURN(std::string move, seal::Decrypt(data_key, box, "g1|17"));  // "Nf3"
//
// Errors are plain absl statuses (the callers give them their layer's stable codes):
// INVALID_ARGUMENT for a key of the wrong size, DATA_LOSS for a box that does not open (wrong
// key, wrong associated data, damaged), INTERNAL for a failure of OpenSSL itself.
#ifndef ARBITER_LIBS_SEAL_SEAL_H_
#define ARBITER_LIBS_SEAL_SEAL_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace seal {

inline constexpr std::size_t kKeyBytes = 32;    // AES-256
inline constexpr std::size_t kNonceBytes = 12;  // GCM's standard nonce
inline constexpr std::size_t kTagBytes = 16;

// A fresh random key (OpenSSL's CSPRNG).
std::string NewDataKey();

// AES-256-GCM: the box is nonce (12 bytes, random) || ciphertext || tag (16 bytes).
absl::StatusOr<std::string> Encrypt(absl::string_view key, absl::string_view plaintext,
                                    absl::string_view associated_data);
absl::StatusOr<std::string> Decrypt(absl::string_view key, absl::string_view box,
                                    absl::string_view associated_data);

class MasterKey {
 public:
  // Exactly kKeyBytes bytes.
  static absl::StatusOr<MasterKey> FromBytes(absl::string_view bytes);
  // A file of exactly kKeyBytes bytes (e.g. `head -c 32 /dev/urandom > seal.key`).
  static absl::StatusOr<MasterKey> FromFile(const std::string& path);
  // A random key (tests, and `arbiterctl game simulate` without a key).
  static MasterKey Generate();

  // The data key encrypted under this key, bound to `context` (the game id).
  absl::StatusOr<std::string> Wrap(absl::string_view data_key, absl::string_view context) const;
  absl::StatusOr<std::string> Unwrap(absl::string_view wrapped, absl::string_view context) const;

  // A short public identifier of the key (hex of a hash of it): recorded beside a wrapped key,
  // so that a server started with another key says so instead of failing to decrypt.
  const std::string& id() const { return id_; }

 private:
  explicit MasterKey(std::string bytes);
  std::string bytes_;
  std::string id_;
};

}  // namespace seal

#endif  // ARBITER_LIBS_SEAL_SEAL_H_
