#include "libs/base/worker_pool.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace base {
namespace {

TEST(WorkerPool, RunsEveryJobOnItsThreads) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(2, 100);
    EXPECT_EQ(pool.threads(), 2);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(pool.Submit([&] { ++ran; }));
  }  // the destructor runs what is queued
  EXPECT_EQ(ran.load(), 50);
}

TEST(WorkerPool, JobsRunOffTheCallersThread) {
  WorkerPool pool(1, 1);
  absl::Notification done;
  std::thread::id where;
  ASSERT_TRUE(pool.Submit([&] {
    where = std::this_thread::get_id();
    done.Notify();
  }));
  done.WaitForNotification();
  EXPECT_NE(where, std::this_thread::get_id());
}

TEST(WorkerPool, RefusesBeyondTheQueueBound) {
  WorkerPool pool(1, 2);
  absl::Notification release, started;
  ASSERT_TRUE(pool.Submit([&] {
    started.Notify();
    release.WaitForNotification();
  }));
  started.WaitForNotification();
  EXPECT_EQ(pool.busy(), 1);
  EXPECT_TRUE(pool.Submit([] {}));
  EXPECT_TRUE(pool.Submit([] {}));
  EXPECT_EQ(pool.queued(), 2);
  EXPECT_FALSE(pool.Submit([] {}));  // one running, two waiting: full
  release.Notify();
  for (int i = 0; i < 200 && (pool.busy() > 0 || pool.queued() > 0); ++i) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(pool.queued(), 0);
  EXPECT_TRUE(pool.Submit([] {}));
}

TEST(WorkerPool, NoQueueStillRunsOnAFreeThread) {
  WorkerPool pool(2, 0);
  absl::Notification a, b;
  EXPECT_TRUE(pool.Submit([&] { a.Notify(); }));
  a.WaitForNotification();
  for (int i = 0; i < 200 && pool.busy() > 0; ++i) absl::SleepFor(absl::Milliseconds(5));
  EXPECT_TRUE(pool.Submit([&] { b.Notify(); }));
  b.WaitForNotification();
}

// Stop runs what is queued and refuses what those jobs submit, on a pool that is still whole: a
// job may call Submit on it while it stops (a scheduler's claim dispatching its checks).
TEST(WorkerPool, StopRunsTheQueuedJobsAndRefusesWhatTheySubmit) {
  WorkerPool pool(1);
  absl::Notification release, started;
  ASSERT_TRUE(pool.Submit([&] {
    started.Notify();
    release.WaitForNotification();
  }));
  started.WaitForNotification();
  std::atomic<int> ran{0};
  std::atomic<int> refused{0};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(pool.Submit([&] {
      ++ran;
      if (!pool.Submit([&] { ++ran; })) ++refused;
    }));
  }
  std::thread stopper([&] { pool.Stop(); });
  for (int i = 0; i < 200 && pool.Submit([] {}); ++i) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_FALSE(pool.Submit([] {}));  // stopping
  release.Notify();
  stopper.join();
  EXPECT_EQ(ran.load(), 3);
  EXPECT_EQ(refused.load(), 3);
  pool.Stop();  // again: nothing to do
}

}  // namespace
}  // namespace base
