// `arbiterctl clock simulate`: replays clock scenarios for people and scripts checking a ruling.
// JSON lines in, one scenario a line; one JSON line out per scenario (blank lines are skipped).
//
// In:
//   {"time_control": "40/5400+30:1800+30"        PGN TimeControl tag, seconds; or instead
//    "time_control_human": "G/60 d5",             the arbiters' form, minutes (see time_control.h)
//    "edition": "fide1997" | "fide2001" | "fide2005" | "fide2023",
//    "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 61234, "type": "press"}, ...],
//    "query_ms": 123456,
//    optional: "default_time_ms": n (6.7, the event regulations' default time),
//              "scheduled_start_ms": n (6.5/6.7, on the events' time base: 6.7 counts from it;
//                                       a player present at a later start arrives then),
//              "delay_saved_time": "carry" | "discard" (the 6.2b reading, see clock.h),
//              "lag_compensation": true | {"quota_gain_ms", "initial_quota_ms", "quota_max_ms"},
//              "supervised": true | false (2023 rapid and blitz: A.3, default, or A.4.5),
//              "name": "..." (echoed), "comment": "..." (ignored)}
//   Events, in time order, each with "at_ms" and "type":
//     "start"      6.5; optional "absent": ["white", "black"] (6.6)
//     "press"      6.8a; optional "side" (checked), "lag_ms" (with lag compensation)
//     "pause", "resume"                                   6.13
//     "adjust"     "side", "delta_ms"; optional "reason": "7.4b", "8.1", "6.8d", "9.5b", "10.2b",
//                  "10.2c", "13.4b", "13.4c", "13.5"
//     "set"        6.14: "white_ms", "black_ms"; optional "moves": {"white": n, "black": n},
//                  "to_move": "white" | "black"
//     "replace"    6.11: "white_ms", "black_ms"
//     "arrive"     6.6/6.7: "side"
//     "flag_check" 6.3: "side"; optional "moves_completed": n, the count by the flag the
//                  scoresheets prove; absent: the clock's record at the fall decides (moves
//                  after the flag do not complete its period); 8.6 only where no record shows it
//
// Out, the clock at query_ms:
//   {"white_ms", "black_ms"            main time left (0 once used up),
//    "running": "white" | "black" | null,
//    "moves": {"white": n, "black": n} completed moves,
//    "period": {"white": i, "black": i} the period of each side's next move, 1 = the first,
//    "delay_left_ms",                  the running side's delay left this turn,
//    "flag": {"side", "at_ms"} | null  the first flag fallen,
//    "speed": "standard" | "rapid" | "blitz",
//    and: "status", "to_move", "deadline_ms", "display" (h:mm:ss.cc), "flags" (each side's),
//    "both_flags" ({"outcome", "article"}: 6.12/10.3/B8 if the order cannot be established, i.e.
//        both fell at the same instant; null otherwise, also when the first flag is known),
//    "defaulted" (sides lost under 6.7), "scoresheet_duty_lapsed" (8.4, per side; always true in
//        rapid and blitz, which have no duty, B3 / 2023 A.2), "scoresheet_duty_article",
//    "flag_checks" (results of flag_check events; 6.3 checks the period the flag fell in),
//    "lag_quota_ms" (with lag compensation),
//    "flag_result" (once a flag has fallen): {"side", "at_ms" (the first flag),
//        "counts_when_observed" (false: only a valid claim counts it, B6 / 2023 A.4.5),
//        "flag_article" (6.9, B6, A.3 (2023), A.4.5 (2023), ...), "claim_ruling" (with both
//        flags down where a claim counts them: {"result": "draw", "article": "B8"}),
//        "result": "by_position" (one flag: never a win; the side has lost unless the opponent
//                  cannot mate him, 6.10, or in 1997 blitz lacks mating potential, C4: the
//                  position decides, which the clock does not know) | "draw" | "continue"
//                  (both flags fallen at the same instant: B8, 6.12, 10.3),
//        "article", "needs_mating_potential" (by_position only), "note" (a sentence)}}
//   or {"error": {"code": "ERR_...", "message": "..."}} for that line alone.
#ifndef ARBITER_TOOLS_ARBITERCTL_CLOCK_SIMULATE_H_
#define ARBITER_TOOLS_ARBITERCTL_CLOCK_SIMULATE_H_

#include <string>

namespace arbiterctl {

// Answers one scenario line (without its newline) with one JSON line (without newline); the
// command answers every non-blank line of stdin so (RunJsonLines, json_lines.h).
std::string SimulateClockLine(const std::string& line);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_CLOCK_SIMULATE_H_
