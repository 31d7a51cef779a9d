#include "libs/clock_authority/authority.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/clock_authority/clock_codec.h"

namespace clock_authority {

absl::Status ClockNotFound(absl::string_view game_id) {
  return base::NotFound(kErrClockNotFound, absl::StrCat("no clock for game \"", game_id, "\""));
}

absl::string_view ClockDomain::KindOf(const v1::ClockEvent& command) const {
  return ClockAuthority::KindOf(command);
}

absl::StatusOr<Decision> ClockDomain::Decide(absl::string_view, const ClockGame& game,
                                             const v1::ClockEvent& command,
                                             std::int64_t now_ms) const {
  absl::StatusOr<Decision> decision = clock_authority::Decide(game, command, now_ms);
  if (decision.ok()) return decision;
  Decision refused;
  refused.refused = decision.status();
  return refused;
}

absl::StatusOr<std::vector<v1::ClockEvent>> ClockDomain::Settle(absl::string_view,
                                                                const ClockGame& game,
                                                                std::int64_t now_ms) const {
  return SettleFlags(game, now_ms);
}

std::optional<std::int64_t> ClockDomain::NextDeadline(const ClockGame& game) const {
  return clock_authority::NextDeadline(game);
}

v1::GameEvent ClockDomain::ToStoreEvent(const v1::ClockEvent& event,
                                        std::int64_t recorded_at_ms) const {
  return ToGameEvent(event, recorded_at_ms);
}

absl::StatusOr<v1::ClockEvent> ClockDomain::FromStoreEvent(const v1::GameEvent& event) const {
  return FromGameEvent(event);
}

v1::GameSnapshot ClockDomain::ToStoreSnapshot(const ClockGame& game) const {
  return ToSnapshot(game);
}

absl::StatusOr<ClockGame> ClockDomain::FromStore(store::EventLog&, absl::string_view,
                                                 const v1::GameSnapshot& snapshot) const {
  return FromSnapshot(snapshot);
}

absl::StatusOr<ClockGame> ClockDomain::Replay(std::vector<v1::ClockEvent> events) const {
  return ClockGame::Replay(events);
}

absl::Status ClockDomain::StoreError(absl::Status status, absl::string_view game_id) const {
  if (base::ErrorCode(status) == store::kErrGameNotFound) return ClockNotFound(game_id);
  return status;
}

class ClockAuthority::Notifier final : public ledger::AuthorityObserver<ClockGame, v1::ClockEvent> {
 public:
  explicit Notifier(clock_authority::AuthorityObserver* observer) : observer_(observer) {}
  void OnCommand(absl::string_view kind, const absl::Status& status) override {
    observer_->OnCommand(kind, status);
  }
  void OnAppended(absl::string_view game_id, const ClockGame& after,
                  const std::vector<v1::ClockEvent>& events,
                  std::optional<std::int64_t> deadline) override {
    observer_->OnAppended(game_id, after, deadline);
    // Flags (and a default) recorded before a command (B6: play goes on) or after it (a setting
    // to zero), or by a check.
    for (const v1::ClockEvent& e : events) {
      if (e.has_flag_fell()) observer_->OnFlagRecorded(game_id, e.flag_fell());
      if (e.has_defaulted()) observer_->OnDefaultRecorded(game_id, e.defaulted());
    }
  }
  void OnConflict() override { observer_->OnConflict(); }
  void OnLoaded(absl::string_view game_id, const ClockGame& game) override {
    observer_->OnLoaded(game_id, game);
  }

 private:
  clock_authority::AuthorityObserver* const observer_;
};

ClockAuthority::ClockAuthority(store::GameStore* store, TimeSource* time, AuthorityOptions options)
    : engine_(store, time, ClockDomain{},
              {.owner = options.owner,
               .max_attempts = options.max_attempts,
               .cache_size = options.cache_size,
               .snapshot_every = options.snapshot_every,
               .deadline_bounds = options.deadline_bounds}) {}

ClockAuthority::~ClockAuthority() = default;

void ClockAuthority::AddObserver(AuthorityObserver* observer) {
  notifiers_.push_back(std::make_unique<Notifier>(observer));
  engine_.AddObserver(notifiers_.back().get());
}

absl::string_view ClockAuthority::KindOf(const v1::ClockEvent& command) {
  switch (command.event_case()) {
    case v1::ClockEvent::kCreated:
      return "create";
    case v1::ClockEvent::kStarted:
      return "start";
    case v1::ClockEvent::kPressed:
      return "press";
    case v1::ClockEvent::kArrived:
      return "arrive";
    case v1::ClockEvent::kPaused:
      return "pause";
    case v1::ClockEvent::kResumed:
      return "resume";
    case v1::ClockEvent::kAdjusted:
      return "adjust";
    case v1::ClockEvent::kSet:
      return "set";
    case v1::ClockEvent::kReplaced:
      return "replace";
    case v1::ClockEvent::kFlagFell:
      return "flag";
    case v1::ClockEvent::kFlagClaimed:
      return "claim";
    case v1::ClockEvent::kDefaulted:
      return "default";
    case v1::ClockEvent::EVENT_NOT_SET:
      break;
  }
  return "unknown";
}

absl::StatusOr<CommandResult> ClockAuthority::Create(absl::string_view game_id,
                                                     const v1::CreateClockRequest& request,
                                                     const CommandOptions& options) {
  return engine_.Create(
      game_id, Identity(options),
      [&](std::int64_t now) -> absl::StatusOr<std::pair<v1::ClockEvent, ClockGame>> {
        ASSIGN_OR_RETURN(v1::ClockCreated created, NewClock(request, now));
        ASSIGN_OR_RETURN(ClockGame game, ClockGame::Create(created));
        v1::ClockEvent event;
        *event.mutable_created() = std::move(created);
        *event.mutable_actor() = options.actor;
        return std::make_pair(std::move(event), std::move(game));
      });
}

}  // namespace clock_authority
