// The migration's index step on a real redis-server: games arbiter_v2 wrote (one in play, one
// over, one archived), copied by MigrateFromV2, are then listed by the games index with the status
// their logs (or tombstone) give, as ListGames lists them; a second run lists nothing twice. And a
// game the store wrote before it kept an index, found by ScanStoredGames, is listed the same way.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/index_backfill.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/status_matchers.h"
#include "libs/store/key_layout.h"
#include "libs/store/migrate.h"
#include "libs/store/testing/redis_fixture.h"
#include "libs/store/testing/redis_server.h"

namespace {

using arbitration::testing::GameRequest;
using arbitration::testing::StartedTable;
using store::testing::RedisEnvironment;
using store::testing::RedisServer;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

[[maybe_unused]] ::testing::Environment* const kEnvironment = ::testing::AddGlobalTestEnvironment(
    new RedisEnvironment({store::testing::RedisServerOptions{}}));

constexpr char kEvent[] = "Old Open";

std::string Old(absl::string_view kind, absl::string_view game) {
  return absl::StrCat("old:{", store::DeadlineShard(game, store::kOldLayoutShards), "}:", kind, ":",
                      game);
}

// A game of the event in round 3 between w and b, started and played through Decide.
std::unique_ptr<StartedTable> Played(const std::vector<std::string>& moves) {
  arbitration::v1::CreateGameRequest request =
      GameRequest({.edition = arbitration::v1::EDITION_FIDE_2023});
  request.set_event(kEvent);
  request.set_round("3");
  auto table = std::make_unique<StartedTable>(request);
  table->Play(moves, 1000);
  return table;
}

// The game's log as arbiter_v2 wrote it: one stream entry per event ("<version>-0", field e), the
// version, tip and snapshot in the game's hash.
void WriteOldGame(RedisServer& admin, const std::string& game_id,
                  const arbitration::GameState& game) {
  const std::vector<arbitration::v1::ArbitrationEvent> events = game.events();
  for (size_t i = 0; i < events.size(); ++i) {
    arbiter::v1::GameEvent e = arbitration::ToStoreEvent(events[i], events[i].at_ms());
    e.set_version(static_cast<std::int64_t>(i + 1));
    e.set_command_id(absl::StrCat("c", i + 1));
    ASSERT_OK(admin
                  .Command({"XADD", Old("log", game_id), absl::StrCat(i + 1, "-0"), "e",
                            e.SerializeAsString()})
                  .status());
  }
  arbiter::v1::GameSnapshot snapshot = arbitration::ToStoreSnapshot(game);
  snapshot.set_version(static_cast<std::int64_t>(events.size()));
  ASSERT_OK(admin
                .Command({"HSET", Old("game", game_id), "v", absl::StrCat(events.size()), "s",
                          snapshot.SerializeAsString(), "t", absl::StrCat(game_id, "-tip")})
                .status());
}

std::vector<std::string> Listed(store::GameStore& store, store::IndexQuery query) {
  std::vector<std::string> out;
  absl::StatusOr<store::IndexPage> page = store.ListIndex(query);
  EXPECT_OK(page.status());
  if (!page.ok()) return out;
  for (const store::IndexedGame& g : page->games) {
    out.push_back(absl::StrCat(g.game_id, " ", g.labels.status, " ", g.labels.round, " ",
                               g.labels.white_id, "-", g.labels.black_id, " ", g.labels.result));
  }
  return out;
}

std::unique_ptr<store::RedisGameStore> Store(RedisServer& admin) {
  store::RedisGameStoreOptions options;
  options.connection.port = admin.port();
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      store::RedisGameStore::Create(options);
  EXPECT_OK(store.status());
  return store.ok() ? std::move(*store) : nullptr;
}

TEST(StoreMigrate, MigratedGamesAreListedWithTheStatusOfTheirLogs) {
  RedisServer& admin = *RedisEnvironment::server();
  ASSERT_OK(admin.Command({"FLUSHALL"}).status());
  std::unique_ptr<StartedTable> ongoing = Played({"e4", "e5"});
  // 5.1a: checkmate, Black wins.
  std::unique_ptr<StartedTable> over = Played({"f3", "e5", "g4", "Qh4#"});
  ASSERT_EQ(over->result(), laws::Result::kBlackWins);
  WriteOldGame(admin, "m1", ongoing->game());
  WriteOldGame(admin, "m2", over->game());
  arbitration::v1::ArchivedGame tombstone;
  tombstone.set_game_id("m3");
  tombstone.set_event(kEvent);
  tombstone.set_result("1-0");
  ASSERT_OK(
      admin.Command({"HSET", Old("archived", "m3"), "t", tombstone.SerializeAsString()}).status());
  if (HasFatalFailure()) return;

  std::unique_ptr<store::RedisGameStore> target = Store(admin);
  ASSERT_NE(target, nullptr);
  store::RedisClient client(store::RedisConnectionOptions{.port = admin.port()});
  absl::StatusOr<store::MigrationReport> report =
      store::MigrateFromV2(client, "old:", client, *target);
  ASSERT_OK(report.status());
  EXPECT_THAT(report->game_ids, UnorderedElementsAre("m1", "m2", "m3"));
  // Copied, not yet listed: the copy knows no labels.
  EXPECT_THAT(Listed(*target, {.event = kEvent}), IsEmpty());

  absl::StatusOr<arbitration::BackfillCount> listed =
      arbitration::BackfillIndex(*target, report->game_ids);
  ASSERT_OK(listed.status());
  EXPECT_EQ(listed->listed, 3);
  EXPECT_THAT(Listed(*target, {.event = kEvent}),
              ElementsAre("m1 ongoing 3 w-b ", "m2 ended 3 w-b 0-1", "m3 archived  - 1-0"));
  EXPECT_THAT(Listed(*target, {.status = "ongoing", .player = "b"}),
              ElementsAre("m1 ongoing 3 w-b "));

  // Run again (a run stopped midway is run again): nothing changes.
  listed = arbitration::BackfillIndex(*target, report->game_ids);
  ASSERT_OK(listed.status());
  EXPECT_EQ(listed->listed, 0);
  EXPECT_EQ(listed->listed_before, 3);
  EXPECT_THAT(Listed(*target, {.status = "ended"}), ElementsAre("m2 ended 3 w-b 0-1"));
}

TEST(StoreMigrate, GamesTheStoreWroteBeforeItsIndexAreFoundAndListed) {
  RedisServer& admin = *RedisEnvironment::server();
  ASSERT_OK(admin.Command({"FLUSHALL"}).status());
  std::unique_ptr<store::RedisGameStore> target = Store(admin);
  ASSERT_NE(target, nullptr);
  // The store's own appends, without labels (as before the index).
  std::unique_ptr<StartedTable> ongoing = Played({"d4"});
  const std::vector<arbitration::v1::ArbitrationEvent> events = ongoing->game().events();
  store::AppendRequest append{.game_id = "s1", .command_id = "c1"};
  for (const arbitration::v1::ArbitrationEvent& e : events) {
    append.events.push_back(arbitration::ToStoreEvent(e, e.at_ms()));
  }
  append.snapshot = arbitration::ToStoreSnapshot(ongoing->game());
  ASSERT_OK(target->Append(append).status());

  store::RedisClient client(store::RedisConnectionOptions{.port = admin.port()});
  absl::StatusOr<std::vector<std::string>> games = store::ScanStoredGames(client, *target);
  ASSERT_OK(games.status());
  EXPECT_THAT(*games, ElementsAre("s1"));
  ASSERT_OK(arbitration::BackfillIndex(*target, *games).status());
  EXPECT_THAT(Listed(*target, {.event = kEvent}), ElementsAre("s1 ongoing 3 w-b "));
}

}  // namespace
