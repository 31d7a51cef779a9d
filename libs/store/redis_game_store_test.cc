// The contract suite (testing/game_store_contract.cc) on the Redis store, against a real
// redis-server that this test starts on a free loopback port with the shipped redis.conf (AOF on,
// appendfsync as deployed) and stops at the end. Redis-only behaviour is in redis_failure_test.cc.
#include "libs/store/redis_game_store.h"

#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/testing/game_store_contract.h"
#include "libs/store/testing/redis_fixture.h"
#include "libs/store/testing/redis_server.h"

namespace store {
namespace {

using testing::GameStoreContractTest;
using testing::RedisEnvironment;
using testing::RedisServer;
using testing::RedisServerOptions;
using testing::Request;
using testing::StoreFactory;

// One server for the whole binary, and one with authentication as deployed (the store's ACL user,
// the default user off); every test gets its server empty (FLUSHALL, sent as the harness's admin).
[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new RedisEnvironment(
        {RedisServerOptions{}, RedisServerOptions{.acl_password = "contract-suite-password"}}));

std::unique_ptr<GameStore> MakeStore(RedisGameStoreOptions options, bool acl = false) {
  RedisServer* server = RedisEnvironment::server(acl ? 1 : 0);
  if (server == nullptr) return nullptr;
  absl::StatusOr<std::string> flushed = server->Command({"FLUSHALL"});
  EXPECT_TRUE(flushed.ok()) << flushed.status();
  options.connection.port = server->port();
  if (acl) {
    options.connection.user = server->store_user().user;
    options.connection.password = server->store_user().password;
  }
  options.connection.connect_timeout = absl::Seconds(1);
  options.connection.command_timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

// A contract run on a store made with these options (its port and credentials set by MakeStore).
StoreFactory Setup(std::string name, RedisGameStoreOptions options, bool acl = false) {
  return {std::move(name), [options, acl] { return MakeStore(options, acl); }};
}

std::vector<StoreFactory> Setups() {
  // Other options: a key prefix, two shards, a pool smaller than the number of racing threads
  // (they queue for connections).
  RedisGameStoreOptions small_pool;
  small_pool.key_prefix = "t:";
  small_pool.num_deadline_shards = 2;
  small_pool.connection.pool_size = 3;
  // Pipelined: concurrent commands share batches on few connections (the racing-writer cases run
  // through it with several batches in flight).
  RedisGameStoreOptions pipelined;
  pipelined.connection.pool_size = 4;
  pipelined.connection.pipeline_lanes = 2;
  pipelined.connection.max_batch = 8;
  // Through the store's ACL user (libs/store/redis-users.acl), as deployed: every command and
  // script of the store is allowed to it; pipelined, so batches run on authenticated
  // connections.
  RedisGameStoreOptions acl;
  acl.connection.pool_size = 4;
  acl.connection.pipeline_lanes = 2;
  return {Setup("Redis", {}), Setup("RedisSmallPool", small_pool),
          Setup("RedisPipelined", pipelined), Setup("RedisAcl", acl, /*acl=*/true)};
}

INSTANTIATE_TEST_SUITE_P(Redis, GameStoreContractTest, ::testing::ValuesIn(Setups()),
                         testing::StoreFactoryName);

// After an archive the game's keys are gone, its deadline entry too (the shard's index keys with
// it, being empty), and only the tombstone key is left, under the game's hash tag.
TEST(RedisArchiveTest, OnlyTheTombstoneKeyRemains) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  auto* redis = static_cast<RedisGameStore*>(store.get());
  ASSERT_TRUE(store->Append(Request("g1", 0, "c1", 3, DeadlineUpdate::Set(5000))).ok());
  ASSERT_TRUE(store->Append(Request("g1", 3, "c2", 1)).ok());
  absl::StatusOr<std::string> keys = RedisEnvironment::server()->Command({"KEYS", "*"});
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ(std::set<std::string>(absl::StrSplit(*keys, '\n')).size(), 5u) << *keys;
  absl::StatusOr<ArchiveResult> archived = store->Archive({"g1", 4, "done"});
  ASSERT_TRUE(archived.ok()) << archived.status();
  keys = RedisEnvironment::server()->Command({"KEYS", "*"});
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ(*keys, redis->Key("archived", "g1"));
  EXPECT_EQ(*RedisEnvironment::server()->Command({"TYPE", redis->Key("archived", "g1")}), "hash");
}

// A game written by the arbiter_v1 functions has no tip (no field `t`): it appends on the
// version alone, and matches only an empty expected tip, so a writer that expected one reloads,
// reads the empty tip and appends.
TEST(RedisTipTest, AGameWrittenBeforeTipsAppendsOnTheVersionAlone) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  auto* redis = static_cast<RedisGameStore*>(store.get());
  absl::StatusOr<AppendResult> created = store->Append(Request("g1", 0, "c1"));
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(RedisEnvironment::server()->Command({"HDEL", redis->Key("game", "g1"), "t"}).ok());
  absl::StatusOr<arbiter::v1::GameSnapshot> read = store->ReadSnapshot("g1");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->tip(), "");
  AppendRequest expecting = Request("g1", 1, "c2");
  expecting.expected_tip = created->tip;
  EXPECT_THAT(store->Append(expecting), base::HasErrorCode(kErrVersionConflict));
  expecting.expected_tip = read->tip();
  absl::StatusOr<AppendResult> appended = store->Append(expecting);
  ASSERT_TRUE(appended.ok()) << appended.status();
  EXPECT_EQ(appended->version, 2);
  read = store->ReadSnapshot("g1");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->tip(), appended->tip);
}

// The tip names what the append wrote, not only its command id: the same command decided again
// with another timestamp (a retry on a promoted replica that lacked the first) is another tip, and
// the same append is the same tip (a digest, not a counter).
TEST(RedisTipTest, TheTipIsADigestOfTheAppend) {
  std::unique_ptr<GameStore> store = MakeStore({});
  ASSERT_NE(store, nullptr);
  absl::StatusOr<AppendResult> a = store->Append(Request("a", 0, "c1"));
  absl::StatusOr<AppendResult> b = store->Append(Request("b", 0, "c1"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->tip, b->tip);
  EXPECT_EQ(a->tip.size(), 40u);  // SHA-1, hex
  AppendRequest at_one = Request("a", 1, "c2");
  at_one.events[0].set_recorded_at_ms(1000);
  AppendRequest at_two = Request("b", 1, "c2");
  at_two.events[0].set_recorded_at_ms(2000);
  a = store->Append(at_one);
  b = store->Append(at_two);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->tip, b->tip);
}

}  // namespace
}  // namespace store
