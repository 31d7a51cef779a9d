// arbiterctl's events and rounds (proto/arbiter/v1/arbitration.proto: CreateEvent, GetEvent,
// CreateRound, GetEventResults, ExportEventPgn), over gRPC:
//
//   arbiterctl event create --event ID --edition E --time-control TC [--name N] [--site S]
//       [--default-time S | --default-time-ms N] [--first-draw-offer N] [--no-arbiter]
//       [--unsupervised] [--command-id ID] [--json]
//   arbiterctl event get --event ID [--json]
//   arbiterctl event round --event ID --round N --pairings FILE|JSON [--scheduled-start-ms N]
//       [--start] --command-id ID [--json]
//   arbiterctl event results --event ID [--round N] [--json]
//   arbiterctl event pgn --event ID [--round N]
//
// --default-time: 6.7a's default time in seconds (--default-time-ms in ms); --first-draw-offer:
// no draw offers before this move (9.1a); --no-arbiter: Appendix D instead of 10.2;
// --unsupervised: 2023 A.4/B.4. --pairings: a JSON array (inline, or a file holding it) of
// objects {"board": N, "game": ID, "white": ID, "white_name": N, "black": ID, "black_name": N}
// (board and game optional: the pairing's place, "<event>.r<round>.b<board>").
// --json prints the reply in the protobuf JSON mapping (the HTTP/JSON gateway's): create and get
// an EventReply, round a RoundReply, results an EventResultsReply; without it, lines. pgn prints
// the PGN file. Exit codes: 0, or 2 for a usage error or an RPC error (as every client command).
#ifndef ARBITER_TOOLS_ARBITERCTL_EVENT_CMDS_H_
#define ARBITER_TOOLS_ARBITERCTL_EVENT_CMDS_H_

#include <iosfwd>

#include "tools/arbiterctl/args.h"

namespace arbiterctl {

// Every flag the event's records read (besides kConnectionFlags and kListingFlags).
inline constexpr const char* kEventFlags[] = {"edition",
                                              "time-control",
                                              "name",
                                              "site",
                                              "default-time",
                                              "default-time-ms",
                                              "first-draw-offer",
                                              "no-arbiter",
                                              "unsupervised",
                                              "pairings",
                                              "scheduled-start-ms",
                                              "start"};
// The boolean ones.
inline constexpr const char* kEventBooleanFlags[] = {"start"};

// `event create|get|round|results|pgn`; false when `args` names another subcommand.
bool IsEventRecordCommand(const Args& args);
int RunEventRecord(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_EVENT_CMDS_H_
