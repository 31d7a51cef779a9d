#include "libs/arbitration/event_games.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/rulings.h"
#include "libs/base/error.h"
#include "libs/base/sha256.h"
#include "libs/base/status_macros.h"
#include "libs/store/command_ids.h"

namespace arbitration {
namespace {

constexpr int kIndexPage = 500;
// The log read back to find a pause and the event before it.
constexpr std::int64_t kTailEvents = 64;

absl::Status CheckCall(const EventCall& call, bool reason_required) {
  if (call.event.empty()) return base::Error(base::kErrBadArgument, "event is required");
  if (call.command_id.empty()) {
    return base::Error(base::kErrBadArgument,
                       "command_id is required: it makes a retried call apply nothing twice");
  }
  if (reason_required && call.reason.empty()) {
    return base::Error(base::kErrBadArgument, "reason is required (6.13a)");
  }
  return absl::OkStatus();
}

// The pause of the game's last GamePaused, and the instant of the event before it (nullopt when
// the tail read holds no pause).
struct PauseSeen {
  std::int64_t paused_at_ms = 0;
  std::int64_t before_ms = 0;
};
absl::StatusOr<std::optional<PauseSeen>> LastPause(store::EventLog& store,
                                                   absl::string_view game_id,
                                                   std::int64_t version) {
  const std::int64_t from = std::max<std::int64_t>(1, version - kTailEvents + 1);
  ASSIGN_OR_RETURN(std::vector<arbiter::v1::GameEvent> tail,
                   store.ReadEvents(game_id, from, version));
  for (size_t i = tail.size(); i-- > 0;) {
    ASSIGN_OR_RETURN(v1::ArbitrationEvent e, FromStoreEvent(tail[i]));
    if (!e.has_paused()) continue;
    if (i == 0) return std::nullopt;
    ASSIGN_OR_RETURN(v1::ArbitrationEvent prev, FromStoreEvent(tail[i - 1]));
    return PauseSeen{e.at_ms(), prev.at_ms()};
  }
  return std::nullopt;
}

EventGameOutcome OutcomeOf(const std::string& game_id, const absl::StatusOr<CommandResult>& r) {
  EventGameOutcome out{.game_id = game_id};
  if (!r.ok()) {
    out.status = r.status();
    return out;
  }
  out.replayed = r->replayed;
  out.version = r->version;
  return out;
}

absl::StatusOr<CommandResult> Run(GameAuthority& authority, const std::string& game_id,
                                  Command command, const EventCall& call, absl::string_view step) {
  command.actor = call.actor;
  CommandOptions o;
  o.command_id = EventCommandId(call.command_id, step, game_id);
  o.fingerprint = o.command_id;
  return authority.Execute(game_id, command, o);
}

// The record of this call's `step` on game_id when an earlier try of the call applied it.
absl::StatusOr<std::optional<store::AppendResult>> EarlierTry(GameAuthority& authority,
                                                              const std::string& game_id,
                                                              const EventCall& call,
                                                              absl::string_view step) {
  return authority.store()->LookupCommand(
      game_id,
      store::ScopedCommandId(call.actor.subject(), EventCommandId(call.command_id, step, game_id)));
}

}  // namespace

absl::StatusOr<std::vector<store::IndexedGame>> ListAllIndexed(store::EventLog& store,
                                                               store::IndexQuery query) {
  std::vector<store::IndexedGame> out;
  query.after.clear();
  query.limit = kIndexPage;
  while (true) {
    ASSIGN_OR_RETURN(store::IndexPage page, store.ListIndex(query));
    for (store::IndexedGame& g : page.games) out.push_back(std::move(g));
    if (page.next_after.empty()) return out;
    query.after = std::move(page.next_after);
  }
}

std::string EventCommandId(absl::string_view call_command_id, absl::string_view step,
                           absl::string_view game_id) {
  // A digest: the call's id and the game id together may pass the store's id length.
  return absl::StrCat(
      "event-", step, ":",
      base::Sha256Hex(absl::StrCat(call_command_id.size(), ":", call_command_id, game_id))
          .substr(0, 32));
}

absl::StatusOr<std::vector<EventGameOutcome>> PauseEvent(GameAuthority& authority,
                                                         const EventCall& call) {
  RETURN_IF_ERROR(CheckCall(call, /*reason_required=*/true));
  ASSIGN_OR_RETURN(std::vector<store::IndexedGame> games,
                   ListAllIndexed(*authority.store(), {.status = "ongoing", .event = call.event}));
  std::vector<EventGameOutcome> out;
  for (const store::IndexedGame& g : games) {
    // A retry: the games an earlier try paused answer from their record.
    ASSIGN_OR_RETURN(std::optional<store::AppendResult> done,
                     EarlierTry(authority, g.game_id, call, "pause"));
    absl::StatusOr<CommandResult> now = authority.Get(g.game_id);
    if (!done.has_value() && now.ok() && now->game->paused()) continue;  // paused before: not ours
    Command c;
    c.kind = CommandKind::kPause;  // 6.13a
    c.reason = call.reason;
    out.push_back(OutcomeOf(g.game_id, Run(authority, g.game_id, c, call, "pause")));
  }
  return out;
}

absl::StatusOr<std::vector<EventGameOutcome>> ResumeEvent(GameAuthority& authority,
                                                          const EventCall& call) {
  RETURN_IF_ERROR(CheckCall(call, /*reason_required=*/false));
  ASSIGN_OR_RETURN(std::vector<store::IndexedGame> games,
                   ListAllIndexed(*authority.store(), {.status = "ongoing", .event = call.event}));
  std::vector<EventGameOutcome> out;
  for (const store::IndexedGame& g : games) {
    ASSIGN_OR_RETURN(std::optional<store::AppendResult> resumed,
                     EarlierTry(authority, g.game_id, call, "resume"));
    absl::StatusOr<CommandResult> now = authority.Get(g.game_id);
    if (!now.ok()) {
      out.push_back(OutcomeOf(g.game_id, now));
      continue;
    }
    if (!resumed.has_value() && !now->game->paused()) continue;  // running: nothing to resume
    EventGameOutcome outcome{.game_id = g.game_id};
    if (call.outage_started_ms > 0 && now->game->paused()) {
      // 6.13a: the clock that ran in the outage is given back what it lost, up to the pause.
      absl::StatusOr<std::optional<PauseSeen>> pause =
          LastPause(*authority.store(), g.game_id, now->version);
      if (!pause.ok()) {
        out.push_back(OutcomeOf(g.game_id, pause.status()));
        continue;
      }
      if (pause->has_value()) {
        const std::int64_t lost =
            (*pause)->paused_at_ms - std::max(call.outage_started_ms, (*pause)->before_ms);
        if (lost > 0) {
          Command give;
          give.kind = CommandKind::kAdjustTime;
          give.side = now->game->clock().to_move();
          give.delta_ms = lost;
          give.reason = absl::StrCat("6.13a: the time the outage cost given back",
                                     call.reason.empty() ? "" : ": ", call.reason);
          absl::StatusOr<CommandResult> given = Run(authority, g.game_id, give, call, "give-back");
          if (!given.ok()) {
            out.push_back(OutcomeOf(g.game_id, given));
            continue;
          }
          outcome.given_back_ms = lost;
          outcome.given_back_to = give.side;
        }
      }
    }
    Command c;
    c.kind = CommandKind::kResume;  // 6.13
    c.reason = call.reason;
    EventGameOutcome resumed_now =
        OutcomeOf(g.game_id, Run(authority, g.game_id, c, call, "resume"));
    resumed_now.given_back_ms = outcome.given_back_ms;
    resumed_now.given_back_to = outcome.given_back_to;
    out.push_back(std::move(resumed_now));
  }
  return out;
}

}  // namespace arbitration
