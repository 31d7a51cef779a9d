#include "libs/record/record.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/sha256.h"
#include "libs/base/status_macros.h"
#include "libs/record/errors.h"

namespace record {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Bio = std::unique_ptr<BIO, BioFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

constexpr absl::string_view kTimeFormat = "%Y-%m-%dT%H:%M:%E3SZ";
constexpr absl::string_view kPublicBegin = "-----BEGIN PUBLIC KEY-----";
constexpr absl::string_view kPublicEnd = "-----END PUBLIC KEY-----";

// A passphrase callback that gives none: an encrypted key fails instead of prompting on a
// terminal the server does not have.
int NoPassphrase(char*, int, int, void*) { return -1; }

Bio MemoryBio(absl::string_view bytes) {
  return Bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return base::Error(kErrRecordBadKey, absl::StrCat(path, ": cannot be read"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string KeyIdOf(absl::string_view raw) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(raw.data(), raw.size(), digest, &size, EVP_sha256(), nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), 8));
}

Pkey PublicPkey(absl::string_view raw) {
  return Pkey(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(raw.data()), raw.size()));
}

Pkey PrivatePkey(absl::string_view seed) {
  return Pkey(EVP_PKEY_new_raw_private_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(seed.data()), seed.size()));
}

absl::StatusOr<std::string> RawPublicOf(EVP_PKEY* pkey) {
  std::string raw(kPublicKeyBytes, '\0');
  size_t size = raw.size();
  if (EVP_PKEY_get_raw_public_key(pkey, reinterpret_cast<unsigned char*>(raw.data()), &size) != 1 ||
      size != kPublicKeyBytes) {
    return base::Error(kErrRecordBadKey, "the key's public half cannot be read");
  }
  return raw;
}

void Big64(std::uint64_t v, std::string& out) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}

absl::Status Malformed(absl::string_view what) {
  return base::Error(kErrRecordMalformed, absl::StrCat("signed record: ", what));
}

bool IsLowerHex(absl::string_view s, std::size_t length) {
  if (s.size() != length) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The field forms: each value is one line, so the signed lines are unambiguous.
absl::Status CheckFields(const SignatureBlock& b) {
  auto bad = [](absl::string_view what) { return base::Error(base::kErrBadArgument, what); };
  if (b.game_id.empty() || b.game_id.size() > 128) return bad("game id: 1..128 characters");
  for (char c : b.game_id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        absl::string_view("._~:-").find(c) == absl::string_view::npos) {
      return bad("game id: only [A-Za-z0-9._~:-]");
    }
  }
  if (b.version < 1) return bad("version: at least 1");
  if (b.result.empty() || b.result.size() > 16) return bad("result: 1..16 characters");
  for (char c : b.result) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '/' || c == '-')) {
      return bad("result: only [0-9a-z/-]");
    }
  }
  if (!IsLowerHex(b.key_id, 16)) return bad("key id: 16 lowercase hex digits");
  if (!IsLowerHex(b.pgn_sha256, 64)) return bad("pgn-sha256: 64 lowercase hex digits");
  if (!IsLowerHex(b.log_sha256, 64)) return bad("log-sha256: 64 lowercase hex digits");
  return absl::OkStatus();
}

std::string SignedAtText(std::int64_t ms) {
  return absl::FormatTime(kTimeFormat, absl::FromUnixMillis(ms), absl::UTCTimeZone());
}

}  // namespace

// --- Keys ----------------------------------------------------------------------------------------

absl::StatusOr<PublicKey> PublicKey::FromRaw(absl::string_view raw) {
  if (raw.size() != kPublicKeyBytes || PublicPkey(raw) == nullptr) {
    return base::Error(kErrRecordBadKey, "an Ed25519 public key is 32 bytes");
  }
  PublicKey key;
  key.raw_ = std::string(raw);
  key.key_id_ = KeyIdOf(raw);
  return key;
}

absl::StatusOr<PublicKey> PublicKey::FromPem(absl::string_view pem) {
  Bio bio = MemoryBio(pem);
  Pkey pkey(PEM_read_bio_PUBKEY(bio.get(), nullptr, NoPassphrase, nullptr));
  ERR_clear_error();
  if (pkey == nullptr || EVP_PKEY_id(pkey.get()) != EVP_PKEY_ED25519) {
    return base::Error(kErrRecordBadKey, "not a PEM Ed25519 public key (\"PUBLIC KEY\")");
  }
  ASSIGN_OR_RETURN(std::string raw, RawPublicOf(pkey.get()));
  return FromRaw(raw);
}

std::string PublicKey::ToPem() const {
  Pkey pkey = PublicPkey(raw_);
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PUBKEY(bio.get(), pkey.get());
  return BioText(bio.get());
}

bool PublicKey::Verifies(absl::string_view message, absl::string_view signature) const {
  if (signature.size() != kSignatureBytes) return false;
  Pkey pkey = PublicPkey(raw_);
  MdCtx ctx(EVP_MD_CTX_new());
  if (pkey == nullptr || ctx == nullptr ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1) {
    return false;
  }
  const bool ok =
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                       signature.size(), reinterpret_cast<const unsigned char*>(message.data()),
                       message.size()) == 1;
  ERR_clear_error();
  return ok;
}

absl::StatusOr<SigningKey> SigningKey::FromPem(absl::string_view pem) {
  Bio bio = MemoryBio(pem);
  Pkey pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  ERR_clear_error();
  if (pkey == nullptr || EVP_PKEY_id(pkey.get()) != EVP_PKEY_ED25519) {
    return base::Error(kErrRecordBadKey,
                       "not an unencrypted PEM Ed25519 private key (PKCS#8 \"PRIVATE KEY\")");
  }
  std::string seed(32, '\0');
  size_t size = seed.size();
  if (EVP_PKEY_get_raw_private_key(pkey.get(), reinterpret_cast<unsigned char*>(seed.data()),
                                   &size) != 1 ||
      size != seed.size()) {
    return base::Error(kErrRecordBadKey, "the private key cannot be read");
  }
  ASSIGN_OR_RETURN(std::string raw, RawPublicOf(pkey.get()));
  SigningKey key;
  key.seed_ = std::move(seed);
  ASSIGN_OR_RETURN(key.public_, PublicKey::FromRaw(raw));
  return key;
}

absl::StatusOr<SigningKey> SigningKey::FromFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string pem, ReadFile(path));
  absl::StatusOr<SigningKey> key = FromPem(pem);
  if (!key.ok())
    return base::Error(kErrRecordBadKey, absl::StrCat(path, ": ", key.status().message()));
  return key;
}

SigningKey SigningKey::Generate() {
  EVP_PKEY* raw = nullptr;
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
      EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr), &EVP_PKEY_CTX_free);
  EVP_PKEY_keygen_init(ctx.get());
  EVP_PKEY_keygen(ctx.get(), &raw);
  Pkey pkey(raw);
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), pkey.get(), nullptr, nullptr, 0, nullptr, nullptr);
  // A key OpenSSL just made reads back.
  return *FromPem(BioText(bio.get()));
}

std::string SigningKey::ToPem() const {
  Pkey pkey = PrivatePkey(seed_);
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), pkey.get(), nullptr, nullptr, 0, nullptr, nullptr);
  return BioText(bio.get());
}

std::string SigningKey::Sign(absl::string_view message) const {
  Pkey pkey = PrivatePkey(seed_);
  MdCtx ctx(EVP_MD_CTX_new());
  std::string signature(kSignatureBytes, '\0');
  size_t size = signature.size();
  EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get());
  EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size,
                 reinterpret_cast<const unsigned char*>(message.data()), message.size());
  return signature;
}

absl::StatusOr<KeyRing> KeyRing::FromPem(absl::string_view pem, bool may_be_empty) {
  KeyRing ring;
  std::size_t at = 0;
  while ((at = pem.find(kPublicBegin, at)) != absl::string_view::npos) {
    const std::size_t end = pem.find(kPublicEnd, at);
    if (end == absl::string_view::npos) {
      return base::Error(kErrRecordBadKey, "a PUBLIC KEY block without its END line");
    }
    ASSIGN_OR_RETURN(PublicKey key,
                     PublicKey::FromPem(pem.substr(at, end + kPublicEnd.size() - at)));
    RETURN_IF_ERROR(ring.Add(key));
    at = end + kPublicEnd.size();
  }
  if (ring.keys_.empty() && !may_be_empty) {
    return base::Error(kErrRecordBadKey, "no PEM public key (\"BEGIN PUBLIC KEY\") found");
  }
  return ring;
}

absl::StatusOr<KeyRing> KeyRing::FromFile(const std::string& path, bool may_be_empty) {
  ASSIGN_OR_RETURN(std::string pem, ReadFile(path));
  absl::StatusOr<KeyRing> ring = FromPem(pem, may_be_empty);
  if (!ring.ok()) {
    return base::Error(kErrRecordBadKey, absl::StrCat(path, ": ", ring.status().message()));
  }
  return ring;
}

absl::Status KeyRing::Add(const PublicKey& key) {
  if (const PublicKey* same = Find(key.key_id()); same != nullptr) {
    if (same->raw() == key.raw()) return absl::OkStatus();
    return base::Error(kErrRecordBadKey,
                       absl::StrCat("two public keys share the key id ", key.key_id()));
  }
  keys_.push_back(key);
  return absl::OkStatus();
}

const PublicKey* KeyRing::Find(absl::string_view key_id) const {
  for (const PublicKey& key : keys_) {
    if (key.key_id() == key_id) return &key;
  }
  return nullptr;
}

std::string KeyRing::ToPem() const {
  std::string out;
  for (const PublicKey& key : keys_) absl::StrAppend(&out, key.ToPem());
  return out;
}

// --- Records -------------------------------------------------------------------------------------

std::string LogSha256(const std::vector<std::string>& encoded_events) {
  std::string framed;
  std::uint64_t version = 0;
  for (const std::string& event : encoded_events) {
    Big64(++version, framed);
    Big64(event.size(), framed);
    framed.append(event);
  }
  return base::Sha256Hex(framed);
}

std::string SigningInput(const SignatureBlock& b) {
  return absl::StrCat("format: ", kFormat, "\n",                          //
                      "game-id: ", b.game_id, "\n",                       //
                      "version: ", b.version, "\n",                       //
                      "result: ", b.result, "\n",                         //
                      "signed-at: ", SignedAtText(b.signed_at_ms), "\n",  //
                      "key-id: ", b.key_id, "\n",                         //
                      "pgn-sha256: ", b.pgn_sha256, "\n",                 //
                      "log-sha256: ", b.log_sha256, "\n");
}

std::string RenderBlock(const SignatureBlock& b) {
  return absl::StrCat(kBegin, SigningInput(b), "signature: ", absl::Base64Escape(b.signature), "\n",
                      kEnd);
}

absl::StatusOr<SignatureBlock> SignBlock(const RecordToSign& r, const SigningKey& key) {
  if (!r.pgn.empty() && r.pgn.back() != '\n') {
    return base::Error(base::kErrBadArgument, "the PGN must end with a newline");
  }
  if (absl::StrContains(r.pgn, kBegin)) {
    return base::Error(base::kErrBadArgument, "the PGN holds a signature block's first line");
  }
  SignatureBlock b{.game_id = r.game_id,
                   .version = r.version,
                   .result = r.result,
                   .signed_at_ms = r.signed_at_ms,
                   .key_id = key.key_id(),
                   .pgn_sha256 = base::Sha256Hex(r.pgn),
                   .log_sha256 = r.log_sha256};
  RETURN_IF_ERROR(CheckFields(b));
  b.signature = key.Sign(SigningInput(b));
  return b;
}

absl::StatusOr<std::string> Sign(const RecordToSign& r, const SigningKey& key) {
  ASSIGN_OR_RETURN(SignatureBlock b, SignBlock(r, key));
  return absl::StrCat(r.pgn, RenderBlock(b));
}

absl::StatusOr<ParsedRecord> Parse(absl::string_view text) {
  const std::size_t begin = text.rfind(kBegin);
  if (begin == absl::string_view::npos)
    return Malformed("no \"-----BEGIN ARBITER SIGNED RECORD-----\" line");
  if (begin > 0 && text[begin - 1] != '\n') {
    return Malformed("the BEGIN line does not start a line");
  }
  ParsedRecord out;
  out.pgn = std::string(text.substr(0, begin));
  const absl::string_view block = text.substr(begin);
  std::vector<absl::string_view> lines = absl::StrSplit(block, '\n');
  // BEGIN, nine fields, END, and the "" after END's newline.
  constexpr absl::string_view kNames[] = {"format",     "game-id",    "version",
                                          "result",     "signed-at",  "key-id",
                                          "pgn-sha256", "log-sha256", "signature"};
  constexpr std::size_t kLines = 1 + std::size(kNames) + 2;
  if (lines.size() != kLines || !lines.back().empty()) {
    return Malformed(absl::StrCat("the block has ", lines.size() - 1, " lines, not ", kLines - 1,
                                  ", or does not end with the END line and a newline"));
  }
  std::string values[std::size(kNames)];
  for (std::size_t i = 0; i < std::size(kNames); ++i) {
    const std::string prefix = absl::StrCat(kNames[i], ": ");
    const absl::string_view line = lines[1 + i];
    if (!absl::StartsWith(line, prefix)) {
      return Malformed(absl::StrCat("line ", i + 2, " of the block is not \"", prefix, "...\""));
    }
    values[i] = std::string(line.substr(prefix.size()));
  }
  if (values[0] != kFormat) return Malformed(absl::StrCat("unknown format \"", values[0], "\""));
  SignatureBlock& b = out.block;
  b.game_id = values[1];
  if (!absl::SimpleAtoi(values[2], &b.version)) return Malformed("version: not a number");
  b.result = values[3];
  absl::Time signed_at;
  std::string why;
  if (!absl::ParseTime(kTimeFormat, values[4], &signed_at, &why)) {
    return Malformed(absl::StrCat("signed-at: ", why));
  }
  b.signed_at_ms = absl::ToUnixMillis(signed_at);
  b.key_id = values[5];
  b.pgn_sha256 = values[6];
  b.log_sha256 = values[7];
  if (!absl::Base64Unescape(values[8], &b.signature) || b.signature.size() != kSignatureBytes) {
    return Malformed("signature: not 64 bytes in base64");
  }
  if (absl::Status fields = CheckFields(b); !fields.ok()) return Malformed(fields.message());
  // Only the canonical form: one spelling of every value (no leading zeros, no other
  // time notation, no other base64 padding) and nothing around the block.
  if (RenderBlock(b) != block) {
    return Malformed("the block is not in its canonical form (docs/RECORDS.md)");
  }
  return out;
}

absl::StatusOr<ParsedRecord> Verify(absl::string_view text, const KeyRing& keys) {
  ASSIGN_OR_RETURN(ParsedRecord r, Parse(text));
  const std::string pgn_sha256 = base::Sha256Hex(r.pgn);
  if (pgn_sha256 != r.block.pgn_sha256) {
    return base::Error(kErrRecordDigestMismatch,
                       absl::StrCat("the PGN's SHA-256 is ", pgn_sha256, ", the block signs ",
                                    r.block.pgn_sha256, ": the PGN was changed"));
  }
  const PublicKey* key = keys.Find(r.block.key_id);
  if (key == nullptr) {
    return base::Error(kErrRecordKeyUnknown,
                       absl::StrCat("the record is signed with key ", r.block.key_id,
                                    ", which none of the given public keys is"));
  }
  if (!key->Verifies(SigningInput(r.block), r.block.signature)) {
    return base::Error(kErrRecordSignatureInvalid,
                       absl::StrCat("the signature does not verify under key ", r.block.key_id,
                                    ": the block or the signature was changed"));
  }
  return r;
}

}  // namespace record
