#include "libs/base/enum_table.h"

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace base {
namespace {

enum class Phase : unsigned char { kOpening, kMiddlegame, kEndgame };
constexpr absl::string_view kPhaseNames[] = {"opening", "middlegame", "endgame"};

TEST(EnumTableTest, EntryOfEachValue) {
  EXPECT_EQ(EnumEntry(kPhaseNames, Phase::kOpening, "?"), "opening");
  EXPECT_EQ(EnumEntry(kPhaseNames, Phase::kEndgame, "?"), "endgame");
  EXPECT_EQ(EnumEntry(kPhaseNames, static_cast<Phase>(3), "?"), "?");
  static_assert(EnumEntry(kPhaseNames, Phase::kMiddlegame, "?") == "middlegame");
}

TEST(EnumTableTest, ValueOfEachEntry) {
  EXPECT_EQ(EnumOfEntry<Phase>(kPhaseNames, "middlegame"), Phase::kMiddlegame);
  EXPECT_EQ(EnumOfEntry<Phase>(kPhaseNames, "endgame"), Phase::kEndgame);
  EXPECT_EQ(EnumOfEntry<Phase>(kPhaseNames, "blitz"), std::nullopt);
}

TEST(EnumTableTest, NegativeValuesAreBeyondTheTable) {
  enum Signed { kMinusOne = -1, kZero = 0 };
  constexpr int kCodes[] = {10};
  EXPECT_EQ(EnumEntry(kCodes, kZero, 0), 10);
  EXPECT_EQ(EnumEntry(kCodes, kMinusOne, 0), 0);
}

}  // namespace
}  // namespace base
