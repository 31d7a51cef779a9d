// What only the Redis store can show, against a real redis-server each test starts (free loopback
// port, AOF on as in redis.conf): Redis down or killed mid-run gives UNAVAILABLE and never a
// half-written game; after a restart nothing acknowledged is lost and the same store object
// reconnects; a hung server times out; missing functions are a clean error until loaded; every
// key of a game is under one hash tag.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/game_store.h"
#include "libs/store/key_layout.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/testing/redis_fixture.h"
#include "libs/store/testing/redis_server.h"
#include "libs/store/testing/requests.h"

namespace store {
namespace {

using ::base::HasErrorCode;
using ::base::HasStatusCode;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RedisServer;
using testing::Request;

// Every failure case twice: each command on its own connection, and pipelined (the parameter is
// RedisConnectionOptions::pipeline_lanes).
class RedisFailureTest : public testing::WithRedisServer<::testing::TestWithParam<int>> {
 protected:
  void SetUp() override {
    WithRedisServer::SetUp();
    if (HasFatalFailure()) return;
    RedisGameStoreOptions options;
    options.connection = {.port = server_->port(),
                          .connect_timeout = absl::Milliseconds(500),
                          .command_timeout = absl::Seconds(1),
                          .pipeline_lanes = GetParam()};
    absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  std::string Address() const { return absl::StrCat("redis 127.0.0.1:", server_->port()); }

  // AppendAsync, waited for.
  absl::StatusOr<AppendResult> AppendAsync(AppendRequest request) {
    absl::Notification answered;
    absl::StatusOr<AppendResult> out;
    store_->AppendAsync(std::move(request), [&](absl::StatusOr<AppendResult> result) {
      out = std::move(result);
      answered.Notify();
    });
    EXPECT_TRUE(answered.WaitForNotificationWithTimeout(absl::Seconds(10)));
    return out;
  }

  // Every operation fails UNAVAILABLE with ERR_STORE_UNAVAILABLE naming the address, quickly.
  void ExpectAllUnavailable(absl::string_view why) {
    auto check = [&](const absl::Status& s, absl::string_view op) {
      EXPECT_THAT(s, HasStatusCode(absl::StatusCode::kUnavailable)) << op;
      EXPECT_THAT(s, HasErrorCode(kErrStoreUnavailable)) << op;
      EXPECT_THAT(s.message(), HasSubstr(Address())) << op;
      EXPECT_THAT(s.message(), HasSubstr(why)) << op;
    };
    const absl::Time start = absl::Now();
    check(store_->Append(Request("g1", 1, "down")).status(), "Append");
    check(store_->ReadSnapshot("g1").status(), "ReadSnapshot");
    check(store_->ReadEvents("g1", 1, kHead).status(), "ReadEvents");
    check(store_->WaitForEvents("g1", 0, absl::Seconds(5), 10).status(), "WaitForEvents");
    check(store_->WaitForAnyEvents({{"g1", 0}}, absl::Seconds(5), 10).status(), "WaitForAnyEvents");
    check(store_->CountDeadlines(0).status(), "CountDeadlines");
    check(store_->LookupCommand("g1", "c").status(), "LookupCommand");
    check(store_->GetDeadline("g1").status(), "GetDeadline");
    check(store_->ClaimDueDeadlines(0, 0, 10, 10, "r").status(), "ClaimDueDeadlines");
    check(store_->ReleaseDeadline("g1", "r", 0).status(), "ReleaseDeadline");
    check(store_->NowMs().status(), "NowMs");
    check(AppendAsync(Request("g1", 1, "down-async")).status(), "AppendAsync");
    // Refused connections fail at once, not after a timeout.
    EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  }

  std::unique_ptr<RedisGameStore> store_;
};

TEST_P(RedisFailureTest, DownIsUnavailableAndTheSameStoreRecoversWhenItIsBack) {
  ASSERT_OK(store_->Append(Request("g1", 0, "c1")));
  ASSERT_OK(server_->Stop(SIGTERM));
  ExpectAllUnavailable("Connection refused");
  ASSERT_OK(server_->Restart());
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 1);
  // The restarted Redis has the functions again (from its AOF): the store calls them as before.
  absl::StatusOr<AppendResult> next = store_->Append(Request("g1", 1, "c2"));
  ASSERT_OK(next);
  EXPECT_EQ(next->version, 2);
  // The same for an append sent without waiting, after another restart.
  ASSERT_OK(server_->Stop(SIGTERM));
  ASSERT_OK(server_->Restart());
  next = AppendAsync(Request("g1", 2, "c3"));
  ASSERT_OK(next);
  EXPECT_EQ(next->version, 3);
}

TEST_P(RedisFailureTest, AStoreMadeWhileRedisIsDownConnectsLater) {
  ASSERT_OK(server_->Stop(SIGKILL));
  RedisGameStoreOptions options;
  options.connection.port = server_->port();
  options.connection.pipeline_lanes = GetParam();
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  ASSERT_OK(store);
  EXPECT_THAT((*store)->NowMs(), HasErrorCode(kErrStoreUnavailable));
  ASSERT_OK(server_->Restart());
  EXPECT_OK((*store)->NowMs());
  EXPECT_OK((*store)->Append(Request("g1", 0, "c1")));
}

// Writers append 3-event commands to their games while Redis is SIGKILLed and restarted. While
// it is down every call is UNAVAILABLE; a writer retries its pending command with the same id.
// Afterwards every acknowledged command is in the log at its acknowledged versions, every game's
// log is whole commands only, and the snapshot matches the log.
TEST_P(RedisFailureTest, KilledMidRunLosesNothingAcknowledgedAndWritesNoPartialGame) {
  constexpr int kWriters = 4;
  constexpr int kEventsPerCommand = 3;
  struct Acked {
    std::string game;
    std::string command_id;
    AppendResult result;
  };
  absl::Mutex mu;
  std::vector<Acked> acked;
  std::map<std::string, int> errors;  // "code ERR_..." -> count
  std::vector<int> acked_by(kWriters, 0);
  std::vector<int> unavailable_by(kWriters, 0);
  std::atomic<bool> stop = false;

  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const std::string game = absl::StrCat("game-", w);
      std::int64_t version = 0;
      int k = 0;
      AppendRequest pending = Request(game, 0, absl::StrCat(game, "-c", k), kEventsPerCommand);
      while (!stop) {
        absl::StatusOr<AppendResult> r = store_->Append(pending);
        if (r.ok()) {
          absl::MutexLock lock(&mu);
          acked.push_back({game, pending.command_id, *r});
          acked_by[w]++;
          version = r->version;
          ++k;
          pending = Request(game, version, absl::StrCat(game, "-c", k), kEventsPerCommand);
          continue;
        }
        {
          absl::MutexLock lock(&mu);
          errors[absl::StrCat(absl::StatusCodeToString(r.status().code()), " ",
                              base::ErrorCode(r.status()))]++;
          if (r.status().code() == absl::StatusCode::kUnavailable) unavailable_by[w]++;
        }
        absl::SleepFor(absl::Milliseconds(2));  // then retry the same command
      }
    });
  }
  auto wait_for = [&](auto condition, absl::Duration limit) {
    const absl::Time give_up = absl::Now() + limit;
    while (absl::Now() < give_up) {
      {
        absl::MutexLock lock(&mu);
        if (condition()) return true;
      }
      absl::SleepFor(absl::Milliseconds(2));
    }
    return false;
  };
  auto each_writer = [&](const std::vector<int>& counts, int at_least) {
    for (int c : counts) {
      if (c < at_least) return false;
    }
    return true;
  };

  ASSERT_TRUE(wait_for([&] { return each_writer(acked_by, 20); }, absl::Seconds(20)));
  ASSERT_OK(server_->Stop(SIGKILL));
  std::vector<int> acked_before_restart;
  EXPECT_TRUE(wait_for([&] { return each_writer(unavailable_by, 3); }, absl::Seconds(10)));
  {
    absl::MutexLock lock(&mu);
    acked_before_restart = acked_by;
  }
  ASSERT_OK(server_->Restart());
  ASSERT_TRUE(wait_for(
      [&] {
        for (int w = 0; w < kWriters; ++w) {
          if (acked_by[w] < acked_before_restart[w] + 10) return false;
        }
        return true;
      },
      absl::Seconds(20)));
  stop = true;
  for (std::thread& t : writers) t.join();

  int total_unavailable = 0;
  for (int u : unavailable_by) total_unavailable += u;
  std::printf("acknowledged %zu commands (%s before the restart), %d UNAVAILABLE retries\n",
              acked.size(), absl::StrJoin(acked_before_restart, "+").c_str(), total_unavailable);
  // Only UNAVAILABLE was ever reported.
  for (const auto& [error, count] : errors) {
    EXPECT_EQ(error, absl::StrCat("UNAVAILABLE ", kErrStoreUnavailable.code)) << count;
  }
  // Every acknowledged command is there, at its versions.
  std::map<std::string, std::vector<arbiter::v1::GameEvent>> logs;
  for (int w = 0; w < kWriters; ++w) {
    const std::string game = absl::StrCat("game-", w);
    absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_->ReadEvents(game, 1, kHead);
    ASSERT_OK(log);
    logs[game] = *log;
    absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store_->ReadSnapshot(game);
    ASSERT_OK(snapshot);
    EXPECT_EQ(snapshot->version(), static_cast<std::int64_t>(log->size())) << game;
    // Whole commands only: runs of kEventsPerCommand events of one command id, versions 1..n.
    ASSERT_EQ(log->size() % kEventsPerCommand, 0u) << game;
    for (size_t i = 0; i < log->size(); ++i) {
      EXPECT_EQ((*log)[i].version(), static_cast<std::int64_t>(i + 1));
      EXPECT_EQ((*log)[i].command_id(), (*log)[i - i % kEventsPerCommand].command_id());
    }
  }
  for (const Acked& a : acked) {
    const std::vector<arbiter::v1::GameEvent>& log = logs[a.game];
    ASSERT_GE(static_cast<std::int64_t>(log.size()), a.result.version) << a.command_id;
    for (std::int64_t v = a.result.first_version; v <= a.result.version; ++v) {
      EXPECT_EQ(log[v - 1].command_id(), a.command_id) << "version " << v;
    }
    absl::StatusOr<std::optional<AppendResult>> recorded =
        store_->LookupCommand(a.game, a.command_id);
    ASSERT_OK(recorded);
    ASSERT_TRUE(recorded->has_value());
    EXPECT_EQ((*recorded)->version, a.result.version);
  }
}

// A crash can leave the AOF's last write torn. Redis logs a script's effects as one MULTI/EXEC
// block and, at load (aof-load-truncated yes), drops a block cut short whole: the game is at the
// previous append, never between. The torn append was never acknowledged (its fsync had not
// finished), so its retry applies it.
TEST_P(RedisFailureTest, ATornAofTailDropsTheWholeLastAppend) {
  ASSERT_OK(store_->Append(Request("g1", 0, "c1", 3, DeadlineUpdate::Set(100))));
  ASSERT_OK(store_->Append(Request("g1", 3, "c2", 3, DeadlineUpdate::Set(200))));
  ASSERT_OK(server_->Stop(SIGKILL));
  std::string incr;
  for (const auto& f : std::filesystem::directory_iterator(server_->dir() + "/appendonlydir")) {
    if (absl::EndsWith(f.path().string(), ".incr.aof")) incr = f.path().string();
  }
  ASSERT_FALSE(incr.empty());
  const auto size = std::filesystem::file_size(incr);
  std::filesystem::resize_file(incr, size - 10);  // into the EXEC of c2's block
  ASSERT_OK(server_->Restart());
  EXPECT_THAT(server_->LogTail(), HasSubstr("Truncating the AOF"));  // it was torn

  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_->ReadEvents("g1", 1, kHead);
  ASSERT_OK(log);
  EXPECT_EQ(log->size(), 3u);
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 3);
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("g1");
  ASSERT_OK(deadline);
  ASSERT_TRUE(deadline->has_value());
  EXPECT_EQ((*deadline)->deadline_ms, 100);
  absl::StatusOr<std::optional<AppendResult>> c2 = store_->LookupCommand("g1", "c2");
  ASSERT_OK(c2);
  EXPECT_FALSE(c2->has_value());
  absl::StatusOr<AppendResult> retry =
      store_->Append(Request("g1", 3, "c2", 3, DeadlineUpdate::Set(200)));
  ASSERT_OK(retry);
  EXPECT_EQ(*retry, (AppendResult{4, 6, false}));
}

TEST_P(RedisFailureTest, GracefulRestartKeepsEverything) {
  for (int v = 0; v < 10; ++v) {
    ASSERT_OK(
        store_->Append(Request("g1", v, absl::StrCat("c", v), 1, DeadlineUpdate::Set(1000 + v))));
  }
  ASSERT_OK(server_->Stop(SIGTERM));
  ASSERT_OK(server_->Restart());
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_->ReadEvents("g1", 1, kHead);
  ASSERT_OK(log);
  EXPECT_EQ(log->size(), 10u);
  absl::StatusOr<std::optional<Deadline>> deadline = store_->GetDeadline("g1");
  ASSERT_OK(deadline);
  ASSERT_TRUE(deadline->has_value());
  EXPECT_EQ((*deadline)->deadline_ms, 1009);
  EXPECT_EQ((*deadline)->set_at_version, 10);
  absl::StatusOr<AppendResult> retry =
      store_->Append(Request("g1", 4, "c4", 1, DeadlineUpdate::Set(1004)));
  ASSERT_OK(retry);
  EXPECT_EQ(*retry, (AppendResult{5, 5, true}));
}

// A server that accepts but never answers (SIGSTOP): UNAVAILABLE after the command timeout, not a
// hang. The append may still run when the server wakes up; retrying its command id settles it.
TEST_P(RedisFailureTest, HungServerTimesOutAndARetrySettlesTheOutcome) {
  ASSERT_OK(store_->Append(Request("g1", 0, "c1")));
  ASSERT_OK(server_->Pause());
  const absl::Time start = absl::Now();
  absl::StatusOr<AppendResult> hung = store_->Append(Request("g1", 1, "c2"));
  const absl::Duration took = absl::Now() - start;
  EXPECT_THAT(hung, HasErrorCode(kErrStoreUnavailable));
  EXPECT_THAT(hung.status().message(), HasSubstr("no reply within 1s"));
  EXPECT_GE(took, absl::Milliseconds(900));
  EXPECT_LT(took, absl::Seconds(4));
  ASSERT_OK(server_->Resume());
  absl::StatusOr<AppendResult> retry = store_->Append(Request("g1", 1, "c2"));
  ASSERT_OK(retry);
  EXPECT_EQ(retry->version, 2);
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_->ReadEvents("g1", 1, kHead);
  ASSERT_OK(log);
  EXPECT_EQ(log->size(), 2u);
}

TEST_P(RedisFailureTest, AWatcherGetsUnavailableWhenRedisDies) {
  ASSERT_OK(store_->Append(Request("g1", 0, "c1")));
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> watched;
  std::thread watcher([&] { watched = store_->WaitForEvents("g1", 1, absl::Seconds(20), 10); });
  absl::SleepFor(absl::Milliseconds(200));
  const absl::Time killed = absl::Now();
  ASSERT_OK(server_->Stop(SIGKILL));
  watcher.join();
  EXPECT_THAT(watched, HasErrorCode(kErrStoreUnavailable));
  EXPECT_LT(absl::Now() - killed, absl::Seconds(3));
}

// A Redis without the store's functions (no administrator loaded them, or FUNCTION FLUSH): every
// call that needs one is refused with ERR_STORE_FUNCTIONS_MISSING and changes nothing, the check
// at start says so, and once the library is loaded again the same store works.
TEST_P(RedisFailureTest, MissingFunctionsAreACleanErrorUntilLoaded) {
  ASSERT_OK(store_->Append(Request("g1", 0, "c1", 1, DeadlineUpdate::Set(10))));
  EXPECT_OK(store_->CheckFunctions());
  ASSERT_OK(server_->Command({"FUNCTION", "FLUSH"}));
  EXPECT_THAT(store_->CheckFunctions(), HasErrorCode(kErrStoreFunctionsMissing));
  EXPECT_THAT(store_->Append(Request("g1", 1, "c2")), HasErrorCode(kErrStoreFunctionsMissing));
  EXPECT_THAT(AppendAsync(Request("g1", 1, "c2")), HasErrorCode(kErrStoreFunctionsMissing));
  const int shard = DeadlineShard("g1", kDefaultDeadlineShards);
  EXPECT_THAT(store_->ClaimDueDeadlines(shard, 10, 10, 10, "r"),
              HasErrorCode(kErrStoreFunctionsMissing));
  EXPECT_THAT(store_->ReleaseDeadline("g1", "r", 0), HasErrorCode(kErrStoreFunctionsMissing));
  EXPECT_THAT(store_->Archive({"g1", 1, "t"}), HasErrorCode(kErrStoreFunctionsMissing));
  EXPECT_THAT(std::string(store_->Append(Request("g1", 1, "c2")).status().message()),
              HasSubstr("arbiter_v3"));
  // Nothing changed meanwhile; reads need no function.
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store_->ReadSnapshot("g1");
  ASSERT_OK(snapshot);
  EXPECT_EQ(snapshot->version(), 1);
  ASSERT_OK(server_->LoadFunctions());
  EXPECT_OK(store_->CheckFunctions());
  absl::StatusOr<AppendResult> next = store_->Append(Request("g1", 1, "c2"));
  ASSERT_OK(next);
  EXPECT_EQ(next->version, 2);
  absl::StatusOr<std::vector<Deadline>> claimed = store_->ClaimDueDeadlines(shard, 10, 10, 10, "r");
  ASSERT_OK(claimed);
  EXPECT_EQ(claimed->size(), 1u);
  EXPECT_OK(store_->ReleaseDeadline("g1", "r", 0));
}

// The check at start tells a Redis that is down from one without the functions.
TEST_P(RedisFailureTest, CheckFunctionsOfARedisThatIsDownIsUnavailable) {
  ASSERT_OK(server_->Stop(SIGKILL));
  EXPECT_THAT(store_->CheckFunctions(), HasErrorCode(kErrStoreUnavailable));
}

// Redis Cluster runs a script only if all its keys hash to one slot: every key of a game, and its
// shard's deadline index, carry the hash tag {<shard>}.
TEST_P(RedisFailureTest, EveryKeyOfAGameSharesItsShardsHashTag) {
  std::vector<std::string> games = {"g1", "g2", "tournament-7:board-12", "x"};
  for (const std::string& g : games) {
    ASSERT_OK(store_->Append(Request(g, 0, "c1", 1, DeadlineUpdate::Set(5))));
  }
  absl::StatusOr<std::string> keys = server_->Command({"KEYS", "*"});
  ASSERT_OK(keys);
  std::set<std::string> all = absl::StrSplit(*keys, '\n');
  std::set<std::string> expected;
  for (const std::string& g : games) {
    const std::string tag = absl::StrCat(
        "{", ShardHashTag(DeadlineShard(g, kDefaultDeadlineShards), kDefaultDeadlineShards), "}");
    // The command ids are in the log's records (arbiter_v3): no cmd key.
    for (const char* kind : {"game", "log"}) {
      expected.insert(absl::StrCat("arbiter:", tag, ":", kind, ":", g));
    }
    expected.insert(absl::StrCat("arbiter:", tag, ":deadlines"));
    expected.insert(absl::StrCat("arbiter:", tag, ":deadline-info"));
    expected.insert(absl::StrCat("arbiter:", tag, ":feed"));  // the shard's (game_feed.h)
  }
  EXPECT_EQ(all, expected);
  EXPECT_EQ(*server_->Command({"TYPE", store_->Key("log", "g1")}), "stream");
  EXPECT_EQ(*server_->Command({"TYPE", store_->Key("game", "g1")}), "hash");
  EXPECT_EQ(
      *server_->Command(
          {"TYPE", store_->ShardKey("deadlines", DeadlineShard("g1", kDefaultDeadlineShards))}),
      "zset");
}

// The tests run with the shipped settings.
TEST_P(RedisFailureTest, ServerRunsTheShippedPersistenceSettings) {
  EXPECT_EQ(*server_->Command({"CONFIG", "GET", "appendonly"}), "appendonly\nyes");
  EXPECT_EQ(*server_->Command({"CONFIG", "GET", "appendfsync"}), "appendfsync\nalways");
  EXPECT_EQ(*server_->Command({"CONFIG", "GET", "save"}), "save\n");
  EXPECT_EQ(*server_->Command({"CONFIG", "GET", "maxmemory-policy"}),
            "maxmemory-policy\nnoeviction");
  EXPECT_EQ(*server_->Command({"CONFIG", "GET", "bind"}), "bind\n127.0.0.1");
}

// With the deployed ACL (the `default` user off): Redis 7.0 replays the AOF as the `default`
// user and checks each MULTI/EXEC block (a script's effects) against that user's rules. With
// `-@all` it refused every block, so a restart came back without any append (found with the
// Sentinel tests: a restarted node promoted empty). redis-users.acl therefore lets the (disabled,
// unreachable) default user run what the scripts write; this test fails if a script ever writes
// with a command the rules leave out.
TEST(RedisAclRestartTest, ARestartWithTheAclKeepsEveryAppend) {
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start({.acl_password = "acl-restart-password"});
  ASSERT_TRUE(server.ok()) << server.status();
  RedisGameStoreOptions options;
  options.connection.port = (*server)->port();
  options.connection.user = (*server)->store_user().user;
  options.connection.password = (*server)->store_user().password;
  // A feed this short is trimmed (XTRIM) on every append of its shard (redis_functions.lua).
  options.feed_retention = 16;
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  ASSERT_TRUE(store.ok()) << store.status();
  // The feed's trimming: past a node of entries (100) beyond the retention, so that Redis trims
  // and writes the XTRIM into the AOF.
  for (int v = 0; v < 150; ++v) {
    ASSERT_TRUE((*store)->Append(Request("acl-feed", v, absl::StrCat("c", v), 1)).ok()) << v;
  }
  // Every kind of write the scripts make: XADD and HSET (append), ZADD and HSET (set a deadline),
  // ZREM and HDEL (clear it), the claim's and the release's HSET and ZADD, the archive's UNLINK.
  ASSERT_TRUE((*store)->Append(Request("acl-game", 0, "c0", 2, DeadlineUpdate::Set(1000))).ok());
  ASSERT_TRUE((*store)->Append(Request("acl-game", 2, "c1", 1, DeadlineUpdate::Clear())).ok());
  ASSERT_TRUE((*store)->Append(Request("acl-game", 3, "c2", 1, DeadlineUpdate::Set(2000))).ok());
  const int shard = DeadlineShard("acl-game", (*store)->NumDeadlineShards());
  ASSERT_EQ((*store)->ClaimDueDeadlines(shard, 5000, 1000, 10, "me")->size(), 1u);
  ASSERT_TRUE(*(*store)->ReleaseDeadline("acl-game", "me", 7000));
  // And the archive's: UNLINK, ZREM, HDEL and HSET.
  ASSERT_TRUE((*store)->Append(Request("acl-archived", 0, "c0", 1, DeadlineUpdate::Set(1))).ok());
  ASSERT_TRUE((*store)->Archive({"acl-archived", 1, "tombstone"}).ok());
  absl::StatusOr<FeedPosition> feed = (*store)->FeedHead();
  ASSERT_TRUE(feed.ok()) << feed.status();
  ASSERT_TRUE((*server)->Stop(SIGKILL).ok());
  ASSERT_TRUE((*server)->Restart().ok());
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> events =
      (*store)->ReadEvents("acl-game", 1, kHead);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_EQ(events->size(), 4u);
  absl::StatusOr<std::optional<Deadline>> deadline = (*store)->GetDeadline("acl-game");
  ASSERT_TRUE(deadline.ok()) << deadline.status();
  ASSERT_TRUE(deadline->has_value());
  EXPECT_EQ((*deadline)->deadline_ms, 2000);
  EXPECT_EQ((*deadline)->claims, 1);
  EXPECT_EQ(*(*store)->ReadTombstone("acl-archived"), "tombstone");
  EXPECT_THAT((*store)->ReadSnapshot("acl-archived"), HasErrorCode(kErrGameArchived));
  deadline = (*store)->GetDeadline("acl-archived");
  ASSERT_TRUE(deadline.ok()) << deadline.status();
  EXPECT_FALSE(deadline->has_value());
  // The functions came back from the AOF too (the loader's FUNCTION LOAD replayed as the default
  // user): the store writes again after the restart.
  EXPECT_TRUE((*store)->CheckFunctions().ok());
  // The feed is not in the AOF: its numbering goes on past what the restart lost
  // (RedisFeedRestartTest).
  absl::StatusOr<FeedPosition> feed_after = (*store)->FeedHead();
  ASSERT_TRUE(feed_after.ok()) << feed_after.status();
  EXPECT_NE(*feed_after, *feed);
  EXPECT_TRUE((*store)->Append(Request("acl-game", 4, "c3", 1)).ok());
  EXPECT_THAT((*server)->LogTail(), Not(HasSubstr("NOPERM")));
}

// The feed is replicated, not written to the AOF (redis_functions.lua): a replica has every
// entry; a restart from the AOF loses them, and the shard's numbering jumps, so a reader's
// position from before is refused ERR_FEED_POSITION_EXPIRED (it rebuilds from the games), never
// read past entries that are gone; a position taken after the restart reads on.
TEST(RedisFeedRestartTest, TheFeedIsReplicatedAndARestartNeverReadsPastWhatItLost) {
  absl::StatusOr<std::unique_ptr<RedisServer>> master = RedisServer::Start();
  ASSERT_TRUE(master.ok()) << master.status();
  absl::StatusOr<std::unique_ptr<RedisServer>> replica = RedisServer::Start(
      {.extra_args = {"--replicaof", "127.0.0.1", absl::StrCat((*master)->port())}});
  ASSERT_TRUE(replica.ok()) << replica.status();
  RedisGameStoreOptions options;
  options.connection.port = (*master)->port();
  absl::StatusOr<std::unique_ptr<RedisGameStore>> store = RedisGameStore::Create(options);
  ASSERT_TRUE(store.ok()) << store.status();
  RedisGameStore& s = **store;
  const int shard = DeadlineShard("f", s.NumDeadlineShards());
  const std::string feed_key = s.ShardKey("feed", shard);

  absl::StatusOr<FeedPosition> before = s.FeedHead();
  ASSERT_TRUE(before.ok()) << before.status();
  for (int v = 0; v < 3; ++v) ASSERT_TRUE(s.Append(Request("f", v, absl::StrCat("c", v))).ok());
  absl::StatusOr<std::vector<FeedEntry>> read = s.ReadFeed(*before, 10, absl::ZeroDuration());
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].sequence, before->next[shard]);
  FeedPosition seen = *before;
  seen.next[shard] = read->back().sequence + 1;

  // The replica has the entries; the AOF has the log's appends and not one feed entry.
  ASSERT_TRUE((*master)->Command({"WAIT", "1", "5000"}).ok());
  EXPECT_EQ(*(*replica)->Command({"XLEN", feed_key}), "3");
  std::string aof;
  for (const auto& f : std::filesystem::directory_iterator((*master)->dir() + "/appendonlydir")) {
    if (absl::EndsWith(f.path().string(), ".incr.aof")) {
      std::ifstream in(f.path(), std::ios::binary);
      aof.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  EXPECT_TRUE(absl::StrContains(aof, s.Key("log", "f"))) << aof;
  EXPECT_FALSE(absl::StrContains(aof, feed_key)) << aof;

  ASSERT_TRUE((*master)->Stop(SIGKILL).ok());
  ASSERT_TRUE((*master)->Restart().ok());
  // Nothing new yet: nothing to read, nothing misread.
  read = s.ReadFeed(seen, 10, absl::ZeroDuration());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->empty());
  absl::StatusOr<FeedPosition> after = s.FeedHead();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_GT(after->next[shard], seen.next[shard]);
  ASSERT_TRUE(s.Append(Request("f", 3, "c3")).ok());
  for (const FeedPosition& old : {*before, seen}) {
    EXPECT_THAT(s.ReadFeed(old, 10, absl::ZeroDuration()), HasErrorCode(kErrFeedPositionExpired));
  }
  read = s.ReadFeed(*after, 10, absl::ZeroDuration());
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].game_id, "f");
  EXPECT_EQ((*read)[0].version, 4);
  EXPECT_EQ((*read)[0].sequence, after->next[shard]);
}

INSTANTIATE_TEST_SUITE_P(Pipelining, RedisFailureTest, ::testing::Values(0, 4),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param == 0 ? std::string("OneCommandPerRoundTrip")
                                                  : absl::StrCat("Lanes", info.param);
                         });

}  // namespace
}  // namespace store
