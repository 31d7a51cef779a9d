// A game's clock as an event log (ARCHITECTURE.md, "A game is an event log"): the state the log
// describes, and how each event applies to it. The clock is a pure function of its events:
//
//   ASSIGN_OR_RETURN(ClockGame game, ClockGame::Create(created));  // the log's first event
//   RETURN_IF_ERROR(game.Apply(event));                              // each further one, in order
//   ClockGame::Replay(events);                                       // the same, at once
//
// What a command appends is clock_commands.h's; what is decided, clock_rulings.h's; the store's
// snapshot and the reading, clock_codec.h's.
//
// Flags (6.1, 6.9, B6) are recorded as FlagFell events carrying the instant they fell; whether
// one counts at once is the edition's (laws::FlagRuleFor). Once the clock has decided, Adjust is
// refused (ERR_GAME_DECIDED); Set (6.14) and Replace (6.11) continue the game. Times never go
// backwards: an operation applies no earlier than the clock's last one.
//
// The log of a clock game holds only clock events (the game was created by the clock authority),
// so the i-th event has version i.
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_GAME_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_GAME_H_

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
#include "libs/clock_authority/clock_rulings.h"
#include "libs/clock_authority/errors.h"
#include "libs/laws/edition.h"
#include "libs/laws/ruleset.h"
#include "proto/arbiter/v1/clock.pb.h"

namespace clock_authority {

namespace v1 = arbiter::v1;

// The clock authority's error codes are its errors.h's (ERR_CLOCK_NOT_FOUND, ERR_FLAG_FALLEN, ...).

// INTERNAL ERR_CORRUPT_LOG: a recorded event or snapshot that does not describe a game.
absl::Status CorruptLog(absl::string_view message);

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

// What the log recorded beyond the clock itself; a snapshot restores it (ClockGame::Restored).
struct ClockRecord {
  std::int64_t version = 0;
  std::int64_t last_event_ms = 0;
  std::vector<RecordedFlag> flags;
  std::optional<ClockDecision> decision;
  std::optional<v1::FlagClaimed> last_claim;
  bool default_recorded = false;
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
  // `created` (a game just created) with the clock and the record a snapshot holds, which the
  // codec has checked (FromSnapshot).
  static ClockGame Restored(ClockGame created, chessclock::Clock clock, ClockRecord record);

  // Applies one event at the end of the log. For a recorded event a failure means a corrupt log;
  // Decide uses it to try a command, where a failure is the command's refusal.
  absl::Status Apply(const v1::ClockEvent& event);

  const chessclock::Clock& clock() const { return clock_; }
  const v1::ClockCreated& created() const { return *created_; }
  // The time control as the reading shows it: the PGN tag when expressible, else the arbiters'.
  const std::string& time_control_text() const { return *time_control_text_; }
  laws::Edition edition() const { return edition_; }
  laws::SpeedCategory speed() const { return speed_; }
  // 2023 rapid and blitz: A.3 unless the creation said the event has no adequate supervision.
  bool supervised() const {
    return created_->has_supervised() ? created_->supervised() : laws::kDefaultSupervised;
  }
  FlagRule flag_rule() const { return FlagRuleFor(edition_, speed_, supervised()); }
  // The number of events applied = the game's version in the store.
  std::int64_t version() const { return record_.version; }
  // The latest instant any event carries; later operations are recorded no earlier.
  std::int64_t last_event_ms() const { return record_.last_event_ms; }
  const std::vector<RecordedFlag>& recorded_flags() const { return record_.flags; }
  const std::optional<ClockDecision>& decision() const { return record_.decision; }
  // The latest flag claim, granted or not.
  const std::optional<v1::FlagClaimed>& last_claim() const { return record_.last_claim; }
  // Whether `side`'s flag fell at `fell_at_ms` is in the log.
  bool IsRecorded(chess::Color side, std::int64_t fell_at_ms) const;
  // Whether 6.7 (a default) has been ruled on: it is, at most once per game.
  bool default_recorded() const { return record_.default_recorded; }

 private:
  ClockGame(const v1::ClockCreated& created, chessclock::Clock clock, laws::Edition edition,
            laws::SpeedCategory speed);

  // One function per event kind; each leaves the game as it was when it fails (Apply restores).
  absl::Status ApplyOperation(const v1::ClockEvent& event);
  absl::Status ApplyStarted(const v1::ClockStarted& e);
  absl::Status ApplyPressed(const v1::ClockPressed& e);
  absl::Status ApplyArrived(const v1::PlayerArrived& e);
  absl::Status ApplyResumed(const v1::ClockResumed& e);
  absl::Status ApplyAdjusted(const v1::ClockAdjusted& e);
  absl::Status ApplySet(const v1::ClockSet& e);
  absl::Status ApplyReplaced(const v1::ClockReplaced& e);
  absl::Status ApplyFlagFell(const v1::FlagFell& e);
  absl::Status ApplyDefaulted(const v1::PlayerDefaulted& e);
  absl::Status ApplyFlagClaimed(const v1::FlagClaimed& e);
  // ERR_GAME_DECIDED for an operation that would change a decided game.
  absl::Status RefuseDecided() const;
  // The game is over at `at_ms`: the clock stops there, as the arbiter would stop it (8.5a).
  absl::Status StopClock(std::int64_t at_ms);

  // Shared by the copies a command makes: they never change after the creation.
  std::shared_ptr<const v1::ClockCreated> created_;
  std::shared_ptr<const std::string> time_control_text_;
  chessclock::Clock clock_;
  laws::Edition edition_;
  laws::SpeedCategory speed_;
  ClockRecord record_;
};

// The instant an event carries (its at_ms, or fell_at_ms for a flag).
std::int64_t EventTime(const v1::ClockEvent& event);

// The speed category a creation names: INVALID_ARGUMENT ERR_BAD_ARGUMENT for anything else.
absl::StatusOr<laws::SpeedCategory> SpeedOf(v1::GameType type);

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_GAME_H_
