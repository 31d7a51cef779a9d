// The Redis client's pipelining against a real redis-server (started on a free loopback port):
// concurrent callers share batches, and each gets its own reply, in every lane and batch size.
#include "libs/store/redis_client.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "libs/store/testing/redis_server.h"

namespace store {
namespace {

using testing::RedisServer;

class RedisClientTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisServer>> server = RedisServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }
  RedisConnectionOptions Options() const {
    return {.port = server_->port(), .pool_size = 4, .pipeline_lanes = GetParam(), .max_batch = 8};
  }
  std::unique_ptr<RedisServer> server_;
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

INSTANTIATE_TEST_SUITE_P(Pipelining, RedisClientTest, ::testing::Values(0, 1, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat("Lanes", info.param);
                         });

}  // namespace
}  // namespace store
