// The draining store: Drain waits for the appends in flight to call back, and refuses new ones.
#include "libs/ledger/draining_store.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/errors.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/testing/deferred_store.h"
#include "libs/store/testing/requests.h"

namespace ledger {
namespace {

TEST(DrainingStore, DrainWaitsForTheAppendsInFlightThenRefusesNewOnes) {
  store::MemoryGameStore memory;
  store::testing::DeferredStore deferred(&memory);  // answers when the test flushes it
  DrainingStore appends(&deferred);
  std::atomic<int> answered{0};
  for (const char* game : {"a", "b"}) {
    appends.AppendAsync(store::testing::Request(game, 0, "c1"),
                        [&](absl::StatusOr<store::AppendResult> r) {
                          EXPECT_OK(r);
                          ++answered;
                        });
  }
  EXPECT_EQ(appends.in_flight(), 2);
  absl::Notification drained;
  std::thread drainer([&] {
    appends.Drain();
    drained.Notify();
  });
  EXPECT_FALSE(drained.WaitForNotificationWithTimeout(absl::Milliseconds(100)));
  deferred.Flush();  // the store answers: the callbacks run, then Drain returns
  drainer.join();
  EXPECT_EQ(answered.load(), 2);
  EXPECT_EQ(appends.in_flight(), 0);
  // After the drain an append is refused at once and never reaches the store.
  bool refused = false;
  appends.AppendAsync(store::testing::Request("c", 0, "c1"),
                      [&](absl::StatusOr<store::AppendResult> r) {
                        EXPECT_THAT(r, base::HasErrorCode(store::kErrStoreUnavailable));
                        refused = true;
                      });
  EXPECT_TRUE(refused);
  EXPECT_EQ(deferred.queued(), 0u);
  EXPECT_THAT(memory.ReadSnapshot("c"), base::HasErrorCode(store::kErrGameNotFound));
  appends.Drain();  // again: nothing to wait for
}

}  // namespace
}  // namespace ledger
