#include "libs/laws/ruleset.h"

#include <algorithm>

namespace laws {

FlagRule FlagRuleFor(Edition edition, SpeedCategory category, bool supervised) {
  if (category == SpeedCategory::kStandard) return {true, "6.9"};
  const bool blitz = category == SpeedCategory::kBlitz;
  switch (edition) {
    // B6 "Das Fallblättchen gilt als gefallen, sobald einer der Spieler mit Recht darauf
    // hingewiesen hat"; B7 grants the claim "nur ..., wenn nach Anhalten der Uhren das
    // Fallblättchen des Antragstellers noch oben und das seines Gegners gefallen ist"; B8 both
    // down: drawn. Blitz through C2.
    case Edition::kFide1997:
      return {false, "B6 (1997)", "B7", true, "B8"};
    case Edition::kFide2001:
      return {false, "B6", "B7", true, "B8"};
    case Edition::kFide2005:  // seed 003 revises only Article 6
      return {false, "B6 (as 2001)", "B7", true, "B8 (as 2001)"};
    case Edition::kFide2023:
      // A.3 / B.3: with adequate supervision the Competition Rules apply (6.9). A.4.5: "The flag
      // is considered to have fallen when a player has made a valid claim to that effect"; it has
      // no B8: both down, the first flag decides where its instant is known.
      if (supervised) return {true, blitz ? "B.3 (2023)" : "A.3 (2023)"};
      return {false, blitz ? "A.4.5 (2023, B.4)" : "A.4.5 (2023)",
              blitz ? "A.4.5 (2023, B.4)" : "A.4.5 (2023)", false, ""};
  }
  return {true, "6.9"};
}

FlagRule FlagRuleOf(const Ruleset& ruleset) {
  return FlagRuleFor(ruleset.edition, ruleset.speed, ruleset.regulations.supervised);
}

WinOnTime WinOnTimeOf(const Ruleset& ruleset) {
  // Seed 004 C4: in the 1997 blitz rules a win needs mating potential.
  if (ruleset.edition == Edition::kFide1997 && ruleset.speed == SpeedCategory::kBlitz) {
    return {WinOnTimeTest::kMatingPotential, "C4"};
  }
  return {WinOnTimeTest::kAnySeries, "6.10"};
}

ClaimPenalty IncorrectClaimPenalty(const Ruleset& ruleset, std::int64_t claimant_remaining_ms) {
  if (ruleset.edition == Edition::kFide2023) {
    return {120'000, claimant_remaining_ms, "9.5.2"};  // 2023: the opponent gets two minutes
  }
  std::int64_t after = claimant_remaining_ms;
  if (claimant_remaining_ms > 120'000) {
    after = claimant_remaining_ms - std::min<std::int64_t>(claimant_remaining_ms / 2, 180'000);
  } else if (claimant_remaining_ms >= 60'000) {
    after = 60'000;
  }
  return {180'000, after, "9.5b"};
}

QuickplayRule QuickplayRuleOf(const Ruleset& ruleset) {
  if (ruleset.speed == SpeedCategory::kBlitz) {
    return {QuickplayClaim::kNotApplicable, ruleset.edition == Edition::kFide1997 ? "C5" : "C4"};
  }
  // 2023 Guidelines III.2.2: only in games without increment.
  if (ruleset.edition == Edition::kFide2023 && ruleset.increment) {
    return {QuickplayClaim::kNotApplicable, "III.2.2 (2023)"};
  }
  if (ruleset.regulations.arbiter_present) return {QuickplayClaim::kArbiter, "10.2"};
  return {QuickplayClaim::kAppendixD, "D1"};
}

IllegalMovePenalty IllegalMovePenaltyOf(const Ruleset& ruleset, int count) {
  switch (ruleset.edition) {
    case Edition::kFide2023: {
      // 7.5.5: two minutes for the first; the second loses. Rapid and blitz: the amount the
      // regulations set (A.4.2, B.3), two minutes when they say nothing.
      const std::int64_t extra =
          ruleset.regulations.illegal_move_extra_ms.value_or(kIllegalMoveExtraMs);
      if (count >= 2) return {0, true, "7.5.5 (2023)", /*drawn_if_opponent_cannot_mate=*/true};
      return {extra, false, "7.5.5 (2023)"};
    }
    case Edition::kFide2001:
      // 7.4b: two minutes for each of the first two; the third loses.
      return {count >= 3 ? 0 : kIllegalMoveExtraMs, count >= 3, "7.4b"};
    case Edition::kFide1997:
      // Seed 004 holds only the appendices; Article 7 is carried as in 2001 (B2: the Laws apply).
      return {count >= 3 ? 0 : kIllegalMoveExtraMs, count >= 3, "7.4b (as 2001)"};
    case Edition::kFide2005:
      // Seed 003 revises only Article 6; Article 7 is 2001's.
      return {count >= 3 ? 0 : kIllegalMoveExtraMs, count >= 3, "7.4b (as 2001)"};
  }
  return {kIllegalMoveExtraMs, false, "7.4b"};
}

CompletedIllegalMoveRule CompletedIllegalMoveOf(const Ruleset& ruleset) {
  if (ruleset.speed != SpeedCategory::kBlitz) return {false, false, ""};
  switch (ruleset.edition) {
    case Edition::kFide1997:
      return {true, true, "C3 (1997)"};  // seed 004 C3 with C4: mating potential
    case Edition::kFide2001:
      return {true, false, "C3"};
    case Edition::kFide2005:
      return {true, false, "C3 (as 2001)"};  // seed 003 revises only Article 6
    case Edition::kFide2023:
      break;  // 2023 B.3: 7.5.5 with the regulations' amount, the arbiter rules
  }
  return {false, false, ""};
}

SetupClaimRule SetupClaimRuleOf(const Ruleset& ruleset) {
  if (ruleset.speed == SpeedCategory::kStandard || ruleset.edition == Edition::kFide2023) {
    return {0, "7.1a"};
  }
  return {3, ruleset.edition == Edition::kFide1997 ? "B4 (1997)" : "B4"};
}

ClockSettingRule ClockSettingRuleOf(const Ruleset& ruleset) {
  // B4 names the clock setting beside the set-up and the board: the same three moves each (seed
  // 004 "Uhrzeiger", seed 000 "Uhrzeigerstellung"; seed 003 revises only Article 6).
  if (ruleset.speed == SpeedCategory::kStandard) return {0, ""};
  switch (ruleset.edition) {
    case Edition::kFide1997:
      return {3, "B4 (1997)"};
    case Edition::kFide2001:
      return {3, "B4"};
    case Edition::kFide2005:
      return {3, "B4 (as 2001)"};
    case Edition::kFide2023:
      // A.4.1.1's ten moves bind only games without adequate supervision (A.3): not read here.
      break;
  }
  return {0, ""};
}

IrregularityClaimRule IrregularityClaimRuleOf(const Ruleset& ruleset) {
  if (ruleset.speed == SpeedCategory::kStandard) return {false, ""};
  switch (ruleset.edition) {
    case Edition::kFide2001:
      return {true, "B5b"};
    case Edition::kFide2005:
      return {true, "B5b (as 2001)"};  // seed 003 revises only Article 6
    case Edition::kFide1997:           // seed 004 B5: Article 4 and 10 only on request, no b)
    case Edition::kFide2023:           // 4.8: Articles 4.1-4.7 only
      break;
  }
  return {false, ""};
}

ColoursReversedRule ColoursReversedRuleOf(const Ruleset& ruleset) {
  if (ruleset.edition == Edition::kFide2023) return {10, "7.3 (2023)"};
  return {0, "7.2"};
}

bool AutomaticRepetitionDraws(const Ruleset& ruleset) {
  return ruleset.edition == Edition::kFide2023;
}

std::int64_t DefaultTimeMs(const Ruleset& ruleset) {
  return laws::DefaultTimeMs(ruleset.edition, ruleset.regulations.default_time_ms);
}

int MaxDrawOffers(const Ruleset& ruleset) {
  return std::max(ruleset.regulations.max_draw_offers, 0);
}

DrawClaimRightRule DrawClaimRightOf(const Ruleset& ruleset) {
  if (ruleset.edition == Edition::kFide2023) return {true, "9.4 (2023)"};
  return {false, "9.4"};
}

laws::BothFlagsRuling BothFlags(const Ruleset& ruleset, bool in_final_period) {
  return laws::RuleBothFlagsFallen(ruleset.edition, ruleset.speed, in_final_period);
}

}  // namespace laws
