// The vocabulary compiles with the system protoc and round-trips through the wire format.
#include "gtest/gtest.h"
#include "proto/arbiter/v1/common.pb.h"

namespace {

TEST(CommonProtoTest, RulesetAndOutcomeRoundTrip) {
  arbiter::v1::Ruleset ruleset;
  ruleset.set_edition(arbiter::v1::EDITION_FIDE_2005);
  ruleset.set_game_type(arbiter::v1::GAME_TYPE_RAPID);
  arbiter::v1::Ruleset back;
  ASSERT_TRUE(back.ParseFromString(ruleset.SerializeAsString()));
  EXPECT_EQ(back.edition(), arbiter::v1::EDITION_FIDE_2005);
  EXPECT_EQ(back.game_type(), arbiter::v1::GAME_TYPE_RAPID);

  arbiter::v1::Outcome outcome;
  outcome.set_result(arbiter::v1::RESULT_DRAW);
  outcome.set_termination(arbiter::v1::TERMINATION_THREEFOLD_REPETITION);
  EXPECT_EQ(arbiter::v1::Termination_Name(outcome.termination()),
            "TERMINATION_THREEFOLD_REPETITION");
}

}  // namespace
