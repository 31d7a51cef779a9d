// The names arbiterctl's client commands print for the API's enums (the names `clock simulate`
// and `game simulate` use), and the tables of the names the game commands read and print.
#ifndef ARBITER_TOOLS_ARBITERCTL_NAMES_H_
#define ARBITER_TOOLS_ARBITERCTL_NAMES_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.pb.h"
#include "proto/arbiter/v1/common.pb.h"

namespace arbiterctl {

// "white", "black", or JSON null for COLOR_UNSPECIFIED.
nlohmann::ordered_json SideName(arbiter::v1::Color c);
// "fide1997" ... "fide2023", "" for EDITION_UNSPECIFIED.
std::string EditionName(arbiter::v1::Edition e);
// "standard", "rapid", "blitz" (standard for GAME_TYPE_UNSPECIFIED).
std::string GameTypeName(arbiter::v1::GameType t);

// One value of an enum and its name: a table of them serves both ways, to read a flag or a field
// (ValueNamed) and to print a value (NameOf).
template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;
};

inline constexpr EnumName<arbiter::v1::ClaimKind> kClaimKindNames[] = {
    {arbiter::v1::CLAIM_KIND_THREEFOLD, "threefold"},
    {arbiter::v1::CLAIM_KIND_FIFTY, "fifty"},
    {arbiter::v1::CLAIM_KIND_QUICKPLAY, "quickplay"},
    {arbiter::v1::CLAIM_KIND_TIME, "time"},
    {arbiter::v1::CLAIM_KIND_ILLEGAL_MOVE, "illegal_move"},  // C3
    {arbiter::v1::CLAIM_KIND_TOUCH_MOVE, "touch_move"}};     // 4.3-4.5, B5a
// 13.4a, d, e, f, g; 12.7; 12.8; 12.4.
inline constexpr EnumName<arbiter::v1::ArbiterPower> kArbiterPowerNames[] = {
    {arbiter::v1::ARBITER_POWER_WARNING, "warning"},
    {arbiter::v1::ARBITER_POWER_LOSS, "loss"},
    {arbiter::v1::ARBITER_POWER_REDUCE_POINTS, "reduce_points"},
    {arbiter::v1::ARBITER_POWER_INCREASE_POINTS, "increase_points"},
    {arbiter::v1::ARBITER_POWER_EXPULSION, "expulsion"},
    {arbiter::v1::ARBITER_POWER_PERSISTENT_REFUSAL, "persistent_refusal"},
    {arbiter::v1::ARBITER_POWER_BOTH_REFUSE, "both_refuse"},
    {arbiter::v1::ARBITER_POWER_LEAVE_PERMITTED, "leave_permitted"}};
// Appendix D1.
inline constexpr EnumName<arbiter::v1::QuickplayGround> kQuickplayGroundNames[] = {
    {arbiter::v1::QUICKPLAY_GROUND_CANNOT_WIN, "cannot_win"},
    {arbiter::v1::QUICKPLAY_GROUND_NO_ATTEMPT, "no_attempt"}};
// 10.2 a, b, c; 7.4a on a claimed illegal move (uphold, reject).
inline constexpr EnumName<arbiter::v1::RulingDecision> kRulingDecisionNames[] = {
    {arbiter::v1::RULING_DECISION_DRAW, "draw"},
    {arbiter::v1::RULING_DECISION_POSTPONE, "postpone"},
    {arbiter::v1::RULING_DECISION_REJECT, "reject"},
    {arbiter::v1::RULING_DECISION_UPHOLD, "uphold"}};  // 7.4a: a claimed illegal move found
inline constexpr EnumName<arbiter::v1::ClaimRuling> kClaimRulingNames[] = {
    {arbiter::v1::CLAIM_RULING_CORRECT, "correct"},
    {arbiter::v1::CLAIM_RULING_INCORRECT, "incorrect"},
    {arbiter::v1::CLAIM_RULING_PENDING, "pending"}};

// The name of `value` in `names`; "" if it has none.
template <typename Enum, std::size_t N>
std::string NameOf(const EnumName<Enum> (&names)[N], Enum value) {
  for (const EnumName<Enum>& n : names) {
    if (n.value == value) return n.name;
  }
  return "";
}

// The value named `name` in `names`, if any.
template <typename Enum, std::size_t N>
std::optional<Enum> ValueNamed(const EnumName<Enum> (&names)[N], absl::string_view name) {
  for (const EnumName<Enum>& n : names) {
    if (name == n.name) return n.value;
  }
  return std::nullopt;
}

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_NAMES_H_
