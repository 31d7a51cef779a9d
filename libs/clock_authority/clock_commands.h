// The clock's commands: what a command appends to a game's log, decided on its state at an exact
// instant; nothing is written here (the authority appends).
//
//   ASSIGN_OR_RETURN(v1::ClockCreated created, NewClock(create_request, now_ms));
//   ASSIGN_OR_RETURN(ClockGame game, ClockGame::Create(created));
//   v1::ClockEvent press;
//   press.mutable_pressed()->set_side(v1::COLOR_WHITE);
//   ASSIGN_OR_RETURN(Decision d, Decide(game, press, now_ms));  // d.events: [pressed] (or a flag)
//   for (const v1::ClockEvent& e : d.events) RETURN_IF_ERROR(game.Apply(e));
//   NextDeadline(game);                                            // for the store's index
//
// Flags (6.1, 6.9, B6): Decide and SettleFlags record every flag fallen by `now_ms` and not yet
// recorded as a FlagFell event carrying the instant it fell (from the state, not when it was
// noticed). Whether it counts at once is the edition's (laws::FlagRuleFor): in standard play the
// arbiter observes it (6.9) and the clock stops at the fall; in rapid/blitz under the 1997-2005
// appendices it counts only when a player claims it (B6, B7), so the fall is recorded and play
// goes on; both flags down is B8 (or 6.12). Times never go backwards: an operation is recorded no
// earlier than the game's last event.
//
// 6.7 counts from the scheduled start when the creation carries one (ClockCreated
// scheduled_start_ms), else from the start; a player present at a later start counts as arriving
// then.
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_COMMANDS_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_COMMANDS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "libs/clock_authority/clock_game.h"
#include "proto/arbiter/v1/clock.pb.h"

namespace clock_authority {

// The creation event for a CreateClockRequest at `now_ms`: the time control parsed (exactly one
// notation), the edition required, the category and the default time resolved. INVALID_ARGUMENT
// (ERR_BAD_TIME_CONTROL, ERR_BAD_EDITION, ERR_BAD_ARGUMENT, ERR_BAD_OPTIONS) otherwise.
absl::StatusOr<v1::ClockCreated> NewClock(const v1::CreateClockRequest& request,
                                          std::int64_t now_ms);

// What a command appends, and whether the command itself was refused.
struct Decision {
  // The events to append, in order, their times filled in.
  std::vector<v1::ClockEvent> events;
  // OK, or why the command was refused. A refused command may still have events to append: the
  // flags that had fallen before it (e.g. a press after the mover's flag fell, 6.9).
  absl::Status refused;
  // The state after `events`.
  std::optional<ClockGame> after;
};

// The events a command appends at `now_ms` (clamped to the game's last event). The command is the
// event it asks for, without its time: started{absent}, pressed{side?, lag_ms}, arrived{side},
// paused, resumed, adjusted{side, delta_ms, reason}, set{...}, replaced{...},
// flag_claimed{claimant} (the ruling, granted or not, is the event: a refused claim is recorded
// and is not an error). Fails (nothing to append) with the refusal of libs/clock
// (ERR_NOT_YOUR_TURN, ERR_CLOCK_PAUSED, ...) or ERR_GAME_DECIDED, ERR_BAD_ARGUMENT.
absl::StatusOr<Decision> Decide(const ClockGame& game, const v1::ClockEvent& command,
                                std::int64_t now_ms);

// What has happened by `now_ms` without anyone's command, not yet recorded (the flag scheduler's
// check): a FlagFell for every flag fallen, and a PlayerDefaulted once the default time has run
// out on an absent player (6.7), in the order they happened (what follows a decision no longer
// happens: a flag after the default's loss does not fall); `noticed_at_ms` = now_ms.
std::vector<v1::ClockEvent> SettleFlags(const ClockGame& game, std::int64_t now_ms);

// The instant the game's next flag falls, or its default (6.7) comes due, if nothing happens, for
// the store's deadline index: none when the game is decided, or nothing is pending (no clock
// runs or the running side's fall is recorded, and nobody is absent).
std::optional<std::int64_t> NextDeadline(const ClockGame& game);

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_COMMANDS_H_
