// Events and rounds as records of their own (CreateEvent, GetEvent, CreateRound, GetEventResults,
// ExportEventPgn in proto/arbiter/v1/arbitration.proto). An event is the ruleset and regulations
// its games are played under (the Laws leave the default time, 6.7a, the first permitted draw
// offer, 9.1a, an arbiter's presence, 10.2 / Appendix D, and the supervision of rapid and blitz,
// 2023 A.3/A.4 and B.3/B.4, to the regulations of the event), and its rounds with their pairings.
//
// An event is kept in the game store as a log of its own under the reserved id "event:<id>"
// (EventLogId): its first entry is the event (EventView), each later one a round (RoundView), its
// snapshot the event with every round. So the store's atomic, idempotent append, its versions, its
// routing in a cluster and its failover serve events as they serve games; the append writes no
// index label, so an event never shows as a game in ListGames. Game ids in that namespace are
// refused (ERR_RESERVED_GAME_ID).
//
//   ASSIGN_OR_RETURN(EventRecord e, CreateEvent(store, request, actor, now_ms));
//   ASSIGN_OR_RETURN(v1::CreateGameRequest joined, JoinEvent(store, create_game_request));
//   ASSIGN_OR_RETURN(RoundOutcome r, CreateRound(authority, round_request, actor));
#ifndef ARBITER_LIBS_ARBITRATION_EVENT_ROUNDS_H_
#define ARBITER_LIBS_ARBITRATION_EVENT_ROUNDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/store/event_log.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

// The store id of an event's record (kEventLogPrefix, authority.h). An event id has 1 to
// kMaxEventIdLength of the game ids' characters (A-Z a-z 0-9 . _ ~ : -).
inline constexpr int kMaxEventIdLength = 100;
std::string EventLogId(absl::string_view event);

struct EventRecord {
  v1::EventView event;
  bool replayed = false;  // the same event was created before: nothing was written
};

// Creates the event: its ruleset and time control are checked as a game's would be (an unknown
// edition, a bad time control: the codes NewGame gives) and recorded in the form a game records
// them (the time control's canonical tag, the game type derived). The same content again (a
// retry, with or without its command id) is replayed; another content under the same id is
// refused ALREADY_EXISTS ERR_EVENT_EXISTS (or, with the same command id, the store's
// ERR_COMMAND_ID_REUSED). Nothing is written on a refusal.
absl::StatusOr<EventRecord> CreateEvent(store::EventLog& store, const v1::CreateEventRequest& req,
                                        const v1::Actor& actor, std::int64_t now_ms);

// The event and its rounds: NOT_FOUND ERR_EVENT_NOT_FOUND if none was created.
absl::StatusOr<v1::EventView> GetEvent(store::EventLog& store, absl::string_view event);

// A game joins its event: what the request leaves unset (the edition and regulations, the time
// control, the site) is the event's. An explicit ruleset or time control must be the event's
// (compared in recorded form): the event's regulations govern its games, so another one is
// refused FAILED_PRECONDITION ERR_EVENT_RULES_CONFLICT. Pure: `event` as GetEvent gives it.
absl::Status ApplyEvent(const v1::EventView& event, v1::CreateGameRequest& request);
// ApplyEvent with the event `request.event()` names, when one was created; a label that names no
// event leaves the request as it is (games of an event nobody created keep working).
absl::Status JoinEvent(store::EventLog& store, v1::CreateGameRequest& request);

struct RoundOutcome {
  v1::RoundView round;
  bool replayed = false;             // the round was recorded by an earlier try of the call
  std::vector<CommandResult> games;  // each pairing's game, in board order (created or started)
};

// The round: every pairing is checked first (its board and game id once, each player in one game
// and not against himself, the game as CreateGame would check it, no game of that id yet); a bad
// one refuses the whole round naming its board, and nothing is written. Then the round is
// recorded in the event's log (the commit: a retry of the call finds it and creates what is
// missing), each game created under a command id derived from the call's (EventCommandId), and,
// with `start`, started (6.5). The round's scheduled start is each game's (6.6, 6.7 count from
// it). A round number the event has already, under another call: ALREADY_EXISTS ERR_ROUND_EXISTS.
absl::StatusOr<RoundOutcome> CreateRound(GameAuthority& authority,
                                         const v1::CreateRoundRequest& req, const v1::Actor& actor);

// The event's results (a round's, or every round's with round 0): each game's result and both
// players' points (GameState::Points: 11.1 with the event's points, 13.4e/f, 0-0 when both
// lose); a game in play, or whose result awaits the arbiter's review of a flag (6.10), pending.
absl::StatusOr<v1::EventResultsReply> EventResults(GameAuthority& authority,
                                                   absl::string_view event, int round);

// The event's games (a round's, or every round's) as one PGN file in round and board order, each
// game as ExportPgn gives it with `options`. A game archived already is left out (the platform
// holds its record).
absl::StatusOr<std::string> EventPgn(GameAuthority& authority, absl::string_view event, int round,
                                     const PgnExportOptions& options);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_EVENT_ROUNDS_H_
