// The migration from arbiter_v2's layout on a real redis-server: a live game (its log, command
// records and flag deadline) and an archived one, written as arbiter_v2 wrote them under another
// key prefix, copied to the current store's keys, on the same Redis and into a Redis Cluster of
// three masters; the store reads them as they were and appends on; a second run writes nothing.
#include "libs/store/migrate.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/key_layout.h"
#include "libs/store/testing/redis_cluster.h"
#include "libs/store/testing/redis_fixture.h"
#include "libs/store/testing/redis_server.h"
#include "libs/store/testing/requests.h"

namespace store {
namespace {

using testing::RedisCluster;
using testing::RedisEnvironment;
using testing::RedisServer;
using testing::Request;

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new RedisEnvironment({testing::RedisServerOptions{}}));

// A key of game G as arbiter_v2 named it.
std::string Old(absl::string_view kind, absl::string_view game) {
  return absl::StrCat("old:{", DeadlineShard(game, kOldLayoutShards), "}:", kind, ":", game);
}
std::string OldShard(absl::string_view kind, absl::string_view game) {
  return absl::StrCat("old:{", DeadlineShard(game, kOldLayoutShards), "}:", kind);
}

// arbiter_v2's writes, through `admin`: game g1 with two events under command c1 (fingerprint
// fp1), version and tip in the game's hash, a deadline entry; and g2, archived. Returns g1's first
// command as a retry would send it.
AppendRequest WriteOldGames(RedisServer& admin) {
  AppendRequest old = Request("g1", 0, "c1", 2);
  for (int i = 0; i < 2; ++i) {
    arbiter::v1::GameEvent e = old.events[i];
    e.set_version(i + 1);
    e.set_command_id("c1");
    EXPECT_OK(admin
                  .Command({"XADD", Old("log", "g1"), absl::StrCat(i + 1, "-0"), "e",
                            e.SerializeAsString()})
                  .status());
  }
  arbiter::v1::GameSnapshot snapshot = old.snapshot;
  snapshot.set_version(2);
  EXPECT_OK(admin
                .Command({"HSET", Old("game", "g1"), "v", "2", "s", snapshot.SerializeAsString(),
                          "t", "old-tip"})
                .status());
  absl::StatusOr<std::string> identity =
      admin.Command({"EVAL", "return 'c:' .. redis.sha1hex(ARGV[1])", "0", "fp1"});
  EXPECT_OK(identity.status());
  EXPECT_OK(
      admin.Command({"HSET", Old("cmd", "g1"), "c1", absl::StrCat("1|2|", identity.value_or(""))})
          .status());
  EXPECT_OK(admin.Command({"ZADD", OldShard("deadlines", "g1"), "5000", "g1"}).status());
  EXPECT_OK(admin.Command({"HSET", OldShard("deadline-info", "g1"), "g1", "5000|2|0|0|"}).status());
  EXPECT_OK(admin.Command({"HSET", Old("archived", "g2"), "t", "g2's tombstone"}).status());
  old.fingerprint = "fp1";
  return old;
}

// What the store reads of the migrated games: g1's snapshot, events and deadline as written, the
// retry of its first command answered from the old command record, g2's tombstone; and an append
// continues g1.
void ExpectMigrated(RedisGameStore& store, const AppendRequest& retry_of_first) {
  absl::StatusOr<arbiter::v1::GameSnapshot> read = store.ReadSnapshot("g1");
  ASSERT_OK(read.status());
  EXPECT_EQ(read->version(), 2);
  EXPECT_EQ(read->tip(), "old-tip");
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = store.ReadEvents("g1", 1, kHead);
  ASSERT_OK(events.status());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].command_id(), "c1");
  absl::StatusOr<AppendResult> retry = store.Append(retry_of_first);
  ASSERT_OK(retry.status());
  EXPECT_EQ(*retry, (AppendResult{1, 2, true}));
  absl::StatusOr<std::optional<Deadline>> deadline = store.GetDeadline("g1");
  ASSERT_OK(deadline.status());
  ASSERT_TRUE(deadline->has_value());
  EXPECT_EQ((*deadline)->deadline_ms, 5000);
  EXPECT_EQ(store.ReadTombstone("g2").value_or(""), "g2's tombstone");
  AppendRequest next = Request("g1", 2, "c2");
  next.expected_tip = "old-tip";
  absl::StatusOr<AppendResult> appended = store.Append(next);
  ASSERT_OK(appended.status());
  EXPECT_EQ(appended->version, 3);
}

TEST(MigrateFromV2, CopiesEveryGameToTheCurrentKeysOnce) {
  RedisServer& admin = *RedisEnvironment::server();
  ASSERT_OK(admin.Command({"FLUSHALL"}).status());
  const AppendRequest old = WriteOldGames(admin);
  ASSERT_FALSE(HasFailure());

  RedisConnectionOptions connection;
  connection.port = admin.port();
  RedisGameStoreOptions options;
  options.connection = connection;
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  ASSERT_OK(store.status());
  RedisClient client(connection);
  absl::StatusOr<MigrationReport> report = MigrateFromV2(client, "old:", client, **store);
  ASSERT_OK(report.status());
  EXPECT_EQ(report->games, 1);
  EXPECT_EQ(report->archived, 1);
  EXPECT_EQ(report->keys, 4);  // game, log, cmd, archived
  EXPECT_EQ(report->deadlines, 1);

  ExpectMigrated(**store, old);
  if (HasFatalFailure()) return;

  // Again: everything is there already; the game appended since is left as it is.
  report = MigrateFromV2(client, "old:", client, **store);
  ASSERT_OK(report.status());
  EXPECT_EQ(report->keys, 0);
  EXPECT_EQ(report->present, 4);
  EXPECT_EQ(report->deadlines, 0);
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = (*store)->ReadEvents("g1", 1, kHead);
  ASSERT_OK(events.status());
  EXPECT_EQ(events->size(), 3u);
}

// A deployment on one Redis (arbiter_v2 never ran on a cluster) moved into a Redis Cluster: each
// key goes, through the cluster client, to the master of its slot under the store's tags, and the
// store on the cluster reads the games as it reads them on one Redis.
TEST(MigrateFromV2, MovesOneRedisIntoACluster) {
  RedisServer& one = *RedisEnvironment::server();
  ASSERT_OK(one.Command({"FLUSHALL"}).status());
  const AppendRequest old = WriteOldGames(one);
  ASSERT_FALSE(HasFailure());
  absl::StatusOr<std::unique_ptr<RedisCluster>> cluster = RedisCluster::Start();
  ASSERT_OK(cluster.status());

  RedisGameStoreOptions options;
  options.connection = (*cluster)->ConnectionOptions();
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  ASSERT_OK(store.status());
  ASSERT_OK((*store)->CheckFunctions());  // on every master: the administrator's step before
  RedisConnectionOptions from;
  from.port = one.port();
  RedisClient source(from);
  RedisClient target((*cluster)->ConnectionOptions());
  absl::StatusOr<MigrationReport> report = MigrateFromV2(source, "old:", target, **store);
  ASSERT_OK(report.status());
  EXPECT_EQ(report->games, 1);
  EXPECT_EQ(report->archived, 1);
  EXPECT_EQ(report->keys, 4);
  EXPECT_EQ(report->deadlines, 1);

  const int shard = DeadlineShard("g1", kDefaultDeadlineShards);
  for (const std::string& key :
       {(*store)->Key("game", "g1"), (*store)->Key("log", "g1"), (*store)->Key("cmd", "g1"),
        (*store)->Key("archived", "g2"), (*store)->ShardKey("deadlines", shard),
        (*store)->ShardKey("deadline-info", shard)}) {
    absl::StatusOr<int> master = (*cluster)->MasterOf(KeySlot(key));
    ASSERT_OK(master.status());
    EXPECT_EQ((*cluster)->node(*master).Command({"EXISTS", key}).value_or(""), "1") << key;
  }
  ExpectMigrated(**store, old);
  if (HasFatalFailure()) return;

  report = MigrateFromV2(source, "old:", target, **store);
  ASSERT_OK(report.status());
  EXPECT_EQ(report->keys, 0);
  EXPECT_EQ(report->present, 4);
  EXPECT_EQ(report->deadlines, 0);
}

}  // namespace
}  // namespace store
