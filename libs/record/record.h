// Signed records: Arbiter's signature over a game's record, so that a copy kept anywhere (the
// platform's, a federation's, a player's) can be checked offline against what Arbiter ruled and
// any changed byte is found. docs/RECORDS.md is the format's full description for an outside
// verifier; this header is its one implementation.
//
// A signed record is the game's PGN followed by a signature block:
//
//   [Event "..."] ... 1. e4 e5 ... 1-0
//   -----BEGIN ARBITER SIGNED RECORD-----
//   format: arbiter-signed-record-v1
//   game-id: g1
//   version: 42
//   result: 1-0
//   signed-at: 2026-12-05T15:30:00.123Z
//   key-id: 0123456789abcdef
//   pgn-sha256: <hex SHA-256 of the PGN's bytes>
//   log-sha256: <hex SHA-256 of the game's event log, LogSha256>
//   signature: <base64 Ed25519 signature of the lines "format:" to "log-sha256:">
//   -----END ARBITER SIGNED RECORD-----
//
// The signed message is the block's lines from "format:" to "log-sha256:", each with its "\n":
// every field has one place and a value that holds no newline, so no two records share it. A
// record parses only in its canonical form (Parse renders the block again and compares), so a
// changed byte anywhere is a malformed block, a digest that no longer matches, or a signature
// that fails.
//
// Keys are Ed25519 (OpenSSL's libcrypto): the server's private key from a PEM file (PKCS#8), the
// public keys as PEM (SubjectPublicKeyInfo). A key's id is the hex of the first 8 bytes of the
// SHA-256 of its raw 32-byte public key. Rotation: a record names its key id, so a verifier
// holding the old and the new public keys (a KeyRing) verifies records signed under either.
#ifndef ARBITER_LIBS_RECORD_RECORD_H_
#define ARBITER_LIBS_RECORD_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace record {

inline constexpr absl::string_view kFormat = "arbiter-signed-record-v1";
inline constexpr absl::string_view kBegin = "-----BEGIN ARBITER SIGNED RECORD-----\n";
inline constexpr absl::string_view kEnd = "-----END ARBITER SIGNED RECORD-----\n";
inline constexpr std::size_t kPublicKeyBytes = 32;
inline constexpr std::size_t kSignatureBytes = 64;

class PublicKey {
 public:
  // The raw 32-byte Ed25519 public key.
  static absl::StatusOr<PublicKey> FromRaw(absl::string_view raw);
  // One PEM "PUBLIC KEY" block (SubjectPublicKeyInfo) of an Ed25519 key.
  static absl::StatusOr<PublicKey> FromPem(absl::string_view pem);

  const std::string& raw() const { return raw_; }
  // Hex of the first 8 bytes of SHA-256(raw): what a record names.
  const std::string& key_id() const { return key_id_; }
  std::string ToPem() const;
  // Whether `signature` is this key's Ed25519 signature of `message`.
  bool Verifies(absl::string_view message, absl::string_view signature) const;

 private:
  std::string raw_;
  std::string key_id_;
};

class SigningKey {
 public:
  // A PEM "PRIVATE KEY" block (PKCS#8) of an Ed25519 key; an encrypted key is refused (the
  // server reads it unattended).
  static absl::StatusOr<SigningKey> FromPem(absl::string_view pem);
  static absl::StatusOr<SigningKey> FromFile(const std::string& path);
  // A fresh key (OpenSSL's CSPRNG): `arbiterctl record keygen`, tests.
  static SigningKey Generate();

  std::string ToPem() const;  // PKCS#8
  const PublicKey& public_key() const { return public_; }
  const std::string& key_id() const { return public_.key_id(); }
  // The Ed25519 signature (kSignatureBytes) of `message`.
  std::string Sign(absl::string_view message) const;

 private:
  std::string seed_;  // the raw 32-byte private key
  PublicKey public_;
};

// The public keys a verifier accepts, found by key id: the current key and those rotated out.
class KeyRing {
 public:
  // Every "PUBLIC KEY" PEM block of `pem` (text between blocks, such as comments, is ignored);
  // at least one unless `may_be_empty` (the server's keys rotated out: none before a rotation).
  static absl::StatusOr<KeyRing> FromPem(absl::string_view pem, bool may_be_empty = false);
  static absl::StatusOr<KeyRing> FromFile(const std::string& path, bool may_be_empty = false);

  // Adds `key`; the same key again is kept once.
  absl::Status Add(const PublicKey& key);
  const PublicKey* Find(absl::string_view key_id) const;
  const std::vector<PublicKey>& keys() const { return keys_; }
  std::string ToPem() const;

 private:
  std::vector<PublicKey> keys_;
};

// The signature block's fields (the signed ones and the signature).
struct SignatureBlock {
  std::string game_id;            // [A-Za-z0-9._~:-], 1..128 characters
  std::int64_t version = 0;       // the game's log version the record is of (>= 1)
  std::string result;             // as in the PGN's Result tag: [0-9a-z/-], 1..16 characters
  std::int64_t signed_at_ms = 0;  // Unix ms, shown as UTC with milliseconds
  std::string key_id;
  std::string pgn_sha256;  // lowercase hex
  std::string log_sha256;  // lowercase hex
  std::string signature;   // raw, kSignatureBytes
};

// The digest of a game's event log: SHA-256 over, for each event in version order (the first
// is version 1), the version as 8 bytes big-endian, the length of the event's encoding as 8
// bytes big-endian, then the encoding. Lowercase hex.
std::string LogSha256(const std::vector<std::string>& encoded_events);

// The message the signature is over (the block's lines "format:" to "log-sha256:").
std::string SigningInput(const SignatureBlock& block);

struct RecordToSign {
  std::string pgn;  // empty or ending in "\n"
  std::string game_id;
  std::int64_t version = 0;
  std::string result;
  std::int64_t signed_at_ms = 0;
  std::string log_sha256;
};

// The signed record's text: the PGN, then the block signed with `key`. ERR_BAD_ARGUMENT for a
// field out of its form.
absl::StatusOr<std::string> Sign(const RecordToSign& record, const SigningKey& key);

// The same as its parts: the signature block alone (a tombstone keeps it; the PGN is the
// platform's), and the record's text from a PGN and its block.
absl::StatusOr<SignatureBlock> SignBlock(const RecordToSign& record, const SigningKey& key);
std::string RenderBlock(const SignatureBlock& block);

struct ParsedRecord {
  std::string pgn;
  SignatureBlock block;
};

// A signed record's parts, only from its canonical form (ERR_RECORD_MALFORMED otherwise, naming
// the line). Checks nothing cryptographic.
absl::StatusOr<ParsedRecord> Parse(absl::string_view text);

// Parses and checks `text`: the PGN's digest (ERR_RECORD_DIGEST_MISMATCH), the key
// (ERR_RECORD_KEY_UNKNOWN), the signature (ERR_RECORD_SIGNATURE_INVALID).
absl::StatusOr<ParsedRecord> Verify(absl::string_view text, const KeyRing& keys);

}  // namespace record

#endif  // ARBITER_LIBS_RECORD_RECORD_H_
