// Redis that fails over (README.md, "Failover"): a master, a replica and three Sentinels, all
// real processes (testing/redis_sentinel_group.h), the store connected through the Sentinels
// (redis+sentinel://) with min_replica_acks = 1. Writers append to their games continuously
// while the master is killed (SIGKILL) or failed over (SENTINEL FAILOVER); every append the
// store acknowledged must be in the log afterwards exactly once, read through the new master,
// and writes must resume without restarting anything.
//
// Why WAIT (min_replica_acks) is on: replication is asynchronous, so without it the master
// acknowledges an append before the replica has it, and a master killed right then takes the
// append with it when the replica is promoted. AppendIsNotAcknowledgedUntilAReplicaHasIt shows
// the mechanism that prevents it: with the replica frozen, an append is refused (UNAVAILABLE)
// rather than acknowledged, and the retry of the same command succeeds once the replica is back.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/game_store.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/testing/redis_sentinel_group.h"
#include "libs/store/testing/requests.h"
#include "proto/arbiter/v1/common.pb.h"

namespace store {
namespace {

using ::base::HasErrorCode;
using ::testing::HasSubstr;
using testing::RedisSentinelGroup;
using testing::Request;

// Counts what the client reports (the Prometheus version is libs/service/redis_store_metrics.h).
class CountingObserver : public RedisFailoverObserver {
 public:
  void OnMasterSwitch() override { ++switches; }
  void OnFailoverInProgress(bool in_progress) override { failover = in_progress; }
  void OnReplicaAckFailure() override { ++ack_failures; }
  std::atomic<int> switches = 0;
  std::atomic<bool> failover = false;
  std::atomic<int> ack_failures = 0;
};

// kSentinelFailover: plain SENTINEL FAILOVER (safe with one replica only); kSafeFailover: writes
// paused on the master first (RedisSentinelGroup::SafeFailover), the planned switch.
enum class Fault { kKillMaster, kSentinelFailover, kSafeFailover };

struct Param {
  Fault fault;
  int pipeline_lanes;  // 0: Append on the caller's thread; > 0: AppendAsync through lanes
  int replicas = 1;
};

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  const char* fault = info.param.fault == Fault::kKillMaster         ? "KillMaster"
                      : info.param.fault == Fault::kSentinelFailover ? "SentinelFailover"
                                                                     : "SafeFailover";
  return absl::StrCat(
      fault, info.param.pipeline_lanes > 0 ? "Pipelined" : "Alone",
      info.param.replicas == 1 ? "" : absl::StrCat(info.param.replicas, "Replicas"));
}

// One game's acknowledged appends, in order.
struct Acked {
  std::string command_id;
  std::int64_t version;
};

class RedisFailoverTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisSentinelGroup>> group = RedisSentinelGroup::Start(
        {.replicas = GetParam().replicas, .acl_password = "failover-test-password"});
    ASSERT_TRUE(group.ok()) << group.status();
    group_ = std::move(*group);
    observer_ = std::make_shared<CountingObserver>();
    store_ = OpenStore(GetParam().pipeline_lanes, observer_);
    ASSERT_NE(store_, nullptr);
  }

  std::unique_ptr<RedisGameStore> OpenStore(int lanes,
                                            std::shared_ptr<RedisFailoverObserver> observer) {
    RedisGameStoreOptions options;
    options.connection = group_->ConnectionOptions();
    options.connection.command_timeout = absl::Seconds(1);
    options.connection.pipeline_lanes = lanes;
    options.connection.min_replica_acks = 1;
    options.connection.replica_ack_timeout = absl::Milliseconds(250);
    options.connection.observer = std::move(observer);
    absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }

  absl::StatusOr<AppendResult> Append(const AppendRequest& request) {
    if (GetParam().pipeline_lanes == 0) return store_->Append(request);
    absl::Notification answered;
    absl::StatusOr<AppendResult> out;
    store_->AppendAsync(request, [&](absl::StatusOr<AppendResult> result) {
      out = std::move(result);
      answered.Notify();
    });
    answered.WaitForNotification();
    return out;
  }

  std::unique_ptr<RedisSentinelGroup> group_;
  std::shared_ptr<CountingObserver> observer_;
  std::unique_ptr<RedisGameStore> store_;
};

TEST_P(RedisFailoverTest, NoAcknowledgedAppendIsLostOrDuplicated) {
  constexpr int kWriters = 4;
  std::atomic<bool> stop = false;
  absl::Mutex mu;
  std::vector<std::vector<Acked>> acked(kWriters);
  std::vector<std::string> unexpected(kWriters);
  std::vector<int> unavailable(kWriters, 0);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const std::string game = absl::StrCat("failover-", w);
      std::int64_t version = 0;
      for (int n = 0; !stop; ++n) {
        const AppendRequest request = Request(game, version, absl::StrCat("w", w, "-", n));
        // The same command until it is acknowledged: a failed append may or may not have
        // landed, and the command id settles it (REPLAY). Stopping waits for the one in flight.
        const absl::Time give_up = absl::Now() + absl::Seconds(120);
        while (true) {
          absl::StatusOr<AppendResult> r = Append(request);
          if (r.ok()) {
            version = r->version;
            absl::MutexLock lock(&mu);
            acked[w].push_back({request.command_id, r->version});
            break;
          }
          if (!absl::IsUnavailable(r.status()) || absl::Now() > give_up) {
            unexpected[w] = r.status().ToString();
            return;
          }
          ++unavailable[w];
          absl::SleepFor(absl::Milliseconds(5));
        }
      }
    });
  }
  // Writing before the fault.
  absl::SleepFor(absl::Milliseconds(700));
  absl::StatusOr<int> old_master = group_->MasterIndex();
  ASSERT_TRUE(old_master.ok()) << old_master.status();
  const absl::Time fault_at = absl::Now();
  if (GetParam().fault == Fault::kKillMaster) {
    absl::StatusOr<int> killed = group_->KillMaster();
    ASSERT_TRUE(killed.ok()) << killed.status();
    EXPECT_EQ(*killed, *old_master);
  } else {
    absl::Status failover =
        GetParam().fault == Fault::kSafeFailover ? group_->SafeFailover() : group_->Failover();
    ASSERT_TRUE(failover.ok()) << failover;
  }
  absl::StatusOr<int> new_master = group_->WaitForNewMaster(*old_master, absl::Seconds(30));
  ASSERT_TRUE(new_master.ok()) << new_master.status() << "\n" << group_->Logs();
  const absl::Time promoted = absl::Now();
  // The killed master comes back, as Kubernetes restarts its pod; the Sentinels make it a replica
  // of the new master. Until a replica acknowledges again, appends are refused (UNAVAILABLE):
  // the group has no copy of them but the master's.
  if (GetParam().fault == Fault::kKillMaster) {
    absl::Status restarted = group_->RestartNode(*old_master);
    ASSERT_TRUE(restarted.ok()) << restarted;
  }
  // Writes resume: every writer gets appends acknowledged by the new master.
  std::vector<size_t> at_promotion(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    absl::MutexLock lock(&mu);
    at_promotion[w] = acked[w].size();
  }
  const absl::Time resume_deadline = absl::Now() + absl::Seconds(90);
  absl::Time resumed_at = absl::InfiniteFuture();
  while (absl::Now() < resume_deadline) {
    absl::SleepFor(absl::Milliseconds(20));
    absl::MutexLock lock(&mu);
    int writing = 0;
    for (int w = 0; w < kWriters; ++w) writing += acked[w].size() > at_promotion[w] + 1;
    if (writing == kWriters) {
      resumed_at = absl::Now();
      break;
    }
  }
  absl::SleepFor(absl::Milliseconds(500));  // a while of writing to the new master
  stop = true;
  for (std::thread& t : writers) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(unexpected[w], "") << "writer " << w;
  ASSERT_NE(resumed_at, absl::InfiniteFuture())
      << "appends were not acknowledged again after the failover\n"
      << group_->Logs();
  std::printf(
      "fault -> new master named by the Sentinels: %s; fault -> every writer acknowledged "
      "again: %s\n",
      absl::FormatDuration(promoted - fault_at).c_str(),
      absl::FormatDuration(resumed_at - fault_at).c_str());
  int total = 0;
  for (int w = 0; w < kWriters; ++w) total += static_cast<int>(acked[w].size());
  std::printf("appends acknowledged: %d; UNAVAILABLE answers retried: %d/%d/%d/%d\n", total,
              unavailable[0], unavailable[1], unavailable[2], unavailable[3]);
  EXPECT_GE(observer_->switches.load(), 1) << "the store never moved to the new master";
  EXPECT_FALSE(observer_->failover.load());

  // Read back through the new master (a fresh store, so nothing is cached): each acknowledged
  // append is there, exactly once, at the version it was acknowledged with, and nothing else.
  std::unique_ptr<RedisGameStore> reader = OpenStore(0, nullptr);
  ASSERT_NE(reader, nullptr);
  int lost = 0;
  int extra = 0;
  for (int w = 0; w < kWriters; ++w) {
    const std::string game = absl::StrCat("failover-", w);
    absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = reader->ReadEvents(game, 1, kHead);
    ASSERT_TRUE(events.ok()) << events.status();
    std::map<std::string, int> seen;  // command id -> times in the log
    for (const arbiter::v1::GameEvent& e : *events) {
      arbiter::v1::Move move;
      ASSERT_TRUE(e.body().UnpackTo(&move));
      ++seen[move.uci()];
    }
    for (size_t i = 0; i < acked[w].size(); ++i) {
      const Acked& a = acked[w][i];
      EXPECT_EQ(a.version, static_cast<std::int64_t>(i + 1)) << game;
      const auto it = seen.find(absl::StrCat(a.command_id, "/1"));
      if (it == seen.end()) {
        ++lost;
        ADD_FAILURE() << game << ": acknowledged append " << a.command_id << " lost";
        continue;
      }
      EXPECT_EQ(it->second, 1) << game << ": " << a.command_id << " duplicated";
      absl::StatusOr<std::optional<AppendResult>> record =
          reader->LookupCommand(game, a.command_id);
      ASSERT_TRUE(record.ok()) << record.status();
      ASSERT_TRUE(record->has_value()) << a.command_id;
      EXPECT_EQ((*record)->version, a.version) << a.command_id;
    }
    // Nothing beyond what was acknowledged (every writer finished its command in flight).
    extra += static_cast<int>(events->size()) - static_cast<int>(acked[w].size());
    EXPECT_EQ(events->size(), acked[w].size()) << game;
  }
  std::printf("acknowledged appends lost: %d; unacknowledged in the log: %d\n", lost, extra);
  EXPECT_EQ(lost, 0);
}

// One replica: the promoted replica is the one that acknowledged, and once promoted it no longer
// acknowledges the old master, so even a plain SENTINEL FAILOVER loses nothing; writes resume
// when the old master is back as a replica (the Sentinels convert it after ~8 s). Two replicas
// (the Kubernetes layout): writes resume as soon as the new master is named (the other replica
// follows it); a planned switch pauses writes first (SafeFailover), as a plain SENTINEL FAILOVER
// then loses the writes the other replica acknowledged to the old master (README.md).
INSTANTIATE_TEST_SUITE_P(Faults, RedisFailoverTest,
                         ::testing::Values(Param{Fault::kKillMaster, 0, 1},
                                           Param{Fault::kSentinelFailover, 4, 1},
                                           Param{Fault::kKillMaster, 0, 2},
                                           Param{Fault::kKillMaster, 4, 2},
                                           Param{Fault::kSafeFailover, 4, 2}),
                         ParamName);

class RedisReplicaAckTest : public RedisFailoverTest {};

// The mechanism: with the replica frozen (SIGSTOP), the master still accepts the append, but no
// replica acknowledges it within replica_ack_timeout, so the store reports UNAVAILABLE, never
// success; a master lost now could lose that append, and the caller was not told it is done.
// The retry of the same command, once the replica is back, is acknowledged (REPLAY: it had
// landed on the master; the replica has it now).
TEST_P(RedisReplicaAckTest, AppendIsNotAcknowledgedUntilAReplicaHasIt) {
  ASSERT_TRUE(Append(Request("ack-game", 0, "create")).ok());
  ASSERT_TRUE(group_->node(1).Pause().ok());
  const AppendRequest move = Request("ack-game", 1, "move-1");
  absl::StatusOr<AppendResult> frozen = Append(move);
  EXPECT_THAT(frozen.status(), HasErrorCode(kErrStoreUnavailable));
  EXPECT_THAT(frozen.status().message(), HasSubstr("acknowledged by 0 of 1 replica"));
  EXPECT_GE(observer_->ack_failures.load(), 1);
  ASSERT_TRUE(group_->node(1).Resume().ok());
  absl::StatusOr<AppendResult> retried = absl::UnavailableError("not tried");
  for (int i = 0; i < 100 && !retried.ok(); ++i) {
    retried = Append(move);
    if (!retried.ok()) absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_TRUE(retried->replayed);
  EXPECT_EQ(retried->version, 2);
  // The replica has it: the append's record (version 2, one event) under its command id.
  absl::StatusOr<std::string> on_replica =
      group_->node(1).Command({"XRANGE", store_->Key("log", "ack-game"), "2-1", "2-1"});
  ASSERT_TRUE(on_replica.ok()) << on_replica.status();
  EXPECT_THAT(*on_replica, HasSubstr("2-1"));
  EXPECT_THAT(*on_replica, HasSubstr("move-1"));
}

INSTANTIATE_TEST_SUITE_P(Modes, RedisReplicaAckTest,
                         ::testing::Values(Param{Fault::kKillMaster, 0, 1},
                                           Param{Fault::kKillMaster, 4, 1}),
                         ParamName);

// Sentinels with a password (the deployment's requirepass): the store sends it (the URL's
// sentinel_password_file); without it every Sentinel refuses, and the store says so.
TEST(RedisSentinelAuthTest, TheStoreAuthenticatesToTheSentinels) {
  absl::StatusOr<std::unique_ptr<RedisSentinelGroup>> group = RedisSentinelGroup::Start(
      {.acl_password = "store-password", .sentinel_password = "sentinel-password"});
  ASSERT_TRUE(group.ok()) << group.status();
  RedisGameStoreOptions options;
  options.connection = (*group)->ConnectionOptions();
  options.connection.min_replica_acks = 1;
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<AppendResult> created = (*store)->Append(Request("sentinel-auth", 0, "create"));
  EXPECT_TRUE(created.ok()) << created.status();

  options.connection.sentinel_password = "";
  absl::StatusOr<std::unique_ptr<RedisGameStore>> refused = RedisGameStore::Create(options);
  ASSERT_TRUE(refused.ok()) << refused.status();
  absl::StatusOr<std::int64_t> now = (*refused)->NowMs();
  EXPECT_THAT(now.status(), HasErrorCode(kErrStoreUnavailable));
  EXPECT_THAT(now.status().message(), HasSubstr("NOAUTH"));
}

}  // namespace
}  // namespace store
