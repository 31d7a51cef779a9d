// `arbiterctl game simulate` (Article 4): the output's "touched" (this turn's touched
// squares) and "obligation" (the move owed), present only while something is touched or owed.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/game_simulate_testing.h"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;

constexpr char kStart[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
constexpr char kNoG1[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R";

std::string Board(int at, const char* placement) {
  return "{\"at_ms\": " + std::to_string(at) + ", \"type\": \"board\", \"placement\": \"" +
         placement + "\"}";
}

std::string Scenario(const std::string& edition, const std::string& time_control,
                     const std::string& events) {
  return "{\"edition\": \"" + edition + "\", \"time_control\": \"" + time_control +
         "\", \"events\": [{\"at_ms\": 0, \"type\": \"start\"}" + events + "]}";
}

// 2001 standard play: the knight g1 touched and put back: 4.3a, g1f3 or g1h3, enforced.
TEST(GameSimulateTouchesTest, StandardKnightOwed) {
  Json out = Simulate(
      Scenario("fide2001", "G/90", ", " + Board(1000, kNoG1) + ", " + Board(1500, kStart)));
  EXPECT_EQ(out["touched"], Json({"g1"}));
  EXPECT_EQ(
      out["obligation"],
      Json({{"free", false}, {"owed", {"g1f3", "g1h3"}}, {"article", "4.3a"}, {"enforced", true}}));
}

// 2001 rapid (B5a): the same touch is enforced only on the opponent's claim; 2023 numbers it.
TEST(GameSimulateTouchesTest, RapidOnClaimAnd2023Numbers) {
  Json rapid = Simulate(
      Scenario("fide2001", "G/25", ", " + Board(1000, kNoG1) + ", " + Board(1500, kStart)));
  EXPECT_EQ(rapid["obligation"]["enforced"], false);
  EXPECT_EQ(rapid["obligation"]["article"], "4.3a");
  Json fide2023 = Simulate(
      Scenario("fide2023", "G/90", ", " + Board(1000, kNoG1) + ", " + Board(1500, kStart)));
  EXPECT_EQ(fide2023["obligation"]["article"], "4.3.1");
}

// Nothing touched, or the touches ended with the move: neither key (outputs as before).
TEST(GameSimulateTouchesTest, AbsentWithoutTouches) {
  Json none = Simulate(Scenario("fide2001", "G/90", ""));
  EXPECT_FALSE(none.contains("touched"));
  EXPECT_FALSE(none.contains("obligation"));
  Json moved =
      Simulate(Scenario("fide2001", "G/90",
                        ", " + Board(1000, kNoG1) +
                            R"(, {"at_ms": 2000, "type": "move", "by": "white", "move": "Nf3"})"));
  EXPECT_FALSE(moved.contains("touched"));
  EXPECT_FALSE(moved.contains("obligation"));
}

}  // namespace
}  // namespace arbiterctl
