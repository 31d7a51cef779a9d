// Appendix A: the sealed move is a secret until opened (A7, A9). What the crypto must guarantee.
#include "libs/seal/seal.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace seal {
namespace {

TEST(SealTest, RoundTripWithTheSameKeyAndContext) {
  const std::string key = NewDataKey();
  absl::StatusOr<std::string> box = Encrypt(key, "Nf3", "g1|17");
  ASSERT_TRUE(box.ok()) << box.status();
  EXPECT_EQ(box->find("Nf3"), std::string::npos);  // not in clear
  EXPECT_EQ(box->size(), kNonceBytes + 3 + kTagBytes);
  absl::StatusOr<std::string> move = Decrypt(key, *box, "g1|17");
  ASSERT_TRUE(move.ok()) << move.status();
  EXPECT_EQ(*move, "Nf3");
}

TEST(SealTest, TwoSealsOfOneMoveDiffer) {
  // A random nonce each time: equal moves give unequal boxes (nothing to compare across games).
  const std::string key = NewDataKey();
  EXPECT_NE(*Encrypt(key, "e4", "g|1"), *Encrypt(key, "e4", "g|1"));
}

TEST(SealTest, WrongKeyContextOrDamageDoNotOpen) {
  const std::string key = NewDataKey();
  const std::string box = *Encrypt(key, "Qxf7#", "g1|5");
  EXPECT_EQ(Decrypt(NewDataKey(), box, "g1|5").status().code(), absl::StatusCode::kDataLoss);
  // Associated data: another game, another version.
  EXPECT_EQ(Decrypt(key, box, "g2|5").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Decrypt(key, box, "g1|6").status().code(), absl::StatusCode::kDataLoss);
  std::string damaged = box;
  damaged[kNonceBytes] ^= 1;
  EXPECT_EQ(Decrypt(key, damaged, "g1|5").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Decrypt(key, "short", "g1|5").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Encrypt("not 32 bytes", "e4", "").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SealTest, MasterKeyWrapsDataKeysBoundToTheGame) {
  const MasterKey master = MasterKey::Generate();
  const std::string data_key = NewDataKey();
  absl::StatusOr<std::string> wrapped = master.Wrap(data_key, "g1");
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(wrapped->find(data_key), std::string::npos);
  EXPECT_EQ(*master.Unwrap(*wrapped, "g1"), data_key);
  EXPECT_FALSE(master.Unwrap(*wrapped, "g2").ok());
  EXPECT_FALSE(MasterKey::Generate().Unwrap(*wrapped, "g1").ok());
  EXPECT_EQ(master.id().size(), 16u);
  EXPECT_NE(master.id(), MasterKey::Generate().id());
}

TEST(SealTest, MasterKeyFromFileNeedsExactly32Bytes) {
  const std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  const std::string good = dir + "/seal_good.key";
  const std::string bad = dir + "/seal_bad.key";
  std::ofstream(good, std::ios::binary) << std::string(32, 'k');
  std::ofstream(bad, std::ios::binary) << std::string(31, 'k');
  absl::StatusOr<MasterKey> a = MasterKey::FromFile(good);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->id(), MasterKey::FromBytes(std::string(32, 'k'))->id());
  EXPECT_EQ(MasterKey::FromFile(bad).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MasterKey::FromFile(dir + "/none.key").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace seal
