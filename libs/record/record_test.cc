#include "libs/record/record.h"

#include <fstream>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/base/errors.h"
#include "libs/base/sha256.h"
#include "libs/base/status_matchers.h"
#include "libs/base/test_files.h"
#include "libs/record/errors.h"

namespace record {
namespace {

using ::base::HasErrorCode;
using ::base::IsOk;

constexpr char kPgn[] =
    "[Event \"Club\"]\n[Site \"?\"]\n[Date \"2026.12.05\"]\n[Round \"1\"]\n[White \"A\"]\n"
    "[Black \"B\"]\n[Result \"0-1\"]\n\n1. f3 {[%clk 0:05:00.0]} e5 2. g4 Qh4# 0-1\n";

RecordToSign Game() {
  return {.pgn = kPgn,
          .game_id = "club-1.r1:b2",
          .version = 7,
          .result = "0-1",
          .signed_at_ms = 1'796'000'000'123,
          .log_sha256 = LogSha256({"e1", "e2"})};
}

KeyRing RingOf(const SigningKey& key) {
  KeyRing ring;
  EXPECT_OK(ring.Add(key.public_key()));
  return ring;
}

TEST(RecordTest, ASignedRecordVerifiesAndGivesBackItsParts) {
  const SigningKey key = SigningKey::Generate();
  absl::StatusOr<std::string> text = Sign(Game(), key);
  ASSERT_OK(text.status());
  absl::StatusOr<ParsedRecord> r = Verify(*text, RingOf(key));
  ASSERT_OK(r.status());
  EXPECT_EQ(r->pgn, kPgn);
  EXPECT_EQ(r->block.game_id, "club-1.r1:b2");
  EXPECT_EQ(r->block.version, 7);
  EXPECT_EQ(r->block.result, "0-1");
  EXPECT_EQ(r->block.signed_at_ms, 1'796'000'000'123);
  EXPECT_EQ(r->block.key_id, key.key_id());
  EXPECT_EQ(r->block.log_sha256, LogSha256({"e1", "e2"}));
  // A person reads the block: the time in UTC, the format named.
  EXPECT_NE(text->find("signed-at: 2026-11-30T00:53:20.123Z\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("format: arbiter-signed-record-v1\n"), std::string::npos);
  EXPECT_EQ(text->rfind(std::string(kEnd)), text->size() - kEnd.size());
}

// Every byte of the record is covered: the PGN by its digest, the block's fields by the
// signature, the markers and the layout by the canonical form, the signature by itself.
TEST(RecordTest, EverySingleByteChangedInsertedOrDeletedFails) {
  const SigningKey key = SigningKey::Generate();
  const KeyRing ring = RingOf(key);
  absl::StatusOr<std::string> text = Sign(Game(), key);
  ASSERT_OK(text.status());
  for (std::size_t i = 0; i < text->size(); ++i) {
    for (unsigned char flip : {0x01, 0x20, 0x80}) {
      std::string changed = *text;
      changed[i] = static_cast<char>(static_cast<unsigned char>(changed[i]) ^ flip);
      EXPECT_FALSE(Verify(changed, ring).ok()) << "byte " << i << " ^ " << int{flip};
    }
    std::string deleted = *text;
    deleted.erase(i, 1);
    EXPECT_FALSE(Verify(deleted, ring).ok()) << "byte " << i << " deleted";
    std::string inserted = *text;
    inserted.insert(i, 1, ' ');
    EXPECT_FALSE(Verify(inserted, ring).ok()) << "a space inserted at " << i;
  }
  EXPECT_FALSE(Verify(*text + " ", ring).ok()) << "a byte after the block";
  EXPECT_FALSE(Verify(*text + "\n", ring).ok()) << "a newline after the block";
}

TEST(RecordTest, EachPartChangedFailsWithItsOwnCode) {
  const SigningKey key = SigningKey::Generate();
  const KeyRing ring = RingOf(key);
  const std::string text = *Sign(Game(), key);
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string out = text;
    const std::size_t at = out.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    out.replace(at, from.size(), to);
    return out;
  };
  // The PGN: the moves, a clock, the result.
  EXPECT_THAT(Verify(replaced("Qh4#", "Qh5#"), ring), HasErrorCode(kErrRecordDigestMismatch));
  EXPECT_THAT(Verify(replaced("0:05:00.0", "0:06:00.0"), ring),
              HasErrorCode(kErrRecordDigestMismatch));
  // The metadata and the log's digest: signed.
  EXPECT_THAT(Verify(replaced("version: 7", "version: 8"), ring),
              HasErrorCode(kErrRecordSignatureInvalid));
  EXPECT_THAT(Verify(replaced("result: 0-1", "result: 1-0"), ring),
              HasErrorCode(kErrRecordSignatureInvalid));
  EXPECT_THAT(Verify(replaced("game-id: club-1", "game-id: club-2"), ring),
              HasErrorCode(kErrRecordSignatureInvalid));
  EXPECT_THAT(Verify(replaced(".123Z", ".124Z"), ring), HasErrorCode(kErrRecordSignatureInvalid));
  const std::string log = LogSha256({"e1", "e2"});
  EXPECT_THAT(Verify(replaced(log, LogSha256({"e1", "e3"})), ring),
              HasErrorCode(kErrRecordSignatureInvalid));
  // A leading zero is the same number but not the canonical form.
  EXPECT_THAT(Verify(replaced("version: 7", "version: 07"), ring),
              HasErrorCode(kErrRecordMalformed));
  EXPECT_THAT(Verify(replaced("-----BEGIN ARBITER", "-----BEGIN ARBITRE"), ring),
              HasErrorCode(kErrRecordMalformed));
  // The PGN's digest replaced along with the PGN: the signature no longer holds.
  const std::string other_pgn = absl::StrCat(kPgn, "\n");
  std::string both = replaced(base::Sha256Hex(kPgn), base::Sha256Hex(other_pgn));
  both.insert(std::string(kPgn).size(), "\n");
  EXPECT_THAT(Verify(both, ring), HasErrorCode(kErrRecordSignatureInvalid));
}

TEST(RecordTest, AnotherKeyDoesNotVerify) {
  const SigningKey key = SigningKey::Generate();
  const SigningKey other = SigningKey::Generate();
  const std::string text = *Sign(Game(), key);
  EXPECT_THAT(Verify(text, RingOf(other)), HasErrorCode(kErrRecordKeyUnknown));
  // The other key under this key's id: the signature is what fails.
  std::string forged = *Sign(Game(), other);
  const std::size_t at = forged.find(other.key_id());
  forged.replace(at, other.key_id().size(), key.key_id());
  EXPECT_THAT(Verify(forged, RingOf(key)), HasErrorCode(kErrRecordSignatureInvalid));
}

TEST(RecordTest, AfterARotationOldAndNewRecordsVerifyWithThePublishedKeys) {
  const SigningKey old_key = SigningKey::Generate();
  const SigningKey new_key = SigningKey::Generate();
  const std::string before = *Sign(Game(), old_key);
  const std::string after = *Sign(Game(), new_key);
  // The published file: the new key, then the old one, with a comment between.
  const std::string published =
      absl::StrCat(new_key.public_key().ToPem(), "# rotated out\n", old_key.public_key().ToPem());
  absl::StatusOr<KeyRing> ring = KeyRing::FromPem(published);
  ASSERT_OK(ring.status());
  EXPECT_EQ(ring->keys().size(), 2u);
  EXPECT_OK(Verify(before, *ring));
  EXPECT_OK(Verify(after, *ring));
  // Without the old key, the old record is no longer verifiable, and says why.
  EXPECT_THAT(Verify(before, *KeyRing::FromPem(new_key.public_key().ToPem())),
              HasErrorCode(kErrRecordKeyUnknown));
}

TEST(RecordTest, KeysRoundTripThroughPemFiles) {
  const SigningKey key = SigningKey::Generate();
  const std::string path = base::testing::TempPath("record.key");
  std::ofstream(path) << key.ToPem();
  absl::StatusOr<SigningKey> read = SigningKey::FromFile(path);
  ASSERT_OK(read.status());
  EXPECT_EQ(read->key_id(), key.key_id());
  EXPECT_EQ(read->Sign("m"), key.Sign("m"));  // Ed25519 is deterministic
  EXPECT_NE(key.ToPem().find("-----BEGIN PRIVATE KEY-----"), std::string::npos);
  absl::StatusOr<PublicKey> pub = PublicKey::FromPem(key.public_key().ToPem());
  ASSERT_OK(pub.status());
  EXPECT_EQ(pub->raw(), key.public_key().raw());
}

TEST(RecordTest, WhatIsNotAnEd25519KeyIsRefused) {
  EXPECT_THAT(SigningKey::FromPem("not a key"), HasErrorCode(kErrRecordBadKey));
  EXPECT_THAT(SigningKey::FromFile(base::testing::TempPath("absent.key")),
              HasErrorCode(kErrRecordBadKey));
  // A public key where the private one belongs, and the reverse.
  const SigningKey key = SigningKey::Generate();
  EXPECT_THAT(SigningKey::FromPem(key.public_key().ToPem()), HasErrorCode(kErrRecordBadKey));
  EXPECT_THAT(KeyRing::FromPem(key.ToPem()), HasErrorCode(kErrRecordBadKey));
  EXPECT_THAT(KeyRing::FromPem(""), HasErrorCode(kErrRecordBadKey));
  // The keys rotated out, before any rotation: comments only, an empty ring when allowed.
  absl::StatusOr<KeyRing> none = KeyRing::FromPem("# none yet\n", /*may_be_empty=*/true);
  ASSERT_OK(none.status());
  EXPECT_TRUE(none->keys().empty());
  // A damaged key is refused even there.
  EXPECT_THAT(KeyRing::FromPem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
                               /*may_be_empty=*/true),
              HasErrorCode(kErrRecordBadKey));
  EXPECT_THAT(PublicKey::FromRaw("short"), HasErrorCode(kErrRecordBadKey));
}

// RFC 8032 7.1, test 1: the signature an outside verifier's Ed25519 gives for the same key and
// message, and the key id of its public key.
TEST(RecordTest, SignaturesAreRfc8032Ed25519) {
  absl::StatusOr<SigningKey> key = SigningKey::FromPem(
      "-----BEGIN PRIVATE KEY-----\n"
      "MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"
      "-----END PRIVATE KEY-----\n");
  ASSERT_OK(key.status());
  EXPECT_EQ(absl::BytesToHexString(key->public_key().raw()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  EXPECT_EQ(absl::BytesToHexString(key->Sign("")),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e"
            "39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
  EXPECT_EQ(key->key_id(), base::Sha256Hex(key->public_key().raw()).substr(0, 16));
}

// The log's digest as docs/RECORDS.md defines it (checked against an independent computation:
// Python's hashlib over struct.pack(">QQ", version, len) + bytes).
TEST(RecordTest, TheLogDigestFramesEachEventWithItsVersionAndLength) {
  EXPECT_EQ(LogSha256({"a", ""}),
            "8c5e8db62b0e4f3b421d21106a91d7a500751d398640ab10d49efa3ec1bbd508");
  EXPECT_EQ(LogSha256({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // Moving bytes from one event to the next changes the digest.
  EXPECT_NE(LogSha256({"ab", "c"}), LogSha256({"a", "bc"}));
}

TEST(RecordTest, FieldsOutOfTheirFormAreNotSigned) {
  const SigningKey key = SigningKey::Generate();
  RecordToSign r = Game();
  r.game_id = "a\nb";
  EXPECT_THAT(Sign(r, key), HasErrorCode(base::kErrBadArgument));
  r = Game();
  r.pgn = "1. e4 *";  // no final newline: the block would not start a line
  EXPECT_THAT(Sign(r, key), HasErrorCode(base::kErrBadArgument));
  r = Game();
  r.version = 0;
  EXPECT_THAT(Sign(r, key), HasErrorCode(base::kErrBadArgument));
  r = Game();
  r.log_sha256 = "xyz";
  EXPECT_THAT(Sign(r, key), HasErrorCode(base::kErrBadArgument));
}

}  // namespace
}  // namespace record
