// A game's clock as an event log (ARCHITECTURE.md, "A game is an event log"): the clock is a pure
// function of its events and the current time. Two directions, both pure:
//
//   events -> state:   ClockGame::Replay(events), or ClockGame::FromSnapshot(snapshot)
//   command -> events: Decide(game, command, now_ms)  (what to append; nothing is written here)
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
// noticed). Whether it counts at once is the edition's (FlagRuleFor): in standard play the arbiter
// observes it (6.9) and the clock stops at the fall; in rapid/blitz under the 1997-2005 appendices
// it counts only when a player claims it (B6, B7), so the fall is recorded and play goes on; both
// flags down is B8 (or 6.12). Times never go backwards: an operation is recorded no earlier than
// the game's last event.
//
// A counted flag (6.9) or a granted B7 claim is not a win: the clock knows no position, and the
// result follows from 6.10 (the flagged player has lost unless the opponent cannot mate him by any
// series of legal moves; 1997 blitz: C4, the opponent needs mating potential). Its ClockDecision is
// KIND_FLAG_FELL with the flagged side and the rule, and no result; the game rules on it. Both
// flags (B8, 6.12b, 10.3) and a default (6.7) are results by themselves: KIND_RESULT.
//
// 6.7 counts from the scheduled start when the creation carries one (ClockCreated
// scheduled_start_ms), else from the start; a player present at a later start counts as arriving
// then. Once the clock has decided, Adjust is refused (ERR_GAME_DECIDED); Set (6.14) and Replace
// (6.11) continue the game.
//
// The log of a clock game holds only clock events (the game was created by the clock authority),
// so the i-th event has version i.
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_LOG_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_LOG_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/chess/types.h"
#include "libs/clock/clock.h"
#include "libs/clock/time_control.h"
#include "libs/laws/edition.h"
#include "libs/laws/ruleset.h"
#include "proto/arbiter/v1/clock.pb.h"
#include "proto/arbiter/v1/store.pb.h"

namespace clockauth {

namespace v1 = arbiter::v1;

// The schema version of ClockEvent bodies in the store.
inline constexpr std::uint32_t kClockSchemaVersion = 1;
// The schema versions of ClockSnapshot states: 2, the clock's state (written); 1, the list of
// events (still read, by replaying them).
inline constexpr std::uint32_t kClockSnapshotSchemaVersion = 2;
inline constexpr std::uint32_t kClockReplaySnapshotSchemaVersion = 1;

// Stable error codes of the clock authority (beyond libs/clock's).
inline constexpr absl::string_view kErrClockNotFound = "ERR_CLOCK_NOT_FOUND";  // NOT_FOUND
inline constexpr absl::string_view kErrFlagFallen = "ERR_FLAG_FALLEN";         // FAILED_PRECOND.
inline constexpr absl::string_view kErrGameDecided = "ERR_GAME_DECIDED";       // FAILED_PRECOND.
inline constexpr absl::string_view kErrCorruptLog = "ERR_CORRUPT_LOG";         // INTERNAL

// Whether a flag counts when it falls or only on a claim is the edition's: laws::FlagRuleFor.
using laws::FlagRule;
using laws::FlagRuleFor;

struct RecordedFlag {
  chess::Color side;
  std::int64_t fell_at_ms;
  std::int64_t noticed_at_ms;
  bool counts;
  std::string article;
  std::int64_t version;
};

// The state a log describes: the clock, what was recorded about flags, and any decision.
class ClockGame {
 public:
  // A new game from its creation event (validated).
  static absl::StatusOr<ClockGame> Create(const v1::ClockCreated& created);
  // Replays events; the first must be `created`. INTERNAL ERR_CORRUPT_LOG if one does not apply.
  static absl::StatusOr<ClockGame> Replay(absl::Span<const v1::ClockEvent> events);
  static absl::StatusOr<ClockGame> Replay(
      const google::protobuf::RepeatedPtrField<v1::ClockEvent>& events);
  // From a store snapshot whose state is a ClockSnapshot (ERR_CORRUPT_LOG otherwise).
  static absl::StatusOr<ClockGame> FromSnapshot(const v1::GameSnapshot& snapshot);

  // Applies one event at the end of the log. For a recorded event a failure means a corrupt log;
  // Decide uses it to try a command, where a failure is the command's refusal.
  absl::Status Apply(const v1::ClockEvent& event);

  const chessclock::Clock& clock() const { return clock_; }
  const v1::ClockCreated& created() const { return *created_; }
  // The time control as the reading shows it: the PGN tag when expressible, else the arbiters'.
  const std::string& time_control_text() const { return *time_control_text_; }
  laws::Edition edition() const { return edition_; }
  laws::SpeedCategory speed() const { return speed_; }
  FlagRule flag_rule() const { return FlagRuleFor(edition_, speed_); }
  // The number of events applied = the game's version in the store.
  std::int64_t version() const { return version_; }
  // The latest instant any event carries; later operations are recorded no earlier.
  std::int64_t last_event_ms() const { return last_event_ms_; }
  const std::vector<RecordedFlag>& recorded_flags() const { return flags_; }
  const std::optional<v1::ClockDecision>& decision() const { return decision_; }
  // The latest flag claim, granted or not.
  const std::optional<v1::FlagClaimed>& last_claim() const { return last_claim_; }
  // Whether `side`'s flag fell at `fell_at_ms` is in the log.
  bool IsRecorded(chess::Color side, std::int64_t fell_at_ms) const;
  // Whether 6.7 (a default) has been ruled on: it is, at most once per game.
  bool default_recorded() const { return default_recorded_; }

  // The snapshot for the store: the state's ClockSnapshot (schema 2, a fixed size), packed.
  v1::GameSnapshot Snapshot() const;

 private:
  ClockGame(const v1::ClockCreated& created, chessclock::Clock clock, laws::Edition edition,
            laws::SpeedCategory speed);
  absl::Status ApplyOperation(const v1::ClockEvent& event);
  // From a schema 2 ClockSnapshot.
  static absl::StatusOr<ClockGame> FromState(const v1::ClockSnapshot& state);

  // Shared by the copies a command makes: they never change after the creation.
  std::shared_ptr<const v1::ClockCreated> created_;
  std::shared_ptr<const std::string> time_control_text_;
  chessclock::Clock clock_;
  laws::Edition edition_;
  laws::SpeedCategory speed_;
  std::int64_t version_ = 0;
  std::int64_t last_event_ms_ = 0;
  std::vector<RecordedFlag> flags_;
  std::optional<v1::ClockDecision> decision_;
  std::optional<v1::FlagClaimed> last_claim_;
  bool default_recorded_ = false;
};

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

// The clock as it reads at `now_ms` (clamped to the last event), with `game_id` and version.
v1::ClockReading Read(const ClockGame& game, absl::string_view game_id, std::int64_t now_ms);

// The instant an event carries (its at_ms, or fell_at_ms for a flag).
std::int64_t EventTime(const v1::ClockEvent& event);

// Packing for the store.
v1::GameEvent ToGameEvent(const v1::ClockEvent& event, std::int64_t recorded_at_ms);
absl::StatusOr<v1::ClockEvent> FromGameEvent(const v1::GameEvent& event);

}  // namespace clockauth

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_LOG_H_
