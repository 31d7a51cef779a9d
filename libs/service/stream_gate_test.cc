#include "libs/service/stream_gate.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"

namespace service {
namespace {

using ::base::HasErrorCode;

constexpr char kWatch[] = "/grpc.health.v1.Health/Watch";
constexpr char kWatchGame[] = "/arbiter.v1.Arbitration/WatchGame";

TEST(StreamGateTest, UnauthenticatedStreamsHaveACapOfTheirOwn) {
  prometheus::Registry registry;
  StreamGate gate(/*max_streams=*/5, /*max_unauthenticated_streams=*/2, registry);
  std::vector<StreamGate::Slot> slots;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<StreamGate::Slot> slot = gate.Open(kWatch, false);
    ASSERT_TRUE(slot.ok()) << slot.status();
    slots.push_back(*std::move(slot));
  }
  EXPECT_THAT(gate.Open(kWatch, false).status(), HasErrorCode("ERR_TOO_MANY_STREAMS"));
  EXPECT_EQ(gate.Open(kWatch, false).status().code(), absl::StatusCode::kResourceExhausted);
  // Authenticated streams still fit, up to the cap in all.
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<StreamGate::Slot> slot = gate.Open(kWatchGame, true);
    ASSERT_TRUE(slot.ok()) << slot.status();
    slots.push_back(*std::move(slot));
  }
  EXPECT_EQ(gate.open(), 5);
  EXPECT_THAT(gate.Open(kWatchGame, true).status(), HasErrorCode("ERR_TOO_MANY_STREAMS"));
  // A slot released gives its place back.
  slots.erase(slots.begin());
  EXPECT_EQ(gate.open(), 4);
  EXPECT_EQ(gate.open_unauthenticated(), 1);
  EXPECT_TRUE(gate.Open(kWatch, false).ok());  // released at once: the temporary's slot
  EXPECT_EQ(gate.open(), 4);
}

TEST(StreamGateTest, ZeroTurnsACapOff) {
  prometheus::Registry registry;
  StreamGate gate(0, 0, registry);
  std::vector<StreamGate::Slot> slots;
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<StreamGate::Slot> slot = gate.Open(kWatch, false);
    ASSERT_TRUE(slot.ok());
    slots.push_back(*std::move(slot));
  }
  EXPECT_EQ(gate.open_unauthenticated(), 100);
}

TEST(StreamGateTest, MovedSlotsCountOnce) {
  prometheus::Registry registry;
  StreamGate gate(1, 1, registry);
  {
    StreamGate::Slot a = *gate.Open(kWatch, false);
    StreamGate::Slot b = std::move(a);
    StreamGate::Slot c;
    c = std::move(b);
    EXPECT_EQ(gate.open(), 1);
  }
  EXPECT_EQ(gate.open(), 0);
}

}  // namespace
}  // namespace service
