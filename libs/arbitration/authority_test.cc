#include "libs/arbitration/authority.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/rulings.h"
#include "libs/base/status_matchers.h"
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

// 90 minutes sudden death: standard play under every edition, so a flag ends the game when it
// falls (6.9), without anyone's claim.
v1::CreateGameRequest Standard(const std::string& game_id) {
  v1::CreateGameRequest req;
  req.set_game_id(game_id);
  req.set_white_id("w");
  req.set_black_id("b");
  req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
  req.set_time_control("5400");
  return req;
}

Command Move(chess::Color side, const std::string& move) {
  Command c;
  c.kind = CommandKind::kMove;
  c.actor = Who(side == chess::Color::kWhite ? "w" : "b", "player");
  c.side = side;
  c.move = move;
  return c;
}

Command Start() {
  Command c;
  c.kind = CommandKind::kStart;
  c.actor = Who("platform", "platform");
  return c;
}

class AuthorityTest : public ::testing::Test {
 protected:
  AuthorityTest()
      : store_({.num_deadline_shards = 4, .now_ms = [this] { return now_.load(); }}),
        authority_(&store_, [this] { return now_.load(); }, analyst_, {.owner = "a"}) {}

  void CreateAndStart(const std::string& game) {
    ASSERT_OK(authority_.Create(game, Standard(game), Who("platform", "platform"), {}).status());
    ASSERT_OK(authority_.Execute(game, Start(), {}).status());
  }

  std::atomic<std::int64_t> now_{kT0};
  store::MemoryGameStore store_;
  LocalAnalyst analyst_;
  GameAuthority authority_;
};

TEST_F(AuthorityTest, CreateWritesTheCreationAtVersionOne) {
  absl::StatusOr<CommandResult> r =
      authority_.Create("g1", Standard("g1"), Who("platform", "platform"), {.command_id = "c1"});
  ASSERT_OK(r.status());
  EXPECT_EQ(r->version, 1);
  EXPECT_FALSE(r->replayed);
  EXPECT_EQ(r->game->status(), GameStatus::kCreated);
  EXPECT_EQ(r->game->events()[0].actor().subject(), "platform");

  // The store holds the event and the snapshot in their schemas.
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_.ReadEvents("g1", 1, 1);
  ASSERT_OK(log.status());
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].schema_version(), kEventSchemaVersion);
  EXPECT_EQ((*log)[0].command_id(), "c1");
  absl::StatusOr<v1::ArbitrationEvent> created = FromStoreEvent((*log)[0]);
  ASSERT_OK(created.status());
  EXPECT_TRUE(created->has_created());
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store_.ReadSnapshot("g1");
  ASSERT_OK(snapshot.status());
  EXPECT_EQ(snapshot->schema_version(), kSnapshotSchemaVersion);
  ASSERT_OK(FromStoreSnapshot(*snapshot).status());

  // A retry of the creation is answered from the record; another creation is refused.
  r = authority_.Create("g1", Standard("g1"), Who("platform", "platform"), {.command_id = "c1"});
  ASSERT_OK(r.status());
  EXPECT_TRUE(r->replayed);
  EXPECT_EQ(r->version, 1);
  EXPECT_THAT(
      authority_.Create("g1", Standard("g1"), Who("platform", "platform"), {.command_id = "c2"}),
      HasErrorCode(store::kErrGameExists));
}

TEST_F(AuthorityTest, MalformedCreationWritesNothing) {
  v1::CreateGameRequest bad = Standard("g1");
  bad.set_time_control("not a time control");
  EXPECT_FALSE(authority_.Create("g1", bad, Who("platform", "platform"), {}).ok());
  EXPECT_THAT(authority_.Get("g1"), HasErrorCode(store::kErrGameNotFound));
  EXPECT_THAT(authority_.Create("bad{id}", Standard("x"), Who("platform", "platform"), {}),
              HasErrorCode(store::kErrBadArgument));
}

TEST_F(AuthorityTest, UnknownGameIsNotFound) {
  EXPECT_THAT(authority_.Get("nope"), HasErrorCode(store::kErrGameNotFound));
  EXPECT_THAT(authority_.Execute("nope", Start(), {}), HasErrorCode(store::kErrGameNotFound));
  EXPECT_THAT(authority_.CheckDeadline("nope"), HasErrorCode(store::kErrGameNotFound));
}

TEST_F(AuthorityTest, FoolsMateEndsTheGameAndClearsTheDeadline) {
  CreateAndStart("g1");
  absl::StatusOr<std::optional<store::Deadline>> deadline = store_.GetDeadline("g1");
  ASSERT_OK(deadline.status());
  ASSERT_TRUE(deadline->has_value());
  EXPECT_EQ((*deadline)->deadline_ms, kT0 + 5'400'000);  // White's flag, if nothing happens

  const std::vector<std::pair<chess::Color, std::string>> moves = {{chess::Color::kWhite, "f3"},
                                                                   {chess::Color::kBlack, "e5"},
                                                                   {chess::Color::kWhite, "g4"},
                                                                   {chess::Color::kBlack, "Qh4#"}};
  absl::StatusOr<CommandResult> r;
  for (const auto& [side, move] : moves) {
    now_ += 1000;
    r = authority_.Execute("g1", Move(side, move), {});
    ASSERT_OK(r.status()) << move;
  }
  EXPECT_EQ(r->game->status(), GameStatus::kEnded);
  EXPECT_EQ(r->game->outcome().result, laws::Result::kBlackWins);
  EXPECT_EQ(r->game->outcome().termination, laws::Termination::kCheckmate);
  deadline = store_.GetDeadline("g1");
  ASSERT_OK(deadline.status());
  EXPECT_FALSE(deadline->has_value());

  // Moves after the end are refused, and change nothing.
  const std::int64_t version = r->version;
  EXPECT_FALSE(authority_.Execute("g1", Move(chess::Color::kWhite, "a3"), {}).ok());
  absl::StatusOr<CommandResult> got = authority_.Get("g1");
  ASSERT_OK(got.status());
  EXPECT_EQ(got->version, version);
}

TEST_F(AuthorityTest, RetriedCommandAppliesOnce) {
  CreateAndStart("g1");
  CommandOptions once{.command_id = "m1", .fingerprint = "move e4"};
  absl::StatusOr<CommandResult> first =
      authority_.Execute("g1", Move(chess::Color::kWhite, "e4"), once);
  ASSERT_OK(first.status());
  EXPECT_FALSE(first->replayed);
  now_ += 500;
  absl::StatusOr<CommandResult> again =
      authority_.Execute("g1", Move(chess::Color::kWhite, "e4"), once);
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->version, first->version);
  EXPECT_EQ(again->game->game().moves().size(), 1u);
  // After the game moved on, the retry is still answered from the record.
  ASSERT_OK(authority_.Execute("g1", Move(chess::Color::kBlack, "e5"), {}).status());
  again = authority_.Execute("g1", Move(chess::Color::kWhite, "e4"), once);
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->version, first->version);
  // The same id for another request is refused, also when the request would be refused anyway.
  EXPECT_THAT(authority_.Execute("g1", Move(chess::Color::kWhite, "d4"),
                                 {.command_id = "m1", .fingerprint = "move d4"}),
              HasErrorCode(store::kErrCommandIdReused));
  ASSERT_OK(authority_.Execute("g1", Move(chess::Color::kWhite, "Nf3"), {}).status());
  EXPECT_THAT(authority_.Execute("g1", Move(chess::Color::kWhite, "d4"),
                                 {.command_id = "m1", .fingerprint = "move d4"}),
              HasErrorCode(store::kErrCommandIdReused));
}

TEST_F(AuthorityTest, ExpectedVersionIsCompareAndSet) {
  CreateAndStart("g1");
  EXPECT_THAT(authority_.Execute("g1", Move(chess::Color::kWhite, "e4"), {.expected_version = 1}),
              HasErrorCode(store::kErrVersionConflict));
  absl::StatusOr<CommandResult> r =
      authority_.Execute("g1", Move(chess::Color::kWhite, "e4"), {.expected_version = 2});
  ASSERT_OK(r.status());
  EXPECT_GT(r->version, 2);
}

TEST_F(AuthorityTest, StaleCacheDecidesAgainOnTheStoresState) {
  LocalAnalyst other_analyst;
  GameAuthority other(&store_, [this] { return now_.load(); }, other_analyst, {.owner = "b"});
  CreateAndStart("g1");
  ASSERT_OK(other.Get("g1").status());  // caches version 2
  ASSERT_OK(authority_.Execute("g1", Move(chess::Color::kWhite, "e4"), {}).status());
  // `other` decides on its stale state, loses the compare-and-set, reloads, and decides again.
  absl::StatusOr<CommandResult> r = other.Execute("g1", Move(chess::Color::kBlack, "e5"), {});
  ASSERT_OK(r.status());
  EXPECT_EQ(r->game->game().moves().size(), 2u);
  // A refusal on a stale state is confirmed on the store's state first: White has moved already.
  EXPECT_FALSE(authority_.Execute("g1", Move(chess::Color::kBlack, "d5"), {}).ok());
}

TEST_F(AuthorityTest, IllegalMoveIsRefusedAndWritesNothing) {
  CreateAndStart("g1");
  absl::StatusOr<CommandResult> before = authority_.Get("g1");
  ASSERT_OK(before.status());
  EXPECT_FALSE(authority_.Execute("g1", Move(chess::Color::kWhite, "e5"), {}).ok());
  EXPECT_FALSE(authority_.Execute("g1", Move(chess::Color::kBlack, "e5"), {}).ok());
  absl::StatusOr<CommandResult> after = authority_.Get("g1");
  ASSERT_OK(after.status());
  EXPECT_EQ(after->version, before->version);
}

TEST_F(AuthorityTest, FlagIsRecordedOnceAtItsDeadline) {
  LocalAnalyst other_analyst;
  GameAuthority other(&store_, [this] { return now_.load(); }, other_analyst, {.owner = "b"});
  CreateAndStart("g1");
  absl::StatusOr<SettleResult> early = authority_.CheckDeadline("g1");
  ASSERT_OK(early.status());
  EXPECT_EQ(early->recorded, 0);
  ASSERT_TRUE(early->next_deadline.has_value());
  EXPECT_EQ(*early->next_deadline, kT0 + 5'400'000);

  now_ = kT0 + 5'400'001;
  ASSERT_OK(other.Get("g1").status());  // both replicas see the state at version 2
  absl::StatusOr<SettleResult> first = authority_.CheckDeadline("g1", 2);
  ASSERT_OK(first.status());
  EXPECT_GT(first->recorded, 0);
  EXPECT_FALSE(first->next_deadline.has_value());
  absl::StatusOr<SettleResult> second = other.CheckDeadline("g1", 2);
  ASSERT_OK(second.status());
  EXPECT_EQ(second->recorded, 0);

  absl::StatusOr<CommandResult> r = authority_.Get("g1");
  ASSERT_OK(r.status());
  EXPECT_EQ(r->game->status(), GameStatus::kEnded);
  EXPECT_EQ(r->game->outcome().result, laws::Result::kBlackWins);
  int flags = 0;
  for (const v1::ArbitrationEvent& e : r->game->events()) {
    if (e.has_flag()) {
      ++flags;
      EXPECT_EQ(e.actor().role(), ServerActor().role());
    }
  }
  EXPECT_EQ(flags, 1);
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_.ReadEvents("g1", 3, 3);
  ASSERT_OK(log.status());
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].command_id(), SettleCommandId("g1", 2));
  absl::StatusOr<std::optional<store::Deadline>> deadline = store_.GetDeadline("g1");
  ASSERT_OK(deadline.status());
  EXPECT_FALSE(deadline->has_value());
}

TEST_F(AuthorityTest, MoveAfterTheFlagRecordsTheFlagThenIsRefused) {
  CreateAndStart("g1");
  now_ = kT0 + 5'400'001;
  absl::Status refused = authority_.Execute("g1", Move(chess::Color::kWhite, "e4"), {}).status();
  EXPECT_FALSE(refused.ok());
  absl::StatusOr<CommandResult> r = authority_.Get("g1");
  ASSERT_OK(r.status());
  EXPECT_EQ(r->game->status(), GameStatus::kEnded);
  EXPECT_TRUE(r->game->game().moves().empty());
  // The scheduler's check on the old version finds it recorded under the same id.
  absl::StatusOr<SettleResult> check = authority_.CheckDeadline("g1");
  ASSERT_OK(check.status());
  EXPECT_EQ(check->recorded, 0);
}

TEST_F(AuthorityTest, ObserversSeeAppendsAndCommands) {
  struct Recorder : AuthorityObserver {
    void OnCommand(absl::string_view kind, const absl::Status& status) override {
      kinds.push_back(std::string(kind) + (status.ok() ? ":ok" : ":refused"));
    }
    void OnAppended(absl::string_view, const GameState& after,
                    const std::vector<v1::ArbitrationEvent>& events,
                    std::optional<std::int64_t> deadline) override {
      appended += static_cast<int>(events.size());
      last_deadline = deadline;
    }
    std::vector<std::string> kinds;
    int appended = 0;
    std::optional<std::int64_t> last_deadline;
  } recorder;
  authority_.AddObserver(&recorder);
  CreateAndStart("g1");
  EXPECT_EQ(recorder.kinds, (std::vector<std::string>{"create:ok", "start:ok"}));
  EXPECT_GE(recorder.appended, 2);
  EXPECT_EQ(recorder.last_deadline, std::optional<std::int64_t>(kT0 + 5'400'000));
}

}  // namespace
}  // namespace arbitration
