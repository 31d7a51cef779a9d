// Presses per second through the clock state machine.
//   bazel run //libs/clock:clock_benchmark
#include <cstdint>

#include "benchmark/benchmark.h"
#include "libs/chess/types.h"
#include "libs/clock/clock.h"
#include "libs/clock/time_control.h"

namespace chessclock {
namespace {

Clock StartedClock(absl::string_view human, const ClockOptions& options = {}) {
  Clock clock = *Clock::Create(*ParseHumanTimeControl(human), options);
  (void)clock.Start(0);
  return clock;
}

// Presses `clock` every `step_ms`, reporting `lag_ms` each time.
void PressEvery(benchmark::State& state, Clock clock, std::int64_t step_ms,
                std::int64_t lag_ms = 0) {
  std::int64_t now = 0;
  for (auto _ : state) {
    now += step_ms;
    benchmark::DoNotOptimize(clock.Press(now, lag_ms));
  }
  state.SetItemsProcessed(state.iterations());
}

// A press every 1.234 s; the increment (30 s) keeps both flags up however long it runs.
void BM_PressIncrement(benchmark::State& state) {
  PressEvery(state, StartedClock("40/90+30, 30+30"), 1'234);
}
BENCHMARK(BM_PressIncrement);

void BM_PressSimpleDelay(benchmark::State& state) {
  // The last period repeats: never runs out.
  PressEvery(state, StartedClock("40/120 d5, 20/60 d5"), 4'321);
}
BENCHMARK(BM_PressSimpleDelay);

void BM_PressWithLagCompensation(benchmark::State& state) {
  ClockOptions options;
  options.lag_compensation = true;
  options.lag = {1'000, 3'000, 7'000};
  PressEvery(state, StartedClock("3+2", options), 1'500, /*lag_ms=*/120);
}
BENCHMARK(BM_PressWithLagCompensation);

// The query a flag index needs after every press.
void BM_PressAndDeadline(benchmark::State& state) {
  Clock clock = StartedClock("40/90+30, 30+30");
  std::int64_t now = 0;
  for (auto _ : state) {
    now += 1'234;
    benchmark::DoNotOptimize(clock.Press(now));
    benchmark::DoNotOptimize(clock.Deadline());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PressAndDeadline);

// Copying the whole state (a snapshot) is a memcpy.
void BM_CopyClock(benchmark::State& state) {
  Clock clock = StartedClock("40/90+30, 30+30");
  for (auto _ : state) {
    Clock copy = clock;
    benchmark::DoNotOptimize(copy);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CopyClock);

}  // namespace
}  // namespace chessclock

BENCHMARK_MAIN();
