#include "libs/laws/edition.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "libs/base/enum_table.h"
#include "libs/base/error.h"
#include "libs/laws/errors.h"

namespace laws {
namespace {

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 60 * kMinute;

constexpr BothFlagsRuling kContinue(absl::string_view article) {
  return {BothFlagsOutcome::kContinue, article};
}
constexpr BothFlagsRuling kDraw(absl::string_view article) {
  return {BothFlagsOutcome::kDraw, article};
}

// The "Editions" table of LAWS.md, one row per edition, indexed by Edition.
//
// Speed (the reading is documented at SpeedRule in edition.h): B1 "alle Züge innerhalb einer
// festgesetzten Zeit von zwischen 15 und 60 Minuten" (15 and 60 included), C1 "weniger als 15
// Minuten". Only the fixed time counts in 1997-2005: the increment is ignored ("G/60+30" rapid,
// "G/14+30" blitz). A repeating control ("20/5") has no fixed time for all moves: standard
// (CategoryForControl). 2023: blitz <= 10 min, rapid > 10 and < 60 min, base + 60 x increment.
constexpr SpeedRule kAppendixB1C1{0, 15 * kMinute - 1, 60 * kMinute, "B1, C1"};
constexpr SpeedRule k2023{60, 10 * kMinute, 60 * kMinute - 1, "A.1, B.1 (2023)"};

// 6.10 "Die Partie ist jedoch remis, wenn ... es dem Gegner nicht möglich ist, den König des
// Spielers durch eine beliebige Folge von regelgemäßen Zügen ... matt zu setzen" (2005; 2001 the
// same). 1997 C4 "Um zu gewinnen, muss ein Spieler das Potential zum Mattsetzen haben".
constexpr FlagResultRule kResult(absl::string_view article) { return {false, article}; }

constexpr std::array<EditionRules, 4> kTable = {{
    // 1997: seed 004 holds only the appendices; Articles 6 and 10 are carried as in 2001.
    {Edition::kFide1997,
     kAppendixB1C1,
     {kContinue("6.12 (as 2001)"), kDraw("10.3 (as 2001)")},
     {kDraw("B8"), kDraw("B8")},
     kHour,
     "6.7 (as 2001)",
     kResult("6.10 (as 2001)"),
     {true, "C4 (1997)"}},
    // 2001: 6.12 the game continues; 10.3 drawn in the quickplay finish (the final period); B8.
    {Edition::kFide2001,
     kAppendixB1C1,
     {kContinue("6.12"), kDraw("10.3")},
     {kDraw("B8"), kDraw("B8")},
     kHour,
     "6.7",
     kResult("6.10"),
     kResult("6.10")},  // C2, B2: the Laws apply; C3 is about illegal moves
    // 2005: 6.12 a) continues in any period but the last, b) drawn in the last. Seed 003 revises
    // only Article 6, so the appendices (B8) are carried as in 2001.
    {Edition::kFide2005,
     kAppendixB1C1,
     {kContinue("6.12a"), kDraw("6.12b")},
     {kDraw("B8 (as 2001)"), kDraw("B8 (as 2001)")},
     kHour,
     "6.7",
     kResult("6.10"),
     kResult("6.10")},
    // 2023: as 2005 in every category (Guidelines III); the default time is the event's, 0 if the
    // regulations say nothing.
    {Edition::kFide2023,
     k2023,
     {kContinue("6.12a (as 2005)"), kDraw("6.12b (as 2005)")},
     {kContinue("6.12a (as 2005)"), kDraw("6.12b (as 2005)")},
     0,
     "6.7.1 (2023)",
     kResult("6.9 (2023)"),
     kResult("6.9 (2023)")},
}};

constexpr bool TableIsIndexedByEdition() {
  for (int i = 0; i < static_cast<int>(kTable.size()); ++i) {
    if (static_cast<int>(kTable[i].edition) != i) return false;
  }
  return true;
}
static_assert(TableIsIndexedByEdition());

}  // namespace

absl::string_view EditionName(Edition edition) {
  static constexpr absl::string_view kNames[] = {"fide1997", "fide2001", "fide2005", "fide2023"};
  return base::EnumEntry(kNames, edition, "?");
}

absl::StatusOr<Edition> ParseEdition(absl::string_view name) {
  for (Edition e : kAllEditions) {
    if (EditionName(e) == name) return e;
  }
  return base::Error(laws::kErrBadEdition,
                     absl::StrCat("unknown edition \"", name,
                                  "\"; expected one of fide1997, fide2001, fide2005, fide2023"));
}

absl::string_view SpeedCategoryName(SpeedCategory category) {
  static constexpr absl::string_view kNames[] = {"standard", "rapid", "blitz"};
  return base::EnumEntry(kNames, category, "?");
}

absl::string_view BothFlagsOutcomeName(BothFlagsOutcome outcome) {
  return outcome == BothFlagsOutcome::kDraw ? "draw" : "continue";
}

const EditionRules& Rules(Edition edition) { return kTable[static_cast<int>(edition)]; }

SpeedCategory CategoryForCountedTime(Edition edition, std::int64_t counted_ms) {
  const SpeedRule& rule = Rules(edition).speed;
  if (counted_ms <= rule.blitz_max_ms) return SpeedCategory::kBlitz;
  if (counted_ms <= rule.rapid_max_ms) return SpeedCategory::kRapid;
  return SpeedCategory::kStandard;
}

SpeedCategory CategoryForControl(Edition edition, std::int64_t counted_ms, bool repeating) {
  // B1/C1 "alle Züge innerhalb einer festgesetzten Zeit": a repeating control has none.
  if (repeating) return SpeedCategory::kStandard;
  return CategoryForCountedTime(edition, counted_ms);
}

FlagResultRule FlagResultFor(Edition edition, SpeedCategory category) {
  const EditionRules& rules = Rules(edition);
  return category == SpeedCategory::kBlitz ? rules.flag_result_blitz : rules.flag_result;
}

ScoresheetDuty ScoresheetDutyFor(Edition edition, SpeedCategory category) {
  if (category == SpeedCategory::kStandard) return {true, "8.1, 8.4"};
  switch (edition) {
    case Edition::kFide1997:
      return {false, "B3 (1997)"};
    case Edition::kFide2001:
      return {false, "B3"};
    case Edition::kFide2005:
      return {false, "B3 (as 2001)"};  // seed 003 revises only Article 6
    case Edition::kFide2023:
      return {false, "A.2 (2023)"};
  }
  return {true, "8.1, 8.4"};
}

BothFlagsRuling RuleBothFlagsFallen(Edition edition, SpeedCategory category, bool in_final_period) {
  const EditionRules& rules = Rules(edition);
  const BothFlagsRule& rule = category == SpeedCategory::kStandard ? rules.both_flags_standard
                                                                   : rules.both_flags_rapid_blitz;
  return in_final_period ? rule.final : rule.before_final;
}

std::int64_t DefaultTimeMs(Edition edition, std::optional<std::int64_t> event_default_ms) {
  // 6.7: "es sei denn, das Turnierreglement sehe etwas anderes vor".
  if (event_default_ms.has_value()) return *event_default_ms;
  return Rules(edition).default_time_ms;
}

}  // namespace laws
