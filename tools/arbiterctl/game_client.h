// arbiterctl's game commands: call a running arbitration service over gRPC
// (proto/arbiter/v1/arbitration.proto). `game simulate` is separate and offline (game_simulate.h).
//
//   arbiterctl [--server=host:port] [--token=JWT] [--tls_ca=PEM ...] game <command> --game ID ...
//     create   --white ID --black ID --edition E --time-control TC
//              E: fide1997 | fide2001 | fide2005 | fide2023; TC: PGN tag ("5400+30") or the
//              arbiters' form ("40/90, 30"); [--no-arbiter] (Appendix D instead of 10.2)
//              [--start-fen FEN] [--scheduled-start-ms N] [--default-time-ms N] (6.7)
//              [--no-draw-offers-before-move N] [--max-draw-offers N] (12.5)
//              [--lag-compensation] [--broadcast-delay-plies N] [--broadcast-delay-ms N]
//              [--unsupervised] (2023 rapid and blitz: A.4.5, a flag counts only on a claim;
//              without it A.3, a flag counts when it falls)
//              [--event T] [--site T] [--round T] [--white-name T] [--black-name T]
//     start    [--absent white,black]                       6.5, 6.6
//     arrive   --side S                                     6.6
//     move     --side S --move M [--offer-draw] [--lag-ms N]  M: SAN (English or German) or UCI
//     offer    --side S                                     9.1, outside a move
//     respond  --side S --accept | --decline                9.1
//     claim    --side S --kind threefold|fifty|quickplay|time [--move M] (9.2a / 9.3a)
//              [--ground cannot_win|no_attempt] (D1)
//     rule     --decision draw|postpone|reject [--add-time] [--reason T]   10.2 (the arbiter)
//     resign   --side S                                     5.1b
//     confirm  --side S                                     8.7
//     result   --result 1-0|0-1|1/2-1/2|0-0 --article A --reason T   (the arbiter)
//     get                                                   the game now
//     watch    [--after-version N] [--count N]              one line per event, until the end
//     pgn                                                   the record as PGN
//   Every mutating command takes [--command-id ID] (a retry with the same id is replayed) and
//   [--expected-version N], and prints the game after it. --json prints JSON: the game as
//   {game_id, version, status, result, termination, article, winner, fen, moves, to_move,
//   white_ms, black_ms, clock_running, draw_offer, pending_claim, white_confirmed,
//   black_confirmed, white_points, black_points, edition, game_type, white_id, black_id, now_ms,
//   review, deadline_ms, replayed, claim_ruling, and draw_offer_refused: the ERR_ code when the
//   regulations refused the move's draw offer, 9.1a}, with the names of `game simulate` (status
//   "ongoing", result "1-0", termination "checkmate"); for watch, one object per event
//   {version, command_id, event}; for pgn, {"pgn": "..."}.
// Exit codes: 0 done, 1 a claim ruled incorrect, 2 an error (gRPC code and stable ERR_ code on
// stderr, or {"error": {...}} with --json).
#ifndef ARBITER_TOOLS_ARBITERCTL_GAME_CLIENT_H_
#define ARBITER_TOOLS_ARBITERCTL_GAME_CLIENT_H_

#include <iosfwd>

#include "tools/arbiterctl/client.h"

namespace arbiterctl {

// The boolean flags of the game commands (given without a value), for the argument parser.
inline constexpr const char* kGameBooleanFlags[] = {"offer-draw", "accept", "decline", "add-time",
                                                    "no-arbiter", "unsupervised",
                                                    // irregularity --replay (7.2),
                                                    // rule-stop --valid (6.13d)
                                                    "replay", "valid"};

// Every flag a game command reads (besides kConnectionFlags); any other is refused.
// clang-format off
inline constexpr const char* kGameFlags[] = {
    "game", "command-id", "expected-version", "absent", "after-version", "count", "accept",
    "add-time", "article", "black", "black-moves", "black-ms", "black-name",
    "broadcast-delay-ms", "broadcast-delay-plies", "decision", "decline", "default-time-ms",
    "delta-ms", "edition", "event", "file", "from", "ground", "illegal-move-extra-ms", "kind",
    "lag-compensation", "lag-ms", "max-draw-offers", "move", "no-arbiter",
    "no-draw-offers-before-move", "offer-draw", "penalty", "penalty-ms", "ply", "points",
    "position-unknown", "power", "promotion", "reason", "replay", "result", "round",
    "scheduled-start-ms", "sessions", "side", "site", "start-fen", "stop-clock", "time-control",
    "to", "unsupervised", "valid", "white", "white-moves", "white-ms", "white-name"};
// clang-format on

// args.positional = {"game", "<command>"}; the flags as parsed (without "--").
int RunGameClient(const ClientArgs& args, std::ostream& out, std::ostream& err);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_GAME_CLIENT_H_
