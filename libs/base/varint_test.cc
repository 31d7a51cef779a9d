#include "libs/base/varint.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace base {
namespace {

TEST(VarintTest, WritesProtobufsBytesAndReadsThemBack) {
  std::string out;
  PutVarint(out, 1);
  PutVarint(out, 300);
  PutVarint(out, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(out.substr(0, 3), std::string("\x01\xac\x02", 3));
  EXPECT_EQ(out.size(), 3u + 10u);
  ByteReader in(out);
  std::uint64_t v = 0;
  ASSERT_TRUE(in.Varint(v));
  EXPECT_EQ(v, 1u);
  ASSERT_TRUE(in.Varint(v));
  EXPECT_EQ(v, 300u);
  ASSERT_TRUE(in.Varint(v));
  EXPECT_EQ(v, std::numeric_limits<std::uint64_t>::max());
  EXPECT_TRUE(in.empty());
  EXPECT_FALSE(in.Varint(v));
}

TEST(VarintTest, ZigZagKeepsSmallMagnitudesSmallOfEitherSign) {
  EXPECT_EQ(ZigZag(0), 0u);
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
  for (std::int64_t v :
       {std::int64_t{-5400000}, std::int64_t{123456789}, std::numeric_limits<std::int64_t>::min(),
        std::numeric_limits<std::int64_t>::max()}) {
    EXPECT_EQ(UnZigZag(ZigZag(v)), v);
  }
}

TEST(VarintTest, ATruncatedOrOverlongInputIsRefused) {
  std::uint64_t v = 0;
  EXPECT_FALSE(ByteReader(std::string("\x80", 1)).Varint(v));
  EXPECT_FALSE(ByteReader(std::string(11, '\xff')).Varint(v));
  absl::string_view bytes;
  EXPECT_FALSE(ByteReader(std::string("\x05"
                                      "abc",
                                      4))
                   .Bytes(bytes));
  const std::string record(
      "\x03"
      "abcd",
      5);
  ByteReader in(record);
  ASSERT_TRUE(in.Bytes(bytes));
  EXPECT_EQ(bytes, "abc");
  EXPECT_FALSE(in.empty());
}

}  // namespace
}  // namespace base
