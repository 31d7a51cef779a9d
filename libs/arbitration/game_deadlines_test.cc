// A game's flag on the ledger's deadline scheduler: 6.9, recorded by the server at the instant
// White's minute ran out, without anyone's message, once across two replicas. The scheduler itself
// (takeovers, leases, retries, real time on Redis, Stop) is tested in
// libs/ledger/deadline_scheduler_test.cc.
#include "libs/arbitration/game_deadlines.h"

#include <string>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/ledger/time_source.h"
#include "libs/store/memory_game_store.h"

namespace arbitration::testing {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;

v1::Actor Platform() { return Who("platform", "platform"); }

// One replica: its authority and the scheduler of its games' deadlines.
struct Replica {
  Replica(store::GameStore* store, ledger::FakeTime* time, const std::string& owner)
      : authority(store, time, analyst, {.owner = owner}),
        deadlines(&authority, time, {.owner = owner, .sweep_grace = absl::ZeroDuration()}) {}
  LocalAnalyst analyst;
  GameAuthority authority;
  GameDeadlines deadlines;
};

TEST(GameDeadlines, AFlagIsRecordedAtTheInstantItFellOnceAcrossReplicas) {
  ledger::FakeTime time(kT0);
  store::MemoryGameStore store({.num_deadline_shards = 4, .now_ms = [&] { return time.NowMs(); }});
  Replica a(&store, &time, "a");
  Replica b(&store, &time, "b");
  v1::CreateGameRequest create;
  create.set_game_id("g1");
  create.set_white_id("w");
  create.set_black_id("b");
  create.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  create.set_time_control("60");  // one minute sudden death: White's flag falls at kT0 + 60 s
  ASSERT_OK(a.authority.Create("g1", create, Platform(), {}).status());
  Command start;
  start.kind = CommandKind::kStart;
  start.actor = Platform();
  ASSERT_OK(a.authority.Execute("g1", start, {}).status());
  EXPECT_EQ(a.deadlines.scheduler().tracked(), 1u);
  time.SetMs(kT0 + 59'999);
  EXPECT_EQ(*a.deadlines.scheduler().RunOnce(), 0);
  EXPECT_EQ(*b.deadlines.scheduler().RunOnce(), 0);
  time.SetMs(kT0 + 60'000);  // 6.1: the instant the minute is used up
  EXPECT_GE(*a.deadlines.scheduler().RunOnce(), 1);
  EXPECT_EQ(*b.deadlines.scheduler().RunOnce(), 0);  // the index entry went with the append
  absl::StatusOr<CommandResult> game = b.authority.Get("g1");
  ASSERT_OK(game.status());
  EXPECT_TRUE(game->game->FlagRecorded(chess::Color::kWhite));
  ASSERT_EQ(game->game->flags().size(), 1u);
  EXPECT_EQ(game->game->flags()[0].fell_at_ms(), kT0 + 60'000);
  EXPECT_FALSE(store.GetDeadline("g1")->has_value());
  EXPECT_EQ(a.deadlines.scheduler().tracked(), 0u);
}

}  // namespace
}  // namespace arbitration::testing
