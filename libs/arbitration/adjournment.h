// Appendix A: adjourned games. The sessions (A13), the sealed move (A1), the envelope and its
// record (A2, A3), draw offers, agreement and resignation across the adjournment (A4, A6), the
// resumption (A5, A9), the opening (A7) and a sealed move that loses (A8), the default at each
// session (A10), a lost envelope (A11) and a wrongly set clock (A12: SetClocks, allowed while
// adjourned).
//
// The sealed move is a secret of the sealer and the arbiter until A7/A9 opens it: these rulings
// never see it in clear before then. The service encrypts it (libs/seal) and hands the rulings
// the box (Command::seal); for the commands that may open the envelope it decrypts it and hands
// them the text (Command::opened_move), which is recorded in clear only when the envelope is
// opened (a MoveMade with `sealed`, or the A8 ruling's proof).
//
// How the clock follows the envelope: while the move is sealed the sealer's clock runs (he may
// seal again, A1); closing the envelope presses his clock (the sealed move completes his move:
// the counter, the period's time, 6.8a) and stops it (GameAdjourned, status adjourned). The
// resumption restarts the clock: the replier's runs (A9a, A9b); the opening plays the sealed move
// on the board without another press. A9c's second envelope presses the replier's clock and the
// sealer's runs until he arrives and it is opened. A lost envelope (A11a) sets the clock back to
// the sealer, who plays his move on the board.
//
// The functions decide on `s` (the plan's state, updated by each `add`) and record events with
// `add` (the rulings' Plan::Add); a returned error is the command's refusal.
#ifndef ARBITER_LIBS_ARBITRATION_ADJOURNMENT_H_
#define ARBITER_LIBS_ARBITRATION_ADJOURNMENT_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"

namespace arbitration {

// Records `event` at `at_ms` by `actor` and applies it to the plan's state.
using AddEvent =
    std::function<absl::Status(v1::ArbitrationEvent event, std::int64_t at_ms, const v1::Actor&)>;

// Moves and claims: refused while a sealed move waits (ERR_SEALED_MOVE_UNOPENED: A7, A9b, A9c)
// or once the arbiter called for the seal (ERR_SEAL_CALLED: A1a, the move goes into the envelope).
absl::Status CheckNoSealPending(const GameState& s);

// A1 / A1b / A9c: `c.side` seals (kSealMove).
absl::Status DecideSealMove(const GameState& s, const Command& c, std::int64_t now_ms,
                            const AddEvent& add);
// A1a: the arbiter calls for the seal; once sealed, he closes the envelope (kAdjourn).
absl::Status DecideAdjourn(const GameState& s, const Command& c, std::int64_t now_ms,
                           const AddEvent& add);
// A5, A9, A13: the arbiter resumes at the session's start (kResumeAdjourned).
absl::Status DecideResumeAdjourned(const GameState& s, const Command& c, std::int64_t now_ms,
                                   const AddEvent& add, Analyst& analyst);
// A11 (kReportEnvelopeLost): while adjourned, or after the resumption while the envelope waits.
absl::Status DecideEnvelopeLost(const GameState& s, const Command& c, std::int64_t now_ms,
                                const AddEvent& add);
// A9b / A9c: after `c.side`'s arrival was recorded, the envelope that waited for him is opened.
absl::Status OpenOnArrival(const GameState& s, const Command& c, std::int64_t now_ms,
                           const AddEvent& add, Analyst& analyst);

// A10 with both players absent at the resumption while the envelope is still closed (A9b waits
// for the replier): whether the default needs the sealed move in clear. The service opens the
// envelope for it (SealedMoves::Open) as it does for ResumeAdjournedGame (Command::opened_move,
// and Settle's `opened_move` on the deadline path).
bool DefaultOpensEnvelope(const GameState& s);
// Records that default at `at_ms` (by the server): both lose (6.7), unless the absent sealer's
// sealed move `opened_move` mates (A10a: he wins) or stalemates or reaches a dead position (A10b:
// a draw), then played on the board. nullopt (no seal key): both lose, the envelope unopened.
absl::Status RecordDefaultWithEnvelope(const GameState& s,
                                       const std::optional<std::string>& opened_move,
                                       std::int64_t at_ms, const AddEvent& add, Analyst& analyst);

// A1b: the instant an envelope sealed before the session's end closes by itself (the scheduled
// end), if one waits; for Settle and NextDeadline.
std::optional<std::int64_t> EnvelopeClosesAt(const GameState& s);
// Closes it at `at_ms` (by the server).
absl::Status CloseEnvelopeAt(const GameState& s, std::int64_t at_ms, const AddEvent& add);

// The associated data a sealed box of game `game_id` is bound to (libs/seal): the game and the
// log's version it was sealed on.
std::string SealContext(absl::string_view game_id, std::int64_t bound_version);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_ADJOURNMENT_H_
