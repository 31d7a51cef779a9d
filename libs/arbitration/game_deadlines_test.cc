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
  Replica(store::GameStore* store, ledger::FakeTime* time, const std::string& owner,
          AuthorityOptions options = {})
      : authority(store, time, analyst,
                  [&] {
                    options.owner = owner;
                    return options;
                  }()),
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

// As the arbitration host runs: the snapshot every 4 versions and the index's entry as the
// clocks' bound (now + the smaller of both times), which the moves below never move earlier, so
// they write no deadline. The replica that did not play the moves finds the entry due early,
// finds nothing fallen and releases it to Black's deadline; Black's flag (6.1, 3 min + 2 s
// increment, FIDE 2023) is then recorded at the instant his time ran out, and a replica with no
// cached state reads the game as the snapshot plus the events after it.
TEST(GameDeadlines, ABoundInTheIndexStillFlagsAtTheInstant) {
  ledger::FakeTime time(kT0);
  store::MemoryGameStore store({.num_deadline_shards = 4, .now_ms = [&] { return time.NowMs(); }});
  const AuthorityOptions as_hosted{.snapshot_every = 4, .deadline_bounds = true};
  Replica a(&store, &time, "a", as_hosted);
  Replica b(&store, &time, "b", as_hosted);
  v1::CreateGameRequest create;
  create.set_game_id("g1");
  create.set_white_id("w");
  create.set_black_id("b");
  create.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  create.set_time_control("180+2");
  ASSERT_OK(a.authority.Create("g1", create, Platform(), {}).status());
  Command start;
  start.kind = CommandKind::kStart;
  start.actor = Platform();
  ASSERT_OK(a.authority.Execute("g1", start, {}).status());  // White's 3 min from kT0
  time.SetMs(kT0 + 10'000);
  ASSERT_OK(a.authority.Execute("g1", PlayerMove(chess::Color::kWhite, "e4"), {}).status());
  time.SetMs(kT0 + 20'000);
  ASSERT_OK(a.authority.Execute("g1", PlayerMove(chess::Color::kBlack, "e5"), {}).status());
  time.SetMs(kT0 + 25'000);
  ASSERT_OK(a.authority.Execute("g1", PlayerMove(chess::Color::kWhite, "Nf3"), {}).status());
  // Black: 180 - 10 + 2 = 172 s left when his clock started at +25 s: his flag falls at +197 s.
  absl::StatusOr<std::optional<store::Deadline>> entry = store.GetDeadline("g1");
  ASSERT_OK(entry.status());
  ASSERT_TRUE(entry->has_value());
  EXPECT_EQ((*entry)->deadline_ms, kT0 + 180'000);  // the start's bound, kept by every move
  time.SetMs(kT0 + 180'000);
  EXPECT_EQ(*b.deadlines.scheduler().RunOnce(), 0);  // due early: nothing has fallen
  time.SetMs(kT0 + 196'999);
  EXPECT_EQ(*b.deadlines.scheduler().RunOnce(), 0);
  time.SetMs(kT0 + 197'000);
  EXPECT_GE(*b.deadlines.scheduler().RunOnce(), 1);
  Replica c(&store, &time, "c", as_hosted);
  absl::StatusOr<CommandResult> game = c.authority.Get("g1");
  ASSERT_OK(game.status());
  EXPECT_EQ(game->version, 7);  // created, started, three moves, the flag and the game's end
  EXPECT_EQ(game->game->plies(), 3);
  ASSERT_EQ(game->game->flags().size(), 1u);
  EXPECT_EQ(game->game->flags()[0].fell_at_ms(), kT0 + 197'000);
  EXPECT_TRUE(game->game->FlagRecorded(chess::Color::kBlack));
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store.ReadSnapshot("g1");
  ASSERT_OK(snapshot.status());
  EXPECT_EQ(snapshot->version(), 4);
}

}  // namespace
}  // namespace arbitration::testing
