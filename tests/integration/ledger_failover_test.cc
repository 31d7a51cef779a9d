// What the decide-and-append engine must get right when Redis fails over, each against a real
// master, a replica and three Sentinels (libs/store/testing/redis_sentinel_group.h), with replica
// acknowledgements on (min_replica_acks = 1) as deployed:
// - a retried command answered from its record is acknowledged only once a replica has it;
// - a state read from the old master (and cached) loses the compare-and-set on the new one
//   although the version matches, and the command is decided again on the new master's state;
// - the store counts master switches, so a replica drops its cached states;
// - the time base goes on across a switch to a master whose clock is 30 s ahead or behind (that
//   node's redis-server runs under libfaketime).
//
// Losing an append on purpose: both replicas are frozen (SIGSTOP) and the master closes their
// links, so what the master writes next never reaches them (nothing is left in flight on a
// socket); the master is then killed and one replica, resumed, promoted, the other following it
// (so appends are acknowledged again at once). The store answers the lost append UNAVAILABLE (no
// replica acknowledged it), as it must.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/clock_authority/authority.h"
#include "libs/clock_authority/clock_codec.h"
#include "libs/clock_authority/testing/commands.h"
#include "libs/ledger/time_source.h"
#include "libs/store/errors.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/testing/redis_sentinel_group.h"
#include "libs/store/testing/redis_server.h"
#include "libs/store/testing/requests.h"

namespace ledger {
namespace {

namespace v1 = arbiter::v1;

using ::base::HasErrorCode;
using clock_authority::ClockAuthority;
using clock_authority::testing::ClockRequest;
using clock_authority::testing::Press;
using clock_authority::testing::Start;
using store::testing::RedisSentinelGroup;

v1::CreateClockRequest Standard() {
  return ClockRequest("40/5400+30:1800+30", v1::EDITION_FIDE_2005, v1::GAME_TYPE_STANDARD);
}

class FailoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisSentinelGroup>> group =
        RedisSentinelGroup::Start({.replicas = 2});
    ASSERT_TRUE(group.ok()) << group.status();
    group_ = std::move(*group);
  }

  // A store of its own per replica of the service: each follows the master by itself, as
  // separate processes do.
  std::unique_ptr<store::RedisGameStore> NewStore() {
    store::RedisGameStoreOptions options;
    options.connection = group_->ConnectionOptions();
    options.connection.min_replica_acks = 1;
    options.connection.connect_timeout = absl::Milliseconds(300);
    options.connection.command_timeout = absl::Seconds(2);
    absl::StatusOr<std::unique_ptr<store::RedisGameStore>> made =
        store::RedisGameStore::Create(options);
    EXPECT_TRUE(made.ok()) << made.status();
    return made.ok() ? std::move(*made) : nullptr;
  }

  // From now on nothing the master writes reaches the replicas.
  void CutOffReplicas() {
    absl::StatusOr<int> master = group_->MasterIndex();
    ASSERT_TRUE(master.ok()) << master.status();
    master_ = *master;
    for (int i = 0; i < group_->num_nodes(); ++i) {
      if (i != master_) {
        ASSERT_TRUE(group_->node(i).Pause().ok());
      }
    }
    absl::StatusOr<std::string> killed =
        group_->node(master_).Command({"CLIENT", "KILL", "TYPE", "replica"});
    ASSERT_TRUE(killed.ok()) << killed.status();
  }

  // The master dies; a replica, without what the master wrote since CutOffReplicas, is promoted.
  void FailOverToACutOffReplica() {
    absl::StatusOr<int> killed = group_->KillMaster();
    ASSERT_TRUE(killed.ok()) << killed.status();
    ASSERT_EQ(*killed, master_);
    for (int i = 0; i < group_->num_nodes(); ++i) {
      if (i != master_) {
        ASSERT_TRUE(group_->node(i).Resume().ok());
      }
    }
    absl::StatusOr<int> now = group_->WaitForNewMaster(*killed, absl::Seconds(30));
    ASSERT_TRUE(now.ok()) << now.status() << "\n" << group_->Logs();
  }

  // What a client does with UNAVAILABLE: sends the same command again, for up to 20 s.
  template <typename Send>
  static auto Retried(Send send) -> decltype(send()) {
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    auto r = send();
    while (!r.ok() && absl::IsUnavailable(r.status()) && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(100));
      r = send();
    }
    return r;
  }

  // Replicas A and B of the service, each with a store of its own (NewStore), on a fake time that
  // starts now.
  void TwoStores() {
    time_.SetMs(absl::ToUnixMillis(absl::Now()));
    store_a_ = NewStore();
    store_b_ = NewStore();
    ASSERT_TRUE(store_a_ != nullptr && store_b_ != nullptr);
  }
  // A's and B's clock authorities on their stores; the clock "g" created and started by A. Then
  // the replicas are cut off and a second passes.
  void StartedClockThenReplicasCutOff() {
    ASSERT_NO_FATAL_FAILURE(TwoStores());
    clock_a_ = std::make_unique<ClockAuthority>(store_a_.get(), &time_,
                                                clock_authority::AuthorityOptions{.owner = "A"});
    clock_b_ = std::make_unique<ClockAuthority>(store_b_.get(), &time_,
                                                clock_authority::AuthorityOptions{.owner = "B"});
    ASSERT_TRUE(clock_a_->Create("g", Standard(), {.command_id = "c"}).ok());
    ASSERT_TRUE(clock_a_->Execute("g", Start(), {.command_id = "s"}).ok());
    CutOffReplicas();
    time_.AdvanceMs(1000);
  }

  std::unique_ptr<RedisSentinelGroup> group_;
  int master_ = 0;
  FakeTime time_;
  std::unique_ptr<store::RedisGameStore> store_a_;
  std::unique_ptr<store::RedisGameStore> store_b_;
  std::unique_ptr<ClockAuthority> clock_a_;
  std::unique_ptr<ClockAuthority> clock_b_;
  // White's first press, as the platform sends it (and sends it again).
  const clock_authority::CommandOptions w1_ = {.command_id = "w1", .fingerprint = "fp-w1"};
};

// The presses in a clock's log.
int Presses(store::EventLog& log, const std::string& game) {
  absl::StatusOr<std::vector<v1::GameEvent>> events = log.ReadEvents(game, 1, store::kHead);
  EXPECT_TRUE(events.ok()) << events.status();
  int n = 0;
  for (const v1::GameEvent& e : events.ok() ? *events : std::vector<v1::GameEvent>()) {
    absl::StatusOr<v1::ClockEvent> event = clock_authority::FromGameEvent(e);
    EXPECT_TRUE(event.ok()) << event.status();
    if (event.ok() && event->has_pressed()) ++n;
  }
  return n;
}

TEST_F(FailoverTest, TheStoreCountsTheSwitchToANewMaster) {
  std::unique_ptr<store::RedisGameStore> store = NewStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Append(store::testing::Request("g", 0, "c1")).ok());
  EXPECT_EQ(store->MasterEpoch(), 0u);
  absl::StatusOr<int> killed = group_->KillMaster();
  ASSERT_TRUE(killed.ok()) << killed.status();
  ASSERT_TRUE(group_->WaitForNewMaster(*killed, absl::Seconds(30)).ok()) << group_->Logs();
  absl::StatusOr<store::AppendResult> moved =
      Retried([&] { return store->Append(store::testing::Request("g", 1, "c2")); });
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(store->MasterEpoch(), 1u);
  ASSERT_TRUE(store->ReadSnapshot("g").ok());
  EXPECT_EQ(store->MasterEpoch(), 1u);
}

// A press whose append no replica acknowledged (UNAVAILABLE) is retried, on another replica of
// the service. Its record is on the master, so the retry finds it; answering it from the record
// without the replicas' acknowledgement would acknowledge a press the promoted replica never had:
// the platform stops retrying, and the press is gone. The retry waits for the replicas like an
// append (it is one: under the same id, answered from the record), so it stays UNAVAILABLE until
// the press is safe; after the failover it is decided again and lands.
TEST_F(FailoverTest, ARetryAnsweredFromItsRecordIsAcknowledgedOnlyOnceAReplicaHasIt) {
  ASSERT_NO_FATAL_FAILURE(StartedClockThenReplicasCutOff());
  EXPECT_THAT(clock_a_->Execute("g", Press(v1::COLOR_WHITE), w1_),
              HasErrorCode(store::kErrStoreUnavailable));
  // The platform retries; the master has the record, no replica has the press.
  time_.AdvanceMs(200);
  absl::StatusOr<clock_authority::CommandResult> retried =
      clock_b_->Execute("g", Press(v1::COLOR_WHITE), w1_);
  EXPECT_THAT(retried, HasErrorCode(store::kErrStoreUnavailable));
  const bool acknowledged = retried.ok();

  FailOverToACutOffReplica();
  if (!acknowledged) {
    time_.AdvanceMs(300);
    retried = Retried([&] { return clock_b_->Execute("g", Press(v1::COLOR_WHITE), w1_); });
    ASSERT_TRUE(retried.ok()) << retried.status();
  }
  // Acknowledged means there, once.
  EXPECT_EQ(Presses(*store_b_, "g"), 1);
}

// A state read from the old master (and cached) is at the version the new master reaches by
// other appends: a press that the replicas never had, and the same press decided again after the
// failover at another instant. A command decided on the cached state passed the version-only
// compare-and-set: the log said "created, started, w1 (later), b1" and the snapshot "after w1
// (earlier), b1". With the tip the cached state loses and the command is decided on the new
// master's state; snapshot and log agree.
TEST_F(FailoverTest, AClockStateFromTheOldMasterLosesTheCompareAndSet) {
  ASSERT_NO_FATAL_FAILURE(StartedClockThenReplicasCutOff());
  EXPECT_THAT(clock_b_->Execute("g", Press(v1::COLOR_WHITE), w1_),
              HasErrorCode(store::kErrStoreUnavailable));
  // Read (and cached) by A.
  absl::StatusOr<clock_authority::CommandResult> seen = clock_a_->Get("g");
  ASSERT_TRUE(seen.ok()) << seen.status();
  ASSERT_EQ(seen->version, 3);

  FailOverToACutOffReplica();
  time_.AdvanceMs(5000);  // the press again, decided at another instant on the new master
  ASSERT_TRUE(Retried([&] { return clock_b_->Execute("g", Press(v1::COLOR_WHITE), w1_); }).ok());
  time_.AdvanceMs(2000);
  absl::StatusOr<clock_authority::CommandResult> black =
      Retried([&] { return clock_a_->Execute("g", Press(v1::COLOR_BLACK), {.command_id = "b1"}); });
  ASSERT_TRUE(black.ok()) << black.status();
  EXPECT_EQ(black->version, 4);

  // The store's snapshot is the log's state.
  absl::StatusOr<v1::GameSnapshot> stored = store_b_->ReadSnapshot("g");
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->version(), 4);
  absl::StatusOr<std::shared_ptr<const clock_authority::ClockGame>> replayed =
      clock_b_->StateAt("g", 4);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(clock_authority::ToSnapshot(**replayed).state().SerializeAsString(),
            stored->state().SerializeAsString());
  EXPECT_EQ(Presses(*store_b_, "g"), 2);
}

// The same for a game: the move a replica never had, another move in its place on the new master,
// then a move decided on the old master's state. Before, it landed on a log it does not follow
// from (the snapshot said "e4 e5 Nf3", the log "e4 c5 Nf3"), and every later load of the game
// failed ERR_CORRUPT_LOG.
TEST_F(FailoverTest, AGameStateFromTheOldMasterLosesTheCompareAndSet) {
  ASSERT_NO_FATAL_FAILURE(TwoStores());
  arbitration::LocalAnalyst analyst;
  arbitration::GameAuthority a(store_a_.get(), &time_, analyst, {.owner = "A"});
  arbitration::GameAuthority b(store_b_.get(), &time_, analyst, {.owner = "B"});
  v1::Actor platform;
  platform.set_subject("platform");
  platform.set_role("platform");
  v1::CreateGameRequest create =
      arbitration::testing::GameRequest({.edition = v1::EDITION_FIDE_2023, .time_control = "5400"});
  create.set_game_id("g");
  ASSERT_TRUE(a.Create("g", create, platform, {}).ok());
  arbitration::Command start;
  start.kind = arbitration::CommandKind::kStart;
  start.actor = platform;
  ASSERT_TRUE(a.Execute("g", start, {}).ok());
  auto move = [](chess::Color side, const std::string& san) {
    arbitration::Command c;
    c.kind = arbitration::CommandKind::kMove;
    c.actor.set_subject(side == chess::Color::kWhite ? "w" : "b");
    c.actor.set_role("player");
    c.side = side;
    c.move = san;
    return c;
  };
  ASSERT_TRUE(a.Execute("g", move(chess::Color::kWhite, "e4"), {.command_id = "m1"}).ok());

  CutOffReplicas();
  time_.AdvanceMs(1000);
  EXPECT_THAT(b.Execute("g", move(chess::Color::kBlack, "e5"), {.command_id = "m2"}),
              HasErrorCode(store::kErrStoreUnavailable));
  absl::StatusOr<arbitration::CommandResult> seen = a.Get("g");  // read (and cached) by A
  ASSERT_TRUE(seen.ok()) << seen.status();
  ASSERT_EQ(seen->version, 4);

  FailOverToACutOffReplica();
  time_.AdvanceMs(1000);
  ASSERT_TRUE(Retried([&] {
                return b.Execute("g", move(chess::Color::kBlack, "c5"), {.command_id = "m2b"});
              }).ok());
  time_.AdvanceMs(1000);
  absl::StatusOr<arbitration::CommandResult> nf3 = Retried(
      [&] { return a.Execute("g", move(chess::Color::kWhite, "Nf3"), {.command_id = "m3"}); });
  ASSERT_TRUE(nf3.ok()) << nf3.status();
  EXPECT_EQ(nf3->version, 5);

  // A replica that never saw the game reads it: the log's game (Sicilian), not the old master's.
  arbitration::GameAuthority fresh(store_b_.get(), &time_, analyst, {.owner = "C"});
  absl::StatusOr<arbitration::CommandResult> read = fresh.Get("g");
  ASSERT_TRUE(read.ok()) << read.status();
  absl::StatusOr<std::shared_ptr<const arbitration::GameState>> replayed = fresh.StateAt("g", 5);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(arbitration::ToStoreSnapshot(*read->game).state().SerializeAsString(),
            arbitration::ToStoreSnapshot(**replayed).state().SerializeAsString());
  absl::StatusOr<v1::GameSnapshot> stored = store_b_->ReadSnapshot("g");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(arbitration::ToStoreSnapshot(**replayed).state().SerializeAsString(),
            stored->state().SerializeAsString());
  // Black answered 1...c5: 2.Nf3 was decided on that position.
  std::vector<std::string> moves;
  for (const v1::ArbitrationEvent& e : (*replayed)->events()) {
    if (e.has_move()) moves.push_back(e.move().san());
  }
  EXPECT_EQ(moves, (std::vector<std::string>{"e4", "c5", "Nf3"}));
}

// Deadlines are instants on the store's time base, which is the master's clock. The replica here
// runs 30 s ahead (or behind); promoted, it must not make every flag fall 30 s early (or hold
// time still for 30 s): the time base goes on as it went, for every replica of the service, also
// one started after the switch.
class TimeAcrossFailoverTest : public ::testing::TestWithParam<std::string> {};

std::int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

TEST_P(TimeAcrossFailoverTest, TheTimeBaseGoesOnAcrossASwitchToAMasterWithAnotherClock) {
  if (store::testing::FindLibFaketime().empty()) {
    GTEST_SKIP() << "libfaketime is not installed (tools/setup.sh installs faketime)";
  }
  absl::StatusOr<std::unique_ptr<RedisSentinelGroup>> group =
      RedisSentinelGroup::Start({.replicas = 1, .clock_offsets = {"", GetParam()}});
  ASSERT_TRUE(group.ok()) << group.status();
  const std::int64_t offset_ms = GetParam()[0] == '-' ? -30'000 : 30'000;
  // The replica's clock is off indeed.
  absl::StatusOr<std::string> replica_time = (*group)->node(1).Command({"TIME"});
  ASSERT_TRUE(replica_time.ok()) << replica_time.status();
  std::int64_t replica_s = 0;
  ASSERT_TRUE(absl::SimpleAtoi(replica_time->substr(0, replica_time->find('\n')), &replica_s));
  EXPECT_NEAR(replica_s * 1000 - absl::ToUnixMillis(absl::Now()), offset_ms, 2000);

  store::RedisGameStoreOptions options;
  options.connection = (*group)->ConnectionOptions();
  options.connection.connect_timeout = absl::Milliseconds(300);
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      store::RedisGameStore::Create(options);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::unique_ptr<StoreTime>> time = StoreTime::Create(store->get());
  ASSERT_TRUE(time.ok()) << time.status();
  const std::int64_t before = (*time)->NowMs();
  const std::int64_t before_steady = SteadyMs();

  absl::StatusOr<int> killed = (*group)->KillMaster();
  ASSERT_TRUE(killed.ok()) << killed.status();
  ASSERT_TRUE((*group)->WaitForNewMaster(*killed, absl::Seconds(30)).ok()) << (*group)->Logs();
  // The replica's resync reaches the new master.
  absl::Status resynced = absl::UnavailableError("not tried");
  for (int i = 0; i < 100 && !(resynced.ok() && (*store)->MasterEpoch() == 1); ++i) {
    resynced = (*time)->Resync();
    if (!resynced.ok()) absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(resynced.ok()) << resynced;
  ASSERT_EQ((*store)->MasterEpoch(), 1u);
  ASSERT_TRUE((*time)->Resync().ok());
  const std::int64_t after = (*time)->NowMs();
  const std::int64_t elapsed = SteadyMs() - before_steady;
  // As much time passed on the time base as on this machine's clock (± the measurements).
  EXPECT_NEAR(after - before, elapsed, 250) << "the new master's clock leaked into the time base";

  // A replica of the service started now reads the same time base.
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> later =
      store::RedisGameStore::Create(options);
  ASSERT_TRUE(later.ok()) << later.status();
  absl::StatusOr<std::unique_ptr<StoreTime>> later_time = StoreTime::Create(later->get());
  ASSERT_TRUE(later_time.ok()) << later_time.status();
  EXPECT_NEAR((*later_time)->NowMs(), (*time)->NowMs(), 50);
}

INSTANTIATE_TEST_SUITE_P(Offsets, TimeAcrossFailoverTest, ::testing::Values("+30s", "-30s"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param[0] == '-' ? std::string("Behind")
                                                       : std::string("Ahead");
                         });

}  // namespace
}  // namespace ledger
