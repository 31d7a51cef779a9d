// The contract of game_store.h as one parameterized test suite, run by every GameStore
// implementation (memory_game_store_test.cc, redis_game_store_test.cc):
//
//   INSTANTIATE_TEST_SUITE_P(Memory, GameStoreContractTest,
//                            ::testing::Values(StoreFactory{"Memory", [] { return ...; }}),
//                            StoreFactoryName);
//
// A factory returns a store with no games for each test. Requests are built with requests.h.
#ifndef ARBITER_LIBS_STORE_TESTING_GAME_STORE_CONTRACT_H_
#define ARBITER_LIBS_STORE_TESTING_GAME_STORE_CONTRACT_H_

#include <functional>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "libs/store/game_store.h"
#include "libs/store/testing/requests.h"

namespace store::testing {

struct StoreFactory {
  std::string name;
  std::function<std::unique_ptr<GameStore>()> make;
};

inline std::string StoreFactoryName(const ::testing::TestParamInfo<StoreFactory>& info) {
  return info.param.name;
}

class GameStoreContractTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override;
  std::unique_ptr<GameStore> store_;
};

}  // namespace store::testing

#endif  // ARBITER_LIBS_STORE_TESTING_GAME_STORE_CONTRACT_H_
