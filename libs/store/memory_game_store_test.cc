// The contract suite (testing/game_store_contract.cc) on the in-memory store, plus what only it
// has: an injected clock.
#include "libs/store/memory_game_store.h"

#include <memory>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/store/testing/game_store_contract.h"

namespace store {
namespace {

using testing::GameStoreContractTest;
using testing::StoreFactory;

INSTANTIATE_TEST_SUITE_P(Memory, GameStoreContractTest,
                         ::testing::Values(StoreFactory{
                             "Memory", [] { return std::make_unique<MemoryGameStore>(); }}),
                         testing::StoreFactoryName);

// Fewer shards than the contract's default: every shard index the suite uses wraps around.
INSTANTIATE_TEST_SUITE_P(MemoryTwoShards, GameStoreContractTest,
                         ::testing::Values(StoreFactory{"MemoryTwoShards",
                                                        [] {
                                                          return std::make_unique<MemoryGameStore>(
                                                              MemoryGameStoreOptions{
                                                                  .num_deadline_shards = 2});
                                                        }}),
                         testing::StoreFactoryName);

TEST(MemoryGameStoreTest, NowMsReadsTheInjectedClock) {
  std::int64_t now = 42;
  MemoryGameStore store({.now_ms = [&] { return now; }});
  EXPECT_EQ(*store.NowMs(), 42);
  now = 1'000;
  EXPECT_EQ(*store.NowMs(), 1'000);
  EXPECT_EQ(store.NumDeadlineShards(), kDefaultDeadlineShards);
}

}  // namespace
}  // namespace store
