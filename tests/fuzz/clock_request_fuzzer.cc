// Fuzz target: the clock authority's request handling in process (services/clock_authority over
// libs/clock_authority). The input is a series of requests, each [kind byte][seconds byte]
// [length byte][serialized bytes]: an even kind is a CreateClockRequest (NewClock, a clock of its
// own), an odd one the command a request asks for, as the ClockEvent the service hands to Decide
// (started, pressed, arrived, paused, resumed, adjusted, set, replaced, flag_claimed; the
// server's own events, created, flag_fell and defaulted, come from no request). Each is decided
// at its instant on a fresh clock (300+2, started on its first command). Every decision's events
// must apply, in order, to the state it was decided on and reach its `after`; the whole log must
// replay (the store rebuilds clocks so).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "libs/clock_authority/clock_commands.h"
#include "libs/clock_authority/clock_game.h"
#include "proto/arbiter/v1/clock.pb.h"
#include "tests/fuzz/request_records.h"

namespace {

namespace v1 = arbiter::v1;
using clock_authority::ClockGame;

struct Clock {
  std::optional<ClockGame> game;
  std::vector<v1::ClockEvent> log;
};

bool Create(const v1::CreateClockRequest& req, std::int64_t now_ms, Clock* clock) {
  absl::StatusOr<v1::ClockCreated> created = clock_authority::NewClock(req, now_ms);
  if (!created.ok()) return false;
  absl::StatusOr<ClockGame> game = ClockGame::Create(*created);
  if (!game.ok()) return false;
  clock->game = *game;
  clock->log.clear();
  *clock->log.emplace_back().mutable_created() = *created;
  return true;
}

Clock Fresh() {
  v1::CreateClockRequest req;
  req.set_game_id("fuzz");
  req.set_time_control("300+2");
  req.set_edition(v1::EDITION_FIDE_2023);
  Clock clock;
  if (!Create(req, 0, &clock)) std::abort();
  return clock;
}

bool FromARequest(const v1::ClockEvent& command) {
  switch (command.event_case()) {
    case v1::ClockEvent::kCreated:
    case v1::ClockEvent::kFlagFell:
    case v1::ClockEvent::kDefaulted:
    case v1::ClockEvent::EVENT_NOT_SET:
      return false;
    default:
      return true;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Clock clock = Fresh();
  const std::int64_t now_ms =
      fuzz::ForEachRecord(data, size, [&](int kind, std::int64_t at_ms, const std::string& bytes) {
        if (kind % 2 == 0) {
          v1::CreateClockRequest req;
          if (req.ParseFromString(bytes)) Create(req, at_ms, &clock);
          return;
        }
        v1::ClockEvent command;
        if (!command.ParseFromString(bytes) || !FromARequest(command)) return;
        absl::StatusOr<clock_authority::Decision> d =
            clock_authority::Decide(*clock.game, command, at_ms);
        if (!d.ok()) return;
        ClockGame applied = *clock.game;
        for (const v1::ClockEvent& e : d->events) {
          if (!applied.Apply(e).ok()) std::abort();
          clock.log.push_back(e);
        }
        if (!d->after.has_value() || d->after->version() != applied.version()) std::abort();
        clock.game = std::move(d->after);
        (void)clock_authority::NextDeadline(*clock.game);
      });
  for (const v1::ClockEvent& e : clock_authority::SettleFlags(*clock.game, now_ms + 3'600'000)) {
    if (!clock.game->Apply(e).ok()) std::abort();
    clock.log.push_back(e);
  }
  absl::StatusOr<ClockGame> replayed = ClockGame::Replay(clock.log);
  if (!replayed.ok() || replayed->version() != clock.game->version()) std::abort();
  return 0;
}
