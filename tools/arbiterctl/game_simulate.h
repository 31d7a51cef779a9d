// `arbiterctl game simulate`: plays a game offline through the same rulings as the arbitration
// service (libs/arbitration: NewGame, Decide, Settle), without a server. A contract:
// scripts outside the tree read its output, so fields and names do not change.
//
// In, one JSON object a line (blank lines are skipped):
//   {"edition": "fide1997" | "fide2001" | "fide2005" | "fide2023",
//    "time_control": "5400+30"        the PGN tag or the arbiters' notation ("90+30", "40/90, 30"),
//    "events": [...],
//    optional: "arbiter_present": true (10.2; false: Appendix D), "start_fen": "<FEN>",
//              "default_time_ms": n (6.7), "query_ms": n, "no_draw_offers_before_move": n,
//              "max_draw_offers": n (per player; 0: no limit), "illegal_move_extra_ms": n
//              (2023 7.5.5), "supervised": true (2023 rapid and blitz: A.3, a flag counts when it
//              falls; false: A.4.5, only on the opponent's valid claim),
//              "comment": "..." (ignored)}
//   Events, in time order, each {"at_ms": n, "type": T, "by": "white" | "black" | "arbiter"}:
//     "start"         6.5 (by the platform unless "by": "arbiter"); optional "absent": ["white"]
//     "arrive"        6.6: `by` arrives
//     "move"          "move": SAN (English or German letters) or UCI; optional "offer_draw": true
//     "offer_draw", "accept_draw", "decline_draw"   9.1
//     "resign"        5.1b
//     "claim"         "kind": "threefold" | "fifty" | "quickplay" | "time"; optional "move" (the
//                     intended move, 9.2a / 9.3a), "ground": "cannot_win" | "no_attempt" (D1)
//     "ruling"        by the arbiter on a pending quickplay claim: "decision": "draw" |
//                     "postpone" | "reject"; optional "add_time": true (10.2b), "reason"
//   Irregularities (Article 7), 6.13b/d, the arbiter's powers:
//     "report_illegal"   7.4a, by the arbiter: "from", "to" (squares), optional "promotion",
//                        "ply" (the plies before it; default now), "side" (the offender),
//                        "white_ms" + "black_ms" (6.14), "reason", "position_unknown" (the
//                        position before it cannot be determined: "ply" is the last known);
//                        7.4b / 7.5.5 follow
//     "complete_illegal" C3 (blitz, 1997-2005), by the offender: "from", "to", "promotion";
//                        then "claim" with "kind": "illegal_move" by the opponent, or his move
//     "irregularity"     by the arbiter: "article": "7.1a" | "7.1b" | "7.2" | "7.3" | "7.5",
//                        optional "replay" (7.2), "ply", "white_ms" + "black_ms", "reason",
//                        "side" (7.3: who displaced the pieces), "position_unknown" (7.5, with
//                        "ply" the last known position)
//     "stop_clocks"      6.13b, by a player: "reason"
//     "rule_stop"        6.13d, by the arbiter: "valid", "penalty": "13.4a" | "13.4b" | "13.4c",
//                        "penalty_ms", "reason"
//     "power"            by the arbiter: "power": "warning" | "loss" | "reduce_points" |
//                        "increase_points" | "expulsion" | "persistent_refusal" | "both_refuse"
//                        | "leave_permitted", "side", "points", "reason"
//   Electronic boards and touch-move (Article 4):
//     "board"            one report of the electronic board (by the board relay, or "by":
//                        "arbiter"): "placement" (FEN's first field, lifted pieces missing),
//                        optional "pressed": true (the clock pressed after it: an illegal move
//                        stood, 7.4a, the clocks stop), "adjust": true ("j'adoube" first, 4.2);
//                        a lifted piece is touched (4.3), a legal move complete on the board is
//                        made (4.7); touch-move enforced in standard play (ERR_TOUCH_MOVE_OWED
//                        for a "move" against it), only on claim in rapid and blitz (B5a)
//     "jadoube"          4.2: `by` (the player to move) announces "j'adoube" before adjusting
//     "claim"            "kind": "touch_move" by the opponent (4.3-4.5, B5a): ruling "correct"
//                        (the touched piece is owed, or the move broke 4.3 and the clocks stop)
//                        or "incorrect"; ERR_CLAIM_RIGHT_LOST once he touched a piece (4.6, B5b)
//   Flags and default times fall by themselves at their instant, as on the server.
//
// Out, one JSON line per input line, the game at query_ms (else the last event's instant):
//   {"status": "ongoing" | "awaiting_ruling" | "ended",
//    "result": "1-0" | "0-1" | "1/2-1/2" | "0-0" | "*",
//    "termination": null | "checkmate" | "threefold_repetition" | ... (the proto's Termination),
//    "events": [{"ok": true} | {"ok": false, "code": "ERR_..."}, ...] one per input event; claims
//              add "ruling": "correct" | "incorrect" | "pending"; a move whose draw offer the
//              regulations refused adds "offer": "ERR_DRAW_OFFER_REFUSED" (9.1a: the move stands),
//    "white_ms": n, "black_ms": n (frozen once the game ended),
//    "fen": "<the position>", "draw_offer": "white" | "black" | null}; after an illegal move
//    also "illegal_moves": {"white": n, "black": n}; once ended also "white_points",
//    "black_points" (11.1, 13.4e/f, 12.7); once a flag fell, "flags": [{"side", "at_ms",
//    "counts" (false: only a claim counts it, B6 / 2023 A.4.5), "article"}]; while the player to
//    move has touched pieces (Article 4) also "touched": ["g1", ...] and, when they oblige a move,
//    "obligation": {"free": bool, "owed": ["g1f3", ...], "article": "4.3a", "enforced": bool
//    (false: only on claim, B5a)}.
//   A refused event changes nothing (what fell before it, a flag or a default, still stands). An
//   event earlier than the one before it is refused with ERR_BAD_ARGUMENT.
//   A malformed line: {"error": {"code": "ERR_BAD_JSON" | "ERR_BAD_SCENARIO" | "ERR_BAD_EVENT" |
//   the creation's code (ERR_BAD_TIME_CONTROL, ERR_BAD_FEN, ...), "message": "..."}}.
#ifndef ARBITER_TOOLS_ARBITERCTL_GAME_SIMULATE_H_
#define ARBITER_TOOLS_ARBITERCTL_GAME_SIMULATE_H_

#include <string>

namespace arbiterctl {

// Answers one scenario line (without its newline) with one JSON line (without newline); the
// command answers every non-blank line of stdin so (RunJsonLines, json_lines.h).
std::string SimulateGameLine(const std::string& line);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_GAME_SIMULATE_H_
