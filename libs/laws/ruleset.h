// A game's ruleset: the edition of the Laws, the speed category its time control falls in under
// that edition, and what the event's regulations set. Every ruling that differs between editions
// or events asks the ruleset; no edition appears in control flow outside libs/laws and the
// edition table of libs/clock (edition.h).
//
//   ASSIGN_OR_RETURN(Ruleset r, Ruleset::Make(Edition::kFide2001, tc, regulations));
//   ClaimPenalty p = IncorrectClaimPenalty(r, /*claimant_remaining_ms=*/150'000);  // 9.5b
#ifndef ARBITER_LIBS_LAWS_RULESET_H_
#define ARBITER_LIBS_LAWS_RULESET_H_

#include <concepts>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/laws/edition.h"
#include "libs/laws/outcome.h"

namespace laws {

// A.3 is the default: a server that runs the clocks observes every flag the instant it falls and
// records every move, which is what A.3.1/A.3.2 ask of the arbiter (each game recorded, "if
// possible by electronic means"). An event whose games are not supervised so says it: A.4.
inline constexpr bool kDefaultSupervised = true;

// What the Laws leave to the event's regulations.
struct Regulations {
  std::optional<std::int64_t> default_time_ms;  // 6.7; nullopt = the edition's
  bool arbiter_present = true;                  // 10.2 with an arbiter, else Appendix D
  int no_draw_offers_before_move = 0;           // no offers before this move number
  int max_draw_offers = 0;                      // per player; 0 = no limit (the Laws set none)
  Points points;                                // 11.1
  bool lag_compensation = false;
  // 2023 7.5.5: the opponent's extra time for a first illegal move; nullopt = two minutes.
  std::optional<std::int64_t> illegal_move_extra_ms;
  // 2023 rapid and blitz: whether the Competition Rules apply with adequate supervision (A.3: one
  // arbiter for at most three games, each recorded; blitz B.3: one arbiter a game), so a flag
  // counts as in standard play, or not (A.4, blitz B.4): a flag counts only on a player's valid
  // claim (A.4.5). The default is kDefaultSupervised. No effect before 2023 (B6 holds there).
  bool supervised = kDefaultSupervised;
};

// What a ruleset reads from the event's time control: its speed category under an edition (B1, C1;
// 2023 A.1, B.1) and whether some period adds an increment to each move (6.2a). libs/clock's
// chessclock::TimeControl answers both (Speed, HasIncrement); the Laws' vocabulary sits above the
// clock and names no type of it.
template <typename T>
concept TimeControlOfAnEvent = requires(const T& tc, Edition edition) {
  { Speed(tc, edition) } -> std::convertible_to<SpeedCategory>;
  { HasIncrement(tc) } -> std::convertible_to<bool>;
};

struct Ruleset {
  Edition edition = Edition::kFide2023;
  SpeedCategory speed = SpeedCategory::kStandard;
  Regulations regulations;
  // 6.2a: some period adds an increment to each move (2023 Guidelines III.2.2).
  bool increment = false;

  // The speed follows from the time control under the edition (B1, C1; 2023 A.1, B.1).
  template <TimeControlOfAnEvent TimeControl>
  static Ruleset Make(Edition edition, const TimeControl& tc, const Regulations& regulations) {
    return Ruleset{edition, Speed(tc, edition), regulations, HasIncrement(tc)};
  }
};

// Whether a fallen flag counts the moment it falls, or only when the opponent claims it; and, where
// only a claim counts it, how the claim is ruled.
struct FlagRule {
  bool counts_when_observed;
  absl::string_view article;
  // A claim on time (counts_when_observed false): the article that grants it.
  absl::string_view claim_article = "";
  // A claim that finds both flags down: true, a draw by itself whatever their order (B8 "Falls
  // beide Fallblättchen gefallen sind, ist die Partie remis"); false, the flag that fell first
  // decides (the claim is valid only against a flag that fell before the claimant's own), and
  // 6.12 / 6.11.2 only when their order cannot be established.
  bool both_down_draws = false;
  absl::string_view both_down_article = "";
};
// Standard play: 6.9 (the arbiter observes it; a digital arbiter always does). Rapid and blitz
// under the 1997-2005 appendices: B6 (only on a player's valid claim, B7; the arbiter does not
// signal it; both down at a claim: B8). 2023: per the event, A.3 (supervised: the Competition
// Rules, a flag counts as in standard play; blitz B.3) or A.4.5 (not supervised: only on a valid
// claim; blitz B.4). `supervised` matters only in 2023.
FlagRule FlagRuleFor(Edition edition, SpeedCategory category, bool supervised = kDefaultSupervised);
FlagRule FlagRuleOf(const Ruleset& ruleset);

// What the opponent of a player whose flag fell must be able to do to win.
enum class WinOnTimeTest : std::uint8_t {
  kAnySeries,        // 6.10 (and 2001 C3): mate by any series of legal moves
  kMatingPotential,  // 1997 C4 (blitz): reach a position where the loser cannot prevent mate
};
struct WinOnTime {
  WinOnTimeTest test;
  absl::string_view article;
};
WinOnTime WinOnTimeOf(const Ruleset& ruleset);

// 9.5b (2001/2005, and 1997 through B2) / 9.5.2 (2023): an incorrect 9.2 / 9.3 claim. The
// claimant's time after it and the opponent's addition.
struct ClaimPenalty {
  std::int64_t opponent_add_ms = 0;
  std::int64_t claimant_after_ms = 0;  // the claimant's remaining time afterwards
  absl::string_view article;
};
// 2001: more than two minutes: half is lost, at most three minutes; between one and two: set to
// one minute; under one: unchanged. The text leaves exactly 2:00 and 1:00 open ("mehr als zwei",
// "weniger als zwei, aber mehr als eine", "weniger als eine"); both readings give the same time
// there (2:00 halved is 1:00; 1:00 set to 1:00 is unchanged), so the bands are read as
// (2:00, ∞), [1:00, 2:00], [0, 1:00).
ClaimPenalty IncorrectClaimPenalty(const Ruleset& ruleset, std::int64_t claimant_remaining_ms);

// The quickplay-finish claim (Article 10 / Appendix D).
enum class QuickplayClaim : std::uint8_t {
  kNotApplicable,  // blitz: 2001 C4, 1997 C5; 2023 III.2.2: a game with increment
  kArbiter,        // 10.2: the arbiter present rules (a, b, c)
  kAppendixD,      // D1: the claim ends the game; an arbiter decides later
};
struct QuickplayRule {
  QuickplayClaim claim;
  absl::string_view article;
};
QuickplayRule QuickplayRuleOf(const Ruleset& ruleset);
// 10.2 / D1: "weniger als zwei Minuten".
inline constexpr std::int64_t kQuickplayThresholdMs = 120'000;
// 10.2b / 10.2c: the opponent's extra time.
inline constexpr std::int64_t kQuickplayExtraMs = 120'000;

// 2023 9.6.1 / 9.6.2: fivefold repetition and 75 moves end the game by themselves.
bool AutomaticRepetitionDraws(const Ruleset& ruleset);

// 7.4b (2001; 1997 and 2005 carry 2001's Article 7) / 7.5.5 (2023): what the offender's
// `count`-th illegal move in this game costs. `loses`: the game is lost; otherwise the opponent
// gets the time. `drawn_if_opponent_cannot_mate`: 2023 7.5.5's exception ("the game is drawn if
// the opponent cannot checkmate"); 7.4b has none ("erklärt der Schiedsrichter die Partie für ihn
// für verloren").
struct IllegalMovePenalty {
  std::int64_t opponent_add_ms = 0;
  bool loses = false;
  absl::string_view article;
  bool drawn_if_opponent_cannot_mate = false;
};
IllegalMovePenalty IllegalMovePenaltyOf(const Ruleset& ruleset, int count);
inline constexpr std::int64_t kIllegalMoveExtraMs = 120'000;

// C3 (blitz under the 1997-2005 appendices): an illegal move is complete once the clock was
// pressed; the opponent may claim the win before he moves (1997: needs mating potential, C4;
// 2001/2005: a draw if he cannot mate the offender by any series of legal moves); once he has
// moved it stands. `applies` false: every illegal move is corrected under 7.4a / 7.5.1.
struct CompletedIllegalMoveRule {
  bool applies = false;
  bool needs_mating_potential = false;
  absl::string_view article;
};
CompletedIllegalMoveRule CompletedIllegalMoveOf(const Ruleset& ruleset);

// B4 (rapid and blitz, 1997-2005): once each player has completed `moves` moves a wrong set-up,
// board orientation or clock setting can no longer be claimed. 0: at any time (7.1a).
struct SetupClaimRule {
  int moves = 0;
  absl::string_view article;
};
SetupClaimRule SetupClaimRuleOf(const Ruleset& ruleset);

// B4 (rapid and blitz, 1997-2005), its clock-setting case: once each player has completed `moves`
// moves an incorrect clock setting ("Uhrzeigerstellung") can no longer be claimed, so the arbiter
// no longer corrects it (SetClocks). 0: no such limit (standard play; 2023 as the ruleset reads it,
// the Competition Rules under A.3 / B.3).
struct ClockSettingRule {
  int moves = 0;
  absl::string_view article;
};
ClockSettingRule ClockSettingRuleOf(const Ruleset& ruleset);

// B5b (rapid and blitz, 2001; 2005 as 2001; blitz through C2): a player loses the right to claim
// under 7.2-7.5 (irregularities, illegal moves) once he has touched a piece. 1997's B5 has no such
// clause; 2023's 4.8 covers only Article 4. `applies` false: no such loss.
struct IrregularityClaimRule {
  bool lost_on_touch = false;
  absl::string_view article;
};
IrregularityClaimRule IrregularityClaimRuleOf(const Ruleset& ruleset);

// 7.2 (1997-2005): a game begun with colours reversed continues unless the arbiter decides
// otherwise. 2023 7.3: a new game if fewer than 10 moves have been made by both players, else it
// continues. `replay_before_moves` 0: the arbiter's decision.
struct ColoursReversedRule {
  int replay_before_moves = 0;
  absl::string_view article;
};
ColoursReversedRule ColoursReversedRuleOf(const Ruleset& ruleset);

// 9.4: the player on move loses the right to claim under 9.2 / 9.3 for this move. 2001 (1997 and
// 2005 as 2001): only by making the move ("Wenn ein Spieler einen Zug macht"). 2023 9.4: also
// once he has touched a piece as in 4.3.
struct DrawClaimRightRule {
  bool lost_on_touch = false;
  absl::string_view article;
};
DrawClaimRightRule DrawClaimRightOf(const Ruleset& ruleset);

// 6.7: the default time of this game.
std::int64_t DefaultTimeMs(const Ruleset& ruleset);

// The offers one player may make in this game as the event's regulations limit them; 0: no limit.
// The Laws set none: 9.1a holds an offer at any time valid, and an unjustified one is a 12.5
// matter for the arbiter (12.6, 13.4), not a refused offer.
int MaxDrawOffers(const Ruleset& ruleset);

// 6.12 / 10.3 / B8: both flags have fallen and it cannot be established which fell first.
laws::BothFlagsRuling BothFlags(const Ruleset& ruleset, bool in_final_period);

}  // namespace laws

#endif  // ARBITER_LIBS_LAWS_RULESET_H_
