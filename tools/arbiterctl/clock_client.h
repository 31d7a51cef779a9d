// arbiterctl's clock commands: call a running clock authority over gRPC
// (proto/arbiter/v1/clock.proto). `clock simulate` is separate and offline (clock_simulate.h).
//
//   arbiterctl [--server=host:port] [--token=JWT] [--tls_ca=PEM ...] clock <command> --game ID ...
//     create  --time-control TC --edition E   TC: PGN tag ("40/5400+30:1800+30", "300+2") or the
//             arbiters' form ("90+30", "G/60 d5"); E: fide1997 | fide2001 | fide2005 | fide2023;
//             [--game-type standard|rapid|blitz] [--default-time-ms N] [--lag-compensation=true]
//             [--event NAME] (the event whose arbiter tokens act on it)
//             [--delay-saved-time carry|discard]
//             [--supervised=false] (2023 rapid and blitz: A.4.5, a flag counts only on a claim;
//             default true, A.3: it counts when it falls)
//     start   [--absent white,black]
//     press   [--color white|black] [--lag-ms N]
//     pause | resume
//     adjust  --side S --delta-ms N [--reason 7.4b|8.1|6.8d|9.5b|10.2b|10.2c|13.4b|13.4c|13.5]
//     set     --white-ms N --black-ms N [--white-moves N] [--black-moves N] [--to-move S]
//     replace --white-ms N --black-ms N
//     arrive  --side S
//     claim   --color S                      (6.9 / B7: S claims the opponent's flag)
//     get                                    the clock now
//     watch   [--after-version N] [--count N] [--until flag]   one line per update
//   Every mutating command takes [--command-id ID] (a retry with the same id is replayed) and
//   [--expected-version N], and prints the clock after it. --json prints JSON: for get and the
//   commands, the fields of `clock simulate` (white_ms, black_ms, running, moves, period,
//   delay_left_ms, flag, speed, status, to_move, deadline_ms, display, flags, both_flags,
//   defaulted, scoresheet_duty_lapsed, flag_checks, lag_quota_ms) plus game_id, version,
//   server_time_ms, edition, time_control, flag_event ({side, fell_at_ms, noticed_at_ms, counts,
//   article, version} or null), recorded_flags, decision, replayed; for watch, one object per
//   update: {version, command_id, event: {type, ...}, clock: {...}}.
// Exit codes: 0 done, 1 a claim refused, 2 an error (gRPC code and stable ERR_ code on stderr, or
// {"error": {...}} with --json).
#ifndef ARBITER_TOOLS_ARBITERCTL_CLOCK_CLIENT_H_
#define ARBITER_TOOLS_ARBITERCTL_CLOCK_CLIENT_H_

#include <iosfwd>
#include <string>

#include "tools/arbiterctl/client.h"

namespace arbiterctl {

// Every flag a clock command reads (besides kConnectionFlags); any other is refused.
// clang-format off
inline constexpr const char* kClockFlags[] = {
    "game", "command-id", "expected-version", "absent", "after-version", "count", "until",
    "black-moves", "black-ms", "color", "default-time-ms", "delay-saved-time", "delta-ms",
    "edition", "event", "game-type", "lag-compensation", "lag-ms", "reason", "side", "supervised",
    "time-control", "time-control-human", "to-move", "white-moves", "white-ms"};
// clang-format on

// args.positional = {"clock", "<command>"}; the flags as parsed (without "--").
int RunClockClient(const ClientArgs& args, std::ostream& out, std::ostream& err);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_CLOCK_CLIENT_H_
