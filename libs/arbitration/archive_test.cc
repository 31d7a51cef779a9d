// Archiving a game that is over (archive.h): only once it is over, its tombstone (result, digest
// of the record), a repeat answers the first tombstone, and a replica whose cached state is stale
// (another replica recorded a confirmation, 8.7) archives the store's latest version.
#include "libs/arbitration/archive.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/base/status_matchers.h"
#include "libs/store/errors.h"
#include "libs/store/memory_game_store.h"

namespace arbitration {
namespace {

using ::base::HasErrorCode;

constexpr std::int64_t kT0 = 1'700'000'000'000;

v1::Actor Who(const std::string& subject, const std::string& role) {
  v1::Actor a;
  a.set_subject(subject);
  a.set_role(role);
  return a;
}

Command Of(CommandKind kind, chess::Color side) {
  Command c;
  c.kind = kind;
  c.actor = Who(side == chess::Color::kWhite ? "w" : "b", "player");
  c.side = side;
  return c;
}

class ArchiveTest : public ::testing::Test {
 protected:
  ArchiveTest()
      : store_({.num_deadline_shards = 4, .now_ms = [this] { return now_.load(); }}),
        a_(&store_, [this] { return now_.load(); }, analyst_, {.owner = "a"}),
        b_(&store_, [this] { return now_.load(); }, analyst_, {.owner = "b"}) {}

  void CreateAndStart(const std::string& game) {
    v1::CreateGameRequest req;
    req.set_game_id(game);
    req.set_white_id("w");
    req.set_black_id("b");
    req.set_event("open-2026");
    req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
    req.set_time_control("5400");
    ASSERT_OK(a_.Create(game, req, Who("platform", "platform"), {}).status());
    Command start;
    start.kind = CommandKind::kStart;
    start.actor = Who("platform", "platform");
    ASSERT_OK(a_.Execute(game, start, {}).status());
  }

  static absl::Status AnyEvent(absl::string_view) { return absl::OkStatus(); }

  std::atomic<std::int64_t> now_{kT0};
  store::MemoryGameStore store_;
  LocalAnalyst analyst_;
  GameAuthority a_;  // two replicas on one store
  GameAuthority b_;
};

TEST_F(ArchiveTest, OnlyAGameThatIsOver) {
  CreateAndStart("g");
  EXPECT_THAT(Archive(a_, "g", Who("platform", "platform"), AnyEvent),
              HasErrorCode(kErrGameNotOver));
  ASSERT_OK(a_.GetCached("g").status());  // still there
  EXPECT_THAT(Archive(a_, "nope", Who("platform", "platform"), AnyEvent),
              HasErrorCode(store::kErrGameNotFound));
}

TEST_F(ArchiveTest, LeavesTheTombstoneOfTheResult) {
  CreateAndStart("g");
  ASSERT_OK(a_.Execute("g", Of(CommandKind::kResign, chess::Color::kWhite), {}).status());  // 5.1b
  absl::StatusOr<CommandResult> over_or = a_.Get("g");
  ASSERT_OK(over_or.status());
  CommandResult over = *std::move(over_or);
  PgnExportOptions record;
  record.include_advice = true;
  const std::string pgn = ExportPgn(*over.game, record);

  now_ += 1000;
  absl::StatusOr<ArchiveOutcome> out_or = Archive(a_, "g", Who("platform", "platform"), AnyEvent);
  ASSERT_OK(out_or.status());
  ArchiveOutcome out = *std::move(out_or);
  EXPECT_FALSE(out.replayed);
  EXPECT_EQ(out.archived.game_id(), "g");
  EXPECT_EQ(out.archived.version(), over.version);
  EXPECT_EQ(out.archived.result(), "0-1");
  EXPECT_EQ(out.archived.termination(), v1::TERMINATION_RESIGNATION);
  EXPECT_EQ(out.archived.article(), "5.1b");
  EXPECT_EQ(out.archived.event(), "open-2026");
  EXPECT_EQ(out.archived.record_sha256().size(), 64u);
  EXPECT_EQ(out.archived.archived_at_ms(), kT0 + 1000);
  EXPECT_EQ(out.archived.archived_by().role(), "platform");
  absl::StatusOr<v1::ArchivedGame> again_or =
      TombstoneOf("g", *over.game, kT0 + 1000, Who("platform", "platform"));
  ASSERT_OK(again_or.status());
  v1::ArchivedGame again = *std::move(again_or);
  EXPECT_EQ(again.record_sha256(), out.archived.record_sha256()) << "a digest of the record";
  EXPECT_FALSE(pgn.empty());

  // Gone from the live store, and from the cache.
  EXPECT_THAT(a_.GetCached("g"), HasErrorCode(store::kErrGameArchived));
  EXPECT_THAT(a_.Execute("g", Of(CommandKind::kConfirm, chess::Color::kWhite), {}),
              HasErrorCode(store::kErrGameArchived));
  // A repeat (another replica's too) answers the first tombstone; an event-bound caller of
  // another event is refused on it.
  absl::StatusOr<ArchiveOutcome> repeat_or =
      Archive(b_, "g", Who("platform2", "platform"), AnyEvent);
  ASSERT_OK(repeat_or.status());
  ArchiveOutcome repeat = *std::move(repeat_or);
  EXPECT_TRUE(repeat.replayed);
  EXPECT_EQ(repeat.archived.SerializeAsString(), out.archived.SerializeAsString());
  EXPECT_THAT(Archive(b_, "g", Who("platform2", "platform"),
                      [](absl::string_view event) -> absl::Status {
                        if (event == "open-2026") return absl::PermissionDeniedError("other");
                        return absl::OkStatus();
                      }),
              ::testing::Not(::base::IsOk()));
}

TEST_F(ArchiveTest, AStaleCachedStateLosesTheRaceAndTheLatestIsArchived) {
  CreateAndStart("g");
  ASSERT_OK(a_.Execute("g", Of(CommandKind::kResign, chess::Color::kWhite), {}).status());
  absl::StatusOr<CommandResult> cached_or = a_.GetCached("g");
  ASSERT_OK(cached_or.status());
  CommandResult cached = *std::move(cached_or);  // replica a caches the end
  // Replica b records White's confirmation of the result (8.7) after it.
  absl::StatusOr<CommandResult> confirmed_or =
      b_.Execute("g", Of(CommandKind::kConfirm, chess::Color::kWhite), {});
  ASSERT_OK(confirmed_or.status());
  CommandResult confirmed = *std::move(confirmed_or);
  ASSERT_GT(confirmed.version, cached.version);
  absl::StatusOr<ArchiveOutcome> out_or = Archive(a_, "g", Who("platform", "platform"), AnyEvent);
  ASSERT_OK(out_or.status());
  ArchiveOutcome out = *std::move(out_or);
  EXPECT_EQ(out.archived.version(), confirmed.version) << "the store's latest, not the cache's";
}

}  // namespace
}  // namespace arbitration
