// The rulings beside rulings.h: irregularities (Article 7), a player who stops the
// clocks (6.13b, d) and the arbiter's powers (12.4, 12.7, 12.8, 13.4). Like rulings.h they are
// pure functions of the game's state, the command, the instant and the analyst's answers, and
// read every edition difference from the ruleset (libs/laws: IllegalMovePenaltyOf,
// CompletedIllegalMoveOf, SetupClaimRuleOf, ColoursReversedRuleOf).
//
//   7.4a  ReportIllegalMove: the position before the illegal move restored from the log, the
//         clocks per 6.14 (the arbiter's setting, or the times the log recorded at that ply), 4.3
//         on the replacing move, then 7.4b (2001; 1997 and 2005 as 2001) / 7.5.5 (2023): time to
//         the opponent, or the game lost (2023 7.5.5 only: drawn if the opponent cannot mate by
//         any series of legal moves, the analyst's proof kept in GameEnded; 7.4b has no such
//         exception). `position_unknown`: the position before it cannot be determined and `ply`
//         names the last known one, where play resumes.
//   C3    CompleteIllegalMove (blitz, 1997-2005): complete once the clock is pressed; the game
//         goes on from the position it made. The opponent may claim before he moves (win; a
//         draw if he cannot mate the offender, 1997: without mating potential, C4); his move
//         lets it stand.
//   7.1-7.5  RuleIrregularity: annul (7.1a; B4 in rapid/blitz), continue (7.1b, 7.2), new game
//         (7.2 on the arbiter's decision; 2023 7.3 under ten moves), or the position restored
//         (7.3, 7.5) with the clocks per 6.14; 7.3 names the player who displaced the pieces
//         (on move or not), 7.5 may resume from the last known position.
//   6.13b/d  StopClocks, RuleStop; 12.4, 12.7, 12.8, 13.4a/d/e/f/g  UsePower.
#ifndef ARBITER_LIBS_ARBITRATION_IRREGULARITIES_H_
#define ARBITER_LIBS_ARBITRATION_IRREGULARITIES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"

namespace arbitration {

// What these commands carry beyond rulings.h's Command (its `reason`, `article`,
// `delta_ms` are shared).
struct IrregularArgs {
  std::optional<std::int64_t> ply;  // the standing plies before the irregularity; nullopt = now
  std::string from;                 // the illegal move's squares, "e1", "e3"
  std::string to;
  std::string promotion;  // "q", "r", "b", "n" or ""
  // 6.14: the arbiter's clock setting (both or neither).
  std::optional<std::int64_t> white_ms;
  std::optional<std::int64_t> black_ms;
  bool replay = false;  // 7.2: a new game
  bool valid = false;   // 6.13d
  std::string penalty;  // 6.13d: "", "13.4a", "13.4b", "13.4c"
  v1::ArbiterPower power = v1::ARBITER_POWER_UNSPECIFIED;
  std::optional<double> points;  // 13.4e/f, 12.7
  // ReportIllegalMove by a player (the actor's role): his claim, which B5b can have lost.
  bool by_player = false;
  // 7.3: the player who displaced the pieces (not necessarily the one on move).
  std::optional<chess::Color> displaced_by;
  // 7.4a / 7.5: the position immediately before cannot be determined; `ply` names the last one
  // that can be identified ("aus der letzten bekannten Stellung vor dem Regelverstoß").
  bool position_unknown = false;
};

// Where a decision puts its events: each is stamped with the instant and the actor, applied to
// the state and kept (rulings.cc's plan).
class EventSink {
 public:
  EventSink(GameState& state, std::vector<v1::ArbitrationEvent>& events, std::int64_t now_ms,
            v1::Actor actor)
      : state_(state), events_(events), now_ms_(now_ms), actor_(std::move(actor)) {}
  const GameState& state() const { return state_; }
  std::int64_t now_ms() const { return now_ms_; }
  absl::Status Add(v1::ArbitrationEvent event);

 private:
  GameState& state_;
  std::vector<v1::ArbitrationEvent>& events_;
  std::int64_t now_ms_;
  v1::Actor actor_;
};

// 7.4a with 7.4b / 7.5.5. `side`: the offender if named (must be the side to move at the ply).
absl::Status DecideReportIllegalMove(EventSink& sink, std::optional<chess::Color> side,
                                     const IrregularArgs& args, const std::string& reason,
                                     Analyst& analyst);
// C3: `side` made an illegal move and pressed the clock.
absl::Status DecideCompleteIllegalMove(EventSink& sink, chess::Color side,
                                       const IrregularArgs& args);
// C3: `claimant` claims the win on the opponent's completed illegal move.
absl::Status DecideIllegalMoveClaim(EventSink& sink, chess::Color claimant, Analyst& analyst,
                                    v1::ClaimRuling* ruling);
// 7.4a, B5 (a player's claim; only the arbiter finds): `claimant` claims that the opponent's
// move `args.from`-`args.to` at `args.ply` (nullopt: the illegal move standing now, else his last
// move) was illegal. The claim must name a move that stands in the record and that the server did
// not validate: an electronic board's illegal move that stood (7.4a; the game paused for the
// arbiter), or C3's completed illegal move (ruled as C3's claim). A move the server validated
// before it entered the record (SubmitMove, a legal move complete on the board) is legal, so no
// illegal move stands there: FAILED_PRECONDITION ERR_MOVE_WAS_VALIDATED; a move the record does
// not hold: ERR_MOVE_NOT_IN_RECORD; B5b's lost right: ERR_CLAIM_RIGHT_LOST. A valid claim stops
// the clocks and awaits the arbiter's ruling (ruling PENDING; DecideIllegalMoveRuling).
absl::Status DecidePlayerIllegalMoveClaim(EventSink& sink, chess::Color claimant,
                                          const IrregularArgs& args, const std::string& reason,
                                          Analyst& analyst, v1::ClaimRuling* ruling);
// The arbiter on a pending claim of an illegal move: UPHOLD applies 7.4a (and 7.4b / 7.5.5) to
// the claimed move as DecideReportIllegalMove does; REJECT lets the game go on. The clocks
// restart unless the game ended or the arbiter has them stopped (6.13a).
absl::Status DecideIllegalMoveRuling(EventSink& sink, v1::RulingDecision decision,
                                     const std::string& reason, Analyst& analyst);
// 7.1a, 7.1b, 7.2, 7.3, 7.5 (`article`).
absl::Status DecideIrregularity(EventSink& sink, const std::string& article,
                                const IrregularArgs& args, const std::string& reason);
// 6.13b.
absl::Status DecideStopClocks(EventSink& sink, chess::Color side, const std::string& reason);
// 6.13d, with the 13.4 penalty of `args.penalty` (`delta_ms` for 13.4b/c).
absl::Status DecideRuleStop(EventSink& sink, const IrregularArgs& args, std::int64_t delta_ms,
                            const std::string& reason);
// 12.4, 12.7, 12.8, 13.4a/d/e/f/g.
absl::Status DecidePower(EventSink& sink, std::optional<chess::Color> side,
                         const IrregularArgs& args, const std::string& reason);

// The move path's checks (cheap: nothing to do unless an irregularity happened): 4.3 on the
// move that replaces an illegal one (7.4a), and C3's position that cannot be played on.
absl::Status CheckPlayable(const GameState& game);
absl::Status CheckMoveAfterIrregularity(const GameState& game, chess::Move move);

// B4's clock-setting case (rapid, blitz, 1997-2005): the arbiter's SetClocks under `article`
// once each player has completed three moves: FAILED_PRECONDITION ERR_CLOCK_SETTING_FINAL, except
// 6.11 (a defective clock replaced: its displays never bound) and an adjourned game (A12 governs
// the resumption's clocks).
absl::Status CheckClockSettingCorrectable(const GameState& game, absl::string_view article);

// Malformed commands (ERR_BAD_ARGUMENT), whatever the game's state.
absl::Status ValidateIrregularArgs(absl::string_view command, const IrregularArgs& args);

// "White", "Black".
std::string SideWord(chess::Color side);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_IRREGULARITIES_H_
