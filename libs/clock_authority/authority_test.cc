// The clock authority against the in-memory store with fake time: commands as atomic appends with
// the deadline index in the same write, idempotent retries, replicas racing on one game, flags
// recorded once.
#include "libs/clock_authority/authority.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/clock_authority/clock_codec.h"
#include "libs/clock_authority/testing/commands.h"
#include "libs/ledger/testing/send.h"
#include "libs/ledger/time_source.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/testing/deferred_store.h"

namespace clock_authority {
namespace {

using ledger::FakeTime;
using ledger::StoreTime;

using ::base::HasErrorCode;

using testing::ClockRequest;
using testing::Press;
using testing::Start;

v1::CreateClockRequest Standard(const std::string& pgn = "40/5400+30:1800+30") {
  return ClockRequest(pgn, v1::EDITION_FIDE_2005, v1::GAME_TYPE_STANDARD);
}

class Counter final : public AuthorityObserver {
 public:
  void OnConflict() override { ++conflicts; }
  void OnFlagRecorded(absl::string_view, const v1::FlagFell&) override { ++flags; }
  int conflicts = 0;
  int flags = 0;
};

class AuthorityTest : public ::testing::Test {
 protected:
  AuthorityTest()
      : store_({.num_deadline_shards = 4, .now_ms = [this] { return time_.NowMs(); }}),
        a_(&store_, &time_, {.owner = "A"}),
        b_(&store_, &time_, {.owner = "B"}) {
    a_.AddObserver(&counter_a_);
    b_.AddObserver(&counter_b_);
  }

  // The flag falls in the log: every FlagFell event of the game.
  std::vector<v1::FlagFell> Flags(const std::string& game) {
    std::vector<v1::FlagFell> out;
    absl::StatusOr<std::vector<v1::GameEvent>> log = store_.ReadEvents(game, 1, store::kHead);
    EXPECT_OK(log);
    for (const v1::GameEvent& e : *log) {
      absl::StatusOr<v1::ClockEvent> event = FromGameEvent(e);
      EXPECT_OK(event);
      if (event->has_flag_fell()) out.push_back(event->flag_fell());
    }
    return out;
  }

  FakeTime time_{1'000'000};
  store::MemoryGameStore store_;
  ClockAuthority a_;
  ClockAuthority b_;
  Counter counter_a_, counter_b_;
};

TEST_F(AuthorityTest, EachCommandIsOneAppendWithItsDeadline) {
  ASSERT_OK(a_.Create("g1", Standard(), {.command_id = "c"}));
  absl::StatusOr<std::optional<store::Deadline>> d = store_.GetDeadline("g1");
  ASSERT_OK(d);
  EXPECT_FALSE(d->has_value());  // not started: no flag can fall
  time_.AdvanceMs(500);
  absl::StatusOr<CommandResult> r = a_.Execute("g1", Start(), {.command_id = "s"});
  ASSERT_OK(r);
  EXPECT_EQ(r->version, 2);
  d = store_.GetDeadline("g1");
  ASSERT_OK(d);
  ASSERT_TRUE(d->has_value());
  EXPECT_EQ((*d)->deadline_ms, 1'000'500 + 5'400'000);
  EXPECT_EQ((*d)->set_at_version, 2);
  time_.AdvanceMs(61'234);
  r = a_.Execute("g1", Press(v1::COLOR_WHITE), {.command_id = "m1"});
  ASSERT_OK(r);
  d = store_.GetDeadline("g1");
  EXPECT_EQ((*d)->deadline_ms, 1'061'734 + 5'400'000);  // black's flag now
  // The store's snapshot and its log say the same.
  absl::StatusOr<CommandResult> got = b_.Get("g1");
  ASSERT_OK(got);
  EXPECT_EQ(got->version, 3);
  EXPECT_EQ(Read(*got->game, "g1", 1'100'000).white_ms(), 5'400'000 - 61'234 + 30'000);
  absl::StatusOr<std::shared_ptr<const ClockGame>> replayed = b_.StateAt("g1", 3);
  ASSERT_OK(replayed);
  EXPECT_EQ(Read(**replayed, "g1", 1'100'000).SerializeAsString(),
            Read(*got->game, "g1", 1'100'000).SerializeAsString());
}

TEST_F(AuthorityTest, ARetryIsAnsweredFromTheRecord) {
  ASSERT_OK(a_.Create("g1", Standard(), {.command_id = "c"}));
  ASSERT_OK(a_.Execute("g1", Start(), {.command_id = "s"}));
  time_.AdvanceMs(1000);
  absl::StatusOr<CommandResult> first =
      a_.Execute("g1", Press(v1::COLOR_WHITE), {.command_id = "m1", .fingerprint = "fp-m1"});
  ASSERT_OK(first);
  EXPECT_FALSE(first->replayed);
  // Retried at once: black is to move, so the press would be refused; it is a replay instead.
  absl::StatusOr<CommandResult> at_once =
      a_.Execute("g1", Press(v1::COLOR_WHITE), {.command_id = "m1", .fingerprint = "fp-m1"});
  ASSERT_OK(at_once);
  EXPECT_TRUE(at_once->replayed);
  EXPECT_EQ(at_once->version, first->version);
  // The reply was lost; black moved meanwhile; the platform retries m1.
  time_.AdvanceMs(1000);
  ASSERT_OK(a_.Execute("g1", Press(v1::COLOR_BLACK), {.command_id = "m2"}));
  time_.AdvanceMs(1000);
  absl::StatusOr<CommandResult> retry =
      b_.Execute("g1", Press(v1::COLOR_WHITE), {.command_id = "m1", .fingerprint = "fp-m1"});
  ASSERT_OK(retry);
  EXPECT_TRUE(retry->replayed);
  EXPECT_EQ(retry->version, first->version);
  EXPECT_EQ(retry->game->clock().moves(chess::Color::kWhite), 1);  // the state as of then
  EXPECT_EQ(retry->game->clock().moves(chess::Color::kBlack), 0);
  // Now white is to move: a retry that would apply again is still a replay.
  absl::StatusOr<CommandResult> again =
      a_.Execute("g1", Press(v1::COLOR_WHITE), {.command_id = "m1", .fingerprint = "fp-m1"});
  ASSERT_OK(again);
  EXPECT_TRUE(again->replayed);
  absl::StatusOr<CommandResult> now = a_.Get("g1");
  EXPECT_EQ(now->version, 4);
  // The same id for another request is refused.
  EXPECT_THAT(a_.Execute("g1", Press(v1::COLOR_WHITE), {.command_id = "m1", .fingerprint = "x"}),
              HasErrorCode(store::kErrCommandIdReused));
}

TEST_F(AuthorityTest, ReplicasRacingOnOneGameStayConsistent) {
  ASSERT_OK(a_.Create("g1", Standard("300+2"), {}));
  ASSERT_OK(a_.Execute("g1", Start(), {}));
  // Both replicas cache the game, then write alternately: each write on a stale cache loses the
  // compare-and-set once and is decided again on the store's state.
  ASSERT_OK(b_.Get("g1"));
  for (int i = 0; i < 10; ++i) {
    time_.AdvanceMs(700);
    ClockAuthority& r = i % 2 == 0 ? a_ : b_;
    absl::StatusOr<CommandResult> result = r.Execute("g1", Press(), {});
    ASSERT_OK(result);
    EXPECT_EQ(result->version, 3 + i);
  }
  EXPECT_GT(counter_a_.conflicts + counter_b_.conflicts, 0);
  absl::StatusOr<CommandResult> got = a_.Get("g1");
  EXPECT_EQ(got->game->clock().moves(chess::Color::kWhite), 5);
  EXPECT_EQ(got->game->clock().moves(chess::Color::kBlack), 5);
  // The conditional form: a stale expected version is the caller's conflict.
  EXPECT_THAT(a_.Execute("g1", Press(), {.expected_version = 5}),
              HasErrorCode(store::kErrVersionConflict));
  EXPECT_OK(a_.Execute("g1", Press(), {.expected_version = 12}));
}

TEST_F(AuthorityTest, ErrorsCarryStableCodes) {
  EXPECT_THAT(a_.Execute("nope", Press(), {}), HasErrorCode(kErrClockNotFound));
  EXPECT_THAT(a_.Get("nope"), HasErrorCode(kErrClockNotFound));
  EXPECT_THAT(a_.Get("bad id!"), HasErrorCode(store::kErrBadArgument));
  ASSERT_OK(a_.Create("g1", Standard(), {.command_id = "c1"}));
  EXPECT_THAT(a_.Create("g1", Standard(), {.command_id = "c2"}),
              HasErrorCode(store::kErrGameExists));
  // The same creation retried is a replay.
  absl::StatusOr<CommandResult> retry = a_.Create("g1", Standard(), {.command_id = "c1"});
  ASSERT_OK(retry);
  EXPECT_TRUE(retry->replayed);
  EXPECT_THAT(a_.Execute("g1", Press(), {}), HasErrorCode("ERR_CLOCK_NOT_STARTED"));
}

TEST_F(AuthorityTest, AFlagIsRecordedOnceWhoeverChecks) {
  ASSERT_OK(a_.Create("g1", Standard("60"), {}));
  ASSERT_OK(a_.Execute("g1", Start(), {}));  // white's flag falls at 1'060'000
  ASSERT_OK(b_.Get("g1"));                   // B holds the state at version 2 too
  time_.SetMs(1'059'999);
  absl::StatusOr<FlagCheckResult> r = a_.CheckFlags("g1", 2);
  ASSERT_OK(r);
  EXPECT_EQ(r->recorded, 0);
  EXPECT_EQ(r->next_deadline, 1'060'000);
  time_.SetMs(1'060'004);
  r = a_.CheckFlags("g1", 2);
  ASSERT_OK(r);
  EXPECT_EQ(r->recorded, 1);
  EXPECT_FALSE(r->next_deadline.has_value());
  // B checks the same state (its cache, version 2): the same command, a replay.
  time_.SetMs(1'060'009);
  r = b_.CheckFlags("g1", 2);
  ASSERT_OK(r);
  EXPECT_EQ(r->recorded, 0);
  EXPECT_TRUE(r->already_recorded);
  // B checks again on the store's state: nothing left to record.
  r = b_.CheckFlags("g1", 0);
  ASSERT_OK(r);
  EXPECT_EQ(r->recorded, 0);
  std::vector<v1::FlagFell> flags = Flags("g1");
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].fell_at_ms(), 1'060'000);
  EXPECT_EQ(flags[0].noticed_at_ms(), 1'060'004);
  EXPECT_TRUE(flags[0].counts());
  absl::StatusOr<std::optional<store::Deadline>> d = store_.GetDeadline("g1");
  EXPECT_FALSE(d->has_value());  // cleared in the flag's append
  EXPECT_EQ(counter_a_.flags + counter_b_.flags, 1);
}

TEST_F(AuthorityTest, APressAfterTheFlagRecordsTheFallAndIsRefused) {
  ASSERT_OK(a_.Create("g1", Standard("60"), {}));
  ASSERT_OK(a_.Execute("g1", Start(), {}));
  time_.SetMs(1'060'250);
  EXPECT_THAT(a_.Execute("g1", Press(v1::COLOR_WHITE), {.command_id = "late"}),
              HasErrorCode(kErrFlagFallen));
  std::vector<v1::FlagFell> flags = Flags("g1");
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].fell_at_ms(), 1'060'000);
  // The retry is refused again (the press was never applied), and nothing more is written.
  EXPECT_THAT(b_.Execute("g1", Press(v1::COLOR_WHITE), {.command_id = "late"}),
              HasErrorCode(kErrFlagFallen));
  absl::StatusOr<FlagCheckResult> r = b_.CheckFlags("g1", 0);
  ASSERT_OK(r);
  EXPECT_EQ(r->recorded, 0);
  EXPECT_EQ(Flags("g1").size(), 1u);
  EXPECT_EQ(a_.Get("g1")->version, 3);
}

TEST_F(AuthorityTest, BlitzPressAfterTheFlagAppendsBothInOneWrite) {
  ASSERT_OK(a_.Create("g1", ClockRequest("60", v1::EDITION_FIDE_2001), {}));
  ASSERT_OK(a_.Execute("g1", Start(), {}));
  time_.SetMs(1'061'000);
  absl::StatusOr<CommandResult> r = a_.Execute("g1", Press(), {});
  ASSERT_OK(r);  // B6: play goes on
  EXPECT_EQ(r->version, 4);
  std::vector<v1::FlagFell> flags = Flags("g1");
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_FALSE(flags[0].counts());
  absl::StatusOr<std::optional<store::Deadline>> d = store_.GetDeadline("g1");
  ASSERT_TRUE(d->has_value());
  EXPECT_EQ((*d)->deadline_ms, 1'061'000 + 60'000);  // black's
}

// --- ExecuteAsync --------------------------------------------------------------------------------

using store::testing::DeferredStore;

using CommandCounter = ledger::testing::CommandCounter<AuthorityObserver>;

class ExecuteAsyncTest : public AuthorityTest {
 protected:
  ExecuteAsyncTest() : deferred_(&store_), async_(&deferred_, &time_, {.owner = "C"}) {
    async_.AddObserver(&commands_);
  }

  // ExecuteAsync; the result once the callback ran (nullopt while it has not).
  auto Send(const std::string& game, const v1::ClockEvent& command, const CommandOptions& options) {
    return ledger::testing::Send(async_, game, command, options, &offloaded_);
  }

  DeferredStore deferred_;
  ClockAuthority async_;
  CommandCounter commands_;
  int offloaded_ = 0;
};

TEST_F(ExecuteAsyncTest, ACachedGameIsDecidedHereAndAnsweredWhenTheStoreIs) {
  ASSERT_OK(async_.Create("g1", Standard(), {.command_id = "c"}));
  ASSERT_OK(async_.Execute("g1", Start(), {.command_id = "s"}));
  time_.AdvanceMs(2'000);
  auto r = Send("g1", Press(v1::COLOR_WHITE), {.command_id = "m1"});
  EXPECT_FALSE(r->has_value());  // nothing waits for the store
  EXPECT_EQ(deferred_.queued(), 1u);
  deferred_.Flush();
  ASSERT_TRUE(r->has_value());
  ASSERT_OK(**r);
  EXPECT_EQ((**r)->version, 3);
  EXPECT_FALSE((**r)->replayed);
  EXPECT_EQ((**r)->game->clock().moves(chess::Color::kWhite), 1);
  EXPECT_EQ(offloaded_, 0);
  EXPECT_EQ(commands_.commands, 3);  // create, start, press: each reported once
  // 6.8a: the deadline in the index moved with the press (the same write).
  absl::StatusOr<std::optional<store::Deadline>> d = store_.GetDeadline("g1");
  ASSERT_OK(d);
  EXPECT_EQ((*d)->set_at_version, 3);
  // The cache has the new state: the next press is decided on it, not refused as out of turn.
  auto next = Send("g1", Press(v1::COLOR_BLACK), {.command_id = "m2"});
  deferred_.Flush();
  ASSERT_TRUE(next->has_value());
  ASSERT_OK(**next);
  EXPECT_EQ((**next)->version, 4);
}

TEST_F(ExecuteAsyncTest, ALostRaceIsDecidedAgainOnTheStoresState) {
  ASSERT_OK(async_.Create("g1", Standard(), {.command_id = "c"}));
  ASSERT_OK(async_.Execute("g1", Start(), {.command_id = "s"}));
  time_.AdvanceMs(1'000);
  auto r = Send("g1", Press(), {.command_id = "m-async"});
  // Another replica's press lands first: the deferred append finds version 3, not 2.
  ASSERT_OK(b_.Execute("g1", Press(), {.command_id = "m-b"}));
  deferred_.Flush();
  ASSERT_TRUE(r->has_value());
  ASSERT_OK(**r);
  EXPECT_EQ((**r)->version, 4);  // applied once, after the other
  EXPECT_EQ(offloaded_, 1);
  absl::StatusOr<CommandResult> now = b_.Get("g1");
  ASSERT_OK(now);
  EXPECT_EQ(now->version, 4);
  EXPECT_EQ(commands_.commands, 3);
}

TEST_F(ExecuteAsyncTest, RetriesAndUncachedGamesGoTheWayExecuteGoes) {
  ASSERT_OK(a_.Create("g1", Standard(), {.command_id = "c"}));
  ASSERT_OK(a_.Execute("g1", Start(), {.command_id = "s"}));
  time_.AdvanceMs(1'000);
  // Not cached by this replica: Execute (it loads the game), on the offload.
  auto first = Send("g1", Press(), {.command_id = "m1", .fingerprint = "fp"});
  ASSERT_TRUE(first->has_value());
  ASSERT_OK(**first);
  EXPECT_EQ(offloaded_, 1);
  // A retry of m1, now decided on the cached state: the store answers it from its record.
  auto retry = Send("g1", Press(), {.command_id = "m1", .fingerprint = "fp"});
  deferred_.Flush();
  ASSERT_TRUE(retry->has_value());
  ASSERT_OK(**retry);
  EXPECT_TRUE((**retry)->replayed);
  EXPECT_EQ((**retry)->version, (**first)->version);
  EXPECT_EQ(offloaded_, 2);  // the replayed state is read from the log
  absl::StatusOr<CommandResult> now = b_.Get("g1");
  ASSERT_OK(now);
  EXPECT_EQ(now->version, 3);  // applied once
  // Unknown games and refusals are Execute's, with its codes.
  auto unknown = Send("nope", Press(), {});
  ASSERT_TRUE(unknown->has_value());
  EXPECT_THAT(**unknown, HasErrorCode(kErrClockNotFound));
  auto wrong_side = Send("g1", Press(v1::COLOR_WHITE), {.command_id = "m2"});
  ASSERT_TRUE(wrong_side->has_value());
  EXPECT_THAT(**wrong_side, HasErrorCode("ERR_NOT_YOUR_TURN"));
  EXPECT_EQ(commands_.commands, 4);
  EXPECT_EQ(commands_.failed, 2);
}

}  // namespace
}  // namespace clock_authority
