// arbiterctl's listing of games and an event's games (proto/arbiter/v1/arbitration.proto:
// ListGames, PauseEvent, ResumeEvent), over gRPC:
//
//   arbiterctl games [--status S] [--event ID] [--round R] [--player ID] [--page-size N] [--json]
//   arbiterctl event games --event ID [--status S] [--round R] [--player ID] [--json]
//   arbiterctl event pause --event ID --command-id ID --reason T [--json]        6.13a
//   arbiterctl event resume --event ID --command-id ID [--outage-started-ms N] [--reason T]
//   [--json]
//
// S: created | ongoing | awaiting_ruling | adjourned | flag_under_review | ended | archived.
// The listings follow every page and print, with --json, one JSON array of objects {game, status,
// event, round, white_id, black_id, result}; without it one line a game. pause / resume print,
// with --json, a JSON array of objects {game, ok, code, replayed, version, time_given_back_ms,
// time_given_back_to} (one a game of the event the call acted on). Exit codes: 0, or 2 for a usage
// error or an RPC error (as every client command).
#ifndef ARBITER_TOOLS_ARBITERCTL_LISTING_CMDS_H_
#define ARBITER_TOOLS_ARBITERCTL_LISTING_CMDS_H_

#include <iosfwd>

#include "tools/arbiterctl/args.h"

namespace arbiterctl {

// Every flag `games` and `event` read (besides kConnectionFlags).
inline constexpr const char* kListingFlags[] = {
    "status", "event", "round", "player", "page-size", "command-id", "reason", "outage-started-ms"};

int RunGames(const Args& args, std::ostream& out, std::ostream& err);
int RunEvent(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_LISTING_CMDS_H_
