// The clock's rulings, by article: what a flag that counts decides (6.9, 6.12, 10.3, B8), how a
// flag claim is ruled (B7, B8, 6.9), and when an absent player loses by default (6.7). Pure
// functions of the clock and the edition that answer in the Laws' terms, a laws::Outcome with its
// article; the proto form (v1::ClockDecision) is the codec's alone (clock_codec.h).
//
//   ClaimRuling r = RuleClaim(game.clock(), game.edition(), game.speed(), Color::kWhite, now_ms);
//   if (r.granted()) ...  // r.decision: black's flag counts (B7), 6.10 decides the result
//
// A counted flag (6.9) or a granted B7 claim is not a win: the clock knows no position, and the
// result follows from 6.10 (the flagged player has lost unless the opponent cannot mate him by any
// series of legal moves; 1997 blitz: C4, the opponent needs mating potential). Its decision is
// kFlagFell with the flagged side and no result. Both flags (B8, 6.12b, 10.3) and a default (6.7)
// are results by themselves: kResult.
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_RULINGS_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_RULINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/chess/types.h"
#include "libs/clock/clock.h"
#include "libs/laws/edition.h"
#include "libs/laws/outcome.h"
#include "libs/laws/ruleset.h"

namespace clock_authority {

// What the clock decided about the game.
struct ClockDecision {
  enum class Kind : std::uint8_t {
    // Decided before decisions had a kind (a snapshot of that time): read `outcome`.
    kUnspecified,
    // `outcome` is the result by itself: both flags (6.12b, 10.3, B8) or a default (6.7).
    kResult,
    // A flag fell and counts (6.9, or a granted B7 claim); `outcome` has no result (6.10 decides
    // it from the position), only the time forfeit and the article the result follows from.
    kFlagFell,
  };
  Kind kind = Kind::kUnspecified;
  laws::Outcome outcome;
  // Why the clock decided: "6.9", "B7", "B8", "6.12b", "10.3", "6.7", ...
  std::string article;
  std::int64_t at_ms = 0;
  std::optional<chess::Color> flagged;  // kFlagFell: the side whose flag fell
  bool needs_mating_potential = false;  // kFlagFell under 1997 C4 (else 6.10's any legal series)

  friend bool operator==(const ClockDecision&, const ClockDecision&) = default;
};

// The first flag of `side` as the state holds it, whatever the time (nullopt if not yet fallen).
std::optional<std::int64_t> FallenFlag(const chessclock::Clock& clock, chess::Color side);

// 6.12 / 10.3 / B8 for this clock: both flags down, and which fell first cannot be established.
laws::BothFlagsRuling RuleBothFlags(const chessclock::Clock& clock, laws::Edition edition,
                                    laws::SpeedCategory speed);

// 6.9 (or a granted B7 claim): `flagged`'s flag counts at `at_ms` for the reason `article`. What
// it decides is 6.10's (C4 in 1997 blitz), named in the outcome's article.
ClockDecision FlagFellDecision(laws::Edition edition, laws::SpeedCategory speed,
                               chess::Color flagged, absl::string_view article, std::int64_t at_ms);

// A flag of `side` that counts when observed (6.9), recorded as fallen at `fell_at_ms`: the
// flag-fell decision of the flag that fell first (the clock knows each flag's instant), or, with
// the opponent's flag down at the same instant (which fell first cannot be established), 6.12 /
// 10.3: a draw by itself, or nullopt where play goes on (no decision).
std::optional<ClockDecision> RuleCountedFlag(const chessclock::Clock& clock, laws::Edition edition,
                                             laws::SpeedCategory speed, chess::Color side,
                                             absl::string_view article, std::int64_t fell_at_ms);

// How a flag claim is ruled: the article, and what it decides if granted.
struct ClaimRuling {
  std::string article;
  std::optional<ClockDecision> decision;  // set iff granted
  bool granted() const { return decision.has_value(); }
};
// B7 / 6.9 / B8 / 6.12: `claimant`'s claim at `at_ms`. Both flags down: B8's draw where a claim
// counts the flags (1997-2005 rapid and blitz), whichever fell first; elsewhere the first flag
// decides (granted only against an opponent whose flag fell first), and 6.12 / 10.3 only when both
// fell at the same instant.
// `supervised`: 2023 A.3 or A.4.5 (laws::FlagRuleFor).
ClaimRuling RuleClaim(const chessclock::Clock& clock, laws::Edition edition,
                      laws::SpeedCategory speed, chess::Color claimant, std::int64_t at_ms,
                      bool supervised = laws::kDefaultSupervised);

// 6.7: the sides that have lost by default at `at_ms` (absent, not arrived by the deadline).
std::vector<chess::Color> DefaultedSides(const chessclock::Clock& clock, std::int64_t at_ms);

// The instant 6.7 decides the game if nobody arrives: nullopt when it cannot (not started,
// everyone present in time). Whether the game already ruled on it is the caller's to check.
std::optional<std::int64_t> DefaultDue(const chessclock::Clock& clock);

// 6.7: the `late` sides lose ("verliert die Partie"), whatever the position: one late side, the
// other wins; both, both lose.
ClockDecision DefaultDecision(absl::Span<const chess::Color> late, absl::string_view article,
                              std::int64_t at_ms);

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_CLOCK_RULINGS_H_
