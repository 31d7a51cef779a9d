// The clock authority's one codec: everything that crosses into a proto, in both directions. The
// store's records (GameEvent bodies, the snapshot of a game's state), the reading clients see,
// and the clock's decision (rulings answer in laws::Outcome; only here do they become
// v1::ClockDecision). The proto contracts are proto/arbiter/v1/clock.proto's; records written
// before stay readable (schema 1 snapshots, decisions recorded before `kind`).
//
//   request.events.push_back(ToGameEvent(event, now_ms));  request.snapshot = ToSnapshot(after);
//   ASSIGN_OR_RETURN(ClockGame game, FromSnapshot(snapshot));
//   *response.mutable_clock() = Read(game, game_id, now_ms);
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_CODEC_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_CODEC_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/clock_authority/clock_game.h"
#include "libs/clock_authority/clock_rulings.h"
#include "proto/arbiter/v1/clock.pb.h"
#include "proto/arbiter/v1/common.pb.h"
#include "proto/arbiter/v1/store.pb.h"

namespace clock_authority {

// The schema version of ClockEvent bodies in the store.
inline constexpr std::uint32_t kClockSchemaVersion = 1;
// The schema versions of ClockSnapshot states: 2, the clock's state (written); 1, the list of
// events (still read, by replaying them).
inline constexpr std::uint32_t kClockSnapshotSchemaVersion = 2;
inline constexpr std::uint32_t kClockReplaySnapshotSchemaVersion = 1;

// The decision as ClockReading and ClockSnapshot carry it, and back. KIND_FLAG_FELL has no result
// (RESULT_UNSPECIFIED) and names 6.10's article in the outcome; a result names its article once,
// on the decision.
v1::ClockDecision DecisionToProto(const ClockDecision& decision);
ClockDecision DecisionFromProto(const v1::ClockDecision& decision);
// The decision's outcome alone, as a granted FlagClaimed event carries it.
v1::Outcome OutcomeToProto(const ClockDecision& decision);

// The snapshot for the store: the state's ClockSnapshot (schema 2, a fixed size), packed.
v1::GameSnapshot ToSnapshot(const ClockGame& game);
// From a store snapshot whose state is a ClockSnapshot (INTERNAL ERR_CORRUPT_LOG otherwise, or if
// it does not describe a game).
absl::StatusOr<ClockGame> FromSnapshot(const v1::GameSnapshot& snapshot);

// The clock as it reads at `now_ms` (clamped to the last event), with `game_id` and version.
v1::ClockReading Read(const ClockGame& game, absl::string_view game_id, std::int64_t now_ms);

// Packing for the store.
v1::GameEvent ToGameEvent(const v1::ClockEvent& event, std::int64_t recorded_at_ms);
absl::StatusOr<v1::ClockEvent> FromGameEvent(const v1::GameEvent& event);

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_CODEC_H_
