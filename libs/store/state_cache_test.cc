// The replica's cache of latest states: a newer state is never replaced by an older one, and when
// full the least recently used game makes room, never one in play.
#include "libs/store/state_cache.h"

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace store {
namespace {

struct FakeState {
  std::int64_t v;
  std::int64_t version() const { return v; }
};

std::shared_ptr<const FakeState> At(std::int64_t v) {
  return std::make_shared<FakeState>(FakeState{v});
}

TEST(StateCacheTest, KeepsTheNewerStateWhateverTheOrder) {
  StateCache<FakeState> cache(4);
  cache.Remember("g", At(5));
  cache.Remember("g", At(3));  // a slower thread's older state
  ASSERT_NE(cache.Get("g"), nullptr);
  EXPECT_EQ(cache.Get("g")->version(), 5);
  cache.Remember("g", At(6));
  EXPECT_EQ(cache.Get("g")->version(), 6);
  EXPECT_EQ(cache.Get("other"), nullptr);
}

// Games in play are read or written again and again; those played out or abandoned are not. A
// full cache pushes out the latter, however many there are.
TEST(StateCacheTest, AFullCachePushesOutTheLeastRecentlyUsed) {
  constexpr int kCapacity = 100;
  StateCache<FakeState> cache(kCapacity);
  for (int g = 0; g < 10; ++g) cache.Remember(absl::StrCat("live-", g), At(1));
  for (int old = 0; old < 1000; ++old) {
    cache.Remember(absl::StrCat("old-", old), At(1));
    // Every tenth newcomer, the games in play move (a read and a write each).
    if (old % 10 == 0) {
      for (int g = 0; g < 10; ++g) {
        const std::string id = absl::StrCat("live-", g);
        ASSERT_NE(cache.Get(id), nullptr) << id << " pushed out after " << old << " others";
        cache.Remember(id, At(cache.Get(id)->version() + 1));
      }
    }
    ASSERT_LE(cache.size(), static_cast<size_t>(kCapacity));
  }
  EXPECT_EQ(cache.size(), static_cast<size_t>(kCapacity));
  EXPECT_EQ(cache.Get("old-0"), nullptr);  // the oldest went first
  EXPECT_NE(cache.Get("old-999"), nullptr);
}

TEST(StateCacheTest, ForgetDropsTheGameAndItsPlace) {
  StateCache<FakeState> cache(2);
  cache.Remember("a", At(1));
  cache.Remember("b", At(1));
  cache.Forget("a");
  cache.Forget("missing");
  EXPECT_EQ(cache.size(), 1u);
  cache.Remember("c", At(1));  // room without pushing b out
  EXPECT_NE(cache.Get("b"), nullptr);
  EXPECT_NE(cache.Get("c"), nullptr);
  EXPECT_EQ(cache.Get("a"), nullptr);
}

// The tip is read with its state, in one look: a decision made on the state expects that tip even
// when the same version, read again from another master, is cached with another tip meanwhile.
TEST(StateCacheTest, GivesEachStateWithItsOwnTip) {
  StateCache<FakeState> cache(4);
  std::shared_ptr<const FakeState> five = At(5);
  cache.Remember("g", five, "tip-5");
  const StateCache<FakeState>::Known decided_on = cache.GetKnown("g");
  EXPECT_EQ(decided_on.state, five);
  EXPECT_EQ(decided_on.tip, "tip-5");
  cache.Remember("g", At(3), "tip-3");  // older: neither state nor tip replaced
  EXPECT_EQ(cache.GetKnown("g").tip, "tip-5");
  std::shared_ptr<const FakeState> other = At(5);
  cache.Remember("g", other, "tip-5b");  // the same version read again (another master)
  EXPECT_EQ(cache.GetKnown("g").state, other);
  EXPECT_EQ(cache.GetKnown("g").tip, "tip-5b");
  EXPECT_EQ(decided_on.tip, "tip-5");  // what the decision on `five` expects stays its own
  EXPECT_EQ(cache.GetKnown("h").state, nullptr);
  EXPECT_EQ(cache.GetKnown("h").tip, "");
}

TEST(StateCacheTest, AMasterSwitchEmptiesTheCache) {
  StateCache<FakeState> cache(4);
  cache.ObserveMasterEpoch(0);
  cache.Remember("g", At(5), "t");
  cache.ObserveMasterEpoch(0);
  EXPECT_NE(cache.Get("g"), nullptr);
  cache.ObserveMasterEpoch(1);
  EXPECT_EQ(cache.Get("g"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
  cache.Remember("g", At(6));
  cache.ObserveMasterEpoch(1);
  EXPECT_NE(cache.Get("g"), nullptr);
}

}  // namespace
}  // namespace store
