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
#ifndef ARBITER_LIBS_CLOCK_EDITION_H_
#define ARBITER_LIBS_CLOCK_EDITION_H_

#include <array>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace chessclock {

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

struct EditionRules {
  Edition edition;
  SpeedRule speed;
  BothFlagsRule both_flags_standard;
  BothFlagsRule both_flags_rapid_blitz;  // Appendix B8 where the edition has it
  // 6.7: the default time when the event regulations say nothing.
  std::int64_t default_time_ms;
  absl::string_view default_time_article;
};

const EditionRules& Rules(Edition edition);

// The category of a time control whose counted time (see SpeedRule) is `counted_ms`.
SpeedCategory CategoryForCountedTime(Edition edition, std::int64_t counted_ms);

// 6.12 / 10.3 / B8, read from the table. `in_final_period`: the flags fell in the period in which
// all remaining moves must be made.
BothFlagsRuling RuleBothFlagsFallen(Edition edition, SpeedCategory category, bool in_final_period);

// 6.7: the event regulations' default time if they set one, otherwise the edition's.
std::int64_t DefaultTimeMs(Edition edition, std::optional<std::int64_t> event_default_ms);

}  // namespace chessclock

#endif  // ARBITER_LIBS_CLOCK_EDITION_H_
