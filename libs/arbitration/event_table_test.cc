// GameState::Apply's table of events: every kind of ArbitrationEvent but the creation has
// exactly one row, in its family's file, so that a new event is one row.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/status_matchers.h"

namespace arbitration {
namespace {

const google::protobuf::OneofDescriptor& Kinds() {
  return *v1::ArbitrationEvent::descriptor()->FindOneofByName("kind");
}

TEST(EventTable, EveryKindButTheCreationHasExactlyOneRow) {
  const google::protobuf::OneofDescriptor& kinds = Kinds();
  ASSERT_GT(kinds.field_count(), 1);
  for (int i = 0; i < kinds.field_count(); ++i) {
    const google::protobuf::FieldDescriptor& field = *kinds.field(i);
    const auto kind = static_cast<v1::ArbitrationEvent::KindCase>(field.number());
    EXPECT_EQ(GameState::EventRows(kind), kind == v1::ArbitrationEvent::kCreated ? 0 : 1)
        << field.name();
  }
  EXPECT_EQ(GameState::EventRows(v1::ArbitrationEvent::KIND_NOT_SET), 0);
}

// The board's events are the touch log's rows, each once.
TEST(EventTable, TheTouchLogHasOneRowPerBoardEvent) {
  for (const TouchLog::EventRule& row : TouchLog::EventRows()) {
    int same = 0;
    for (const TouchLog::EventRule& other : TouchLog::EventRows()) same += other.kind == row.kind;
    EXPECT_EQ(same, 1) << row.kind;
    EXPECT_EQ(GameState::EventRows(row.kind), 1) << row.kind;
  }
}

// An event of no kind, or a second creation, does not apply.
TEST(EventTable, AnEventOfNoKindDoesNotApply) {
  v1::ArbitrationEvent created;
  created.mutable_created()->set_white_id("w");
  created.mutable_created()->set_black_id("b");
  created.mutable_created()->set_time_control("G/90");
  created.mutable_created()->mutable_ruleset()->set_edition(v1::EDITION_FIDE_2001);
  absl::StatusOr<GameState> game = GameState::Create(created);
  ASSERT_OK(game.status());
  EXPECT_THAT(game->Apply(v1::ArbitrationEvent()), base::HasErrorCode("ERR_CORRUPT_LOG"));
  EXPECT_THAT(game->Apply(created), base::HasErrorCode("ERR_CORRUPT_LOG"));
}

}  // namespace
}  // namespace arbitration
