// The clock's flags on the ledger's deadline scheduler, with fake time: flags (6.1) and defaults
// (6.7) are recorded at the exact instants they fell, once across replicas, and no client can
// take the server's command ids. The scheduler itself (takeovers, leases, retries, real time on
// Redis, Stop) is tested in libs/ledger/deadline_scheduler_test.cc.
#include "libs/clock_authority/flag_deadlines.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/clock_authority/authority.h"
#include "libs/clock_authority/clock_codec.h"
#include "libs/clock_authority/clock_commands.h"
#include "libs/clock_authority/testing/commands.h"
#include "libs/ledger/time_source.h"
#include "libs/store/command_ids.h"
#include "libs/store/errors.h"
#include "libs/store/memory_game_store.h"

namespace clock_authority {
namespace {

using ledger::FakeTime;

using ::base::HasErrorCode;
using testing::Pause;
using testing::Press;
using testing::Start;

v1::CreateClockRequest Control(const std::string& human,
                               v1::GameType type = v1::GAME_TYPE_STANDARD) {
  return testing::HumanClockRequest(human, v1::EDITION_FIDE_2005, type);
}

std::vector<v1::FlagFell> Flags(store::GameStore& store, const std::string& game) {
  std::vector<v1::FlagFell> out;
  absl::StatusOr<std::vector<v1::GameEvent>> log = store.ReadEvents(game, 1, store::kHead);
  EXPECT_OK(log);
  if (!log.ok()) return out;
  for (const v1::GameEvent& e : *log) {
    absl::StatusOr<v1::ClockEvent> event = FromGameEvent(e);
    EXPECT_OK(event);
    if (event.ok() && event->has_flag_fell()) out.push_back(event->flag_fell());
  }
  return out;
}

// `game` has one flag recorded, fallen at `fell_at_ms` (and noticed at `noticed_at_ms`, the
// side's when given).
void ExpectOneFlag(store::GameStore& store, const std::string& game, std::int64_t fell_at_ms,
                   std::optional<std::int64_t> noticed_at_ms = std::nullopt,
                   std::optional<v1::Color> side = std::nullopt) {
  std::vector<v1::FlagFell> f = Flags(store, game);
  ASSERT_EQ(f.size(), 1u) << game;
  EXPECT_EQ(f[0].fell_at_ms(), fell_at_ms) << game;
  if (noticed_at_ms.has_value()) {
    EXPECT_EQ(f[0].noticed_at_ms(), *noticed_at_ms) << game;
  }
  if (side.has_value()) {
    EXPECT_EQ(f[0].side(), *side) << game;
  }
}

// One replica: an authority and its flag scheduler.
struct Replica {
  Replica(store::GameStore* store, TimeSource* time, const std::string& owner,
          ledger::DeadlineSchedulerOptions options, AuthorityOptions authority_options = {})
      : authority(store, time, WithOwner(std::move(authority_options), owner)) {
    options.owner = owner;
    flags = std::make_unique<FlagDeadlines>(&authority, options);
    scheduler = &flags->scheduler();
  }
  static AuthorityOptions WithOwner(AuthorityOptions options, const std::string& owner) {
    options.owner = owner;
    return options;
  }
  ClockAuthority authority;
  std::unique_ptr<FlagDeadlines> flags;
  ledger::DeadlineScheduler* scheduler = nullptr;
};

TEST(FlagDeadlines, FlagsAreRecordedAtTheInstantsTheyFell) {
  FakeTime time(1'000'000);
  store::MemoryGameStore store({.num_deadline_shards = 8, .now_ms = [&] { return time.NowMs(); }});
  Replica a(&store, &time, "A", {.sweep_grace = absl::ZeroDuration()});
  for (auto [game, minutes] : {std::pair{"g60", "G/1"}, {"g90", "G/1.5"}, {"g120", "G/2"}}) {
    ASSERT_OK(a.authority.Create(game, Control(minutes), {}));
    ASSERT_OK(a.authority.Execute(game, Start(), {}));
  }
  EXPECT_EQ(a.scheduler->tracked(), 3u);
  time.SetMs(1'059'999);
  EXPECT_EQ(*a.scheduler->RunOnce(), 0);
  time.SetMs(1'060'000);  // 6.1: the instant the minute is used up
  EXPECT_EQ(*a.scheduler->RunOnce(), 1);
  ExpectOneFlag(store, "g60", 1'060'000, 1'060'000, v1::COLOR_WHITE);
  // Checked late: each event still carries its own instant.
  time.SetMs(1'150'000);
  EXPECT_EQ(*a.scheduler->RunOnce(), 2);
  ExpectOneFlag(store, "g90", 1'090'000, 1'150'000);
  ExpectOneFlag(store, "g120", 1'120'000);
  EXPECT_EQ(a.scheduler->tracked(), 0u);
  EXPECT_EQ(*a.scheduler->RunOnce(), 0);  // once
  for (const char* game : {"g60", "g90", "g120"}) {
    EXPECT_FALSE(store.GetDeadline(game)->has_value()) << game;
  }
}

// 6.7 fires like a flag, without any client message: the default deadline is the game's entry in
// the index, and whoever checks it first (this replica's timer, or another's claim after it died)
// records the loss at the instant the default time ran out.
TEST(FlagDeadlines, ADefaultIsRecordedWhenTheDefaultTimeRunsOut) {
  FakeTime time(1'000'000);
  store::MemoryGameStore store({.num_deadline_shards = 8, .now_ms = [&] { return time.NowMs(); }});
  Replica a(&store, &time, "A", {.sweep_grace = absl::ZeroDuration()});
  Replica b(&store, &time, "B", {.sweep_grace = absl::ZeroDuration()});
  const v1::ClockEvent start_absent = Start({v1::COLOR_BLACK});
  for (const char* game : {"timer", "orphan"}) {
    ASSERT_OK(a.authority.Create(game, Control("G/120"), {}));
    ASSERT_OK(a.authority.Execute(game, start_absent, {}));
  }
  absl::StatusOr<std::optional<store::Deadline>> d = store.GetDeadline("timer");
  ASSERT_OK(d);
  EXPECT_EQ((*d)->deadline_ms, 1'000'000 + 3'600'000 + 1);  // not White's flag at 2 h
  time.SetMs(4'600'000);
  EXPECT_EQ(*a.scheduler->RunOnce(), 0);
  time.SetMs(4'600'001);
  // "orphan" is B's to take over: A's timer for it is gone with A (simulated: B alone runs).
  EXPECT_EQ(*b.scheduler->RunOnce(), 2);
  for (const char* game : {"timer", "orphan"}) {
    absl::StatusOr<CommandResult> r = b.authority.Get(game);
    ASSERT_OK(r);
    ASSERT_TRUE(r->game->decision().has_value()) << game;
    const v1::ClockDecision decision = DecisionToProto(*r->game->decision());
    EXPECT_EQ(decision.outcome().result(), v1::RESULT_WHITE_WINS);
    EXPECT_EQ(decision.outcome().termination(), v1::TERMINATION_DEFAULT);
    EXPECT_EQ(decision.at_ms(), 4'600'001);
    EXPECT_FALSE(store.GetDeadline(game)->has_value()) << game;
  }
  EXPECT_EQ(*a.scheduler->RunOnce(), 0);  // A's timers find them recorded: once
  EXPECT_EQ(*b.scheduler->RunOnce(), 0);
}

TEST(FlagDeadlines, APressMovesTheTimerAndTheIndexTogether) {
  FakeTime time(0);
  store::MemoryGameStore store({.num_deadline_shards = 8, .now_ms = [&] { return time.NowMs(); }});
  Replica a(&store, &time, "A", {.sweep_grace = absl::ZeroDuration()});
  ASSERT_OK(a.authority.Create("g", Control("G/1"), {}));
  ASSERT_OK(a.authority.Execute("g", Start(), {}));
  time.SetMs(59'000);
  ASSERT_OK(a.authority.Execute("g", Press(), {}));  // black's minute runs from 59 s
  time.SetMs(60'000);
  EXPECT_EQ(*a.scheduler->RunOnce(), 0);  // white's old deadline is gone
  time.SetMs(119'000);
  EXPECT_EQ(*a.scheduler->RunOnce(), 1);
  ExpectOneFlag(store, "g", 119'000, std::nullopt, v1::COLOR_BLACK);
}

// As the clock-authority host runs: the snapshot every 4 versions here (16 there) and the index's
// entry as the clocks' bound (now + the smaller of both times), which the presses below never move
// earlier, so they write no deadline. The replica that did not play finds the entry due early,
// finds nothing fallen and releases it to Black's deadline; Black's flag (6.1, one minute each,
// FIDE 2005) is recorded at the instant his time ran out, and a replica with no cached state reads
// the clock as the snapshot plus the events after it.
TEST(FlagDeadlines, ABoundInTheIndexStillFlagsAtTheInstant) {
  FakeTime time(0);
  store::MemoryGameStore store({.num_deadline_shards = 8, .now_ms = [&] { return time.NowMs(); }});
  const AuthorityOptions as_hosted{.snapshot_every = 4, .deadline_bounds = true};
  Replica a(&store, &time, "A", {.sweep_grace = absl::ZeroDuration()}, as_hosted);
  Replica b(&store, &time, "B", {.sweep_grace = absl::ZeroDuration()}, as_hosted);
  ASSERT_OK(a.authority.Create("g", Control("G/1"), {}));
  ASSERT_OK(a.authority.Execute("g", Start(), {}));  // White's minute from 0
  time.SetMs(10'000);
  ASSERT_OK(a.authority.Execute("g", Press(), {}));  // White 50 s left; Black's minute from 10 s
  time.SetMs(20'000);
  ASSERT_OK(a.authority.Execute("g", Press(), {}));  // Black 50 s left; White's 50 s from 20 s
  time.SetMs(25'000);
  ASSERT_OK(a.authority.Execute("g", Press(), {}));  // White 45 s; Black's 50 s from 25 s: 75 s
  absl::StatusOr<std::optional<store::Deadline>> entry = store.GetDeadline("g");
  ASSERT_OK(entry);
  ASSERT_TRUE(entry->has_value());
  EXPECT_EQ((*entry)->deadline_ms, 60'000);  // the start's bound, kept by every press
  time.SetMs(60'000);
  EXPECT_EQ(*b.scheduler->RunOnce(), 0);  // due early: nothing has fallen
  time.SetMs(74'999);
  EXPECT_EQ(*b.scheduler->RunOnce(), 0);
  time.SetMs(75'000);
  EXPECT_EQ(*b.scheduler->RunOnce(), 1);
  ExpectOneFlag(store, "g", 75'000, 75'000, v1::COLOR_BLACK);
  Replica c(&store, &time, "C", {.sweep_grace = absl::ZeroDuration()}, as_hosted);
  absl::StatusOr<CommandResult> read = c.authority.Get("g");
  ASSERT_OK(read);
  EXPECT_TRUE(read->game->decision().has_value());  // the flag, read back without a cache
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store.ReadSnapshot("g");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 4);
  EXPECT_GT(read->version, 4);
  EXPECT_FALSE(store.GetDeadline("g")->has_value());
}

// --- Command ids no client can use (store/command_ids.h)

std::int64_t VersionOf(ClockAuthority& authority, const std::string& game) {
  absl::StatusOr<CommandResult> r = authority.Get(game);
  EXPECT_OK(r);
  return r.ok() ? r->version : -1;
}

// White presses with the id the scheduler will use for Black's flag ("flag:<game>:<version>"):
// recorded under that id, it would make the scheduler's append fail ERR_COMMAND_ID_REUSED and the
// flag never be recorded. The press is refused (and changes nothing), and the flag is recorded
// once, at its instant.
TEST(FlagDeadlinesCommandIds, APressWithTheSchedulersIdIsRefusedAndTheFlagIsRecordedOnce) {
  FakeTime time(1'000'000);
  store::MemoryGameStore store({.num_deadline_shards = 8, .now_ms = [&] { return time.NowMs(); }});
  Replica a(&store, &time, "A", {.sweep_grace = absl::ZeroDuration()});
  ASSERT_OK(a.authority.Create("x2", Control("G/1", v1::GAME_TYPE_BLITZ), {}));
  ASSERT_OK(a.authority.Execute("x2", Start(), {}));
  ASSERT_EQ(VersionOf(a.authority, "x2"), 2);
  // The version after the press is 3: the id the scheduler will use for a flag on that state.
  for (const char* id : {"flag:x2:3", "flag:x2:2", "settle:x2:3", "a:A:0:1", "sys:x", "u:x/y"}) {
    EXPECT_THAT(a.authority.Execute("x2", Press(v1::COLOR_WHITE),
                                    {.command_id = id, .caller = "white-player"}),
                HasErrorCode(store::kErrReservedCommandId))
        << id;
    bool answered = false;
    a.authority.ExecuteAsync(
        "x2", Press(v1::COLOR_WHITE), {.command_id = id, .caller = "white-player"},
        [](std::function<void()> work) { work(); },
        [&](absl::StatusOr<CommandResult> r) {
          answered = true;
          EXPECT_THAT(r, HasErrorCode(store::kErrReservedCommandId)) << id;
        });
    EXPECT_TRUE(answered) << id;
    EXPECT_EQ(VersionOf(a.authority, "x2"), 2) << id << ": nothing changed";
  }
  time.SetMs(1'001'000);
  ASSERT_OK(a.authority.Execute("x2", Press(v1::COLOR_WHITE),
                                {.command_id = "m1", .caller = "white-player"}));
  ASSERT_EQ(VersionOf(a.authority, "x2"), 3);
  // Black's minute runs out at 1'061'000.
  time.SetMs(1'060'999);
  EXPECT_EQ(*a.scheduler->RunOnce(), 0);
  time.SetMs(1'061'000);
  EXPECT_EQ(*a.scheduler->RunOnce(), 1);
  time.SetMs(1'070'000);
  EXPECT_EQ(*a.scheduler->RunOnce(), 0);
  ExpectOneFlag(store, "x2", 1'061'000, 1'061'000, v1::COLOR_BLACK);
  // The flag is the server's own, and says so.
  absl::StatusOr<std::vector<v1::GameEvent>> log = store.ReadEvents("x2", 4, 4);
  ASSERT_OK(log);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].command_id(), "flag:x2:3");
  absl::StatusOr<v1::ClockEvent> flag = FromGameEvent((*log)[0]);
  ASSERT_OK(flag);
  EXPECT_EQ(flag->actor().role(), "server");
}

// A log written by an older server may hold a client's command under "flag:<game>:<v>": the
// scheduler's append under that id is refused ERR_COMMAND_ID_REUSED, and the flag goes under a
// fallback id every replica derives alike, once, at its instant (not retried forever).
TEST(FlagDeadlinesCommandIds, ALegacyPressUnderTheFlagsIdDoesNotStopTheFlag) {
  FakeTime time(1'000'000);
  store::MemoryGameStore store({.num_deadline_shards = 8, .now_ms = [&] { return time.NowMs(); }});
  Replica a(&store, &time, "A", {.sweep_grace = absl::ZeroDuration()});
  Replica b(&store, &time, "B", {.sweep_grace = absl::ZeroDuration()});
  ASSERT_OK(a.authority.Create("x3", Control("G/1", v1::GAME_TYPE_BLITZ), {}));
  ASSERT_OK(a.authority.Execute("x3", Start(), {}));
  time.SetMs(1'001'000);
  // White's press as an old server recorded it: under the id "flag:x3:3", unscoped.
  absl::StatusOr<CommandResult> before = a.authority.Get("x3");
  ASSERT_OK(before);
  absl::StatusOr<Decision> press = Decide(*before->game, Press(v1::COLOR_WHITE), time.NowMs());
  ASSERT_OK(press);
  store::AppendRequest legacy;
  legacy.game_id = "x3";
  legacy.expected_version = before->version;
  legacy.command_id = "flag:x3:3";
  legacy.fingerprint = "PressClock:legacy";
  for (const v1::ClockEvent& e : press->events) legacy.events.push_back(ToGameEvent(e, 1'001'000));
  legacy.snapshot = ToSnapshot(*press->after);
  legacy.deadline = store::DeadlineUpdate::Set(*NextDeadline(*press->after));
  ASSERT_OK(store.Append(legacy));
  time.SetMs(1'061'000);
  // B (no timer of its own) claims the index entry; A's cached state is stale.
  EXPECT_EQ(*b.scheduler->RunOnce(), 1);
  EXPECT_EQ(*a.scheduler->RunOnce(), 0);
  ExpectOneFlag(store, "x3", 1'061'000);
  // And play on the game is not stuck: a command after the flag is decided normally.
  EXPECT_OK(a.authority.Execute("x3", Pause(), {}));
}

// A command id is its caller's: Bob's "c1" is not Alice's, and Alice's retry is still a replay.
TEST(FlagDeadlinesCommandIds, OneCallersIdDoesNotBlockAnothers) {
  FakeTime time(1'000'000);
  store::MemoryGameStore store({.num_deadline_shards = 8, .now_ms = [&] { return time.NowMs(); }});
  ClockAuthority authority(&store, &time, {.owner = "A"});
  ASSERT_OK(authority.Create("g", Control("G/5"), {}));
  ASSERT_OK(authority.Execute("g", Start(), {}));
  const CommandOptions alice{.command_id = "c1", .caller = "alice", .fingerprint = "press-white"};
  const CommandOptions bob{.command_id = "c1", .caller = "bob", .fingerprint = "press-black"};
  time.SetMs(1'001'000);
  absl::StatusOr<CommandResult> first = authority.Execute("g", Press(v1::COLOR_WHITE), alice);
  ASSERT_OK(first);
  EXPECT_FALSE(first->replayed);
  time.SetMs(1'002'000);
  absl::StatusOr<CommandResult> other = authority.Execute("g", Press(v1::COLOR_BLACK), bob);
  ASSERT_OK(other);
  EXPECT_FALSE(other->replayed);
  EXPECT_EQ(other->version, first->version + 1);
  absl::StatusOr<CommandResult> retry = authority.Execute("g", Press(v1::COLOR_WHITE), alice);
  ASSERT_OK(retry);
  EXPECT_TRUE(retry->replayed);
  EXPECT_EQ(retry->version, first->version);
  // The store keeps them apart; the client's id is recoverable from the stored one.
  absl::StatusOr<std::vector<v1::GameEvent>> log = store.ReadEvents("g", 3, 4);
  ASSERT_OK(log);
  ASSERT_EQ(log->size(), 2u);
  EXPECT_NE((*log)[0].command_id(), (*log)[1].command_id());
  EXPECT_EQ(store::ClientCommandId((*log)[0].command_id()), "c1");
  EXPECT_EQ(store::ClientCommandId((*log)[1].command_id()), "c1");
}

}  // namespace
}  // namespace clock_authority
