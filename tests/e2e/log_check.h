// The fault suite's checks of one game: its ledger (what the service acknowledged) against its log
// (what it recorded), the log's clock replayed with libs/clock (independently of the arbitration
// code that wrote it):
//   - lost: an acknowledged command whose event is not in the log (at or before the version the
//     acknowledgement gave);
//   - applied twice: a command id whose event is in the log more than once, or more moves in the
//     log than were acknowledged plus the one left unresolved;
//   - flags: each side's at most once, and each at its instant: `fell_at_ms` equals the deadline
//     of the clock replayed from the events before it (6.1: the instant the time reaches zero),
//     and a flag game's equals the deadline the last acknowledged reply announced;
//   - clocks: every move's recorded time (MoveMade.clock_ms) and every reply's times and deadline
//     equal the replayed clock's at that version, and no move is recorded after its mover's flag
//     fell unless the flag was recorded first.
#ifndef ARBITER_TESTS_E2E_LOG_CHECK_H_
#define ARBITER_TESTS_E2E_LOG_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/arbiter/v1/arbitration.pb.h"
#include "tests/e2e/game_load.h"

namespace e2e {

struct FlagSeen {
  std::string game_id;
  std::int64_t fell_at_ms = 0;
  std::int64_t seen_ms = 0;         // the client's first read that showed it (0: not seen)
  std::int64_t looked_from_ms = 0;  // when the client began to read for it
  int deadline_set_by = -1;
};

struct Tally {
  std::int64_t games = 0;
  std::int64_t commands_acked = 0;
  std::int64_t moves_acked = 0;
  std::int64_t moves_in_logs = 0;
  std::int64_t replayed_acks = 0;  // acknowledgements answered from the record (a retry)
  std::int64_t lost = 0;
  std::int64_t applied_twice = 0;
  std::int64_t unresolved = 0;          // commands whose outcome the client never learnt
  std::int64_t unresolved_applied = 0;  // ... of which the log has the event (once)
  std::int64_t refused = 0;             // commands refused (in long games: unexpected)
  std::int64_t flags = 0;               // flags in the logs
  std::int64_t flags_at_instant = 0;    // ... recorded at the replayed deadline
  std::int64_t flag_errors = 0;         // a flag twice, at a wrong instant, missing, unexpected
  std::int64_t clock_checks = 0;
  std::int64_t clock_errors = 0;
  std::int64_t other_errors = 0;  // unreadable logs, unexpected events
  std::vector<FlagSeen> flag_timings;
  std::vector<std::int64_t> lost_acked_at;  // when each lost command was acknowledged (Unix ms)
  std::vector<std::string> problems;        // the first few, for the failure message

  void Problem(std::string what);
};

// Checks one game. `log`: its events from version 1 (WatchGame); `now`: GetGame's view after the
// load stopped.
void CheckGame(const GameRecord& game, const std::vector<v1::GameUpdate>& log,
               const v1::GameView& now, Tally* tally);

}  // namespace e2e

#endif  // ARBITER_TESTS_E2E_LOG_CHECK_H_
