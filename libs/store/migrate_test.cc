// The migration from arbiter_v2's layout on a real redis-server: a live game (its log, command
// records and flag deadline) and an archived one, written as arbiter_v2 wrote them under another
// key prefix, copied to the current store's keys; the store reads them as they were and appends
// on; a second run writes nothing.
#include "libs/store/migrate.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/testing/redis_fixture.h"
#include "libs/store/testing/redis_server.h"
#include "libs/store/testing/requests.h"

namespace store {
namespace {

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

TEST(MigrateFromV2, CopiesEveryGameToTheCurrentKeysOnce) {
  RedisServer& admin = *RedisEnvironment::server();
  ASSERT_OK(admin.Command({"FLUSHALL"}).status());
  // arbiter_v2's writes of game g1: two events under command c1 (fingerprint fp1), version and
  // tip in the game's hash, a deadline entry; and g2, archived.
  AppendRequest old = Request("g1", 0, "c1", 2);
  for (int i = 0; i < 2; ++i) {
    arbiter::v1::GameEvent e = old.events[i];
    e.set_version(i + 1);
    e.set_command_id("c1");
    ASSERT_OK(admin
                  .Command({"XADD", Old("log", "g1"), absl::StrCat(i + 1, "-0"), "e",
                            e.SerializeAsString()})
                  .status());
  }
  arbiter::v1::GameSnapshot snapshot = old.snapshot;
  snapshot.set_version(2);
  ASSERT_OK(admin
                .Command({"HSET", Old("game", "g1"), "v", "2", "s", snapshot.SerializeAsString(),
                          "t", "old-tip"})
                .status());
  absl::StatusOr<std::string> identity =
      admin.Command({"EVAL", "return 'c:' .. redis.sha1hex(ARGV[1])", "0", "fp1"});
  ASSERT_OK(identity.status());
  ASSERT_OK(
      admin.Command({"HSET", Old("cmd", "g1"), "c1", absl::StrCat("1|2|", *identity)}).status());
  ASSERT_OK(admin.Command({"ZADD", OldShard("deadlines", "g1"), "5000", "g1"}).status());
  ASSERT_OK(admin.Command({"HSET", OldShard("deadline-info", "g1"), "g1", "5000|2|0|0|"}).status());
  ASSERT_OK(admin.Command({"HSET", Old("archived", "g2"), "t", "g2's tombstone"}).status());

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

  absl::StatusOr<arbiter::v1::GameSnapshot> read = (*store)->ReadSnapshot("g1");
  ASSERT_OK(read.status());
  EXPECT_EQ(read->version(), 2);
  EXPECT_EQ(read->tip(), "old-tip");
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events = (*store)->ReadEvents("g1", 1, kHead);
  ASSERT_OK(events.status());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].command_id(), "c1");
  old.fingerprint = "fp1";
  absl::StatusOr<AppendResult> retry = (*store)->Append(old);
  ASSERT_OK(retry.status());
  EXPECT_EQ(*retry, (AppendResult{1, 2, true}));
  absl::StatusOr<std::optional<Deadline>> deadline = (*store)->GetDeadline("g1");
  ASSERT_OK(deadline.status());
  ASSERT_TRUE(deadline->has_value());
  EXPECT_EQ((*deadline)->deadline_ms, 5000);
  EXPECT_EQ((*store)->ReadTombstone("g2").value_or(""), "g2's tombstone");
  AppendRequest next = Request("g1", 2, "c2");
  next.expected_tip = "old-tip";
  absl::StatusOr<AppendResult> appended = (*store)->Append(next);
  ASSERT_OK(appended.status());
  EXPECT_EQ(appended->version, 3);

  // Again: everything is there already; the game appended since is left as it is.
  report = MigrateFromV2(client, "old:", client, **store);
  ASSERT_OK(report.status());
  EXPECT_EQ(report->keys, 0);
  EXPECT_EQ(report->present, 4);
  EXPECT_EQ(report->deadlines, 0);
  events = (*store)->ReadEvents("g1", 1, kHead);
  ASSERT_OK(events.status());
  EXPECT_EQ(events->size(), 3u);
}

}  // namespace
}  // namespace store
