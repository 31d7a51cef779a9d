// The Redis store on Redis Cluster (three masters, three replicas, the store's ACL:
// testing/redis_cluster.h): the contract suite, the spread of games over the masters, and
// writers that keep appending while slots move between masters and while a master is killed and
// its replica promoted: nothing acknowledged is lost, nothing is applied twice.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/key_layout.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/testing/game_store_contract.h"
#include "libs/store/testing/redis_cluster.h"
#include "libs/store/testing/requests.h"

namespace store {
namespace {

using testing::GameStoreContractTest;
using testing::RedisCluster;
using testing::RedisClusterOptions;
using testing::Request;
using testing::StoreFactory;

constexpr char kPassword[] = "cluster-suite-password";

// One cluster for the contract suite; each test gets it empty (FLUSHALL on every master).
class ClusterEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisCluster>> c =
        RedisCluster::Start({.acl_password = kPassword});
    ASSERT_TRUE(c.ok()) << c.status();
    cluster() = std::move(*c);
  }
  void TearDown() override { cluster().reset(); }
  static std::unique_ptr<RedisCluster>& cluster() {
    static auto* c = new std::unique_ptr<RedisCluster>();
    return *c;
  }
};

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new ClusterEnvironment);

void FlushMasters(RedisCluster& cluster) {
  for (int i = 0; i < cluster.num_nodes(); ++i) {
    absl::StatusOr<std::string> role = cluster.node(i).Command({"ROLE"});
    if (role.ok() && absl::StartsWith(*role, "master")) {
      EXPECT_TRUE(cluster.node(i).Command({"FLUSHALL"}).ok());
    }
  }
}

std::unique_ptr<RedisGameStore> MakeStore(RedisCluster& cluster, RedisGameStoreOptions options) {
  RedisConnectionOptions c = cluster.ConnectionOptions();
  c.pool_size = options.connection.pool_size;
  c.pipeline_lanes = options.connection.pipeline_lanes;
  c.min_replica_acks = options.connection.min_replica_acks;
  c.connect_timeout = absl::Seconds(1);
  c.command_timeout = absl::Seconds(5);
  options.connection = c;
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

StoreFactory Setup(std::string name, RedisGameStoreOptions options) {
  return {std::move(name), [options]() -> std::unique_ptr<GameStore> {
            RedisCluster* cluster = ClusterEnvironment::cluster().get();
            if (cluster == nullptr) return nullptr;
            FlushMasters(*cluster);
            return MakeStore(*cluster, options);
          }};
}

std::vector<StoreFactory> Setups() {
  RedisGameStoreOptions plain;
  plain.connection.pool_size = 4;
  // Pipelined, with the flow: each master's client batches and writes asynchronously.
  RedisGameStoreOptions pipelined;
  pipelined.connection.pool_size = 4;
  pipelined.connection.pipeline_lanes = 2;
  // Appends acknowledged by each master's replica (WAIT per master).
  RedisGameStoreOptions replicated = pipelined;
  replicated.connection.min_replica_acks = 1;
  return {Setup("Cluster", plain), Setup("ClusterPipelined", pipelined),
          Setup("ClusterReplicated", replicated)};
}

INSTANTIATE_TEST_SUITE_P(RedisCluster, GameStoreContractTest, ::testing::ValuesIn(Setups()),
                         testing::StoreFactoryName);

TEST(RedisClusterLayoutTest, GamesSpreadOverEveryMasterAndTheFunctionsAreOnEach) {
  RedisCluster* cluster = ClusterEnvironment::cluster().get();
  ASSERT_NE(cluster, nullptr);
  FlushMasters(*cluster);
  std::unique_ptr<RedisGameStore> store = MakeStore(*cluster, {});
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->CheckFunctions());
  constexpr int kGames = 600;
  for (int g = 0; g < kGames; ++g) {
    ASSERT_OK(store->Append(Request(absl::StrCat("spread-", g), 0, "c1")));
  }
  absl::StatusOr<std::vector<long long>> keys = cluster->KeysPerNode();
  ASSERT_OK(keys);
  long long total = 0;
  int masters = 0;
  for (long long n : *keys) {
    if (n < 0) continue;
    ++masters;
    total += n;
  }
  ASSERT_EQ(masters, 3);
  // Two keys a game (its hash and its log; the command ids are in the log's records) and a feed
  // a shard, with its epoch (the shard's deadline-info, written by the first append of a shard
  // since the library was loaded: redis_functions.lua): a third of them on each master, give or
  // take the hash's spread of 600 games over 256 shards.
  constexpr int kKeysPerGame = 2;
  std::set<int> shards;
  for (int g = 0; g < kGames; ++g) {
    shards.insert(DeadlineShard(absl::StrCat("spread-", g), kDefaultDeadlineShards));
  }
  EXPECT_EQ(total, kKeysPerGame * kGames + 2 * static_cast<long long>(shards.size()));
  for (size_t i = 0; i < keys->size(); ++i) {
    const long long n = (*keys)[i];
    if (n < 0) continue;
    std::printf("master %zu: %lld keys (%lld games)\n", i, n, n / kKeysPerGame);
    EXPECT_NEAR(static_cast<double>(n), total / 3.0, total * 0.08) << n;
  }
}

// A sweep's read of many shards: a batch per master; a slot moved after the store learned the map
// answers MOVED, which is followed for the commands of that slot alone.
TEST(RedisClusterLayoutTest, APeekOfManyShardsFollowsASlotMovedUnderIt) {
  RedisCluster* cluster = ClusterEnvironment::cluster().get();
  ASSERT_NE(cluster, nullptr);
  FlushMasters(*cluster);
  std::unique_ptr<RedisGameStore> store = MakeStore(*cluster, {});
  ASSERT_NE(store, nullptr);
  const int n = store->NumDeadlineShards();
  std::vector<int> shards;
  for (int s = 0; s < n; s += 17) shards.push_back(s);  // over every master
  for (int s : shards) {
    ASSERT_OK(store->Append(
        Request(testing::GameIdInShard(s, n, 0), 0, "c", 1, DeadlineUpdate::Set(1000 + s))));
  }
  auto expect_each_shard_once = [&] {
    std::vector<absl::StatusOr<std::vector<DueEntry>>> got =
        store->PeekDeadlinesOfShards(shards, 1'000'000, 10);
    ASSERT_EQ(got.size(), shards.size());
    for (size_t i = 0; i < shards.size(); ++i) {
      ASSERT_OK(got[i]);
      EXPECT_EQ(
          *got[i],
          (std::vector<DueEntry>{{testing::GameIdInShard(shards[i], n, 0), 1000 + shards[i]}}))
          << shards[i];
    }
  };
  expect_each_shard_once();
  // The slot of one shard moves to another master; the store still has the old map.
  const int slot = KeySlot(store->ShardKey("deadlines", shards[1]));
  absl::StatusOr<int> from = cluster->MasterOf(slot);
  ASSERT_OK(from);
  int to = -1;
  for (int i = 0; i < cluster->num_nodes() && to < 0; ++i) {
    absl::StatusOr<std::string> role = cluster->node(i).Command({"ROLE"});
    if (i != *from && role.ok() && absl::StartsWith(*role, "master")) to = i;
  }
  ASSERT_GE(to, 0);
  ASSERT_OK(cluster->MoveSlots(slot, slot, to));
  expect_each_shard_once();
  ASSERT_OK(cluster->MoveSlots(slot, slot, *from));
  expect_each_shard_once();
}

// A writer appending to its own game, one command at a time, retrying a command that was not
// acknowledged (UNAVAILABLE) with the same id until it is; it records what was acknowledged and
// the longest time between two acknowledgements (the game's outage).
struct Writer {
  std::string game;
  std::vector<std::string> acknowledged;  // command ids, in order
  std::int64_t version = 0;
  int errors = 0;
  absl::Time last_error = absl::InfinitePast();
  absl::Duration worst_gap = absl::ZeroDuration();
  std::string failure;  // anything but UNAVAILABLE
};

// A writer still refused this long after its last acknowledgement, once told to stop, fails.
constexpr absl::Duration kGiveUp = absl::Seconds(20);

void Write(GameStore& store, Writer& w, std::atomic<bool>& stop, bool async) {
  absl::Time last_ok = absl::Now();
  for (int n = 0; !stop.load(); ++n) {
    const std::string command = absl::StrCat("c", n);
    AppendRequest request = Request(w.game, w.version, command);
    while (true) {
      absl::StatusOr<AppendResult> r;
      if (async) {
        absl::Notification done;
        store.AppendAsync(request, [&](absl::StatusOr<AppendResult> result) {
          r = std::move(result);
          done.Notify();
        });
        done.WaitForNotification();
      } else {
        r = store.Append(request);
      }
      if (r.ok()) {
        w.version = r->version;
        w.acknowledged.push_back(command);
        w.worst_gap = std::max(w.worst_gap, absl::Now() - last_ok);
        last_ok = absl::Now();
        break;
      }
      if (!absl::IsUnavailable(r.status()) || (stop.load() && absl::Now() - last_ok > kGiveUp)) {
        w.failure = std::string(r.status().message());
        return;
      }
      ++w.errors;
      w.last_error = absl::Now();
      absl::SleepFor(absl::Milliseconds(5));
    }
  }
}

// Every acknowledged command is in the game's log once, in order, and nothing else is.
void ExpectLogsHoldExactlyTheAcknowledged(GameStore& store, const std::vector<Writer>& writers) {
  for (const Writer& w : writers) {
    EXPECT_EQ(w.failure, "") << w.game;
    absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = store.ReadEvents(w.game, 1, kHead);
    ASSERT_OK(events);
    ASSERT_EQ(events->size(), w.acknowledged.size()) << w.game;
    absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store.ReadSnapshot(w.game);
    ASSERT_OK(snapshot);
    EXPECT_EQ(snapshot->version(), static_cast<std::int64_t>(w.acknowledged.size()));
    for (size_t i = 0; i < w.acknowledged.size(); ++i) {
      absl::StatusOr<std::optional<AppendResult>> found =
          store.LookupCommand(w.game, w.acknowledged[i]);
      ASSERT_OK(found);
      ASSERT_TRUE(found->has_value()) << w.game << " " << w.acknowledged[i];
      EXPECT_EQ((*found)->version, static_cast<std::int64_t>(i + 1));
    }
  }
}

class RedisClusterFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisCluster>> c =
        RedisCluster::Start({.acl_password = kPassword});
    ASSERT_TRUE(c.ok()) << c.status();
    cluster_ = std::move(*c);
    RedisGameStoreOptions options;
    options.connection.pool_size = 8;
    options.connection.pipeline_lanes = 2;
    options.connection.min_replica_acks = 1;
    store_ = MakeStore(*cluster_, options);
    ASSERT_NE(store_, nullptr);
    // Games on every master, two in the slots that move (those of the first shards).
    for (int i = 0; i < 8; ++i) {
      writers_.push_back({testing::GameIdInShard(i < 2 ? i : i * 31, kDefaultDeadlineShards, 0)});
    }
  }

  void StartWriters() {
    for (size_t i = 0; i < writers_.size(); ++i) {
      threads_.emplace_back(
          [this, i] { Write(*store_, writers_[i], stop_, /*async=*/i % 2 == 1); });
    }
  }

  void StopWriters() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

  std::string Report(absl::Time fault) const {
    std::string out;
    for (const Writer& w : writers_) {
      absl::StrAppend(&out, w.game, ": ", w.acknowledged.size(), " acknowledged, ", w.errors,
                      " errors, worst gap ", absl::FormatDuration(w.worst_gap),
                      w.errors > 0 ? absl::StrCat(", errors stopped ",
                                                  absl::FormatDuration(w.last_error - fault),
                                                  " after the fault")
                                   : "",
                      "\n");
    }
    return out;
  }

  std::unique_ptr<RedisCluster> cluster_;
  std::unique_ptr<RedisGameStore> store_;
  std::vector<Writer> writers_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

TEST_F(RedisClusterFaultTest, SlotsMovedUnderWritersLoseNothingAndApplyNothingTwice) {
  StartWriters();
  absl::SleepFor(absl::Milliseconds(300));
  const absl::Time fault = absl::Now();
  // The first shards' slots (0..127 hold shards 0 and 1) move from the first master to the
  // second while the writers append to games in them.
  ASSERT_OK(cluster_->MoveSlots(0, 127, 1));
  absl::SleepFor(absl::Milliseconds(300));
  StopWriters();
  std::cerr << Report(fault);
  absl::StatusOr<int> master_or = cluster_->MasterOf(0);
  ASSERT_OK(master_or);
  const int master = *master_or;
  EXPECT_EQ(master, 1);
  ExpectLogsHoldExactlyTheAcknowledged(*store_, writers_);
  for (const Writer& w : writers_) EXPECT_GT(w.acknowledged.size(), 5u) << w.game;
}

TEST_F(RedisClusterFaultTest, AMasterKilledIsReplacedAndNothingAcknowledgedIsLost) {
  StartWriters();
  absl::SleepFor(absl::Milliseconds(300));
  const absl::Time fault = absl::Now();
  absl::StatusOr<int> killed_or = cluster_->KillMasterOf(0);
  ASSERT_OK(killed_or);
  const int killed = *killed_or;
  ASSERT_OK(cluster_->WaitUntilHealthy(absl::Seconds(30)));
  // The promoted replica has no replica of its own, so no append is acknowledged (WAIT 1) until
  // the old master is back, as its replica.
  ASSERT_OK(cluster_->RestartNode(killed));
  ASSERT_OK(cluster_->WaitUntilHealthy(absl::Seconds(30)));
  absl::SleepFor(absl::Milliseconds(500));
  StopWriters();
  std::cerr << Report(fault);
  absl::StatusOr<int> master_or = cluster_->MasterOf(0);
  ASSERT_OK(master_or);
  const int master = *master_or;
  EXPECT_NE(master, killed);
  EXPECT_GE(store_->MasterEpoch(), 1u);  // the set of masters changed: caches are dropped
  ExpectLogsHoldExactlyTheAcknowledged(*store_, writers_);
  for (const Writer& w : writers_) EXPECT_GT(w.acknowledged.size(), 5u) << w.game;
}

}  // namespace
}  // namespace store
