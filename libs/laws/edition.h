// The editions of the Laws as data: what the clock rules of each edition decide (speed category,
// both flags fallen, default time). Every clock decision that differs between editions reads this
// table; no edition appears in control flow elsewhere.
//
//   const EditionRules& rules = Rules(Edition::kFide2005);
//   BothFlagsRuling r = RuleBothFlagsFallen(Edition::kFide2005, SpeedCategory::kStandard,
//                                           /*in_final_period=*/true);  // draw, "6.12b"
//
// Sources: seed 000 (2001, Articles 1-14 and Appendices B-D), seed 003 (2005, Article 6 only),
// seed 004 (1997, Appendices B-E only) and the FIDE 2023 Laws (beyond the seeds). Where a seed does
// not cover an edition, the nearest covered text is carried and the row says so:
//   - 1997 Article 6/10: taken as in 2001 (seed 004 holds only the appendices).
//   - 2005 Appendices B/C: taken as in 2001 (seed 003 revises only Article 6).
#ifndef ARBITER_LIBS_LAWS_EDITION_H_
#define ARBITER_LIBS_LAWS_EDITION_H_

#include <array>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace laws {

enum class Edition : std::uint8_t { kFide1997, kFide2001, kFide2005, kFide2023 };
inline constexpr std::array<Edition, 4> kAllEditions = {Edition::kFide1997, Edition::kFide2001,
                                                        Edition::kFide2005, Edition::kFide2023};

// "fide1997", "fide2001", "fide2005", "fide2023".
absl::string_view EditionName(Edition edition);
// The inverse of EditionName; INVALID_ARGUMENT ERR_BAD_EDITION for anything else.
absl::StatusOr<Edition> ParseEdition(absl::string_view name);

// The category picks which appendix applies (B rapid, C blitz, none for standard).
enum class SpeedCategory : std::uint8_t { kStandard, kRapid, kBlitz };
// "standard", "rapid", "blitz".
absl::string_view SpeedCategoryName(SpeedCategory category);

// How an edition classifies a time control. The counted time is the sum of the periods' times plus
// the increments of the first `increment_moves` moves (0 when only the fixed time counts). Bounds
// are inclusive and in integer milliseconds, so "under 15 minutes" is `blitz_max_ms = 899'999`.
//
// The reading, per row of the table in edition.cc (LAWS.md "Editions", corrected):
// - B1 "alle Züge innerhalb einer festgesetzten Zeit von zwischen 15 und 60 Minuten", C1 "weniger
//   als 15 Minuten" (1997: seed 004; 2001: seed 000; 2005 carries 2001's appendices). A control
//   classes by the time in which *all* moves must be made. Several periods whose last is sudden
//   death count their total ("40/10, 5" is 15 minutes: rapid). A control whose last period has a
//   move count repeats it for the rest of the game ("20/5": 20 moves in 5 minutes, again and
//   again): no fixed time covers all moves, so it is neither rapid nor blitz, and is standard.
// - 1997-2005: the increment is not counted ("G/60+30" rapid, "G/14+30" blitz). B1/C1 speak of the
//   "festgesetzte Zeit" only; 6.2a names the increment separately ("pro Zug eine zusätzliche
//   Bedenkzeit"), and these editions have no rule that converts it into a fixed time.
// - 2023 (beyond the seeds, A.1/B.1): base time + 60 x increment; blitz <= 10 min, rapid > 10 and
//   < 60 min. The repeating control is standard there too (A.1 also asks for a fixed time for all
//   moves).
struct SpeedRule {
  int increment_moves;
  std::int64_t blitz_max_ms;
  std::int64_t rapid_max_ms;
  absl::string_view article;
};

enum class BothFlagsOutcome : std::uint8_t { kContinue, kDraw };
absl::string_view BothFlagsOutcomeName(BothFlagsOutcome outcome);  // "continue", "draw"

// What happens when both flags have fallen and it cannot be established which fell first.
struct BothFlagsRuling {
  BothFlagsOutcome outcome;
  absl::string_view article;
  friend bool operator==(const BothFlagsRuling&, const BothFlagsRuling&) = default;
};

// Both flags fallen in a period other than the final one / in the final ("rest of the game")
// period.
struct BothFlagsRule {
  BothFlagsRuling before_final;
  BothFlagsRuling final;
};

// 6.10 and its counterparts: what a counted flag decides. A flag is not a win by itself: the
// flagged player has lost, except that the game is drawn if the opponent cannot checkmate him by
// any series of legal moves (6.10), and 5.1/5.2a-c take precedence; in 1997 blitz the opponent
// must have mating potential (C4). Only the position can tell, which a clock does not know.
struct FlagResultRule {
  // 1997 C4: the opponent needs "das Potential zum Mattsetzen" (a position where the flagged
  // player to move cannot prevent mate next move), not merely some mating series (6.10).
  bool needs_mating_potential;
  absl::string_view article;
  friend bool operator==(const FlagResultRule&, const FlagResultRule&) = default;
};

struct EditionRules {
  Edition edition;
  SpeedRule speed;
  BothFlagsRule both_flags_standard;
  BothFlagsRule both_flags_rapid_blitz;  // Appendix B8 where the edition has it
  // 6.7: the default time when the event regulations say nothing.
  std::int64_t default_time_ms;
  absl::string_view default_time_article;
  // What a counted flag decides in standard and rapid play, and in blitz.
  FlagResultRule flag_result;
  FlagResultRule flag_result_blitz;
};

const EditionRules& Rules(Edition edition);

// The category of a time control whose counted time (see SpeedRule) is `counted_ms`.
SpeedCategory CategoryForCountedTime(Edition edition, std::int64_t counted_ms);
// The category of a control: `repeating` when its last period has a move count (no fixed time for
// all moves: standard in every edition, see SpeedRule), else CategoryForCountedTime.
SpeedCategory CategoryForControl(Edition edition, std::int64_t counted_ms, bool repeating);

// What a flag that counts (6.9, or a granted B7 claim) decides under `edition` and `category`.
FlagResultRule FlagResultFor(Edition edition, SpeedCategory category);

// 8.1: whether players must record the moves at all. Standard play: yes, lapsing under 8.4. Rapid
// and blitz: no (B3 "Die Spieler müssen die Züge nicht aufzeichnen", blitz through C2; 2023 A.2,
// blitz through B.3/B.4).
struct ScoresheetDuty {
  bool applies;
  absl::string_view article;
};
ScoresheetDuty ScoresheetDutyFor(Edition edition, SpeedCategory category);

// 6.12 / 10.3 / B8, read from the table. `in_final_period`: the flags fell in the period in which
// all remaining moves must be made.
BothFlagsRuling RuleBothFlagsFallen(Edition edition, SpeedCategory category, bool in_final_period);

// 6.7: the event regulations' default time if they set one, otherwise the edition's.
std::int64_t DefaultTimeMs(Edition edition, std::optional<std::int64_t> event_default_ms);

}  // namespace laws

#endif  // ARBITER_LIBS_LAWS_EDITION_H_
