#include "libs/arbitration/authority.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/archive.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/testing/game_table.h"
#include "libs/base/sha256.h"
#include "libs/base/status_matchers.h"
#include "libs/ledger/errors.h"
#include "libs/ledger/testing/send.h"
#include "libs/ledger/time_source.h"
#include "libs/store/command_ids.h"
#include "libs/store/errors.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/testing/deferred_store.h"

namespace arbitration::testing {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;

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

Command Start() {
  Command c;
  c.kind = CommandKind::kStart;
  c.actor = Who("platform", "platform");
  return c;
}

class AuthorityTest : public ::testing::Test {
 protected:
  AuthorityTest()
      : store_({.num_deadline_shards = 4, .now_ms = [this] { return time_.NowMs(); }}),
        authority_(&store_, &time_, analyst_, {.owner = "a"}) {}

  void CreateAndStart(const std::string& game) {
    ASSERT_OK(authority_.Create(game, Standard(game), Who("platform", "platform"), {}).status());
    ASSERT_OK(authority_.Execute(game, Start(), {}).status());
  }

  ledger::FakeTime time_{kT0};
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
  // Stored scoped to the actor's subject; the client's id is recoverable.
  EXPECT_EQ((*log)[0].command_id(), store::ScopedCommandId("platform", "c1"));
  EXPECT_EQ(store::ClientCommandId((*log)[0].command_id()), "c1");
  absl::StatusOr<v1::ArbitrationEvent> created = FromStoreEvent((*log)[0]);
  ASSERT_OK(created.status());
  EXPECT_TRUE(created->has_created());
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store_.ReadSnapshot("g1");
  ASSERT_OK(snapshot.status());
  EXPECT_EQ(snapshot->schema_version(), kSnapshotSchemaVersion);
  ASSERT_OK(FromStore(*snapshot, *log).status());

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
    time_.AdvanceMs(1000);
    r = authority_.Execute("g1", PlayerMove(side, move), {});
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
  EXPECT_FALSE(authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "a3"), {}).ok());
  absl::StatusOr<CommandResult> got = authority_.Get("g1");
  ASSERT_OK(got.status());
  EXPECT_EQ(got->version, version);
}

TEST_F(AuthorityTest, RetriedCommandAppliesOnce) {
  CreateAndStart("g1");
  CommandOptions once{.command_id = "m1", .fingerprint = "move e4"};
  absl::StatusOr<CommandResult> first =
      authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "e4"), once);
  ASSERT_OK(first.status());
  EXPECT_FALSE(first->replayed);
  time_.AdvanceMs(500);
  absl::StatusOr<CommandResult> again =
      authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "e4"), once);
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->version, first->version);
  EXPECT_EQ(again->game->plies(), 1);
  // After the game moved on, the retry is still answered from the record.
  ASSERT_OK(authority_.Execute("g1", PlayerMove(chess::Color::kBlack, "e5"), {}).status());
  again = authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "e4"), once);
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->version, first->version);
  // The same id for another request is refused, also when the request would be refused anyway.
  EXPECT_THAT(authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "d4"),
                                 {.command_id = "m1", .fingerprint = "move d4"}),
              HasErrorCode(store::kErrCommandIdReused));
  ASSERT_OK(authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "Nf3"), {}).status());
  EXPECT_THAT(authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "d4"),
                                 {.command_id = "m1", .fingerprint = "move d4"}),
              HasErrorCode(store::kErrCommandIdReused));
}

TEST_F(AuthorityTest, ExpectedVersionIsCompareAndSet) {
  CreateAndStart("g1");
  EXPECT_THAT(
      authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "e4"), {.expected_version = 1}),
      HasErrorCode(store::kErrVersionConflict));
  absl::StatusOr<CommandResult> r =
      authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "e4"), {.expected_version = 2});
  ASSERT_OK(r.status());
  EXPECT_GT(r->version, 2);
}

TEST_F(AuthorityTest, StaleCacheDecidesAgainOnTheStoresState) {
  LocalAnalyst other_analyst;
  GameAuthority other(&store_, &time_, other_analyst, {.owner = "b"});
  CreateAndStart("g1");
  ASSERT_OK(other.Get("g1").status());  // caches version 2
  ASSERT_OK(authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "e4"), {}).status());
  // `other` decides on its stale state, loses the compare-and-set, reloads, and decides again.
  absl::StatusOr<CommandResult> r = other.Execute("g1", PlayerMove(chess::Color::kBlack, "e5"), {});
  ASSERT_OK(r.status());
  EXPECT_EQ(r->game->plies(), 2);
  // A refusal on a stale state is confirmed on the store's state first: White has moved already.
  EXPECT_FALSE(authority_.Execute("g1", PlayerMove(chess::Color::kBlack, "d5"), {}).ok());
}

TEST_F(AuthorityTest, IllegalMoveIsRefusedAndWritesNothing) {
  CreateAndStart("g1");
  absl::StatusOr<CommandResult> before = authority_.Get("g1");
  ASSERT_OK(before.status());
  EXPECT_FALSE(authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "e5"), {}).ok());
  EXPECT_FALSE(authority_.Execute("g1", PlayerMove(chess::Color::kBlack, "e5"), {}).ok());
  absl::StatusOr<CommandResult> after = authority_.Get("g1");
  ASSERT_OK(after.status());
  EXPECT_EQ(after->version, before->version);
}

TEST_F(AuthorityTest, FlagIsRecordedOnceAtItsDeadline) {
  LocalAnalyst other_analyst;
  GameAuthority other(&store_, &time_, other_analyst, {.owner = "b"});
  CreateAndStart("g1");
  absl::StatusOr<SettleResult> early = authority_.CheckDeadline("g1");
  ASSERT_OK(early.status());
  EXPECT_EQ(early->recorded, 0);
  ASSERT_TRUE(early->next_deadline.has_value());
  EXPECT_EQ(*early->next_deadline, kT0 + 5'400'000);

  time_.SetMs(kT0 + 5'400'001);
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
  time_.SetMs(kT0 + 5'400'001);
  absl::Status refused =
      authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "e4"), {}).status();
  EXPECT_FALSE(refused.ok());
  absl::StatusOr<CommandResult> r = authority_.Get("g1");
  ASSERT_OK(r.status());
  EXPECT_EQ(r->game->status(), GameStatus::kEnded);
  EXPECT_EQ(r->game->plies(), 0);
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

// --- ExecuteAsync --------------------------------------------------------------------------------

using store::testing::DeferredStore;

class CommandCounter final : public ledger::testing::CommandCounter<AuthorityObserver> {
 public:
  void OnAppended(absl::string_view, const GameState&, const std::vector<v1::ArbitrationEvent>&,
                  std::optional<std::int64_t>) override {
    ++appended;
  }
  int appended = 0;
};

class ExecuteAsyncTest : public AuthorityTest {
 protected:
  ExecuteAsyncTest() : deferred_(&store_), async_(&deferred_, &time_, analyst_, {.owner = "c"}) {
    async_.AddObserver(&commands_);
  }

  // ExecuteAsync; the result once the callback ran (nullopt while it has not).
  auto Send(const std::string& game, const Command& command, const CommandOptions& options) {
    return ledger::testing::Send(async_, game, command, options, &offloaded_);
  }

  void CreateAndStartAsync(const std::string& game) {
    ASSERT_OK(async_.Create(game, Standard(game), Who("platform", "platform"), {}).status());
    ASSERT_OK(async_.Execute(game, Start(), {}).status());
  }

  DeferredStore deferred_;
  GameAuthority async_;
  CommandCounter commands_;
  int offloaded_ = 0;
};

TEST_F(ExecuteAsyncTest, ACachedGameIsDecidedHereAndAnsweredWhenTheStoreIs) {
  CreateAndStartAsync("g1");
  time_.AdvanceMs(2'000);
  auto r = Send("g1", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = "m1"});
  EXPECT_FALSE(r->has_value());  // nothing waits for the store
  EXPECT_EQ(deferred_.queued(), 1u);
  deferred_.Flush();
  ASSERT_TRUE(r->has_value());
  ASSERT_OK((*r)->status());
  EXPECT_EQ((**r)->version, 3);
  EXPECT_FALSE((**r)->replayed);
  EXPECT_EQ((**r)->game->plies(), 1);
  EXPECT_EQ(offloaded_, 0);
  EXPECT_EQ(commands_.commands, 3);  // create, start, move: each reported once
  EXPECT_EQ(commands_.appended, 3);
  // 6.8a: the deadline in the index moved with the press (the same write): Black's clock runs.
  absl::StatusOr<std::optional<store::Deadline>> d = store_.GetDeadline("g1");
  ASSERT_OK(d.status());
  ASSERT_TRUE(d->has_value());
  EXPECT_EQ((*d)->set_at_version, 3);
  // The store holds the state the reply gave: the snapshot reads back at version 3.
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store_.ReadSnapshot("g1");
  ASSERT_OK(snapshot.status());
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_.ReadEvents("g1", 1, 3);
  ASSERT_OK(log.status());
  absl::StatusOr<GameState> stored = FromStore(*snapshot, *log);
  ASSERT_OK(stored.status());
  EXPECT_EQ(stored->version(), 3);
  EXPECT_EQ(stored->events().back().move().san(), "e4");
  // The cache has the new state: the next move is decided on it, not refused as out of turn.
  auto next = Send("g1", PlayerMove(chess::Color::kBlack, "e5"), {.command_id = "m2"});
  deferred_.Flush();
  ASSERT_TRUE(next->has_value());
  ASSERT_OK((*next)->status());
  EXPECT_EQ((**next)->version, 4);
  EXPECT_EQ(offloaded_, 0);
}

TEST_F(ExecuteAsyncTest, AMoveThatEndsTheGameEndsItAsExecuteWould) {
  CreateAndStartAsync("g1");
  for (const char* m : {"f3", "e5", "g4"}) {
    const chess::Color side = std::string(m) == "e5" ? chess::Color::kBlack : chess::Color::kWhite;
    auto r = Send("g1", PlayerMove(side, m), {});
    deferred_.Flush();
    ASSERT_TRUE(r->has_value());
    ASSERT_OK((*r)->status());
  }
  auto mate = Send("g1", PlayerMove(chess::Color::kBlack, "Qh4#"), {});
  deferred_.Flush();
  ASSERT_TRUE(mate->has_value());
  ASSERT_OK((*mate)->status());
  EXPECT_EQ((**mate)->game->status(), GameStatus::kEnded);  // 5.1a
  absl::StatusOr<std::optional<store::Deadline>> d = store_.GetDeadline("g1");
  ASSERT_OK(d.status());
  EXPECT_FALSE(d->has_value());  // the clocks stopped: no deadline left
  // A move after the end is refused, on the store's state (the pool's path).
  auto late = Send("g1", PlayerMove(chess::Color::kWhite, "a3"), {});
  ASSERT_TRUE(late->has_value());
  EXPECT_FALSE((*late)->ok());
  EXPECT_EQ(offloaded_, 1);
}

TEST_F(ExecuteAsyncTest, ALostRaceIsDecidedAgainOnTheStoresState) {
  CreateAndStartAsync("g1");
  time_.AdvanceMs(1'000);
  auto r = Send("g1", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = "m-async"});
  // Another replica's move lands first: the deferred append finds version 3, not 2, and the
  // move is decided again on the store's state, where it is Black's turn: refused.
  ASSERT_OK(authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "d4"), {}).status());
  deferred_.Flush();
  ASSERT_TRUE(r->has_value());
  EXPECT_FALSE((*r)->ok());
  EXPECT_EQ(offloaded_, 1);
  absl::StatusOr<CommandResult> now = authority_.Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 3);  // only the other's move
  // Black's reply, on a stale cache (version 2): lost race again, decided again, applied once.
  auto black = Send("g1", PlayerMove(chess::Color::kBlack, "d5"), {.command_id = "b1"});
  deferred_.Flush();
  ASSERT_TRUE(black->has_value());
  ASSERT_OK((*black)->status());
  EXPECT_EQ((**black)->version, 4);
  // With an expected version the caller asked for exactly that state: a lost race is a conflict.
  auto pinned = Send("g1", PlayerMove(chess::Color::kWhite, "c4"), {.expected_version = 4});
  ASSERT_OK(authority_.Execute("g1", PlayerMove(chess::Color::kWhite, "c3"), {}).status());
  deferred_.Flush();
  ASSERT_TRUE(pinned->has_value());
  EXPECT_THAT(**pinned, HasErrorCode(store::kErrVersionConflict));
}

TEST_F(ExecuteAsyncTest, RetriesAndUncachedGamesGoTheWayExecuteGoes) {
  CreateAndStart("g1");  // by the other authority: `async_` has not cached it
  time_.AdvanceMs(1'000);
  auto first =
      Send("g1", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = "m1", .fingerprint = "fp"});
  ASSERT_TRUE(first->has_value());
  ASSERT_OK((*first)->status());
  EXPECT_EQ(offloaded_, 1);
  // Black moves; then White's m1 is retried (its reply was lost): decided on the cached state it
  // is another legal move, but the store answers it from its record and nothing is applied.
  auto black = Send("g1", PlayerMove(chess::Color::kBlack, "e5"), {.command_id = "b1"});
  deferred_.Flush();
  ASSERT_TRUE(black->has_value());
  ASSERT_OK((*black)->status());
  auto retry =
      Send("g1", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = "m1", .fingerprint = "fp"});
  ASSERT_TRUE(retry->has_value());  // e4 is not legal now: Execute's path answers from the record
  ASSERT_OK((*retry)->status());
  EXPECT_TRUE((**retry)->replayed);
  EXPECT_EQ((**retry)->version, (**first)->version);
  absl::StatusOr<CommandResult> now = authority_.Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 4);  // applied once each
  // Unknown games and refusals are Execute's, with its codes.
  auto unknown = Send("nope", PlayerMove(chess::Color::kWhite, "e4"), {});
  ASSERT_TRUE(unknown->has_value());
  EXPECT_THAT(**unknown, HasErrorCode(store::kErrGameNotFound));
  auto illegal = Send("g1", PlayerMove(chess::Color::kWhite, "e5"), {.command_id = "m2"});
  ASSERT_TRUE(illegal->has_value());
  EXPECT_FALSE((*illegal)->ok());
  EXPECT_EQ(commands_.failed, 2);
}

TEST_F(ExecuteAsyncTest, ARetryDecidedOnTheCachedStateIsAnsweredFromTheRecord) {
  CreateAndStartAsync("g1");
  // An offer outside a move can be decided again on the state after it: the store replays it.
  Command offer;
  offer.kind = CommandKind::kOfferDraw;
  offer.actor = Who("w", "player");
  offer.side = chess::Color::kWhite;
  auto r = Send("g1", offer, {.command_id = "o1", .fingerprint = "fp"});
  deferred_.Flush();
  ASSERT_TRUE(r->has_value());
  ASSERT_OK((*r)->status());
  const int offloaded = offloaded_;
  auto retry = Send("g1", offer, {.command_id = "o1", .fingerprint = "fp"});
  deferred_.Flush();
  ASSERT_TRUE(retry->has_value());
  ASSERT_OK((*retry)->status());
  EXPECT_TRUE((**retry)->replayed);
  EXPECT_EQ((**retry)->version, (**r)->version);
  EXPECT_GE(offloaded_, offloaded);
  absl::StatusOr<CommandResult> now = authority_.Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, (**r)->version);  // applied once
}

// Copies of a state share the log's events: the first to append from a length takes the shared
// storage's end, the other copies its events to storage of its own; neither sees the other's move
// and the state they were copied from stays as it was. The moves' SAN list follows each copy.
TEST(GameStateLog, CopiesThatAppendFromOneLengthStayApart) {
  absl::StatusOr<v1::ArbitrationEvent> created =
      NewGame(Standard("g"), kT0, Who("platform", "platform"));
  ASSERT_OK(created.status());
  absl::StatusOr<GameState> game = GameState::Create(*created);
  ASSERT_OK(game.status());
  LocalAnalyst analyst;
  absl::StatusOr<Decision> started = Decide(*game, Start(), kT0 + 1000, analyst);
  ASSERT_OK(started.status());
  const GameState base = *started->after;
  absl::StatusOr<Decision> e4 =
      Decide(base, PlayerMove(chess::Color::kWhite, "e4"), kT0 + 2000, analyst);
  absl::StatusOr<Decision> d4 =
      Decide(base, PlayerMove(chess::Color::kWhite, "d4"), kT0 + 2000, analyst);
  ASSERT_OK(e4.status());
  ASSERT_OK(d4.status());
  const GameState& a = *e4->after;
  const GameState& b = *d4->after;
  EXPECT_EQ(base.version(), 2);
  EXPECT_EQ(base.plies(), 0);
  ASSERT_EQ(a.plies(), 1);
  ASSERT_EQ(b.plies(), 1);
  EXPECT_EQ(a.san(0), "e4");
  EXPECT_EQ(b.san(0), "d4");
  EXPECT_EQ(a.event(a.version() - 1).move().san(), "e4");
  EXPECT_EQ(b.event(b.version() - 1).move().san(), "d4");
  // Each goes on from its own move, past the first segment of the storage (16 events).
  GameState c = b;
  const std::vector<std::string> more = {"d5",  "c4",  "e6", "Nc3", "Nf6", "Bg5",  "Be7",  "e3",
                                         "O-O", "Nf3", "h6", "Bh4", "b6",  "cxd5", "Nxd5", "Bxe7"};
  std::int64_t at = kT0 + 3000;
  for (size_t i = 0; i < more.size(); ++i) {
    absl::StatusOr<Decision> d =
        Decide(c, PlayerMove(i % 2 == 0 ? chess::Color::kBlack : chess::Color::kWhite, more[i]),
               at += 1000, analyst);
    ASSERT_OK(d.status());
    ASSERT_TRUE(d->refused.ok()) << more[i] << ": " << d->refused;
    c = *d->after;
  }
  EXPECT_EQ(c.plies(), 17);
  EXPECT_EQ(c.san(0), "d4");
  EXPECT_EQ(c.san(16), "Bxe7");
  EXPECT_EQ(a.plies(), 1);
  EXPECT_EQ(a.san(0), "e4");
  EXPECT_EQ(c.events().size(), static_cast<size_t>(c.version()));
  // A state keeps only the positions since the last capture or pawn move (Bxe7: the one before it
  // and the one after), so a copy costs the same at move 17 as at move 1; the whole game is
  // replayed from the log when asked for.
  EXPECT_EQ(c.game().positions().size(), 2u);
  absl::StatusOr<chess::Game> whole = c.FullGame();
  ASSERT_OK(whole.status());
  EXPECT_EQ(whole->moves().size(), 17u);
  EXPECT_EQ(whole->start().key(), chess::Position::Initial().key());
  EXPECT_EQ(whole->position().key(), c.position().key());
}

// The snapshot an append writes is the state's summary: the same size at move 1 as at move 20
// (schema 1 held the whole log and grew with every event). The log is the record: a state is
// rebuilt from the events, checked against the summary, and an old schema 1 snapshot still reads.
TEST(GameStateSnapshot, TheSummaryKeepsItsSizeAndTheLogRebuildsTheState) {
  v1::CreateGameRequest req = Standard("g");
  absl::StatusOr<v1::ArbitrationEvent> created = NewGame(req, kT0, Who("platform", "platform"));
  ASSERT_OK(created.status());
  absl::StatusOr<GameState> game = GameState::Create(*created);
  ASSERT_OK(game.status());
  LocalAnalyst analyst;
  GameState state = *game;
  std::int64_t at = kT0;
  std::vector<Command> commands = {Start()};
  // Kasparov - Topalov, Wijk aan Zee 1999, the first 40 plies: captures, checks, castling.
  const std::vector<std::string> plies = {
      "e4",    "d6",  "d4",   "Nf6",  "Nc3", "g6",    "Be3",  "Bg7",  "Qd2",  "c6",
      "f3",    "b5",  "Nge2", "Nbd7", "Bh6", "Bxh6",  "Qxh6", "Bb7",  "a3",   "e5",
      "O-O-O", "Qe7", "Kb1",  "a6",   "Nc1", "O-O-O", "Nb3",  "exd4", "Rxd4", "c5",
      "Rd1",   "Nb6", "g3",   "Kb8",  "Na5", "Ba8",   "Bh3",  "d5",   "Qf4+", "Ka7"};
  for (size_t i = 0; i < plies.size(); ++i) {
    commands.push_back(
        PlayerMove(i % 2 == 0 ? chess::Color::kWhite : chess::Color::kBlack, plies[i]));
  }
  size_t early = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    absl::StatusOr<Decision> d = Decide(state, commands[i], at += 1000, analyst);
    ASSERT_OK(d.status());
    ASSERT_TRUE(d->refused.ok()) << i << ": " << d->refused;
    state = *d->after;
    if (i == 2) early = ToStoreSnapshot(state).ByteSizeLong();
  }
  const arbiter::v1::GameSnapshot snapshot = ToStoreSnapshot(state);
  EXPECT_EQ(snapshot.schema_version(), kSnapshotSchemaVersion);
  EXPECT_LE(snapshot.ByteSizeLong(), early + 8);  // a digit more in a count or a time at most
  EXPECT_LT(snapshot.ByteSizeLong(), 400u);
  const v1::GameLogSnapshot summary = Summary(state);
  EXPECT_EQ(summary.version(), 42);
  EXPECT_EQ(summary.plies(), 40);
  EXPECT_EQ(summary.status(), v1::GAME_STATUS_ONGOING);
  EXPECT_EQ(summary.clock_running(), v1::COLOR_WHITE);

  std::vector<arbiter::v1::GameEvent> log;
  for (const v1::ArbitrationEvent& e : state.events()) log.push_back(ToStoreEvent(e, e.at_ms()));
  arbiter::v1::GameSnapshot stored = snapshot;
  stored.set_version(state.version());
  absl::StatusOr<GameState> back = FromStore(stored, log);
  ASSERT_OK(back.status());
  EXPECT_EQ(back->version(), state.version());
  EXPECT_EQ(back->RemainingMs(chess::Color::kWhite, at),
            state.RemainingMs(chess::Color::kWhite, at));

  // A log that does not give the summary is a damaged record.
  log.pop_back();
  stored.set_version(state.version() - 1);
  EXPECT_THAT(FromStore(stored, log), HasErrorCode(store::kErrCorruptLog));

  // Schema 1 (the log in the snapshot), as earlier versions wrote it, still reads.
  arbiter::v1::GameSnapshot old;
  old.set_schema_version(kLogSnapshotSchemaVersion);
  old.set_version(state.version());
  old.mutable_state()->PackFrom(state.Snapshot());
  absl::StatusOr<GameState> from_old = FromStore(old, {});
  ASSERT_OK(from_old.status());
  EXPECT_EQ(from_old->version(), state.version());
}

// --- Command ids no client can use
// ------------------------------------------------------

// An attack on a game: White moves with the id the server's timers will use for his
// opponent's flag ("settle:<game>:<version>"). The move is refused and changes nothing; the flag
// is recorded once, at its instant.
TEST_F(AuthorityTest, AMoveWithTheServersIdIsRefusedAndTheFlagIsRecordedOnce) {
  CreateAndStart("x2");
  for (const char* id : {"settle:x2:3", "settle:x2:2", "flag:x2:3", "a:a:0:1", "sys:1", "u:x/y"}) {
    EXPECT_THAT(
        authority_.Execute("x2", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = id}),
        HasErrorCode(store::kErrReservedCommandId))
        << id;
    bool answered = false;
    authority_.ExecuteAsync(
        "x2", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = id},
        [](std::function<void()> work) { work(); },
        [&](absl::StatusOr<CommandResult> r) {
          answered = true;
          EXPECT_THAT(r, HasErrorCode(store::kErrReservedCommandId)) << id;
        });
    EXPECT_TRUE(answered) << id;
    absl::StatusOr<CommandResult> now = authority_.Get("x2");
    ASSERT_OK(now.status());
    EXPECT_EQ(now->version, 2) << id << ": nothing changed";
  }
  time_.SetMs(kT0 + 1'000);
  ASSERT_OK(authority_.Execute("x2", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = "m1"}));
  // Black's 90 minutes run out 5'400'000 ms after White's move.
  time_.SetMs(kT0 + 1'000 + 5'400'001);
  absl::StatusOr<SettleResult> settled = authority_.CheckDeadline("x2", 3);
  ASSERT_OK(settled.status());
  EXPECT_GT(settled->recorded, 0);
  absl::StatusOr<SettleResult> again = authority_.CheckDeadline("x2");
  ASSERT_OK(again.status());
  EXPECT_EQ(again->recorded, 0);
  absl::StatusOr<CommandResult> r = authority_.Get("x2");
  ASSERT_OK(r.status());
  int flags = 0;
  for (const v1::ArbitrationEvent& e : r->game->events()) {
    if (!e.has_flag()) continue;
    ++flags;
    EXPECT_EQ(e.flag().side(), v1::COLOR_BLACK);
    EXPECT_EQ(e.flag().fell_at_ms(), kT0 + 1'000 + 5'400'000);
  }
  EXPECT_EQ(flags, 1);
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_.ReadEvents("x2", 4, 4);
  ASSERT_OK(log.status());
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].command_id(), SettleCommandId("x2", 3));
}

// A command id is its caller's: Black's "c1" is not White's, and White's retry is still a replay.
TEST_F(AuthorityTest, OneCallersIdDoesNotBlockAnothers) {
  CreateAndStart("g1");
  absl::StatusOr<CommandResult> white = authority_.Execute(
      "g1", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = "c1", .fingerprint = "w-e4"});
  ASSERT_OK(white.status());
  absl::StatusOr<CommandResult> black = authority_.Execute(
      "g1", PlayerMove(chess::Color::kBlack, "e5"), {.command_id = "c1", .fingerprint = "b-e5"});
  ASSERT_OK(black.status());
  EXPECT_FALSE(black->replayed);
  EXPECT_EQ(black->version, white->version + 1);
  absl::StatusOr<CommandResult> retry = authority_.Execute(
      "g1", PlayerMove(chess::Color::kWhite, "e4"), {.command_id = "c1", .fingerprint = "w-e4"});
  ASSERT_OK(retry.status());
  EXPECT_TRUE(retry->replayed);
  EXPECT_EQ(retry->version, white->version);
  EXPECT_EQ(retry->game->plies(), 1);
}

// --- Archiving a game that is over (archive.h) --------------------------------------------------
// Only once it is over; its tombstone (result, digest of the record); a repeat answers the first
// tombstone; a replica whose cached state is stale (another recorded a confirmation, 8.7)
// archives the store's latest version.

Command Of(CommandKind kind, chess::Color side) {
  Command c;
  c.kind = kind;
  c.actor = Who(side == chess::Color::kWhite ? "w" : "b", "player");
  c.side = side;
  return c;
}

// Two replicas on one store: `authority_` (the fixture's, "a") and `b_`; the game belongs to an
// event, which the tombstone keeps.
class ArchiveTest : public AuthorityTest {
 protected:
  ArchiveTest() : b_(&store_, &time_, analyst_, {.owner = "b"}) {}

  void CreateAndStart(const std::string& game) {
    v1::CreateGameRequest req = Standard(game);
    req.set_event("open-2026");
    ASSERT_OK(authority_.Create(game, req, Who("platform", "platform"), {}).status());
    ASSERT_OK(authority_.Execute(game, Start(), {}).status());
  }

  static absl::Status AnyEvent(absl::string_view) { return absl::OkStatus(); }

  GameAuthority b_;
};

TEST_F(ArchiveTest, OnlyAGameThatIsOver) {
  CreateAndStart("g");
  EXPECT_THAT(Archive(authority_, "g", Who("platform", "platform"), AnyEvent),
              HasErrorCode(kErrGameNotOver));
  ASSERT_OK(authority_.GetCached("g").status());  // still there
  EXPECT_THAT(Archive(authority_, "nope", Who("platform", "platform"), AnyEvent),
              HasErrorCode(store::kErrGameNotFound));
}

TEST_F(ArchiveTest, LeavesTheTombstoneOfTheResult) {
  CreateAndStart("g");
  ASSERT_OK(authority_.Execute("g", Of(CommandKind::kResign, chess::Color::kWhite), {})
                .status());  // 5.1b
  absl::StatusOr<CommandResult> over_or = authority_.Get("g");
  ASSERT_OK(over_or.status());
  CommandResult over = *std::move(over_or);
  PgnExportOptions record;
  record.include_advice = true;
  const std::string pgn = ExportPgn(*over.game, record);

  time_.AdvanceMs(1000);
  absl::StatusOr<ArchiveOutcome> out_or =
      Archive(authority_, "g", Who("platform", "platform"), AnyEvent);
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
  ASSERT_FALSE(pgn.empty());
  EXPECT_EQ(out.archived.record_sha256(), base::Sha256Hex(pgn))
      << "the SHA-256 of the record as an arbiter exports it";

  // Gone from the live store, and from the cache.
  EXPECT_THAT(authority_.GetCached("g"), HasErrorCode(store::kErrGameArchived));
  EXPECT_THAT(authority_.Execute("g", Of(CommandKind::kConfirm, chess::Color::kWhite), {}),
              HasErrorCode(store::kErrGameArchived));
  // A command with an id may be the retry of one applied before the archive: its record left with
  // the log, so it is not refused as if it were new.
  EXPECT_THAT(authority_.Execute("g", Of(CommandKind::kConfirm, chess::Color::kWhite),
                                 {.command_id = "confirm-1"}),
              HasErrorCode(ledger::kErrArchivedCommandUnknown));
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
  ASSERT_OK(authority_.Execute("g", Of(CommandKind::kResign, chess::Color::kWhite), {}).status());
  absl::StatusOr<CommandResult> cached_or = authority_.GetCached("g");
  ASSERT_OK(cached_or.status());
  CommandResult cached = *std::move(cached_or);  // replica a caches the end
  // Replica b records White's confirmation of the result (8.7) after it.
  absl::StatusOr<CommandResult> confirmed_or =
      b_.Execute("g", Of(CommandKind::kConfirm, chess::Color::kWhite), {});
  ASSERT_OK(confirmed_or.status());
  CommandResult confirmed = *std::move(confirmed_or);
  ASSERT_GT(confirmed.version, cached.version);
  absl::StatusOr<ArchiveOutcome> out_or =
      Archive(authority_, "g", Who("platform", "platform"), AnyEvent);
  ASSERT_OK(out_or.status());
  ArchiveOutcome out = *std::move(out_or);
  EXPECT_EQ(out.archived.version(), confirmed.version) << "the store's latest, not the cache's";
}

}  // namespace
}  // namespace arbitration::testing
