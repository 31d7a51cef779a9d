// The rulings: what a command or the passing of time does to a game, as the events to append.
// Pure functions of the game's state, the command, the instant and the analyst's answers; they
// cite the article they apply and read every edition difference from the ruleset (libs/laws).
//
//   Command move{.kind = CommandKind::kMove, .side = chess::Color::kWhite, .move = "e4"};
//   ASSIGN_OR_RETURN(Decision d, Decide(game, move, now_ms, analyst));
//   if (!d.refused.ok()) ...  // the command's refusal; d.events may still hold what fell before
//   store.Append(d.events, d.after->Snapshot(), NextDeadline(*d.after));
//
// Time: before any command, Settle records what happened by `now_ms` without anyone's command, in
// the order it happened and at the instant it happened: a flag (6.9 in standard play and in 2023,
// the game ends at the fall; B6 in rapid and blitz under 1997-2005, recorded and counted only on
// the opponent's claim, B7; both fallen: B8 / 6.12 / 10.3) and a default (6.7, from the scheduled
// start). A move that ends the game ends it at its instant, so a flag that would fall later never
// does (5.1, 6.8a). Times never go backwards: a command is recorded no earlier than the last event.
#ifndef ARBITER_LIBS_ARBITRATION_RULINGS_H_
#define ARBITER_LIBS_ARBITRATION_RULINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/irregularities.h"
#include "libs/laws/outcome.h"

namespace arbitration {

enum class CommandKind : std::uint8_t {
  kStart,        // 6.5 (platform or arbiter); `absent`: 6.6
  kArrive,       // 6.6: `side` arrives
  kMove,         // `side` plays `move` (UCI or SAN, English or German), `offer_draw`, `lag_ms`
  kResign,       // 5.1b
  kOfferDraw,    // 9.1 outside a move
  kAcceptDraw,   // 9.1, 5.2c
  kDeclineDraw,  // 9.1
  kClaim,        // `claim`: 9.2 / 9.3 (`move`: the intended move), 10.2 / D1, B7
  kRule,         // the arbiter on a pending claim: `decision`, `add_time`
  kConfirm,      // 8.7
  kSetResult,    // the arbiter: `outcome` (article required) and `reason`
  kPause,        // the arbiter stops the clocks to interrupt the game (6.13a): `reason`
  kResume,       // the arbiter restarts them (6.13): `reason` (optional)
  kAdjustTime,   // the arbiter: `side`'s clock by `delta_ms`, `article` (may be empty), `reason`
  kSetClocks,    // the arbiter: `clocks` (6.14 / 6.11 in `article`), `reason`
  // Appendix A (libs/arbitration/adjournment.h):
  kSealMove,            // A1: `side` seals (`seal`: the box the service made), `stop_clock`
  kAdjourn,             // A1: the arbiter calls for the seal, or closes the envelope; `reason`
  kResumeAdjourned,     // A5, A9: the arbiter resumes; `absent`; `opened_move`
  kReportEnvelopeLost,  // A11: `position_unknown`, `reason`
  // Article 4 on an electronic board (libs/arbitration/board_feed.h, touch_move.h):
  kBoardFeed,  // the board relay or the arbiter: `feed`, the placements the board reported
  // Article 7, 6.13b/d, 12, 13.4 (libs/arbitration/irregularities.h), `irregular` and `reason`:
  kReportIllegalMove,    // 7.4a: the arbiter; `side` (optional, the offender), ply, from-to
  kCompleteIllegalMove,  // C3: `side` made an illegal move and pressed the clock
  kRuleIrregularity,     // 7.1a, 7.1b, 7.2, 7.3, 7.5 in `article`
  kStopClocks,           // 6.13b: `side` stops the clocks to seek the arbiter
  kRuleStop,             // 6.13d: the arbiter; `irregular.valid`, `.penalty`, `delta_ms`
  kUsePower,             // 12.4, 12.7, 12.8, 13.4a/d/e/f/g: `irregular.power`, `side`
  // 7.4a, B5: `side` (a player) claims the opponent's illegal move (`irregular`: ply, from-to);
  // the arbiter rules (kRule: uphold or reject).
  kClaimIllegalMove,
};
// The last kind: a new kind goes before it or becomes it, with its row in rulings.cc's table (its
// name, its check, its decider in its family's file; plan.h lists the families).
inline constexpr CommandKind kLastCommandKind = CommandKind::kClaimIllegalMove;
// "start", "arrive", "move", "resign", "offer_draw", "accept_draw", "decline_draw", "claim",
// "rule", "confirm", "set_result", "pause", "resume", "adjust_time", "set_clocks", "seal_move",
// "adjourn", "resume_adjourned", "report_envelope_lost", "board_feed", "report_illegal_move",
// "complete_illegal_move", "rule_irregularity", "stop_clocks", "rule_stop", "use_power",
// "claim_illegal_move".
absl::string_view CommandKindName(CommandKind kind);

struct Command {
  CommandKind kind = CommandKind::kMove;
  v1::Actor actor;                   // recorded with every event the command appends
  std::optional<chess::Color> side;  // the player acting (required for player commands)
  std::vector<chess::Color> absent;  // kStart
  std::string move;                  // kMove; kClaim: the intended move (optional)
  bool offer_draw = false;           // kMove
  std::int64_t lag_ms = 0;           // kMove
  v1::ClaimKind claim = v1::CLAIM_KIND_UNSPECIFIED;
  v1::QuickplayGround ground = v1::QUICKPLAY_GROUND_UNSPECIFIED;  // D1
  v1::RulingDecision decision = v1::RULING_DECISION_UNSPECIFIED;  // kRule
  bool add_time = false;                                          // kRule, 10.2b
  laws::Outcome outcome;                                          // kSetResult
  std::string reason;         // kRule, kSetResult, kPause, kResume, kAdjustTime
  std::int64_t delta_ms = 0;  // kAdjustTime
  std::string article;        // kAdjustTime, kSetClocks
  v1::ClocksSet clocks;       // kSetClocks: the times and counters (article and reason above)
  // Appendix A. kSealMove: the sealed box (MoveSealed's box, bound_version = the game's version,
  // wrapped_key / key_id on the game's first seal), made by the service: the rulings never see
  // the sealed move in clear until it is opened.
  v1::MoveSealed seal;
  bool stop_clock = false;  // kSealMove: A1, the envelope closes
  // The pending sealed move in clear, decrypted by the service for the commands that may open
  // the envelope (kResumeAdjourned, kArrive: A7, A9), and for any command on a game whose default
  // may open it (A10, both absent: DefaultOpensEnvelope); nullopt when none waits or no key.
  std::optional<std::string> opened_move;
  bool position_unknown = false;  // kReportEnvelopeLost: A11b
  // kBoardFeed: the board's reports, in time order.
  std::vector<v1::BoardPlacement> feed;
  IrregularArgs irregular;  // Article 7, 6.13b/d, 12, 13.4
};

struct Decision {
  // The events to append, in order, their instants and actors filled in.
  std::vector<v1::ArbitrationEvent> events;
  // OK, or why the command was refused. A refused command may still have events to append: what
  // happened before it (a flag, a default).
  absl::Status refused;
  // The state after `events`.
  std::optional<GameState> after;
  // For a claim that was ruled on: correct, incorrect or pending.
  v1::ClaimRuling claim_ruling = v1::CLAIM_RULING_UNSPECIFIED;
};

// The events a command appends at `now_ms`. Fails (nothing to append) only for a malformed
// command (ERR_BAD_ARGUMENT); every other refusal is Decision::refused.
absl::StatusOr<Decision> Decide(const GameState& game, const Command& command, std::int64_t now_ms,
                                Analyst& analyst);

// What has happened by `now_ms` without anyone's command, not yet recorded (flags, defaults), as
// events by the server (actor role "server"). `opened_move`: the sealed move in clear, opened by
// the service when DefaultOpensEnvelope (adjournment.h: Appendix A10 with both players absent and
// the envelope closed); nullopt keeps the envelope closed (no seal key) and both lose (6.7).
std::vector<v1::ArbitrationEvent> Settle(
    const GameState& game, std::int64_t now_ms, Analyst& analyst,
    const std::optional<std::string>& opened_move = std::nullopt);

// The instant the game's next flag falls, or its default (6.7) comes due, if nothing happens: for
// the store's deadline index and the server's timers. None when nothing is pending.
std::optional<std::int64_t> NextDeadline(const GameState& game);

// A flag's ruling whose review waits for analysis (GameEnded.review_awaits_analysis): the next
// instant to ask again after `now_ms` (1 s after the ruling, doubling to every minute); nullopt
// when no review waits.
std::optional<std::int64_t> ReviewReaskAt(const GameState& game, std::int64_t now_ms);
// Asks the flag's question again (6.9 / 6.10 / B7 / 1997 C4) on the position the game ended in:
// the ReviewSettled event the answer gives (the ruling the answer in time would have given), or
// nullopt when no review waits or the analysis still does not answer.
std::optional<v1::ArbitrationEvent> ReviewSettledByAnalysis(const GameState& game,
                                                            Analyst& analyst);

// 5.2b / 9.6 asked off the moves' path (GameState::dead_position_questions): search-analysis's
// answers, oldest question first, as DeadPositionAnswered events (at_ms and actor unset), up to
// the first it does not answer or the first dead one.
std::vector<v1::ArbitrationEvent> DeadPositionAnswers(const GameState& game, Analyst& analyst);
// The deadline a deadline check at `now_ms` that recorded nothing leaves: a question still
// unanswered (a review, a dead position) is due again at its backoff's next step.
std::optional<std::int64_t> NextDeadlineAfter(const GameState& game, std::int64_t now_ms);

// The actor of what the server does by itself.
v1::Actor ServerActor();

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_RULINGS_H_
