// The rulings' table of commands (plan.h): every command kind has one row in its family's file,
// under the name the contracts use (`game simulate`'s JSON, the request fingerprint).
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"
#include "libs/base/status_matchers.h"

namespace arbitration {
namespace {

using ::base::HasErrorCode;

// In the enum's order: the names may only be extended, never renamed.
const std::vector<std::string> kNames = {"start",
                                         "arrive",
                                         "move",
                                         "resign",
                                         "offer_draw",
                                         "accept_draw",
                                         "decline_draw",
                                         "claim",
                                         "rule",
                                         "confirm",
                                         "set_result",
                                         "pause",
                                         "resume",
                                         "adjust_time",
                                         "set_clocks",
                                         "seal_move",
                                         "adjourn",
                                         "resume_adjourned",
                                         "report_envelope_lost",
                                         "board_feed",
                                         "report_illegal_move",
                                         "complete_illegal_move",
                                         "rule_irregularity",
                                         "stop_clocks",
                                         "rule_stop",
                                         "use_power",
                                         "claim_illegal_move"};

TEST(CommandTable, EveryKindHasOneRowUnderItsName) {
  const std::size_t kinds = static_cast<std::size_t>(kLastCommandKind) + 1;
  ASSERT_EQ(kinds, kNames.size());
  std::set<std::string> seen;
  for (std::size_t i = 0; i < kinds; ++i) {
    const std::string name(CommandKindName(static_cast<CommandKind>(i)));
    EXPECT_EQ(name, kNames[i]) << i;
    EXPECT_TRUE(seen.insert(name).second) << name;
  }
  EXPECT_EQ(CommandKindName(static_cast<CommandKind>(kinds)), "unknown");
}

// A kind beyond the table: refused as unknown, and nothing is appended but what fell before.
TEST(CommandTable, AnUnknownKindIsRefused) {
  v1::CreateGameRequest req;
  req.set_white_id("w");
  req.set_black_id("b");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2001);
  req.set_time_control("G/90");
  absl::StatusOr<v1::ArbitrationEvent> created = NewGame(req, 0, v1::Actor());
  ASSERT_OK(created.status());
  absl::StatusOr<GameState> game = GameState::Create(*created);
  ASSERT_OK(game.status());
  LocalAnalyst analyst;
  const auto unknown = static_cast<CommandKind>(static_cast<int>(kLastCommandKind) + 1);
  absl::StatusOr<Decision> d =
      Decide(*game, {.kind = unknown, .side = chess::Color::kWhite}, 0, analyst);
  ASSERT_OK(d.status());
  EXPECT_THAT(d->refused, HasErrorCode("ERR_BAD_ARGUMENT"));
  EXPECT_TRUE(d->events.empty());
}

}  // namespace
}  // namespace arbitration
