#include "libs/store/testing/game_store_contract.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <map>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "libs/base/status_matchers.h"
#include "proto/arbiter/v1/common.pb.h"

namespace store::testing {

using arbiter::v1::GameEvent;
using arbiter::v1::GameSnapshot;

void GameStoreContractTest::SetUp() {
  store_ = GetParam().make();
  ASSERT_NE(store_, nullptr);
}

namespace {

using ::base::HasErrorCode;
using ::base::HasStatusCode;
using ::base::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAreArray;

MATCHER_P(IsOkAndHolds, value, "is OK and holds the value") {
  if (!arg.ok()) {
    *result_listener << "status: " << arg.status();
    return false;
  }
  return *arg == value;
}

// Every named request, sent by `send`, is refused as INVALID_ARGUMENT ERR_BAD_ARGUMENT.
template <typename Request, typename Send>
void ExpectBadArguments(const std::vector<std::pair<std::string, Request>>& cases, Send send) {
  for (const auto& [name, request] : cases) {
    const auto result = send(request);
    EXPECT_THAT(result, HasErrorCode(kErrBadArgument)) << name;
    EXPECT_THAT(result, HasStatusCode(absl::StatusCode::kInvalidArgument)) << name;
  }
}

std::string Uci(const GameEvent& e) {
  arbiter::v1::Move move;
  EXPECT_TRUE(e.body().UnpackTo(&move));
  return move.uci();
}

std::string Fen(const GameSnapshot& s) {
  arbiter::v1::Position position;
  EXPECT_TRUE(s.state().UnpackTo(&position));
  return position.fen();
}

std::vector<std::int64_t> Versions(const std::vector<GameEvent>& events) {
  std::vector<std::int64_t> out;
  for (const GameEvent& e : events) out.push_back(e.version());
  return out;
}

std::vector<std::string> GameIds(const std::vector<Deadline>& entries) {
  std::vector<std::string> out;
  for (const Deadline& d : entries) out.push_back(d.game_id);
  return out;
}

// Appends, expecting success; the result.
AppendResult AppendOk(GameStore& store, const AppendRequest& request) {
  absl::StatusOr<AppendResult> result = store.Append(request);
  EXPECT_OK(result) << "command " << request.command_id;
  return result.ok() ? *result : AppendResult{};
}

std::int64_t LogLength(GameStore& store, const std::string& game_id) {
  absl::StatusOr<std::vector<GameEvent>> events = store.ReadEvents(game_id, 1, kHead);
  EXPECT_OK(events);
  return events.ok() ? static_cast<std::int64_t>(events->size()) : -1;
}

// --- Append and reads ---------------------------------------------------------------------------

TEST_P(GameStoreContractTest, CreateWritesEventsAndSnapshot) {
  AppendRequest create = Request("g1", 0, "c1", 2);
  create.events[0].set_recorded_at_ms(1234);
  EXPECT_EQ(AppendOk(*store_, create), (AppendResult{1, 2, false}));

  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 2);
  EXPECT_EQ(snapshot->schema_version(), 1u);
  EXPECT_EQ(Fen(*snapshot), "after c1");

  absl::StatusOr<std::vector<GameEvent>> events = store_->ReadEvents("g1", 1, kHead);
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].version(), 1);
  EXPECT_EQ((*events)[1].version(), 2);
  EXPECT_EQ((*events)[0].command_id(), "c1");
  EXPECT_EQ((*events)[1].command_id(), "c1");
  EXPECT_EQ((*events)[0].recorded_at_ms(), 1234);
  EXPECT_EQ((*events)[0].schema_version(), 1u);
  EXPECT_EQ(Uci((*events)[0]), "c1/1");
  EXPECT_EQ(Uci((*events)[1]), "c1/2");
}

TEST_P(GameStoreContractTest, AppendsAdvanceTheVersionAndRangesRead) {
  AppendOk(*store_, Request("g1", 0, "c1", 1));
  EXPECT_EQ(AppendOk(*store_, Request("g1", 1, "c2", 2)), (AppendResult{2, 3, false}));
  EXPECT_EQ(AppendOk(*store_, Request("g1", 3, "c3", 1)), (AppendResult{4, 4, false}));

  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 4);
  EXPECT_EQ(Fen(*snapshot), "after c3");

  auto range = [&](std::int64_t from, std::int64_t to) {
    absl::StatusOr<std::vector<GameEvent>> events = store_->ReadEvents("g1", from, to);
    EXPECT_OK(events);
    return events.ok() ? Versions(*events) : std::vector<std::int64_t>{-1};
  };
  EXPECT_THAT(range(1, kHead), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(range(2, 3), ElementsAre(2, 3));
  EXPECT_THAT(range(4, kHead), ElementsAre(4));
  EXPECT_THAT(range(3, 100), ElementsAre(3, 4));
  EXPECT_THAT(range(5, kHead), IsEmpty());
  EXPECT_THAT(range(3, 2), IsEmpty());
  absl::StatusOr<std::vector<GameEvent>> events = store_->ReadEvents("g1", 2, 3);
  ASSERT_OK(events);
  EXPECT_EQ(Uci((*events)[0]), "c2/1");
  EXPECT_EQ(Uci((*events)[1]), "c2/2");
  EXPECT_EQ((*events)[1].command_id(), "c2");
  EXPECT_THAT(store_->ReadEvents("g1", 0, kHead), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->WaitForEvents("g1", 0, absl::ZeroDuration(), 0),
              HasErrorCode(kErrBadArgument));
}

// Many games' ranges read at once answer each range as ReadEvents alone would: its events (a
// scoped command id whole), or its own error, whatever the others'.
TEST_P(GameStoreContractTest, RangesOfManyGamesReadTogetherAsEachAlone) {
  const std::string scoped = absl::StrCat("u:", std::string(32, 'a'), "/m1");
  AppendOk(*store_, Request("g1", 0, "c1", 1));
  AppendOk(*store_, Request("g1", 1, "c2", 2));
  AppendOk(*store_, Request("g1", 3, scoped, 1));
  AppendOk(*store_, Request("g2", 0, "c1", 1));
  AppendOk(*store_, Request("g3", 0, "c1", 1));
  ASSERT_OK(store_->Archive({"g3", 1, "t"}));
  const std::vector<EventRange> ranges = {
      {"g1", 2, 3},     {"g2", 1, kHead}, {"nope", 1, kHead}, {"g1", 4, 4}, {"g3", 1, kHead},
      {"g1", 0, kHead}, {"g1", 5, kHead}, {"g1", 1, 1},       {"g1", 3, 3}, {"bad id!", 1, 1}};
  std::vector<absl::StatusOr<std::vector<GameEvent>>> read = store_->ReadEventsOfGames(ranges);
  ASSERT_EQ(read.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const EventRange& r = ranges[i];
    absl::StatusOr<std::vector<GameEvent>> alone =
        store_->ReadEvents(r.game_id, r.from_version, r.to_version);
    ASSERT_EQ(read[i].ok(), alone.ok()) << i << " " << read[i].status() << " " << alone.status();
    if (!alone.ok()) {
      EXPECT_EQ(base::ErrorCode(read[i].status()), base::ErrorCode(alone.status())) << i;
      continue;
    }
    ASSERT_EQ(read[i]->size(), alone->size()) << i;
    for (size_t e = 0; e < alone->size(); ++e) {
      EXPECT_EQ((*read[i])[e].SerializeAsString(), (*alone)[e].SerializeAsString()) << i;
    }
  }
  ASSERT_OK(read[0]);
  EXPECT_THAT(Versions(*read[0]), ElementsAre(2, 3));
  ASSERT_OK(read[3]);
  ASSERT_EQ(read[3]->size(), 1u);
  EXPECT_EQ((*read[3])[0].command_id(), scoped);
  EXPECT_THAT(read[2], HasErrorCode(kErrGameNotFound));
  EXPECT_THAT(read[4], HasErrorCode(kErrGameArchived));
  EXPECT_THAT(read[5], HasErrorCode(kErrBadArgument));
  ASSERT_OK(read[6]);
  EXPECT_THAT(*read[6], IsEmpty());
  ASSERT_OK(read[7]);
  EXPECT_THAT(Versions(*read[7]), ElementsAre(1));
  ASSERT_OK(read[8]);
  EXPECT_THAT(Versions(*read[8]), ElementsAre(3));
  EXPECT_THAT(read[9], HasErrorCode(kErrBadArgument));
}

TEST_P(GameStoreContractTest, UnknownGameIsNotFound) {
  EXPECT_THAT(store_->ReadSnapshot("nope"), HasErrorCode(kErrGameNotFound));
  EXPECT_THAT(store_->ReadSnapshot("nope"), HasStatusCode(absl::StatusCode::kNotFound));
  EXPECT_THAT(store_->ReadEvents("nope", 1, kHead), HasErrorCode(kErrGameNotFound));
  EXPECT_THAT(store_->WaitForEvents("nope", 0, absl::Milliseconds(10), 256),
              HasErrorCode(kErrGameNotFound));
  EXPECT_THAT(store_->Append(Request("nope", 3, "c1")), HasErrorCode(kErrGameNotFound));
  absl::StatusOr<std::optional<AppendResult>> command = store_->LookupCommand("nope", "c1");
  ASSERT_OK(command);
  EXPECT_FALSE(command->has_value());
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("nope");
  ASSERT_OK(deadline);
  EXPECT_FALSE(deadline->has_value());
  EXPECT_THAT(store_->ReadSnapshot("nope"), HasErrorCode(kErrGameNotFound));  // nothing created
}

TEST_P(GameStoreContractTest, CreatingAnExistingGameFails) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  absl::StatusOr<AppendResult> again = store_->Append(Request("g1", 0, "c2"));
  EXPECT_THAT(again, HasErrorCode(kErrGameExists));
  EXPECT_THAT(again, HasStatusCode(absl::StatusCode::kAlreadyExists));
  EXPECT_EQ(LogLength(*store_, "g1"), 1);
  absl::StatusOr<std::optional<AppendResult>> command = store_->LookupCommand("g1", "c2");
  ASSERT_OK(command);
  EXPECT_FALSE(command->has_value());
}

TEST_P(GameStoreContractTest, StaleVersionIsAConflictAndWritesNothing) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  AppendOk(*store_, Request("g1", 1, "c2"));
  absl::StatusOr<AppendResult> stale =
      store_->Append(Request("g1", 1, "c3", 2, DeadlineUpdate::Set(5000)));
  EXPECT_THAT(stale, HasErrorCode(kErrVersionConflict));
  EXPECT_THAT(stale, HasStatusCode(absl::StatusCode::kAborted));
  EXPECT_THAT(stale.status().message(), HasSubstr("version 2"));
  EXPECT_THAT(store_->Append(Request("g1", 7, "c4")), HasErrorCode(kErrVersionConflict));

  EXPECT_EQ(LogLength(*store_, "g1"), 2);
  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(Fen(*snapshot), "after c2");
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("g1");
  ASSERT_OK(deadline);
  EXPECT_FALSE(deadline->has_value());
}

// The tip: the same version reached by other appends (a replica promoted without some of the
// old master's) fails the compare-and-set of a writer that read the other history.
TEST_P(GameStoreContractTest, EveryAppendLeavesANewTip) {
  const AppendResult created = AppendOk(*store_, Request("g1", 0, "c1"));
  EXPECT_FALSE(created.tip.empty());
  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->tip(), created.tip);
  const AppendResult moved = AppendOk(*store_, Request("g1", 1, "c2", 3));
  EXPECT_NE(moved.tip, created.tip);
  snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 4);
  EXPECT_EQ(snapshot->tip(), moved.tip);
  // A replay writes nothing, the tip neither, and names none.
  const AppendResult replayed = AppendOk(*store_, Request("g1", 0, "c1"));
  EXPECT_TRUE(replayed.replayed);
  EXPECT_EQ(replayed.tip, "");
  snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->tip(), moved.tip);
}

TEST_P(GameStoreContractTest, AnotherTipAtTheExpectedVersionIsAConflictAndWritesNothing) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  const std::string tip = AppendOk(*store_, Request("g1", 1, "d2")).tip;
  // A writer that saw version 2 made by another append (another history) loses.
  AppendRequest stale = Request("g1", 2, "e3", 1, DeadlineUpdate::Set(5000));
  stale.expected_tip = "e2-on-the-old-master";
  absl::StatusOr<AppendResult> lost = store_->Append(stale);
  EXPECT_THAT(lost, HasErrorCode(kErrVersionConflict));
  EXPECT_THAT(lost, HasStatusCode(absl::StatusCode::kAborted));
  EXPECT_THAT(lost.status().message(), HasSubstr("e2-on-the-old-master"));
  EXPECT_EQ(LogLength(*store_, "g1"), 2);
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("g1");
  ASSERT_OK(deadline);
  EXPECT_FALSE(deadline->has_value());
  absl::StatusOr<std::optional<AppendResult>> record = store_->LookupCommand("g1", "e3");
  ASSERT_OK(record);
  EXPECT_FALSE(record->has_value());  // no record: the same id decides again
  // Decided again on the store's state: the right tip, or none (the version alone), appends.
  stale.expected_tip = tip;
  EXPECT_EQ(AppendOk(*store_, stale), (AppendResult{3, 3, false}));
  EXPECT_EQ(AppendOk(*store_, Request("g1", 3, "e4")), (AppendResult{4, 4, false}));
  // The version is checked first: a stale version is a version conflict, whatever the tip.
  AppendRequest old = Request("g1", 3, "e5");
  old.expected_tip = tip;
  absl::StatusOr<AppendResult> older = store_->Append(old);
  EXPECT_THAT(older, HasErrorCode(kErrVersionConflict));
  EXPECT_THAT(older.status().message(), HasSubstr("version 4"));
}

TEST_P(GameStoreContractTest, ARetryIsAnsweredFromItsRecordWhateverTipItExpects) {
  AppendRequest move = Request("g1", 1, "c2");
  move.expected_tip = AppendOk(*store_, Request("g1", 0, "c1")).tip;
  EXPECT_EQ(AppendOk(*store_, move), (AppendResult{2, 2, false}));
  AppendOk(*store_, Request("g1", 2, "c3"));
  // Not part of the command's identity: a retry that reloaded expects another tip.
  move.expected_tip = "another";
  EXPECT_EQ(AppendOk(*store_, move), (AppendResult{2, 2, true}));
  move.expected_tip = "";
  EXPECT_EQ(AppendOk(*store_, move), (AppendResult{2, 2, true}));
}

TEST_P(GameStoreContractTest, MalformedExpectedTipsAreBadArguments) {
  AppendRequest create = Request("g1", 0, "c1");
  create.expected_tip = "c0";  // a create has nothing before it
  EXPECT_THAT(store_->Append(create), HasErrorCode(kErrBadArgument));
  AppendOk(*store_, Request("g1", 0, "c1"));
  AppendRequest move = Request("g1", 1, "c2");
  move.expected_tip = std::string(kMaxIdLength + 1, 'x');
  EXPECT_THAT(store_->Append(move), HasErrorCode(kErrBadArgument));
  move.expected_tip = "c\n1";
  EXPECT_THAT(store_->Append(move), HasErrorCode(kErrBadArgument));
  EXPECT_EQ(LogLength(*store_, "g1"), 1);
}

TEST_P(GameStoreContractTest, MasterEpochStaysForAStoreThatDidNotSwitch) {
  const std::uint64_t epoch = store_->MasterEpoch();
  AppendOk(*store_, Request("g1", 0, "c1"));
  ASSERT_OK(store_->ReadSnapshot("g1"));
  EXPECT_EQ(store_->MasterEpoch(), epoch);
}

// --- Idempotency --------------------------------------------------------------------------------

TEST_P(GameStoreContractTest, RetryReturnsTheOriginalResultAndWritesNothing) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  EXPECT_EQ(AppendOk(*store_, Request("g1", 1, "c2", 2)), (AppendResult{2, 3, false}));
  EXPECT_EQ(AppendOk(*store_, Request("g1", 1, "c2", 2)), (AppendResult{2, 3, true}));
  AppendOk(*store_, Request("g1", 3, "c3"));
  // Even after the game moved on, and for the creating command.
  EXPECT_EQ(AppendOk(*store_, Request("g1", 1, "c2", 2)), (AppendResult{2, 3, true}));
  EXPECT_EQ(AppendOk(*store_, Request("g1", 0, "c1")), (AppendResult{1, 1, true}));
  // A deadline value that is not set is not part of the command.
  AppendRequest noise = Request("g1", 1, "c2", 2);
  noise.deadline.deadline_ms = 77;
  EXPECT_EQ(AppendOk(*store_, noise), (AppendResult{2, 3, true}));
  EXPECT_EQ(LogLength(*store_, "g1"), 4);
  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 4);
  EXPECT_EQ(Fen(*snapshot), "after c3");
}

// AppendAsync is Append without the wait: the same outcomes (new, replayed, conflict, bad
// argument), each callback run once, also with many in flight on many games at once.
TEST_P(GameStoreContractTest, AppendAsyncAnswersAsAppendDoes) {
  absl::Mutex mu;
  std::map<std::string, absl::StatusOr<AppendResult>> results;
  int pending = 0;
  auto send = [&](const std::string& tag, AppendRequest request) {
    {
      absl::MutexLock lock(&mu);
      ++pending;
    }
    store_->AppendAsync(std::move(request), [&, tag](absl::StatusOr<AppendResult> result) {
      absl::MutexLock lock(&mu);
      EXPECT_TRUE(results.emplace(tag, std::move(result)).second) << tag << " answered twice";
      --pending;
    });
  };
  auto wait_all = [&] {
    absl::MutexLock lock(&mu);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return pending == 0; };
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(10)));
  };
  constexpr int kGames = 40;
  for (int g = 0; g < kGames; ++g)
    send(absl::StrCat("create", g), Request(absl::StrCat("a", g), 0, "c1"));
  wait_all();
  for (int g = 0; g < kGames; ++g) {
    send(absl::StrCat("move", g),
         Request(absl::StrCat("a", g), 1, "c2", 2, DeadlineUpdate::Set(9000 + g)));
  }
  wait_all();
  send("retry", Request("a0", 1, "c2", 2, DeadlineUpdate::Set(9000)));
  send("stale", Request("a1", 1, "c3"));
  send("bad", Request("", 1, "c4"));
  wait_all();
  for (int g = 0; g < kGames; ++g) {
    EXPECT_THAT(results.at(absl::StrCat("create", g)), IsOk());
    ASSERT_THAT(results.at(absl::StrCat("move", g)), IsOk());
    EXPECT_EQ(*results.at(absl::StrCat("move", g)), (AppendResult{2, 3, false}));
    EXPECT_EQ(LogLength(*store_, absl::StrCat("a", g)), 3);
  }
  ASSERT_THAT(results.at("retry"), IsOk());
  EXPECT_EQ(*results.at("retry"), (AppendResult{2, 3, true}));
  EXPECT_THAT(results.at("stale"), HasErrorCode(kErrVersionConflict));
  EXPECT_THAT(results.at("bad"), HasStatusCode(absl::StatusCode::kInvalidArgument));
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("a7");
  ASSERT_OK(deadline);
  ASSERT_TRUE(deadline->has_value());
  EXPECT_EQ((*deadline)->deadline_ms, 9007);
}

TEST_P(GameStoreContractTest, CommandIdReusedForAnotherCommandFails) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  AppendOk(*store_, Request("g1", 1, "c2"));
  absl::StatusOr<AppendResult> reused = store_->Append(Request("g1", 1, "c2", 2));
  EXPECT_THAT(reused, HasErrorCode(kErrCommandIdReused));
  EXPECT_THAT(reused, HasStatusCode(absl::StatusCode::kFailedPrecondition));
  // The id is checked before the version: a reuse at the right version is still a reuse.
  EXPECT_THAT(store_->Append(Request("g1", 2, "c1")), HasErrorCode(kErrCommandIdReused));
  AppendRequest other_deadline = Request("g1", 1, "c2");
  other_deadline.deadline = DeadlineUpdate::Set(1);
  EXPECT_THAT(store_->Append(other_deadline), HasErrorCode(kErrCommandIdReused));
  EXPECT_EQ(LogLength(*store_, "g1"), 2);
}

TEST_P(GameStoreContractTest, FingerprintIdentifiesARetryWithNewTimestamps) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  AppendRequest first = Request("g1", 1, "c2");
  first.fingerprint = "platform-request-hash-1";
  first.events[0].set_recorded_at_ms(100);
  EXPECT_EQ(AppendOk(*store_, first), (AppendResult{2, 2, false}));

  AppendRequest retry = first;
  retry.events[0].set_recorded_at_ms(200);  // re-derived by another replica, later
  EXPECT_EQ(AppendOk(*store_, retry), (AppendResult{2, 2, true}));
  absl::StatusOr<std::vector<GameEvent>> events = store_->ReadEvents("g1", 2, 2);
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].recorded_at_ms(), 100);  // the original stands

  retry.fingerprint = "platform-request-hash-2";
  EXPECT_THAT(store_->Append(retry), HasErrorCode(kErrCommandIdReused));
  retry.fingerprint.clear();
  EXPECT_THAT(store_->Append(retry), HasErrorCode(kErrCommandIdReused));
}

TEST_P(GameStoreContractTest, FailedCommandLeavesNoRecord) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  EXPECT_THAT(store_->Append(Request("g1", 5, "c2")), HasErrorCode(kErrVersionConflict));
  EXPECT_THAT(store_->Append(Request("g1", 0, "c2")), HasErrorCode(kErrGameExists));
  EXPECT_EQ(AppendOk(*store_, Request("g1", 1, "c2")), (AppendResult{2, 2, false}));
}

TEST_P(GameStoreContractTest, LookupCommandAnswersFromTheRecord) {
  AppendOk(*store_, Request("g1", 0, "c1", 3));
  AppendOk(*store_, Request("g1", 3, "c2", 2));
  absl::StatusOr<std::optional<AppendResult>> c1 = store_->LookupCommand("g1", "c1");
  ASSERT_OK(c1);
  EXPECT_EQ(*c1, (AppendResult{1, 3, true}));
  absl::StatusOr<std::optional<AppendResult>> c2 = store_->LookupCommand("g1", "c2");
  ASSERT_OK(c2);
  EXPECT_EQ(*c2, (AppendResult{4, 5, true}));
  absl::StatusOr<std::optional<AppendResult>> c3 = store_->LookupCommand("g1", "c3");
  ASSERT_OK(c3);
  EXPECT_FALSE(c3->has_value());
}

// --- Arguments ----------------------------------------------------------------------------------

TEST_P(GameStoreContractTest, MalformedRequestsAreBadArguments) {
  std::vector<std::pair<std::string, AppendRequest>> cases;
  auto add = [&](std::string name, auto mutate) {
    AppendRequest r = Request("g1", 0, "c1");
    mutate(r);
    cases.emplace_back(std::move(name), std::move(r));
  };
  add("empty game id", [](AppendRequest& r) { r.game_id = ""; });
  add("space in game id", [](AppendRequest& r) { r.game_id = "g 1"; });
  add("hash tag in game id", [](AppendRequest& r) { r.game_id = "g{1}"; });
  add("long game id", [](AppendRequest& r) { r.game_id = std::string(kMaxIdLength + 1, 'g'); });
  add("empty command id", [](AppendRequest& r) { r.command_id = ""; });
  add("control char in command id", [](AppendRequest& r) { r.command_id = "c\n1"; });
  add("negative version", [](AppendRequest& r) { r.expected_version = -1; });
  add("no events", [](AppendRequest& r) { r.events.clear(); });
  add("too many events",
      [](AppendRequest& r) { r.events.assign(kMaxEventsPerAppend + 1, MoveEvent("e2e4")); });
  add("event without schema", [](AppendRequest& r) { r.events[0].set_schema_version(0); });
  add("event without body", [](AppendRequest& r) { r.events[0].clear_body(); });
  add("huge event", [](AppendRequest& r) {
    r.events[0].mutable_body()->set_value(std::string(kMaxEventBytes, 'x'));
  });
  add("snapshot without schema", [](AppendRequest& r) { r.snapshot.set_schema_version(0); });
  add("snapshot without state", [](AppendRequest& r) { r.snapshot.clear_state(); });
  add("negative deadline", [](AppendRequest& r) { r.deadline = DeadlineUpdate::Set(-5); });
  add("long fingerprint",
      [](AppendRequest& r) { r.fingerprint = std::string(kMaxFingerprintLength + 1, 'f'); });
  ExpectBadArguments(cases, [&](const AppendRequest& r) { return store_->Append(r); });
  EXPECT_THAT(store_->ReadSnapshot("g1"), HasErrorCode(kErrGameNotFound));
  EXPECT_THAT(store_->ReadSnapshot("g{1}"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->WaitForEvents("g1", -1, absl::ZeroDuration(), 256),
              HasErrorCode(kErrBadArgument));

  const int n = store_->NumDeadlineShards();
  EXPECT_THAT(store_->ClaimDueDeadlines(-1, 0, 10, 1, "r"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->ClaimDueDeadlines(n, 0, 10, 1, "r"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->ClaimDueDeadlines(0, 0, 0, 1, "r"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->ClaimDueDeadlines(0, 0, 10, 0, "r"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->ClaimDueDeadlines(0, 0, 10, kMaxClaim + 1, "r"),
              HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->ClaimDueDeadlines(0, 0, 10, 1, ""), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->PeekDeadlines(-1, 0, 1), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->PeekDeadlines(n, 0, 1), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->PeekDeadlines(0, 0, 0), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->PeekDeadlines(0, 0, kMaxClaim + 1), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->ReleaseDeadline("g1", "", 0), HasErrorCode(kErrBadArgument));
}

TEST_P(GameStoreContractTest, LargeAndBinaryRecordsRoundTrip) {
  AppendRequest request = Request("g1", 0, "c1", kMaxEventsPerAppend);
  std::string blob;
  for (int i = 0; i < kMaxEventBytes - 200; ++i) blob.push_back(static_cast<char>(i % 256));
  request.events[5].mutable_body()->set_type_url("type.googleapis.com/test.Blob");
  request.events[5].mutable_body()->set_value(blob);
  std::string state;
  for (int i = 0; i < 500'000; ++i) state.push_back(static_cast<char>((i * 7) % 256));
  request.snapshot.mutable_state()->set_type_url("type.googleapis.com/test.State");
  request.snapshot.mutable_state()->set_value(state);
  EXPECT_EQ(AppendOk(*store_, request), (AppendResult{1, kMaxEventsPerAppend, false}));

  absl::StatusOr<std::vector<GameEvent>> events = store_->ReadEvents("g1", 1, kHead);
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), static_cast<size_t>(kMaxEventsPerAppend));
  EXPECT_EQ((*events)[5].body().value(), blob);
  EXPECT_EQ(Uci((*events)[63]), "c1/64");
  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->state().value(), state);
  // A retry of a large request is recognised too.
  EXPECT_EQ(AppendOk(*store_, request), (AppendResult{1, kMaxEventsPerAppend, true}));
}

// --- Concurrency --------------------------------------------------------------------------------

// Each round, every writer has read the same version and appends at it: exactly one wins that
// version, all others get ERR_VERSION_CONFLICT.
TEST_P(GameStoreContractTest, RacingWritersExactlyOneWinsEachVersion) {
  constexpr int kWriters = 8;
  constexpr int kRounds = 25;
  AppendOk(*store_, Request("g1", 0, "create"));
  std::barrier sync(kWriters);
  absl::Mutex mu;
  std::map<std::int64_t, std::vector<std::string>> winners;  // version -> command ids
  std::map<std::string, int> failures;                       // error code -> count
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int round = 0; round < kRounds; ++round) {
        absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
        sync.arrive_and_wait();  // everyone has read before anyone writes
        std::string id = absl::StrCat("w", w, "-r", round);
        absl::StatusOr<AppendResult> result =
            snapshot.ok() ? store_->Append(Request("g1", snapshot->version(), id))
                          : absl::StatusOr<AppendResult>(snapshot.status());
        {
          absl::MutexLock lock(&mu);
          if (result.ok()) {
            winners[result->version].push_back(id);
          } else {
            failures[absl::StrCat(absl::StatusCodeToString(result.status().code()), " ",
                                  base::ErrorCode(result.status()))]++;
          }
        }
        sync.arrive_and_wait();  // the round is over before anyone reads again
      }
    });
  }
  for (std::thread& t : writers) t.join();

  ASSERT_EQ(winners.size(), static_cast<size_t>(kRounds));
  for (const auto& [version, ids] : winners) EXPECT_EQ(ids.size(), 1u) << "version " << version;
  EXPECT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[absl::StrCat(absl::StatusCodeToString(absl::StatusCode::kAborted), " ",
                                  kErrVersionConflict.code)],
            kRounds * (kWriters - 1));
  absl::StatusOr<std::vector<GameEvent>> events = store_->ReadEvents("g1", 1, kHead);
  ASSERT_OK(events);
  ASSERT_EQ(events->size(), static_cast<size_t>(kRounds + 1));
  for (std::int64_t v = 2; v <= kRounds + 1; ++v) {
    EXPECT_EQ((*events)[v - 1].version(), v);
    EXPECT_EQ((*events)[v - 1].command_id(), winners[v][0]);
  }
}

// Writers in a free read-append loop: the log stays one linear history with no gaps.
TEST_P(GameStoreContractTest, FreeRunningWritersKeepOneLinearHistory) {
  constexpr int kWriters = 6;
  constexpr std::int64_t kTarget = 120;
  AppendOk(*store_, Request("g1", 0, "create"));
  absl::Mutex mu;
  std::map<std::int64_t, std::string> winners;
  std::atomic<int> conflicts = 0;
  std::atomic<int> other_errors = 0;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int attempt = 0;; ++attempt) {
        absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
        if (!snapshot.ok()) {
          other_errors++;
          return;
        }
        if (snapshot->version() >= kTarget) return;
        std::string id = absl::StrCat("w", w, "-", attempt);
        absl::StatusOr<AppendResult> result =
            store_->Append(Request("g1", snapshot->version(), id));
        if (result.ok()) {
          absl::MutexLock lock(&mu);
          EXPECT_TRUE(winners.emplace(result->version, id).second) << result->version;
        } else if (base::ErrorCode(result.status()) == kErrVersionConflict) {
          conflicts++;
        } else {
          other_errors++;
          return;
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(other_errors, 0);
  absl::StatusOr<std::vector<GameEvent>> events = store_->ReadEvents("g1", 1, kHead);
  ASSERT_OK(events);
  ASSERT_GE(events->size(), static_cast<size_t>(kTarget));
  ASSERT_EQ(winners.size() + 1, events->size());
  for (size_t i = 1; i < events->size(); ++i) {
    EXPECT_EQ((*events)[i].version(), static_cast<std::int64_t>(i + 1));
    EXPECT_EQ((*events)[i].command_id(), winners[i + 1]);
  }
}

TEST_P(GameStoreContractTest, RacingCreatorsOneWins) {
  constexpr int kCreators = 8;
  std::barrier sync(kCreators);
  std::atomic<int> created = 0;
  std::atomic<int> exists = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < kCreators; ++i) {
    threads.emplace_back([&, i] {
      sync.arrive_and_wait();
      absl::StatusOr<AppendResult> r = store_->Append(Request("g1", 0, absl::StrCat("create-", i)));
      if (r.ok()) created++;
      if (base::ErrorCode(r.status()) == kErrGameExists) exists++;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(created, 1);
  EXPECT_EQ(exists, kCreators - 1);
  EXPECT_EQ(LogLength(*store_, "g1"), 1);
}

// Concurrent retries of one command (a client that retried before the first answer came back):
// it is applied once and every caller gets the same result.
TEST_P(GameStoreContractTest, ConcurrentRetriesOfOneCommandApplyOnce) {
  constexpr int kRetries = 8;
  AppendOk(*store_, Request("g1", 0, "c1"));
  std::barrier sync(kRetries);
  absl::Mutex mu;
  std::vector<AppendResult> results;
  std::vector<std::thread> threads;
  for (int i = 0; i < kRetries; ++i) {
    threads.emplace_back([&] {
      sync.arrive_and_wait();
      absl::StatusOr<AppendResult> r = store_->Append(Request("g1", 1, "c2", 3));
      EXPECT_OK(r);
      absl::MutexLock lock(&mu);
      if (r.ok()) results.push_back(*r);
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(results.size(), static_cast<size_t>(kRetries));
  int applied = 0;
  for (const AppendResult& r : results) {
    EXPECT_EQ(r.first_version, 2);
    EXPECT_EQ(r.version, 4);
    applied += r.replayed ? 0 : 1;
  }
  EXPECT_EQ(applied, 1);
  EXPECT_EQ(LogLength(*store_, "g1"), 4);
}

// --- Watch --------------------------------------------------------------------------------------

TEST_P(GameStoreContractTest, WaitForEventsReturnsWhatIsThereAtOnce) {
  AppendOk(*store_, Request("g1", 0, "c1", 3));
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<GameEvent>> events =
      store_->WaitForEvents("g1", 1, absl::Seconds(10), 256);
  ASSERT_OK(events);
  EXPECT_THAT(Versions(*events), ElementsAre(2, 3));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  events = store_->WaitForEvents("g1", 0, absl::Seconds(10), 1);
  ASSERT_OK(events);
  EXPECT_THAT(Versions(*events), ElementsAre(1));
  events = store_->WaitForEvents("g1", 0, absl::ZeroDuration(), 256);  // a poll
  ASSERT_OK(events);
  EXPECT_THAT(Versions(*events), ElementsAre(1, 2, 3));
}

TEST_P(GameStoreContractTest, WaitForEventsWakesOnAppend) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  absl::StatusOr<std::vector<GameEvent>> seen;
  absl::Time woke;
  std::thread watcher([&] {
    seen = store_->WaitForEvents("g1", 1, absl::Seconds(20), 256);
    woke = absl::Now();
  });
  absl::SleepFor(absl::Milliseconds(100));  // let the watcher block
  const absl::Time appended = absl::Now();
  AppendOk(*store_, Request("g1", 1, "c2", 2));
  watcher.join();
  ASSERT_OK(seen);
  EXPECT_THAT(Versions(*seen), ElementsAre(2, 3));
  EXPECT_LT(woke - appended, absl::Seconds(5));
}

TEST_P(GameStoreContractTest, WaitForEventsTimesOutEmpty) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<GameEvent>> events =
      store_->WaitForEvents("g1", 1, absl::Milliseconds(150), 256);
  ASSERT_OK(events);
  EXPECT_THAT(*events, IsEmpty());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(140));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

// A watcher that loses its stream resumes from the last version it saw: nothing missed, nothing
// repeated.
TEST_P(GameStoreContractTest, WatchResumesAfterADisconnect) {
  AppendOk(*store_, Request("g1", 0, "c1", 2));
  std::vector<std::int64_t> seen;
  absl::StatusOr<std::vector<GameEvent>> batch =
      store_->WaitForEvents("g1", 0, absl::Seconds(5), 256);
  ASSERT_OK(batch);
  for (const GameEvent& e : *batch) seen.push_back(e.version());
  const std::int64_t last_seen = seen.back();
  // Disconnected: three commands land meanwhile.
  AppendOk(*store_, Request("g1", 2, "c2", 1));
  AppendOk(*store_, Request("g1", 3, "c3", 3));
  AppendOk(*store_, Request("g1", 6, "c4", 1));
  batch = store_->WaitForEvents("g1", last_seen, absl::Seconds(5), 256);
  ASSERT_OK(batch);
  for (const GameEvent& e : *batch) seen.push_back(e.version());
  EXPECT_THAT(seen, ElementsAre(1, 2, 3, 4, 5, 6, 7));
  EXPECT_EQ((*batch).front().command_id(), "c2");
  EXPECT_EQ((*batch).back().command_id(), "c4");
}

// One watch over several games of a shard: returns at once what is there, wakes on an append to
// any of them, times out empty, and refuses games of two shards.
TEST_P(GameStoreContractTest, WaitForAnyEventsWatchesAShardsGamesAtOnce) {
  const int n = store_->NumDeadlineShards();
  const int shard = 2 % n;
  const std::string a = GameIdInShard(shard, n, 0);
  const std::string b = GameIdInShard(shard, n, 1);
  const std::string unborn = GameIdInShard(shard, n, 2);
  AppendOk(*store_, Request(a, 0, "c1", 2));
  AppendOk(*store_, Request(b, 0, "c1", 1));
  auto ids = [](const std::vector<GameEvents>& got) {
    std::map<std::string, std::vector<std::int64_t>> out;
    for (const GameEvents& g : got) out[g.game_id] = Versions(g.events);
    return out;
  };
  absl::StatusOr<std::vector<GameEvents>> got =
      store_->WaitForAnyEvents({{a, 1}, {b, 1}, {unborn, 0}}, absl::Seconds(5), 256);
  ASSERT_OK(got);
  EXPECT_EQ(ids(*got), (std::map<std::string, std::vector<std::int64_t>>{{a, {2}}}));
  // Nothing new: it waits, and an append to the other game wakes it.
  std::thread writer([&] {
    absl::SleepFor(absl::Milliseconds(100));
    AppendOk(*store_, Request(b, 1, "c2", 2));
  });
  const absl::Time start = absl::Now();
  got = store_->WaitForAnyEvents({{a, 2}, {b, 1}, {unborn, 0}}, absl::Seconds(5), 1);
  writer.join();
  ASSERT_OK(got);
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));
  EXPECT_EQ(ids(*got), (std::map<std::string, std::vector<std::int64_t>>{{b, {2}}}));  // max 1
  got = store_->WaitForAnyEvents({{a, 2}, {b, 3}}, absl::Milliseconds(50), 256);
  ASSERT_OK(got);
  EXPECT_THAT(*got, IsEmpty());
  if (n > 1) {
    EXPECT_THAT(store_->WaitForAnyEvents({{a, 0}, {GameIdInShard((shard + 1) % n, n, 0), 0}},
                                         absl::Milliseconds(10), 10),
                HasErrorCode(kErrBadArgument));
  }
  EXPECT_THAT(store_->WaitForAnyEvents({}, absl::Milliseconds(10), 10),
              HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->WaitForAnyEvents({{a, 0}, {a, 1}}, absl::Milliseconds(10), 10),
              HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->WaitForAnyEvents({{a, -1}}, absl::Milliseconds(10), 10),
              HasErrorCode(kErrBadArgument));
}

// A watcher in a loop while a writer appends: it sees every version exactly once, in order.
TEST_P(GameStoreContractTest, WatcherSeesEveryVersionOnceWhileAWriterAppends) {
  constexpr std::int64_t kEvents = 60;
  AppendOk(*store_, Request("g1", 0, "c0"));
  std::vector<std::int64_t> seen;
  absl::Status watch_status;
  std::thread watcher([&] {
    std::int64_t after = 0;
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (after < kEvents && absl::Now() < give_up) {
      absl::StatusOr<std::vector<GameEvent>> batch =
          store_->WaitForEvents("g1", after, absl::Milliseconds(500), 7);
      if (!batch.ok()) {
        watch_status = batch.status();
        return;
      }
      for (const GameEvent& e : *batch) seen.push_back(e.version());
      if (!batch->empty()) after = batch->back().version();
    }
  });
  for (std::int64_t v = 1; v < kEvents; ++v) {
    AppendOk(*store_, Request("g1", v, absl::StrCat("c", v)));
  }
  watcher.join();
  ASSERT_OK(watch_status);
  ASSERT_EQ(seen.size(), static_cast<size_t>(kEvents));
  for (std::int64_t v = 1; v <= kEvents; ++v) EXPECT_EQ(seen[v - 1], v);
}

// --- Deadline index -----------------------------------------------------------------------------

TEST_P(GameStoreContractTest, DeadlineIsWrittenWithTheAppend) {
  auto get = [&](const std::string& game) {
    absl::StatusOr<std::optional<Deadline>> d = store_->GetDeadline(game);
    EXPECT_OK(d);
    return d.ok() ? *d : std::nullopt;
  };
  AppendOk(*store_, Request("g1", 0, "c1", 1, DeadlineUpdate::Set(5000)));
  EXPECT_EQ(get("g1"), (Deadline{.game_id = "g1", .deadline_ms = 5000, .set_at_version = 1}));
  AppendOk(*store_, Request("g1", 1, "c2", 1, DeadlineUpdate::Keep()));
  EXPECT_EQ(get("g1"), (Deadline{.game_id = "g1", .deadline_ms = 5000, .set_at_version = 1}));
  AppendOk(*store_, Request("g1", 2, "c3", 2, DeadlineUpdate::Set(9000)));
  EXPECT_EQ(get("g1"), (Deadline{.game_id = "g1", .deadline_ms = 9000, .set_at_version = 4}));
  // A failed append changes nothing.
  EXPECT_THAT(store_->Append(Request("g1", 2, "c4", 1, DeadlineUpdate::Clear())),
              HasErrorCode(kErrVersionConflict));
  EXPECT_EQ(get("g1"), (Deadline{.game_id = "g1", .deadline_ms = 9000, .set_at_version = 4}));
  AppendOk(*store_, Request("g1", 4, "c5", 1, DeadlineUpdate::Clear()));
  EXPECT_EQ(get("g1"), std::nullopt);
  AppendOk(*store_, Request("g1", 5, "c6", 1, DeadlineUpdate::Clear()));  // clearing nothing
  EXPECT_EQ(get("g1"), std::nullopt);
}

// Three games of `shard` due at 2000 (the first), 1000 and 3000 ms, and one due at 10 ms in
// another shard, which claims and peeks of `shard` must not see.
std::array<std::string, 3> ThreeDeadlinesInShard(GameStore& store, int shard) {
  const int n = store.NumDeadlineShards();
  std::array<std::string, 3> games;
  const std::int64_t due[] = {2000, 1000, 3000};
  for (int i = 0; i < 3; ++i) {
    games[i] = GameIdInShard(shard, n, i);
    AppendOk(store, Request(games[i], 0, "c", 1, DeadlineUpdate::Set(due[i])));
  }
  if (n > 1) {
    AppendOk(store,
             Request(GameIdInShard((shard + 1) % n, n, 0), 0, "c", 1, DeadlineUpdate::Set(10)));
  }
  return games;
}

TEST_P(GameStoreContractTest, ClaimLeasesDueEntriesEarliestFirst) {
  const int shard = 3 % store_->NumDeadlineShards();
  const auto [a, b, c] = ThreeDeadlinesInShard(*store_, shard);

  auto claim = [&](std::int64_t now, std::int64_t lease, int max, const std::string& owner) {
    absl::StatusOr<std::vector<Deadline>> r =
        store_->ClaimDueDeadlines(shard, now, lease, max, owner);
    EXPECT_OK(r);
    return r.ok() ? *r : std::vector<Deadline>{};
  };
  EXPECT_THAT(claim(999, 100, 10, "r1"), IsEmpty());
  std::vector<Deadline> got = claim(2500, 100, 10, "r1");
  ASSERT_EQ(got.size(), 2u);
  // Both claimed once by r1, leased until 2,500 + 100 ms.
  auto leased_to_r1 = [](const std::string& game, std::int64_t deadline_ms) {
    return Deadline{.game_id = game,
                    .deadline_ms = deadline_ms,
                    .set_at_version = 1,
                    .claims = 1,
                    .lease_until_ms = 2600,
                    .owner = "r1"};
  };
  EXPECT_EQ(got[0], leased_to_r1(b, 1000));
  EXPECT_EQ(got[1], leased_to_r1(a, 2000));
  absl::StatusOr<std::optional<Deadline>> stored = store_->GetDeadline(a);
  ASSERT_OK(stored);
  EXPECT_EQ(*stored, got[1]);
  // Leased: not due for anyone until the lease ends.
  EXPECT_THAT(claim(2599, 100, 10, "r2"), IsEmpty());
  // r1 died: at the lease's end r2 takes both.
  got = claim(2600, 1000, 10, "r2");
  EXPECT_THAT(GameIds(got), UnorderedElementsAreArray({a, b}));
  for (const Deadline& d : got) {
    EXPECT_EQ(d.claims, 2);
    EXPECT_EQ(d.owner, "r2");
    EXPECT_EQ(d.lease_until_ms, 3600);
  }
  // `max` bounds a claim.
  got = claim(5000, 100, 1, "r3");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].game_id, c);
}

// A peek reads the index as a claim would see it (deadlines, then lease ends) and changes nothing.
TEST_P(GameStoreContractTest, PeekReadsDueEntriesWithoutClaiming) {
  const int shard = 5 % store_->NumDeadlineShards();
  const auto [a, b, c] = ThreeDeadlinesInShard(*store_, shard);
  auto peek = [&](std::int64_t until, int max) {
    absl::StatusOr<std::vector<DueEntry>> r = store_->PeekDeadlines(shard, until, max);
    EXPECT_OK(r);
    return r.ok() ? *r : std::vector<DueEntry>{};
  };
  EXPECT_THAT(peek(999, 10), IsEmpty());
  EXPECT_EQ(peek(2000, 10), (std::vector<DueEntry>{{b, 1000}, {a, 2000}}));
  EXPECT_EQ(peek(5000, 1), (std::vector<DueEntry>{{b, 1000}}));
  // Peeking claimed nothing: a claim still takes b, whose entry is then due at its lease's end.
  absl::StatusOr<std::vector<Deadline>> claimed =
      store_->ClaimDueDeadlines(shard, 1500, 100, 10, "r");
  ASSERT_OK(claimed);
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ(peek(5000, 10), (std::vector<DueEntry>{{b, 1600}, {a, 2000}, {c, 3000}}));
  AppendOk(*store_, Request(a, 1, "clear", 1, DeadlineUpdate::Clear()));
  EXPECT_EQ(peek(5000, 10), (std::vector<DueEntry>{{b, 1600}, {c, 3000}}));
}

// A sweep reads many shards at once: each is answered as its own peek, in the order asked, and a
// shard out of range is refused alone.
TEST_P(GameStoreContractTest, APeekOfManyShardsAnswersEachAsItsOwnPeek) {
  const int n = store_->NumDeadlineShards();
  const int shard = 5 % n;
  ThreeDeadlinesInShard(*store_, shard);  // and one in the next shard
  const int far = (shard + n / 2) % n;    // on another master of a cluster
  AppendOk(*store_, Request(GameIdInShard(far, n, 7), 0, "c", 1, DeadlineUpdate::Set(1500)));
  const std::vector<int> shards = {far, shard, (shard + 1) % n, -1, shard, n};
  std::vector<absl::StatusOr<std::vector<DueEntry>>> got =
      store_->PeekDeadlinesOfShards(shards, 2000, 2);
  ASSERT_EQ(got.size(), shards.size());
  for (size_t i = 0; i < shards.size(); ++i) {
    if (shards[i] < 0 || shards[i] >= n) {
      EXPECT_THAT(got[i], HasErrorCode(kErrBadArgument)) << i;
      continue;
    }
    absl::StatusOr<std::vector<DueEntry>> alone = store_->PeekDeadlines(shards[i], 2000, 2);
    ASSERT_OK(alone);
    ASSERT_OK(got[i]);
    EXPECT_FALSE(alone->empty()) << shards[i];
    EXPECT_EQ(*got[i], *alone) << shards[i];
  }
  EXPECT_THAT(store_->PeekDeadlinesOfShards({}, 2000, 2), IsEmpty());
}

TEST_P(GameStoreContractTest, CountDeadlinesCountsAShardsEntries) {
  const int shard = 3 % store_->NumDeadlineShards();
  const auto [a, b, c] = ThreeDeadlinesInShard(*store_, shard);
  auto count = [&](int s) {
    absl::StatusOr<std::int64_t> n = store_->CountDeadlines(s);
    EXPECT_OK(n);
    return n.ok() ? *n : -1;
  };
  EXPECT_EQ(count(shard), 3);
  // Claimed entries still count (their clocks still run); a cleared one does not.
  ASSERT_OK(store_->ClaimDueDeadlines(shard, 5000, 100, 10, "r"));
  EXPECT_EQ(count(shard), 3);
  AppendOk(*store_, Request(b, 1, "clear-b", 1, DeadlineUpdate::Clear()));
  EXPECT_EQ(count(shard), 2);
  std::int64_t total = 0;
  for (int s = 0; s < store_->NumDeadlineShards(); ++s) total += count(s);
  EXPECT_EQ(total, store_->NumDeadlineShards() > 1 ? 3 : 2);  // and one in the next shard
  EXPECT_THAT(store_->CountDeadlines(store_->NumDeadlineShards()),
              HasStatusCode(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(store_->CountDeadlines(-1), HasStatusCode(absl::StatusCode::kInvalidArgument));
}

// The clock authority's flag, with two replicas and one killed midway: the flag event is appended
// exactly once.
TEST_P(GameStoreContractTest, FlagIsAppendedExactlyOnceAcrossReplicas) {
  const int n = store_->NumDeadlineShards();
  const std::string game = GameIdInShard(0, n, 0);
  AppendOk(*store_, Request(game, 0, "create", 1, DeadlineUpdate::Set(1000)));
  AppendOk(*store_, Request(game, 1, "move", 1));  // the deadline stays
  // Each replica records the event at its own time; the fingerprint makes them one command.
  auto flag = [&](std::int64_t version, std::int64_t recorded_at_ms) {
    AppendRequest r = Request(game, version, absl::StrCat("flag:", game, ":", version), 1,
                              DeadlineUpdate::Clear());
    r.events[0].set_recorded_at_ms(recorded_at_ms);
    r.fingerprint = r.command_id;
    return r;
  };

  // Replica A claims, reads the snapshot, then is killed before appending.
  absl::StatusOr<std::vector<Deadline>> a = store_->ClaimDueDeadlines(0, 1000, 500, 10, "A");
  ASSERT_OK(a);
  ASSERT_EQ(a->size(), 1u);
  absl::StatusOr<GameSnapshot> seen_by_a = store_->ReadSnapshot(game);
  ASSERT_OK(seen_by_a);
  // Replica B finds nothing while A's lease lasts, then takes the entry over and flags.
  absl::StatusOr<std::vector<Deadline>> b = store_->ClaimDueDeadlines(0, 1200, 500, 10, "B");
  ASSERT_OK(b);
  EXPECT_THAT(*b, IsEmpty());
  b = store_->ClaimDueDeadlines(0, 1500, 500, 10, "B");
  ASSERT_OK(b);
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].claims, 2);
  absl::StatusOr<GameSnapshot> seen_by_b = store_->ReadSnapshot(game);
  ASSERT_OK(seen_by_b);
  EXPECT_EQ(AppendOk(*store_, flag(seen_by_b->version(), 1501)), (AppendResult{3, 3, false}));
  // A comes back and does its part: the same command is a replay, nothing is written.
  EXPECT_EQ(AppendOk(*store_, flag(seen_by_a->version(), 1777)), (AppendResult{3, 3, true}));
  // A flag command under another id loses the compare-and-set.
  AppendRequest other = flag(seen_by_a->version(), 1777);
  other.command_id = "flag-by-A";
  EXPECT_THAT(store_->Append(other), HasErrorCode(kErrVersionConflict));

  EXPECT_EQ(LogLength(*store_, game), 3);
  absl::StatusOr<std::optional<Deadline>> entry = store_->GetDeadline(game);
  ASSERT_OK(entry);
  EXPECT_FALSE(entry->has_value());
  absl::StatusOr<std::vector<Deadline>> later =
      store_->ClaimDueDeadlines(0, 1'000'000, 500, 10, "C");
  ASSERT_OK(later);
  EXPECT_THAT(*later, IsEmpty());
}

TEST_P(GameStoreContractTest, ConcurrentClaimersNeverShareAnEntry) {
  constexpr int kGames = 40;
  constexpr int kClaimers = 4;
  const int n = store_->NumDeadlineShards();
  const int shard = 5 % n;
  std::set<std::string> all;
  for (int i = 0; i < kGames; ++i) {
    std::string game = GameIdInShard(shard, n, i);
    AppendOk(*store_, Request(game, 0, "c", 1, DeadlineUpdate::Set(100 + i)));
    all.insert(game);
  }
  std::barrier sync(kClaimers);
  absl::Mutex mu;
  std::vector<std::string> claimed;
  std::vector<std::thread> threads;
  for (int t = 0; t < kClaimers; ++t) {
    threads.emplace_back([&, t] {
      sync.arrive_and_wait();
      while (true) {
        absl::StatusOr<std::vector<Deadline>> got =
            store_->ClaimDueDeadlines(shard, 1'000'000, 1'000'000, 3, absl::StrCat("r", t));
        EXPECT_OK(got);
        if (!got.ok() || got->empty()) return;
        absl::MutexLock lock(&mu);
        for (const Deadline& d : *got) claimed.push_back(d.game_id);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(claimed.size(), static_cast<size_t>(kGames));
  EXPECT_EQ(std::set<std::string>(claimed.begin(), claimed.end()), all);
}

TEST_P(GameStoreContractTest, ReleaseMakesAnEntryDueAgainLater) {
  const int n = store_->NumDeadlineShards();
  const int shard = 7 % n;
  const std::string game = GameIdInShard(shard, n, 0);
  AppendOk(*store_, Request(game, 0, "c", 1, DeadlineUpdate::Set(1000)));
  ASSERT_OK(store_->ClaimDueDeadlines(shard, 1000, 60'000, 10, "r1"));
  absl::StatusOr<bool> released = store_->ReleaseDeadline(game, "r2", 5000);
  ASSERT_OK(released);
  EXPECT_FALSE(*released);  // not r2's
  released = store_->ReleaseDeadline(game, "r1", 5000);
  ASSERT_OK(released);
  EXPECT_TRUE(*released);
  absl::StatusOr<std::optional<Deadline>> entry = store_->GetDeadline(game);
  ASSERT_OK(entry);
  EXPECT_EQ(*entry,
            (Deadline{.game_id = game, .deadline_ms = 1000, .set_at_version = 1, .claims = 1}));
  absl::StatusOr<std::vector<Deadline>> got = store_->ClaimDueDeadlines(shard, 4999, 10, 10, "r2");
  ASSERT_OK(got);
  EXPECT_THAT(*got, IsEmpty());
  got = store_->ClaimDueDeadlines(shard, 5000, 10, 10, "r2");
  ASSERT_OK(got);
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].claims, 2);
  released = store_->ReleaseDeadline(GameIdInShard(shard, n, 1), "r2", 0);  // no entry
  ASSERT_OK(released);
  EXPECT_FALSE(*released);
}

TEST_P(GameStoreContractTest, ANewDeadlineEndsTheLease) {
  const int n = store_->NumDeadlineShards();
  const std::string game = GameIdInShard(0, n, 0);
  AppendOk(*store_, Request(game, 0, "c1", 1, DeadlineUpdate::Set(1000)));
  ASSERT_OK(store_->ClaimDueDeadlines(0, 1000, 60'000, 10, "r1"));
  AppendOk(*store_, Request(game, 1, "c2", 1, DeadlineUpdate::Set(7000)));  // a move was made
  absl::StatusOr<std::optional<Deadline>> entry = store_->GetDeadline(game);
  ASSERT_OK(entry);
  EXPECT_EQ(*entry, (Deadline{.game_id = game, .deadline_ms = 7000, .set_at_version = 2}));
  absl::StatusOr<bool> released = store_->ReleaseDeadline(game, "r1", 0);
  ASSERT_OK(released);
  EXPECT_FALSE(*released);
  absl::StatusOr<std::vector<Deadline>> got = store_->ClaimDueDeadlines(0, 7000, 10, 10, "r2");
  ASSERT_OK(got);
  EXPECT_EQ(GameIds(*got), std::vector<std::string>{game});
}

TEST_P(GameStoreContractTest, NowMsIsTheWallClock) {
  absl::StatusOr<std::int64_t> now = store_->NowMs();
  ASSERT_OK(now);
  EXPECT_NEAR(static_cast<double>(*now), static_cast<double>(absl::ToUnixMillis(absl::Now())),
              5000.0);
}

// --- Archive ------------------------------------------------------------------------------------

// An archive removes the game (snapshot, log, command records, deadline entry) and leaves its
// tombstone; other games, of its shard too, keep theirs.
TEST_P(GameStoreContractTest, ArchiveRemovesTheGameAndKeepsItsTombstone) {
  const int n = store_->NumDeadlineShards();
  const int shard = 1 % n;
  const std::string g = GameIdInShard(shard, n, 0);
  const std::string other = GameIdInShard(shard, n, 1);
  AppendOk(*store_, Request(g, 0, "c1", 2, DeadlineUpdate::Set(5000)));
  AppendOk(*store_, Request(g, 2, "c2", 1));
  AppendOk(*store_, Request(other, 0, "c1", 1, DeadlineUpdate::Set(6000)));

  absl::StatusOr<ArchiveResult> archived = store_->Archive({g, 3, "final: 1-0"});
  ASSERT_OK(archived);
  EXPECT_EQ(*archived, (ArchiveResult{"final: 1-0", false}));

  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot(g);
  EXPECT_THAT(snapshot, HasErrorCode(kErrGameArchived));
  EXPECT_THAT(snapshot, HasStatusCode(absl::StatusCode::kNotFound));
  EXPECT_THAT(snapshot.status().message(), HasSubstr("archived"));
  EXPECT_THAT(store_->ReadEvents(g, 1, kHead), HasErrorCode(kErrGameArchived));
  EXPECT_THAT(store_->WaitForEvents(g, 0, absl::Milliseconds(10), 256),
              HasErrorCode(kErrGameArchived));
  for (const char* command : {"c1", "c2"}) {
    absl::StatusOr<std::optional<AppendResult>> record = store_->LookupCommand(g, command);
    ASSERT_OK(record);
    EXPECT_FALSE(record->has_value()) << command;
  }
  absl::StatusOr<std::string> tombstone = store_->ReadTombstone(g);
  ASSERT_OK(tombstone);
  EXPECT_EQ(*tombstone, "final: 1-0");

  // The deadline entry is gone from every view of the index; the other game's stays.
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline(g);
  ASSERT_OK(deadline);
  EXPECT_FALSE(deadline->has_value());
  EXPECT_THAT(store_->CountDeadlines(shard), IsOkAndHolds(1));
  absl::StatusOr<std::vector<DueEntry>> due = store_->PeekDeadlines(shard, 1'000'000, kMaxClaim);
  ASSERT_OK(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ((*due)[0].game_id, other);
  absl::StatusOr<std::vector<Deadline>> claimed =
      store_->ClaimDueDeadlines(shard, 1'000'000, 10, kMaxClaim, "r");
  ASSERT_OK(claimed);
  EXPECT_THAT(GameIds(*claimed), ElementsAre(other));
  EXPECT_THAT(store_->ReleaseDeadline(g, "r", 0), IsOkAndHolds(false));

  // A watch of the shard sees no events of the archived game.
  absl::StatusOr<std::vector<GameEvents>> got =
      store_->WaitForAnyEvents({{g, 0}, {other, 0}}, absl::Milliseconds(50), 256);
  ASSERT_OK(got);
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].game_id, other);
  got = store_->WaitForAnyEvents({{g, 0}}, absl::Milliseconds(50), 256);
  ASSERT_OK(got);
  EXPECT_THAT(*got, IsEmpty());

  EXPECT_EQ(LogLength(*store_, other), 1);
  absl::StatusOr<std::string> none = store_->ReadTombstone(other);
  EXPECT_THAT(none, HasErrorCode(kErrGameNotFound));
}

// Archived once: a repeat gets the first tombstone back (replayed) whatever it asks, and the id
// stays taken: a create is ERR_GAME_EXISTS (the creating command's retry too: its record went
// with the game), any other append ERR_GAME_ARCHIVED.
TEST_P(GameStoreContractTest, ArchiveIsIdempotentAndTheIdStaysTaken) {
  AppendOk(*store_, Request("g1", 0, "c1", 2));
  EXPECT_THAT(store_->Archive({"g1", 2, "t1"}), IsOkAndHolds(ArchiveResult{"t1", false}));
  EXPECT_THAT(store_->Archive({"g1", 2, "t1"}), IsOkAndHolds(ArchiveResult{"t1", true}));
  EXPECT_THAT(store_->Archive({"g1", 2, "t2"}), IsOkAndHolds(ArchiveResult{"t1", true}));
  EXPECT_THAT(store_->Archive({"g1", 99, "t3"}), IsOkAndHolds(ArchiveResult{"t1", true}));
  EXPECT_THAT(store_->ReadTombstone("g1"), IsOkAndHolds(std::string("t1")));

  absl::StatusOr<AppendResult> create = store_->Append(Request("g1", 0, "c-new"));
  EXPECT_THAT(create, HasErrorCode(kErrGameExists));
  EXPECT_THAT(create, HasStatusCode(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(store_->Append(Request("g1", 0, "c1", 2)), HasErrorCode(kErrGameExists));
  absl::StatusOr<AppendResult> move = store_->Append(Request("g1", 2, "c2"));
  EXPECT_THAT(move, HasErrorCode(kErrGameArchived));
  EXPECT_THAT(move, HasStatusCode(absl::StatusCode::kNotFound));
  EXPECT_THAT(store_->Append(Request("g1", 7, "c3", 1, DeadlineUpdate::Set(10))),
              HasErrorCode(kErrGameArchived));

  // The same through AppendAsync.
  absl::Mutex mu;
  std::vector<absl::StatusOr<AppendResult>> answers;
  for (std::int64_t version : {0, 2}) {
    store_->AppendAsync(Request("g1", version, "c4"), [&](absl::StatusOr<AppendResult> result) {
      absl::MutexLock lock(&mu);
      answers.push_back(std::move(result));
    });
  }
  {
    absl::MutexLock lock(&mu);
    auto both = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return answers.size() == 2; };
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&both), absl::Seconds(10)));
    std::multiset<std::string> codes;
    for (const absl::StatusOr<AppendResult>& a : answers) {
      ASSERT_FALSE(a.ok());
      codes.insert(::base::ErrorCode(a.status()));
    }
    EXPECT_EQ(codes, (std::multiset<std::string>{std::string(kErrGameExists.code),
                                                 std::string(kErrGameArchived.code)}));
  }

  // Nothing was written by the refused appends.
  EXPECT_THAT(store_->ReadSnapshot("g1"), HasErrorCode(kErrGameArchived));
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("g1");
  ASSERT_OK(deadline);
  EXPECT_FALSE(deadline->has_value());
  EXPECT_THAT(store_->ReadTombstone("g1"), IsOkAndHolds(std::string("t1")));
}

// Only the game's current version archives it; a game at another version, or none, is left as
// it is.
TEST_P(GameStoreContractTest, ArchiveChecksTheVersionAndTheGame) {
  AppendOk(*store_, Request("g1", 0, "c1"));
  AppendOk(*store_, Request("g1", 1, "c2", 1, DeadlineUpdate::Set(5000)));
  absl::StatusOr<ArchiveResult> stale = store_->Archive({"g1", 1, "t"});
  EXPECT_THAT(stale, HasErrorCode(kErrVersionConflict));
  EXPECT_THAT(stale, HasStatusCode(absl::StatusCode::kAborted));
  EXPECT_THAT(stale.status().message(), HasSubstr("version 2"));
  EXPECT_THAT(store_->Archive({"g1", 3, "t"}), HasErrorCode(kErrVersionConflict));

  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 2);
  EXPECT_EQ(LogLength(*store_, "g1"), 2);
  absl::StatusOr<std::optional<AppendResult>> record = store_->LookupCommand("g1", "c2");
  ASSERT_OK(record);
  EXPECT_EQ(*record, (AppendResult{2, 2, true}));
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("g1");
  ASSERT_OK(deadline);
  EXPECT_TRUE(deadline->has_value());
  EXPECT_THAT(store_->ReadTombstone("g1"), HasErrorCode(kErrGameNotFound));  // live, not archived
  EXPECT_EQ(AppendOk(*store_, Request("g1", 2, "c3")), (AppendResult{3, 3, false}));

  absl::StatusOr<ArchiveResult> unknown = store_->Archive({"nope", 1, "t"});
  EXPECT_THAT(unknown, HasErrorCode(kErrGameNotFound));
  EXPECT_THAT(unknown, HasStatusCode(absl::StatusCode::kNotFound));
  EXPECT_THAT(store_->ReadTombstone("nope"), HasErrorCode(kErrGameNotFound));
  EXPECT_THAT(store_->ReadSnapshot("nope"), HasErrorCode(kErrGameNotFound));  // not "archived"
  EXPECT_EQ(AppendOk(*store_, Request("nope", 0, "c1")), (AppendResult{1, 1, false}));
}

TEST_P(GameStoreContractTest, MalformedArchivesAreBadArguments) {
  AppendOk(*store_, Request("g1", 0, "c1", 1, DeadlineUpdate::Set(5000)));
  const std::vector<std::pair<std::string, ArchiveRequest>> cases = {
      {"empty game id", {"", 1, "t"}},
      {"hash tag in game id", {"g{1}", 1, "t"}},
      {"long game id", {std::string(kMaxIdLength + 1, 'g'), 1, "t"}},
      {"version 0", {"g1", 0, "t"}},
      {"negative version", {"g1", -1, "t"}},
      {"empty tombstone", {"g1", 1, ""}},
      {"huge tombstone", {"g1", 1, std::string(kMaxTombstoneBytes + 1, 't')}},
  };
  ExpectBadArguments(cases, [&](const ArchiveRequest& r) { return store_->Archive(r); });
  EXPECT_THAT(store_->ReadTombstone("g{1}"), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->ReadTombstone(""), HasErrorCode(kErrBadArgument));
  // Nothing changed.
  EXPECT_EQ(LogLength(*store_, "g1"), 1);
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("g1");
  ASSERT_OK(deadline);
  EXPECT_TRUE(deadline->has_value());
  EXPECT_THAT(store_->ReadTombstone("g1"), HasErrorCode(kErrGameNotFound));

  // The largest tombstone, any bytes, round-trips.
  std::string tombstone;
  for (int i = 0; i < kMaxTombstoneBytes; ++i) tombstone.push_back(static_cast<char>(i % 256));
  EXPECT_THAT(store_->Archive({"g1", 1, tombstone}), IsOkAndHolds(ArchiveResult{tombstone, false}));
  EXPECT_THAT(store_->ReadTombstone("g1"), IsOkAndHolds(tombstone));
}

// snapshot_every: the snapshot is written at the creation and whenever the version reaches a
// multiple of it; ReadSnapshot returns the last one written with the game's tip, ReadLatest that
// one and the events after it, and the events stay whole.
TEST_P(GameStoreContractTest, ASnapshotEveryKVersionsAndTheEventsAfterIt) {
  auto every4 = [](AppendRequest r) {
    r.snapshot_every = 4;
    return r;
  };
  AppendOk(*store_, every4(Request("g1", 0, "c1")));     // 1: created, written
  AppendOk(*store_, every4(Request("g1", 1, "c2")));     // 2
  AppendOk(*store_, every4(Request("g1", 2, "c3", 3)));  // 3..5: passes 4, written
  AppendOk(*store_, every4(Request("g1", 5, "c4")));     // 6
  const AppendResult last = AppendOk(*store_, every4(Request("g1", 6, "c5")));  // 7
  absl::StatusOr<GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 5);
  EXPECT_EQ(Fen(*snapshot), "after c3");
  EXPECT_EQ(snapshot->tip(), last.tip);
  absl::StatusOr<LatestState> latest = store_->ReadLatest("g1");
  ASSERT_OK(latest);
  EXPECT_EQ(latest->snapshot.version(), 5);
  EXPECT_EQ(latest->snapshot.tip(), last.tip);
  ASSERT_EQ(latest->tail.size(), 2u);
  EXPECT_EQ(latest->tail[0].version(), 6);
  EXPECT_EQ(latest->tail[1].version(), 7);
  EXPECT_EQ(Uci(latest->tail[1]), "c5/1");
  EXPECT_EQ(latest->tail[1].command_id(), "c5");
  EXPECT_EQ(LogLength(*store_, "g1"), 7);
  // The tip compares as before: an append on it lands.
  AppendRequest next = every4(Request("g1", 7, "c6"));
  next.expected_tip = latest->snapshot.tip();
  AppendOk(*store_, next);  // 8: a multiple, written
  latest = store_->ReadLatest("g1");
  ASSERT_OK(latest);
  EXPECT_EQ(latest->snapshot.version(), 8);
  EXPECT_THAT(latest->tail, IsEmpty());
  EXPECT_THAT(store_->ReadLatest("nope"), HasErrorCode(kErrGameNotFound));
  AppendRequest zero = Request("g2", 0, "c1");
  zero.snapshot_every = 0;
  EXPECT_THAT(store_->Append(zero), HasErrorCode(kErrBadArgument));
}

// DeadlineUpdate::Bound: the entry is set when the game has none or one due later than the
// bound, and kept when it is due no later (an append then writes no deadline).
TEST_P(GameStoreContractTest, ABoundMovesTheDeadlineOnlyEarlier) {
  AppendOk(*store_, Request("g1", 0, "c1", 1, DeadlineUpdate::Bound(5000)));
  absl::StatusOr<std::optional<Deadline>> d = store_->GetDeadline("g1");
  ASSERT_OK(d);
  ASSERT_TRUE(d->has_value());
  EXPECT_EQ((*d)->deadline_ms, 5000);
  AppendOk(*store_, Request("g1", 1, "c2", 1, DeadlineUpdate::Bound(7000)));  // later: kept
  d = store_->GetDeadline("g1");
  ASSERT_OK(d);
  ASSERT_TRUE(d->has_value());
  EXPECT_EQ((*d)->deadline_ms, 5000);
  EXPECT_EQ((*d)->set_at_version, 1);
  AppendOk(*store_, Request("g1", 2, "c3", 1, DeadlineUpdate::Bound(4000)));  // earlier: set
  d = store_->GetDeadline("g1");
  ASSERT_OK(d);
  ASSERT_TRUE(d->has_value());
  EXPECT_EQ((*d)->deadline_ms, 4000);
  EXPECT_EQ((*d)->set_at_version, 3);
  // Claimed when due, and released by its check to the flag's instant (8000): a bound before
  // that is set again (the entry would otherwise come due after the bound).
  const int shard = DeadlineShard("g1", store_->NumDeadlineShards());
  absl::StatusOr<std::vector<Deadline>> claimed =
      store_->ClaimDueDeadlines(shard, 4000, 60'000, 10, "checker");
  ASSERT_OK(claimed);
  ASSERT_EQ(claimed->size(), 1u);
  ASSERT_THAT(store_->ReleaseDeadline("g1", "checker", 8000), IsOkAndHolds(true));
  AppendOk(*store_, Request("g1", 3, "c3b", 1, DeadlineUpdate::Bound(6000)));
  absl::StatusOr<std::vector<DueEntry>> due = store_->PeekDeadlines(shard, 100'000, 10);
  ASSERT_OK(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ((*due)[0].due_ms, 6000);
  AppendOk(*store_, Request("g1", 4, "c4", 1, DeadlineUpdate::Clear()));
  AppendOk(*store_, Request("g1", 5, "c5", 1, DeadlineUpdate::Bound(9000)));  // none: set
  d = store_->GetDeadline("g1");
  ASSERT_OK(d);
  ASSERT_TRUE(d->has_value());
  EXPECT_EQ((*d)->deadline_ms, 9000);
  EXPECT_THAT(store_->Append(Request("g1", 6, "c6", 1, DeadlineUpdate::Bound(-1))),
              HasErrorCode(kErrBadArgument));
}

// --- The feed (game_feed.h) ---------------------------------------------------------------------

std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> Appends(
    const std::vector<FeedEntry>& entries) {
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> out;
  for (const FeedEntry& e : entries) out.emplace_back(e.game_id, e.first_version, e.version);
  return out;
}

// Where a reader stands after `entries`.
FeedPosition After(FeedPosition at, const std::vector<FeedEntry>& entries) {
  for (const FeedEntry& e : entries) {
    EXPECT_EQ(e.sequence, at.next[e.shard]) << e.game_id << " out of order";
    at.next[e.shard] = e.sequence + 1;
  }
  return at;
}

TEST_P(GameStoreContractTest, TheFeedRecordsEachAppendOnceInItsShard) {
  const int n = store_->NumDeadlineShards();
  const std::string a = GameIdInShard(1 % n, n, 0);
  const std::string b = GameIdInShard(1 % n, n, 1);
  const std::string c = n > 1 ? GameIdInShard(2 % n, n, 0) : GameIdInShard(0, n, 2);
  absl::StatusOr<FeedPosition> head = store_->FeedHead();
  ASSERT_OK(head);
  ASSERT_EQ(head->next.size(), static_cast<size_t>(n));
  AppendOk(*store_, Request(a, 0, "c1", 2));
  AppendOk(*store_, Request(b, 0, "c1", 1));
  AppendOk(*store_, Request(c, 0, "c1", 1));
  AppendOk(*store_, Request(a, 2, "c2", 3));
  // A retry writes nothing, no feed entry either; nor does a refused append.
  ASSERT_OK(store_->Append(Request(a, 2, "c2", 3)));
  EXPECT_THAT(store_->Append(Request(b, 5, "c9", 1)), HasErrorCode(kErrVersionConflict));
  absl::StatusOr<std::vector<FeedEntry>> got = store_->ReadFeed(*head, 100, absl::Seconds(1));
  ASSERT_OK(got);
  std::vector<FeedEntry> in_a_shard, in_c_shard;
  for (const FeedEntry& e : *got) (e.game_id == c ? in_c_shard : in_a_shard).push_back(e);
  using Append = std::tuple<std::string, std::int64_t, std::int64_t>;
  EXPECT_THAT(Appends(in_a_shard), ElementsAre(Append{a, 1, 2}, Append{b, 1, 1}, Append{a, 3, 5}));
  EXPECT_THAT(Appends(in_c_shard), ElementsAre(Append{c, 1, 1}));
  const FeedPosition after = After(*head, *got);
  absl::StatusOr<FeedPosition> now = store_->FeedHead();
  ASSERT_OK(now);
  EXPECT_EQ(*now, after);
  // Nothing after it: empty at the timeout.
  got = store_->ReadFeed(after, 100, absl::Milliseconds(50));
  ASSERT_OK(got);
  EXPECT_THAT(*got, IsEmpty());
  // The position as a client holds it.
  absl::StatusOr<FeedPosition> decoded = DecodeFeedPosition(EncodeFeedPosition(after), n);
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, after);
}

TEST_P(GameStoreContractTest, AFeedReaderWakesOnAnAppendAndResumesWithoutRepeats) {
  const int n = store_->NumDeadlineShards();
  const std::string a = GameIdInShard(5 % n, n, 0);
  absl::StatusOr<FeedPosition> head = store_->FeedHead();
  ASSERT_OK(head);
  std::thread writer([&] {
    absl::SleepFor(absl::Milliseconds(100));
    AppendOk(*store_, Request(a, 0, "c1", 1));
    for (int v = 1; v < 5; ++v) AppendOk(*store_, Request(a, v, absl::StrCat("c", v + 1), 1));
  });
  const absl::Time start = absl::Now();
  std::vector<std::int64_t> versions;
  FeedPosition at = *head;
  while (versions.size() < 5 && absl::Now() - start < absl::Seconds(10)) {
    // One entry at a time: each read resumes where the last one ended.
    absl::StatusOr<std::vector<FeedEntry>> got = store_->ReadFeed(at, 1, absl::Seconds(5));
    ASSERT_OK(got);
    ASSERT_LE(got->size(), 1u);
    for (const FeedEntry& e : *got) versions.push_back(e.version);
    at = After(at, *got);
  }
  writer.join();
  EXPECT_THAT(versions, ElementsAre(1, 2, 3, 4, 5));
}

TEST_P(GameStoreContractTest, APositionOlderThanTheRetentionIsExpired) {
  const int n = store_->NumDeadlineShards();
  absl::StatusOr<FeedPosition> head = store_->FeedHead();
  ASSERT_OK(head);
  // Past the retention by more than Redis's trimming granularity (a node: 100 entries), over
  // several games of the shard (a game's appends are a few hundred).
  constexpr std::int64_t kPerGame = 100;
  const std::int64_t appends = kFeedRetention + 300;
  std::string a;
  for (std::int64_t i = 0; i < appends; ++i) {
    a = GameIdInShard(7 % n, n, static_cast<int>(i / kPerGame));
    const std::int64_t v = i % kPerGame;
    ASSERT_OK(store_->Append(Request(a, v, absl::StrCat("c", v), 1)));
  }
  const std::int64_t last = (appends - 1) % kPerGame + 1;  // the last game's version
  EXPECT_THAT(store_->ReadFeed(*head, 10, absl::ZeroDuration()),
              HasErrorCode(kErrFeedPositionExpired));
  EXPECT_THAT(store_->ReadFeed(*head, 10, absl::ZeroDuration()),
              HasStatusCode(absl::StatusCode::kOutOfRange));
  // The last entries are there, from a recent position.
  FeedPosition recent = *head;
  recent.next[7 % n] = head->next[7 % n] + appends - 2;
  absl::StatusOr<std::vector<FeedEntry>> got = store_->ReadFeed(recent, 10, absl::ZeroDuration());
  ASSERT_OK(got);
  EXPECT_THAT(Appends(*got),
              ElementsAre(std::make_tuple(a, last - 1, last - 1), std::make_tuple(a, last, last)));
}

TEST_P(GameStoreContractTest, MalformedFeedPositionsAreRefused) {
  const int n = store_->NumDeadlineShards();
  absl::StatusOr<FeedPosition> head = store_->FeedHead();
  ASSERT_OK(head);
  FeedPosition short_one = *head;
  short_one.next.pop_back();
  EXPECT_THAT(store_->ReadFeed(short_one, 10, absl::ZeroDuration()),
              HasErrorCode(kErrBadFeedPosition));
  FeedPosition negative = *head;
  negative.next[0] = -1;
  EXPECT_THAT(store_->ReadFeed(negative, 10, absl::ZeroDuration()),
              HasErrorCode(kErrBadFeedPosition));
  EXPECT_THAT(store_->ReadFeed(*head, 0, absl::ZeroDuration()), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->ReadFeed(*head, kMaxFeedRead + 1, absl::ZeroDuration()),
              HasErrorCode(kErrBadArgument));
  for (const std::string& token : {std::string(""), std::string("!!"), std::string("AQ"),
                                   EncodeFeedPosition(short_one), std::string("Ag")}) {
    EXPECT_THAT(DecodeFeedPosition(token, n), HasErrorCode(kErrBadFeedPosition)) << token;
  }
}

// --- The games index --------------------------------------------------------------------------

AppendRequest Listed(AppendRequest request, IndexLabels labels, std::string previous = "") {
  request.index = IndexUpdate{std::move(labels), std::move(previous)};
  return request;
}

// Every page of `query` from the first, with the number of pages.
std::vector<IndexedGame> AllPages(GameStore& store, IndexQuery query, int* pages = nullptr) {
  std::vector<IndexedGame> out;
  for (int n = 1;; ++n) {
    absl::StatusOr<IndexPage> page = store.ListIndex(query);
    EXPECT_OK(page);
    if (!page.ok()) return out;
    out.insert(out.end(), page->games.begin(), page->games.end());
    if (pages != nullptr) *pages = n;
    if (page->next_after.empty() || n > 1000) return out;
    query.after = page->next_after;
  }
}

std::vector<std::string> Ids(const std::vector<IndexedGame>& games) {
  std::vector<std::string> out;
  for (const IndexedGame& g : games) out.push_back(g.game_id);
  return out;
}

// The labels are written with the append that carries them, listed by each of them in the order
// of the ids, and left alone by an append that carries none.
TEST_P(GameStoreContractTest, TheIndexListsGamesByTheirLabels) {
  AppendOk(*store_, Listed(Request("g1", 0, "c1"), {.status = "ongoing",
                                                    .event = "e1",
                                                    .round = "1",
                                                    .white_id = "ann",
                                                    .black_id = "bob"}));
  AppendOk(*store_, Listed(Request("g2", 0, "c1"), {.status = "ongoing",
                                                    .event = "e1",
                                                    .round = "2",
                                                    .white_id = "bob",
                                                    .black_id = "cyd"}));
  AppendOk(*store_, Listed(Request("g3", 0, "c1"), {.status = "created",
                                                    .event = "e2",
                                                    .round = "1",
                                                    .white_id = "ann",
                                                    .black_id = "dan"}));
  AppendOk(*store_, Request("g4", 0, "c1"));  // no labels: not listed
  AppendOk(*store_, Request("g1", 1, "c2"));  // a move: the labels stay

  EXPECT_THAT(Ids(AllPages(*store_, {})), ElementsAre("g1", "g2", "g3"));
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "ongoing"})), ElementsAre("g1", "g2"));
  EXPECT_THAT(Ids(AllPages(*store_, {.event = "e1"})), ElementsAre("g1", "g2"));
  EXPECT_THAT(Ids(AllPages(*store_, {.event = "e1", .round = "2"})), ElementsAre("g2"));
  EXPECT_THAT(Ids(AllPages(*store_, {.player = "ann"})), ElementsAre("g1", "g3"));
  EXPECT_THAT(Ids(AllPages(*store_, {.player = "bob"})), ElementsAre("g1", "g2"));  // either side
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "created", .player = "ann"})), ElementsAre("g3"));
  EXPECT_THAT(Ids(AllPages(*store_, {.event = "nope"})), IsEmpty());
  std::vector<IndexedGame> g1 = AllPages(*store_, {.round = "1", .player = "bob"});
  ASSERT_EQ(g1.size(), 1u);
  EXPECT_EQ(g1[0], (IndexedGame{"g1",
                                {.status = "ongoing",
                                 .event = "e1",
                                 .round = "1",
                                 .white_id = "ann",
                                 .black_id = "bob"}}));
}

// A new status moves the game from its previous status's list to the new one's; an archive with
// labels lists it as archived.
TEST_P(GameStoreContractTest, TheIndexFollowsAStatusAndAnArchive) {
  const IndexLabels created{.status = "created", .event = "e1", .white_id = "ann"};
  AppendOk(*store_, Listed(Request("g1", 0, "c1"), created));
  IndexLabels ended = created;
  ended.status = "ended";
  ended.result = "1-0";
  AppendOk(*store_, Listed(Request("g1", 1, "c2"), ended, "created"));
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "created"})), IsEmpty());
  std::vector<IndexedGame> listed = AllPages(*store_, {.status = "ended"});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].labels, ended);

  IndexLabels archived = ended;
  archived.status = "archived";
  ArchiveRequest archive{"g1", 2, "final: 1-0"};
  archive.index = IndexUpdate{archived, "ended"};
  ASSERT_OK(store_->Archive(archive));
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "ended"})), IsEmpty());
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "archived", .event = "e1"})), ElementsAre("g1"));
}

// Pages follow the ids: a game created while a caller pages, before its cursor, is not seen,
// after it is seen once; none is seen twice, none skipped.
TEST_P(GameStoreContractTest, TheIndexPagesWithAStableCursor) {
  std::vector<std::string> ids;
  for (int i = 0; i < 30; ++i) {
    const std::string id = absl::StrCat("g", 100 + 2 * i);
    ids.push_back(id);
    AppendOk(*store_, Listed(Request(id, 0, "c1"), {.status = "ongoing", .event = "e"}));
  }
  int pages = 0;
  EXPECT_THAT(Ids(AllPages(*store_, {.event = "e", .limit = 7}, &pages)),
              ::testing::ElementsAreArray(ids));
  EXPECT_GE(pages, 5);

  IndexQuery q{.event = "e", .limit = 10};
  std::vector<std::string> seen;
  absl::StatusOr<IndexPage> first = store_->ListIndex(q);
  ASSERT_OK(first);
  for (const IndexedGame& g : first->games) seen.push_back(g.game_id);
  ASSERT_FALSE(first->next_after.empty());
  // One before the cursor, one after it; and a listed game changes status.
  AppendOk(*store_, Listed(Request("g101", 0, "c1"), {.status = "ongoing", .event = "e"}));
  AppendOk(*store_, Listed(Request("g155", 0, "c1"), {.status = "ongoing", .event = "e"}));
  AppendOk(*store_, Listed(Request("g140", 1, "c2"), {.status = "ended", .event = "e"}, "ongoing"));
  q.after = first->next_after;
  for (const IndexedGame& g : AllPages(*store_, q)) seen.push_back(g.game_id);
  std::vector<std::string> expected = ids;
  expected.push_back("g155");
  std::sort(expected.begin(), expected.end());
  EXPECT_THAT(seen, ::testing::ElementsAreArray(expected));
}

// A game no append listed (written before the index, or copied by the migration) is listed by the
// backfill, live or archived, and then moves with its appends as any other; a game already listed
// keeps its entry (an append's is never older), so running the backfill again changes nothing.
TEST_P(GameStoreContractTest, TheBackfillListsAGameNoAppendListed) {
  AppendOk(*store_, Request("old", 0, "c1"));  // written before the index: no labels
  AppendOk(*store_, Request("gone", 0, "c1"));
  ASSERT_OK(store_->Archive(ArchiveRequest{"gone", 1, "final: 0-1"}));
  AppendOk(*store_, Listed(Request("new", 0, "c1"), {.status = "ongoing", .event = "e"}));
  EXPECT_THAT(Ids(AllPages(*store_, {})), ElementsAre("new"));

  const IndexLabels ongoing{.status = "ongoing", .event = "e", .white_id = "ann"};
  EXPECT_THAT(store_->BackfillIndex("old", ongoing), IsOkAndHolds(true));
  const IndexLabels archived{.status = "archived", .event = "e", .result = "0-1"};
  EXPECT_THAT(store_->BackfillIndex("gone", archived), IsOkAndHolds(true));
  // Listed already: by the backfill, or by an append (whose labels the backfill's would undo).
  EXPECT_THAT(store_->BackfillIndex("old", {.status = "created", .event = "e"}),
              IsOkAndHolds(false));
  EXPECT_THAT(store_->BackfillIndex("new", {.status = "created", .event = "e"}),
              IsOkAndHolds(false));
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "ongoing", .event = "e"})),
              ElementsAre("new", "old"));
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "created"})), IsEmpty());
  EXPECT_THAT(Ids(AllPages(*store_, {.player = "ann"})), ElementsAre("old"));
  std::vector<IndexedGame> gone = AllPages(*store_, {.status = "archived"});
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0], (IndexedGame{"gone", archived}));

  // From then on its appends move it as they move every listed game.
  IndexLabels ended = ongoing;
  ended.status = "ended";
  ended.result = "1-0";
  AppendOk(*store_, Listed(Request("old", 1, "c2"), ended, "ongoing"));
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "ongoing"})), ElementsAre("new"));
  EXPECT_THAT(Ids(AllPages(*store_, {.status = "ended"})), ElementsAre("old"));

  EXPECT_THAT(store_->BackfillIndex("nosuch", ongoing), HasErrorCode(kErrGameNotFound));
  EXPECT_THAT(store_->BackfillIndex("old", {.event = "e"}), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(store_->BackfillIndex("a b", ongoing), HasErrorCode(kErrBadArgument));
  EXPECT_THAT(Ids(AllPages(*store_, {})), ElementsAre("gone", "new", "old"));
}

TEST_P(GameStoreContractTest, MalformedIndexRequestsAreBadArguments) {
  ExpectBadArguments<IndexQuery>({{"limit 0", {.limit = 0}},
                                  {"limit too large", {.limit = kMaxIndexPage + 1}},
                                  {"bad cursor", {.after = "a b"}},
                                  {"status with a bar", {.status = "a|b"}},
                                  {"long event", {.event = std::string(kMaxLabelLength + 1, 'e')}}},
                                 [&](const IndexQuery& q) { return store_->ListIndex(q); });
  ExpectBadArguments<AppendRequest>(
      {{"no status", Listed(Request("g1", 0, "c1"), {.event = "e"})},
       {"status with a space", Listed(Request("g1", 0, "c1"), {.status = "a b"})},
       {"long round",
        Listed(Request("g1", 0, "c1"),
               {.status = "ongoing", .round = std::string(kMaxLabelLength + 1, 'r')})}},
      [&](const AppendRequest& r) { return store_->Append(r); });
  EXPECT_THAT(store_->ReadSnapshot("g1"), HasErrorCode(kErrGameNotFound));
}

}  // namespace
}  // namespace store::testing
