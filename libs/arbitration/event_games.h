// An event's games as one (PauseEvent, ResumeEvent in proto/arbiter/v1/arbitration.proto): 6.13a
// lets the arbiter interrupt a game; an outage interrupts every game of an event at once, so the
// arbiter pauses them in one audited call, and resumes them giving back the time the outage cost.
// The games come from the store's games index (store::EventLog::ListIndex), each is paused or
// resumed as PauseGame / ResumeGame would, with the arbiter as actor, under a command id derived
// from the call's (EventCommandId), so a retried call applies nothing twice.
#ifndef ARBITER_LIBS_ARBITRATION_EVENT_GAMES_H_
#define ARBITER_LIBS_ARBITRATION_EVENT_GAMES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/arbitration/authority.h"
#include "libs/chess/types.h"
#include "libs/store/game_store.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

// Every game of the index that answers `query` (its filters; its page is ignored), following the
// pages from the first.
absl::StatusOr<std::vector<store::IndexedGame>> ListAllIndexed(store::EventLog& store,
                                                               store::IndexQuery query);

// The command id of the call's step `step` ("pause", "resume", "give-back") on `game_id`: the same
// for every try of the call, within the store's id length whatever the game id's.
std::string EventCommandId(absl::string_view call_command_id, absl::string_view step,
                           absl::string_view game_id);

// What the call did to one game.
struct EventGameOutcome {
  std::string game_id;
  absl::Status status;    // OK, or why this game was not paused / resumed
  bool replayed = false;  // an earlier try of the call did it
  std::int64_t version = 0;
  std::int64_t given_back_ms = 0;  // ResumeEvent: the time the outage cost, given back
  std::optional<chess::Color> given_back_to;
};

struct EventCall {
  std::string event;       // required
  std::string command_id;  // required
  std::string reason;      // PauseEvent: required
  v1::Actor actor;         // the arbiter
  // ResumeEvent: when the outage began (0: give no time back).
  std::int64_t outage_started_ms = 0;
};

// 6.13a: pauses every ongoing game of the event whose clocks run (not paused already).
absl::StatusOr<std::vector<EventGameOutcome>> PauseEvent(GameAuthority& authority,
                                                         const EventCall& call);

// 6.13a: resumes every paused ongoing game of the event (and every game a try of this call paused
// or resumed before, so a retry answers the same games). With outage_started_ms, the player whose
// clock ran when the game was paused gets back the time from the later of the outage's start and
// the game's last recorded event before the pause, up to the pause (never more than his clock ran
// in the outage), as a time adjustment recorded before the resumption.
absl::StatusOr<std::vector<EventGameOutcome>> ResumeEvent(GameAuthority& authority,
                                                          const EventCall& call);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_EVENT_GAMES_H_
