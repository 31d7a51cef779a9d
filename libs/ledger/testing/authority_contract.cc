#include "libs/ledger/testing/authority_contract.h"

#include <future>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "libs/base/error.h"
#include "libs/base/status_matchers.h"
#include "libs/ledger/errors.h"
#include "libs/store/errors.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/testing/redis_cluster.h"
#include "libs/store/testing/redis_fixture.h"
#include "libs/store/testing/redis_server.h"

namespace ledger::testing {
namespace {

using ::base::HasErrorCode;

// One redis-server for the whole binary, started from the main thread (redis_server.h); every
// test gets it empty.
[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new store::testing::RedisEnvironment);

std::unique_ptr<store::GameStore> MemoryStore(TimeSource* time) {
  return std::make_unique<store::MemoryGameStore>(store::MemoryGameStoreOptions{
      .num_deadline_shards = 4, .now_ms = [time] { return time->NowMs(); }});
}

std::unique_ptr<store::GameStore> RedisStore(TimeSource*) {
  store::testing::RedisServer* server = store::testing::RedisEnvironment::server();
  if (server == nullptr) return nullptr;
  absl::StatusOr<std::string> flushed = server->Command({"FLUSHALL"});
  EXPECT_TRUE(flushed.ok()) << flushed.status();
  store::RedisGameStoreOptions options;
  options.connection.port = server->port();
  options.connection.connect_timeout = absl::Seconds(1);
  options.connection.command_timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      store::RedisGameStore::Create(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

// A Redis Cluster (three masters, three replicas), started on first use from the test's main
// thread and kept for the binary; every test gets it empty.
std::unique_ptr<store::GameStore> ClusterStore(TimeSource*) {
  static auto* cluster = new std::unique_ptr<store::testing::RedisCluster>();
  if (*cluster == nullptr) {
    absl::StatusOr<std::unique_ptr<store::testing::RedisCluster>> started =
        store::testing::RedisCluster::Start();
    EXPECT_TRUE(started.ok()) << started.status();
    if (!started.ok()) return nullptr;
    *cluster = std::move(*started);
  }
  for (int i = 0; i < (*cluster)->num_nodes(); ++i) {
    absl::StatusOr<std::string> role = (*cluster)->node(i).Command({"ROLE"});
    if (role.ok() && absl::StartsWith(*role, "master")) {
      EXPECT_TRUE((*cluster)->node(i).Command({"FLUSHALL"}).ok());
    }
  }
  store::RedisGameStoreOptions options;
  options.connection = (*cluster)->ConnectionOptions();
  options.connection.connect_timeout = absl::Seconds(1);
  options.connection.command_timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      store::RedisGameStore::Create(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

CommandOptions Id(const std::string& command_id, const std::string& fingerprint = "") {
  return {.command_id = command_id, .fingerprint = fingerprint};
}

// Runs offloaded work on threads of its own (an I/O lane's callback may not wait on the store),
// joined by the destructor.
class Threads {
 public:
  ~Threads() {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::thread& t : threads_) t.join();
  }
  std::function<void(std::function<void()>)> Offload() {
    return [this](std::function<void()> work) {
      std::lock_guard<std::mutex> lock(mu_);
      threads_.emplace_back(std::move(work));
    };
  }

 private:
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

}  // namespace

std::vector<ContractParam> ContractParams(const std::string& domain, AuthorityMaker authority) {
  return {ContractParam{domain + "OnMemory", MemoryStore, authority},
          ContractParam{domain + "OnRedis", RedisStore, authority}};
}

std::vector<ContractParam> ClusterContractParams(const std::string& domain,
                                                 AuthorityMaker authority) {
  return {ContractParam{domain + "OnRedisCluster", ClusterStore, authority}};
}

void AuthorityContractTest::SetUp() {
  store_ = GetParam().store(&time_);
  ASSERT_NE(store_, nullptr);
  a_ = Replica("a");
}

std::unique_ptr<DomainAuthority> AuthorityContractTest::Replica(const std::string& owner) {
  return GetParam().authority(store_.get(), &time_, owner);
}

void AuthorityContractTest::CreateAndStart(const std::string& game) {
  ASSERT_OK(a_->Create(game, {}).status());
  absl::StatusOr<Outcome> started = a_->Play(game, 0, {});
  ASSERT_OK(started.status());
  ASSERT_EQ(started->version, 2);
}

TEST_P(AuthorityContractTest, EachCommandIsOneAppendOnTheLatestVersion) {
  absl::StatusOr<Outcome> created = a_->Create("g1", Id("c1"));
  ASSERT_OK(created.status());
  EXPECT_EQ(created->version, 1);
  EXPECT_FALSE(created->replayed);
  EXPECT_EQ(created->state_version, 1);
  for (int n = 0; n < 3; ++n) {
    absl::StatusOr<Outcome> r = a_->Play("g1", n, {});
    ASSERT_OK(r.status());
    EXPECT_EQ(r->version, n + 2);
    EXPECT_EQ(r->state_version, n + 2);
  }
  absl::StatusOr<Outcome> now = Replica("b")->Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 4);
}

TEST_P(AuthorityContractTest, ACreationRetriedIsReplayedAndAnotherRefused) {
  ASSERT_OK(a_->Create("g1", Id("c1", "fp")).status());
  absl::StatusOr<Outcome> again = Replica("b")->Create("g1", Id("c1", "fp"));
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->version, 1);
  EXPECT_THAT(a_->Create("g1", Id("c2")), HasErrorCode(store::kErrGameExists));
  EXPECT_THAT(a_->Create("g1", Id("c1", "another")), HasErrorCode(store::kErrCommandIdReused));
}

TEST_P(AuthorityContractTest, ARetryIsAnsweredWithTheOriginalResultAfterTheGameMovedOn) {
  CreateAndStart("g1");
  absl::StatusOr<Outcome> first = a_->Play("g1", 1, Id("m1", "fp"));
  ASSERT_OK(first.status());
  EXPECT_EQ(first->version, 3);
  ASSERT_OK(a_->Play("g1", 2, Id("m2")).status());
  // On this replica and on another one that never saw it.
  std::unique_ptr<DomainAuthority> b = Replica("b");
  for (DomainAuthority* authority : {a_.get(), b.get()}) {
    absl::StatusOr<Outcome> retry = authority->Play("g1", 1, Id("m1", "fp"));
    ASSERT_OK(retry.status());
    EXPECT_TRUE(retry->replayed);
    EXPECT_EQ(retry->version, 3);
    EXPECT_EQ(retry->state_version, 3) << "the state as of the original";
  }
  absl::StatusOr<Outcome> now = a_->Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 4) << "applied once";
}

TEST_P(AuthorityContractTest, ARetryTheLatestStateRefusesIsStillTheStoresToAnswer) {
  CreateAndStart("g1");
  ASSERT_OK(a_->Play("g1", 1, Id("m1", "fp")).status());
  // The same command again is out of turn now: the store's record answers, not the refusal.
  absl::StatusOr<Outcome> retry = a_->Play("g1", 1, Id("m1", "fp"));
  ASSERT_OK(retry.status());
  EXPECT_TRUE(retry->replayed);
  EXPECT_EQ(retry->version, 3);
  // The same id for another request: refused, whatever the state says of the command.
  EXPECT_THAT(a_->Play("g1", 1, Id("m1", "another")), HasErrorCode(store::kErrCommandIdReused));
  absl::StatusOr<Outcome> now = a_->Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 3) << "nothing written";
}

TEST_P(AuthorityContractTest, IdsInTheServersNamespaceAreRefusedBeforeAnythingIsWritten) {
  for (const char* id : {"settle:g1:1", "flag:g1:1", "sys:x", "a:owner:1"}) {
    EXPECT_THAT(a_->Create("g1", Id(id)), HasErrorCode(store::kErrReservedCommandId)) << id;
  }
  EXPECT_FALSE(a_->Get("g1").ok()) << "no game was created";
  CreateAndStart("g1");
  EXPECT_THAT(a_->Play("g1", 1, Id("flag:g1:2")), HasErrorCode(store::kErrReservedCommandId));
  EXPECT_THAT(a_->Play("g1", 1, Id("settle:g1:2")), HasErrorCode(store::kErrReservedCommandId));
  absl::StatusOr<Outcome> now = a_->Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 2);
}

TEST_P(AuthorityContractTest, AnExpectedVersionIsTheOnlyVersionDecidedOn) {
  CreateAndStart("g1");
  CommandOptions stale = Id("m1", "fp");
  stale.expected_version = 1;
  absl::StatusOr<Outcome> r = a_->Play("g1", 1, stale);
  EXPECT_THAT(r, HasErrorCode(store::kErrVersionConflict));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kAborted);
  CommandOptions current = Id("m1", "fp");
  current.expected_version = 2;
  r = a_->Play("g1", 1, current);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->version, 3);
  // Its retry finds the game at 3, not 2: the id is recorded, so it is replayed.
  r = Replica("b")->Play("g1", 1, current);
  ASSERT_OK(r.status());
  EXPECT_TRUE(r->replayed);
  EXPECT_EQ(r->version, 3);
  // Another command at a version that is gone: the conflict, nothing written.
  CommandOptions gone = Id("m2");
  gone.expected_version = 2;
  EXPECT_THAT(a_->Play("g1", 2, gone), HasErrorCode(store::kErrVersionConflict));
  absl::StatusOr<Outcome> now = a_->Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 3);
}

TEST_P(AuthorityContractTest, AStaleCacheLosesTheCompareAndSetAndDecidesAgain) {
  CreateAndStart("g1");  // a_ caches version 2
  std::unique_ptr<DomainAuthority> b = Replica("b");
  absl::StatusOr<Outcome> interjected = b->Interject("g1", {});
  ASSERT_OK(interjected.status());
  EXPECT_EQ(interjected->version, 3);
  // a_ decides on its version 2, loses the append, reads 3 and decides again.
  absl::StatusOr<Outcome> r = a_->Play("g1", 1, Id("m1"));
  ASSERT_OK(r.status());
  EXPECT_EQ(r->version, 4);
  EXPECT_FALSE(r->replayed);
  EXPECT_EQ(a_->conflicts(), 1);
  absl::StatusOr<Outcome> now = b->Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 4);
}

TEST_P(AuthorityContractTest, WhatFellIsAppendedOnceAcrossReplicas) {
  const std::int64_t start = time_.NowMs();
  CreateAndStart("g1");
  std::unique_ptr<DomainAuthority> b = Replica("b");
  ASSERT_OK(b->GetCached("g1").status());  // both replicas hold version 2
  time_.SetMs(start + a_->FirstFlagAfterMs() - 1);
  absl::StatusOr<SettleResult> early = a_->CheckDeadline("g1", 2);
  ASSERT_OK(early.status());
  EXPECT_EQ(early->recorded, 0);
  EXPECT_EQ(early->next_deadline, start + a_->FirstFlagAfterMs());
  time_.SetMs(start + a_->FirstFlagAfterMs() + 1);
  absl::StatusOr<SettleResult> first = a_->CheckDeadline("g1", 2);
  ASSERT_OK(first.status());
  EXPECT_GE(first->recorded, 1);
  EXPECT_FALSE(first->already_recorded);
  // The other replica checks the same version: the store answers its append from the record.
  absl::StatusOr<SettleResult> second = b->CheckDeadline("g1", 2);
  ASSERT_OK(second.status());
  EXPECT_EQ(second->recorded, 0);
  EXPECT_TRUE(second->already_recorded);
  EXPECT_EQ(second->version, first->version);
  absl::StatusOr<SettleResult> again = b->CheckDeadline("g1", 0);
  ASSERT_OK(again.status());
  EXPECT_EQ(again->recorded, 0);
  absl::StatusOr<Outcome> now = a_->Get("g1");
  ASSERT_OK(now.status());
  EXPECT_EQ(now->version, 2 + first->recorded);
}

TEST_P(AuthorityContractTest, TheAsynchronousPathAnswersAsTheSynchronousOne) {
  CreateAndStart("sync");
  CreateAndStart("async");
  Threads threads;
  auto play_async = [&](int n, const CommandOptions& options) {
    std::promise<absl::StatusOr<Outcome>> answer;
    std::future<absl::StatusOr<Outcome>> got = answer.get_future();
    a_->PlayAsync("async", n, options, threads.Offload(),
                  [&answer](absl::StatusOr<Outcome> r) { answer.set_value(std::move(r)); });
    return got.get();
  };
  for (int n = 1; n <= 3; ++n) {
    const CommandOptions options = Id(absl::StrCat("m", n), "fp");
    absl::StatusOr<Outcome> sync = a_->Play("sync", n, options);
    absl::StatusOr<Outcome> async = play_async(n, options);
    ASSERT_OK(sync.status());
    ASSERT_OK(async.status());
    EXPECT_EQ(async->version, sync->version);
    EXPECT_EQ(async->replayed, sync->replayed);
    EXPECT_EQ(async->state_version, sync->state_version);
  }
  // A retry, a reused id and a refusal: the same answers.
  absl::StatusOr<Outcome> retry = play_async(1, Id("m1", "fp"));
  ASSERT_OK(retry.status());
  EXPECT_TRUE(retry->replayed);
  EXPECT_EQ(retry->version, 3);
  EXPECT_THAT(play_async(1, Id("m1", "another")), HasErrorCode(store::kErrCommandIdReused));
  absl::StatusOr<Outcome> refused_sync = a_->Play("sync", 1, {});  // Black is to move
  absl::StatusOr<Outcome> refused_async = play_async(1, {});
  ASSERT_FALSE(refused_sync.ok());
  EXPECT_EQ(base::ErrorCode(refused_async.status()), base::ErrorCode(refused_sync.status()));
  absl::StatusOr<Outcome> sync_now = a_->Get("sync");
  absl::StatusOr<Outcome> async_now = a_->Get("async");
  ASSERT_OK(sync_now.status());
  ASSERT_OK(async_now.status());
  EXPECT_EQ(async_now->version, sync_now->version);
}

TEST_P(AuthorityContractTest, StateAtIsTheStateAsOfThatVersion) {
  CreateAndStart("g1");
  ASSERT_OK(a_->Play("g1", 1, {}).status());
  for (std::int64_t v = 1; v <= 3; ++v) {
    absl::StatusOr<std::int64_t> at = Replica("b")->VersionAt("g1", v);
    ASSERT_OK(at.status());
    EXPECT_EQ(*at, v);
  }
}

TEST_P(AuthorityContractTest, ARetryAfterTheGameWasArchivedIsNotRefusedAsNew) {
  CreateAndStart("g1");
  ASSERT_OK(a_->Play("g1", 1, Id("m1", "fp")).status());
  absl::StatusOr<store::ArchiveResult> archived =
      store_->Archive({.game_id = "g1", .expected_version = 3, .tombstone = "over"});
  ASSERT_OK(archived.status());
  // The command records left with the log: a command with an id cannot be told a retry or not.
  absl::StatusOr<Outcome> retry = a_->Play("g1", 1, Id("m1", "fp"));
  EXPECT_THAT(retry, HasErrorCode(kErrArchivedCommandUnknown));
  EXPECT_EQ(retry.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Replica("b")->Play("g1", 1, Id("m1", "fp")),
              HasErrorCode(kErrArchivedCommandUnknown));
  // Without an id a command is no retry: the game is archived.
  EXPECT_THAT(a_->Play("g1", 2, {}), HasErrorCode(store::kErrGameArchived));
}

}  // namespace ledger::testing
