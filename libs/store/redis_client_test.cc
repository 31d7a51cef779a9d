// The Redis client against a real redis-server (started on a free loopback port): concurrent
// callers share batches, and each gets its own reply, in every lane and batch size; the flow
// (CommandAsync) keeps each caller's order and survives a restart and a hung server.
#include "libs/store/redis_client.h"

#include <atomic>
#include <csignal>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/store/testing/redis_fixture.h"
#include "libs/store/testing/redis_server.h"

namespace store {
namespace {

using testing::RedisServer;

class RedisClientTest : public testing::WithRedisServer<::testing::TestWithParam<int>> {
 protected:
  RedisConnectionOptions Options() const {
    return {.port = server_->port(), .pool_size = 4, .pipeline_lanes = GetParam(), .max_batch = 8};
  }
};

TEST_P(RedisClientTest, EveryConcurrentCallerGetsItsOwnReply) {
  RedisClient client(Options());
  constexpr int kThreads = 24;
  constexpr int kEach = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string key = absl::StrCat("k", t);
        absl::StatusOr<RedisReplyPtr> reply = client.Command({"INCR", key});
        if (!reply.ok() || (*reply)->type != REDIS_REPLY_INTEGER || (*reply)->integer != i + 1) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// An error reply answers only its own command; the batch's other commands succeed.
TEST_P(RedisClientTest, AnErrorReplyStaysWithItsCommand) {
  RedisClient client(Options());
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  std::atomic<int> oks{0};
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        absl::StatusOr<RedisReplyPtr> reply =
            t % 2 == 0 ? client.Command({"NO-SUCH-COMMAND"}) : client.Command({"PING"});
        ASSERT_TRUE(reply.ok()) << reply.status();
        if ((*reply)->type == REDIS_REPLY_ERROR) {
          EXPECT_FALSE(client.ReplyStatus(**reply).ok());
          ++errors;
        } else {
          ++oks;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(errors.load(), 800);
  EXPECT_EQ(oks.load(), 800);
}

// Commands sent together: each gets its own reply, in order, an error reply only its own.
TEST_P(RedisClientTest, ABatchAnswersEachCommandInItsOrder) {
  RedisClient client(Options());
  std::vector<absl::StatusOr<RedisReplyPtr>> replies = client.CommandBatch(
      {{"SET", "b", "x"}, {"INCR", "b"}, {"GET", "b"}, {"GET", "no-such-key"}, {"INCR", "n"}});
  ASSERT_EQ(replies.size(), 5u);
  for (const auto& r : replies) ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*replies[0])->type, REDIS_REPLY_STATUS);
  EXPECT_EQ((*replies[1])->type, REDIS_REPLY_ERROR);  // not an integer: this command's alone
  EXPECT_EQ(std::string((*replies[2])->str, (*replies[2])->len), "x");
  EXPECT_EQ((*replies[3])->type, REDIS_REPLY_NIL);
  EXPECT_EQ((*replies[4])->integer, 1);
  EXPECT_TRUE(client.CommandBatch({}).empty());
}

// Redis gone: every queued caller gets UNAVAILABLE, none hangs; back: the same client recovers.
TEST_P(RedisClientTest, DownIsUnavailableForEveryCallerAndRecovers) {
  RedisConnectionOptions o = Options();
  o.connect_timeout = absl::Milliseconds(300);
  o.command_timeout = absl::Milliseconds(500);
  RedisClient client(o);
  ASSERT_TRUE(client.Command({"PING"}).ok());
  ASSERT_TRUE(server_->Stop().ok());
  std::vector<std::thread> threads;
  std::atomic<int> unavailable{0};
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&] {
      absl::StatusOr<RedisReplyPtr> reply = client.Command({"PING"});
      if (reply.status().code() == absl::StatusCode::kUnavailable) ++unavailable;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(unavailable.load(), 12);
  ASSERT_TRUE(server_->Restart().ok());
  absl::StatusOr<RedisReplyPtr> reply = client.Command({"PING"});
  ASSERT_TRUE(reply.ok()) << reply.status();
}

// CommandAsync, waited for.
absl::StatusOr<RedisReplyPtr> Await(RedisClient& client, std::vector<std::string> args) {
  absl::Notification done;
  absl::StatusOr<RedisReplyPtr> out;
  client.CommandAsync(std::move(args), [&](absl::StatusOr<RedisReplyPtr> reply) {
    out = std::move(reply);
    done.Notify();
  });
  done.WaitForNotification();
  return out;
}

// Waits (a few seconds at most) until the client's async commands go on its flow.
bool AwaitFlow(RedisClient& client) {
  for (int i = 0; i < 500 && !client.flow_ready(); ++i) absl::SleepFor(absl::Milliseconds(10));
  return client.flow_ready();
}

// A client with short timeouts whose async commands already go on its flow; null if the flow
// did not connect.
std::unique_ptr<RedisClient> FlowingClient(RedisConnectionOptions o,
                                           absl::Duration command_timeout) {
  o.connect_timeout = absl::Milliseconds(300);
  o.command_timeout = command_timeout;
  auto client = std::make_unique<RedisClient>(o);
  if (!Await(*client, {"PING"}).ok() || !AwaitFlow(*client)) return nullptr;
  return client;
}

// The flow (CommandAsync with lanes): commands written as they come on one connection, replies
// read by one thread. Each caller's commands keep their order and each gets its own reply, an
// error reply included.
TEST_P(RedisClientTest, AsyncCommandsOnTheFlowEachGetTheirOwnReplyInOrder) {
  if (GetParam() == 0) GTEST_SKIP() << "no lanes: CommandAsync runs on the caller's thread";
  RedisClient client(Options());
  ASSERT_TRUE(Await(client, {"PING"}).ok());
  ASSERT_TRUE(AwaitFlow(client));
  constexpr int kThreads = 8;
  constexpr int kEach = 400;
  std::atomic<int> wrong{0};
  std::atomic<int> errors{0};
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if (i % 50 == 7) {
          client.CommandAsync({"NO-SUCH-COMMAND"}, [&](absl::StatusOr<RedisReplyPtr> reply) {
            if (reply.ok() && (*reply)->type == REDIS_REPLY_ERROR) ++errors;
            ++answered;
          });
        }
        client.CommandAsync({"INCR", absl::StrCat("flow", t)},
                            [&, i](absl::StatusOr<RedisReplyPtr> reply) {
                              if (!reply.ok() || (*reply)->type != REDIS_REPLY_INTEGER ||
                                  (*reply)->integer != i + 1) {
                                ++wrong;
                              }
                              ++answered;
                            });
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const int expected = kThreads * (kEach + kEach / 50);
  for (int i = 0; i < 500 && answered.load() < expected; ++i)
    absl::SleepFor(absl::Milliseconds(10));
  EXPECT_EQ(answered.load(), expected);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(errors.load(), kThreads * kEach / 50);
  EXPECT_TRUE(client.flow_ready());
}

// Redis killed under the flow: what was in flight is handed to the lanes (which find Redis gone:
// UNAVAILABLE), nothing hangs; Redis back: the flow reconnects by itself and carries commands.
TEST_P(RedisClientTest, TheFlowSurvivesARestart) {
  if (GetParam() == 0) GTEST_SKIP() << "no lanes: no flow";
  std::unique_ptr<RedisClient> flowing = FlowingClient(Options(), absl::Milliseconds(500));
  ASSERT_NE(flowing, nullptr);
  RedisClient& client = *flowing;
  ASSERT_TRUE(server_->Stop(SIGKILL).ok());
  for (int i = 0; i < 20; ++i) {
    absl::StatusOr<RedisReplyPtr> reply = Await(client, {"PING"});
    EXPECT_EQ(reply.status().code(), absl::StatusCode::kUnavailable) << reply.status();
  }
  ASSERT_TRUE(server_->Restart().ok());
  ASSERT_TRUE(AwaitFlow(client));
  absl::StatusOr<RedisReplyPtr> reply = Await(client, {"INCR", "after-restart"});
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ((*reply)->integer, 1);
}

// A hung Redis (SIGSTOP): a command on the flow fails with UNAVAILABLE after about the command
// timeout, as on the lanes, and is not sent again behind the caller's back; after SIGCONT the
// flow carries commands again.
TEST_P(RedisClientTest, AHungServerTimesOutOnTheFlow) {
  if (GetParam() == 0) GTEST_SKIP() << "no lanes: no flow";
  std::unique_ptr<RedisClient> flowing = FlowingClient(Options(), absl::Milliseconds(300));
  ASSERT_NE(flowing, nullptr);
  RedisClient& client = *flowing;
  ASSERT_TRUE(server_->Pause().ok());
  const absl::Time start = absl::Now();
  absl::StatusOr<RedisReplyPtr> reply = Await(client, {"INCR", "hung"});
  const absl::Duration waited = absl::Now() - start;
  ASSERT_TRUE(server_->Resume().ok());
  EXPECT_EQ(reply.status().code(), absl::StatusCode::kUnavailable) << reply.status();
  EXPECT_GE(waited, absl::Milliseconds(250));
  EXPECT_LT(waited, absl::Seconds(3));
  ASSERT_TRUE(AwaitFlow(client));
  reply = Await(client, {"INCR", "hung"});
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ((*reply)->integer, 2);  // the timed-out INCR ran once, when Redis woke; not twice
}

INSTANTIATE_TEST_SUITE_P(Pipelining, RedisClientTest, ::testing::Values(0, 1, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat("Lanes", info.param);
                         });

}  // namespace
}  // namespace store
