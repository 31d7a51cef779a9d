#include "libs/clock_authority/clock_rulings.h"

#include <limits>

#include "libs/laws/ruleset.h"

namespace clock_authority {

using chess::Color;
using chessclock::Clock;

std::optional<std::int64_t> FallenFlag(const Clock& clock, Color side) {
  return clock.FlagTime(side, std::numeric_limits<std::int64_t>::min());
}

laws::BothFlagsRuling RuleBothFlags(const Clock& clock, laws::Edition edition,
                                    laws::SpeedCategory speed) {
  // B8 / 10.3 tell the final period (all remaining moves) from the others.
  const bool in_final_period =
      clock.InFinalPeriod(Color::kWhite) && clock.InFinalPeriod(Color::kBlack);
  return laws::RuleBothFlagsFallen(edition, speed, in_final_period);
}

ClockDecision FlagFellDecision(laws::Edition edition, laws::SpeedCategory speed, Color flagged,
                               absl::string_view article, std::int64_t at_ms) {
  const laws::FlagResultRule rule = laws::FlagResultFor(edition, speed);
  ClockDecision d;
  d.kind = ClockDecision::Kind::kFlagFell;
  // No result: the clock knows no position (6.10; 1997 blitz C4).
  d.outcome.termination = laws::Termination::kTimeForfeit;
  d.outcome.article = std::string(rule.article);
  d.article = std::string(article);
  d.at_ms = at_ms;
  d.flagged = flagged;
  d.needs_mating_potential = rule.needs_mating_potential;
  return d;
}

namespace {

// B8 / 6.12b / 10.3: both flags down is a draw by itself.
ClockDecision BothFlagsDraw(absl::string_view article, std::int64_t at_ms) {
  ClockDecision d;
  d.kind = ClockDecision::Kind::kResult;
  d.outcome = laws::Outcome::Draw(laws::Termination::kBothFlags, article);
  d.article = std::string(article);
  d.at_ms = at_ms;
  return d;
}

}  // namespace

std::optional<ClockDecision> RuleCountedFlag(const Clock& clock, laws::Edition edition,
                                             laws::SpeedCategory speed, Color side,
                                             absl::string_view article, std::int64_t fell_at_ms) {
  if (const std::optional<std::int64_t> other = FallenFlag(clock, ~side); other.has_value()) {
    if (*other == fell_at_ms) {
      // 6.12 / 10.3: both flags down and not determinable which first.
      const laws::BothFlagsRuling both = RuleBothFlags(clock, edition, speed);
      if (both.outcome != laws::BothFlagsOutcome::kDraw) return std::nullopt;
      return BothFlagsDraw(both.article, fell_at_ms);
    }
    // The clock knows which fell first: that flag decides (6.9, 6.10), not 6.12 / 10.3.
    if (*other < fell_at_ms) return FlagFellDecision(edition, speed, ~side, article, *other);
  }
  return FlagFellDecision(edition, speed, side, article, fell_at_ms);
}

ClaimRuling RuleClaim(const Clock& clock, laws::Edition edition, laws::SpeedCategory speed,
                      Color claimant, std::int64_t at_ms, bool supervised) {
  const std::optional<std::int64_t> own = clock.FlagTime(claimant, at_ms);
  const std::optional<std::int64_t> opponent = clock.FlagTime(~claimant, at_ms);
  const laws::FlagRule rule = laws::FlagRuleFor(edition, speed, supervised);
  ClaimRuling ruling;
  if (own.has_value() && opponent.has_value()) {
    if (rule.both_down_draws) {
      // B8: a claim that finds both flags down; "ist die Partie remis", whichever fell first.
      ruling.article = std::string(rule.both_down_article);
      ruling.decision = BothFlagsDraw(rule.both_down_article, at_ms);
      return ruling;
    }
    if (*own == *opponent) {
      // 6.12 / 10.3: both down and not determinable which first.
      const laws::BothFlagsRuling both = RuleBothFlags(clock, edition, speed);
      ruling.article = std::string(both.article);
      if (both.outcome == laws::BothFlagsOutcome::kDraw) {
        ruling.decision = BothFlagsDraw(both.article, at_ms);
      }
      return ruling;
    }
    // The clock knows which fell first, and that flag decides: the claim is valid against an
    // opponent whose flag fell before the claimant's own, and not otherwise.
    ruling.article =
        std::string(rule.counts_when_observed ? absl::string_view("6.9") : rule.claim_article);
    if (*opponent < *own) {
      ruling.decision = FlagFellDecision(edition, speed, ~claimant, ruling.article, at_ms);
    }
    return ruling;
  }
  // B7: granted only if the claimant's flag is still up and the opponent's has fallen. Where the
  // flag counts when observed, a player's pointing it out is the other half of 6.9.
  ruling.article =
      std::string(rule.counts_when_observed ? absl::string_view("6.9") : rule.claim_article);
  if (opponent.has_value()) {
    // The opponent's flag counts now; what it decides is 6.10's (C4 in 1997 blitz), not a win.
    ruling.decision = FlagFellDecision(edition, speed, ~claimant, ruling.article, at_ms);
  }
  return ruling;
}

std::vector<Color> DefaultedSides(const Clock& clock, std::int64_t at_ms) {
  std::vector<Color> out;
  for (Color side : {Color::kWhite, Color::kBlack}) {
    if (clock.LostByDefault(side, at_ms)) out.push_back(side);
  }
  return out;
}

std::optional<std::int64_t> DefaultDue(const Clock& clock) {
  const std::optional<std::int64_t> deadline = clock.DefaultDeadline();
  if (!deadline.has_value()) return std::nullopt;
  const std::int64_t due = *deadline + 1;  // "more than" the default time late
  // Someone absent may still be late; someone present may have come late already (a start more
  // than the default time after the scheduled start, 6.7).
  for (Color side : {Color::kWhite, Color::kBlack}) {
    if (!clock.present(side) || clock.LostByDefault(side, due)) return due;
  }
  return std::nullopt;
}

ClockDecision DefaultDecision(absl::Span<const Color> late, absl::string_view article,
                              std::int64_t at_ms) {
  ClockDecision d;
  d.kind = ClockDecision::Kind::kResult;
  d.outcome = late.size() == 1 ? laws::Outcome::Win(~late[0], laws::Termination::kDefault, article)
                               : laws::Outcome::BothLose(laws::Termination::kDefault, article);
  d.article = std::string(article);
  d.at_ms = at_ms;
  return d;
}

}  // namespace clock_authority
