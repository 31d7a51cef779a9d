// 6.13b and d: a player stops the clocks to seek the arbiter, and the arbiter's ruling on it;
// the arbiter's powers (12.4, 12.7, 12.8, 13.4a/d/e/f/g). irregularities.h rules them; this file
// checks the commands and hands them over. See plan.h for the families.
#include <string>

#include "libs/arbitration/errors.h"
#include "libs/arbitration/irregularities.h"
#include "libs/arbitration/plan.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"

namespace arbitration {

namespace {

// 6.13b: the player says why.
absl::Status ValidateStopClocks(const Command& c) {
  RETURN_IF_ERROR(RequireSide(c));
  return CheckReason(c, /*required=*/true);
}

absl::Status DecideStopClocksCommand(Plan& plan, const Command& c, Analyst& /*analyst*/,
                                     v1::ClaimRuling* /*ruling*/) {
  EventSink sink = SinkOf(plan, c);
  return DecideStopClocks(sink, *c.side, c.reason);
}

absl::Status ValidateRuleStop(const Command& c) {
  RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
  const std::string& p = c.irregular.penalty;
  if (!p.empty() && p != "13.4a" && p != "13.4b" && p != "13.4c") {
    return Error(kErrBadArgument, "rule_stop: penalty \"\", 13.4a, 13.4b or 13.4c");
  }
  if ((p == "13.4b" || p == "13.4c") != (c.delta_ms > 0)) {
    return Error(kErrBadArgument,
                 "rule_stop: penalty_ms > 0 with 13.4b or 13.4c, and only with them");
  }
  return absl::OkStatus();
}

absl::Status DecideRuleStopCommand(Plan& plan, const Command& c, Analyst& /*analyst*/,
                                   v1::ClaimRuling* /*ruling*/) {
  EventSink sink = SinkOf(plan, c);
  return DecideRuleStop(sink, c.irregular, c.delta_ms, c.reason);
}

absl::Status ValidateUsePower(const Command& c) {
  RETURN_IF_ERROR(CheckReason(c, /*required=*/true));
  RETURN_IF_ERROR(ValidateIrregularArgs("use_power", c.irregular));
  const v1::ArbiterPower power = c.irregular.power;
  if (power == v1::ARBITER_POWER_UNSPECIFIED || !v1::ArbiterPower_IsValid(power)) {
    return Error(kErrBadArgument, "use_power: a power (13.4a, d-g, 12.4, 12.7, 12.8)");
  }
  if (power != v1::ARBITER_POWER_BOTH_REFUSE) RETURN_IF_ERROR(RequireSide(c));
  const bool points =
      power == v1::ARBITER_POWER_REDUCE_POINTS || power == v1::ARBITER_POWER_INCREASE_POINTS;
  if (points && (!c.irregular.points || *c.irregular.points <= 0)) {
    return Error(kErrBadArgument, "use_power: 13.4e/f need points > 0");
  }
  return absl::OkStatus();
}

absl::Status DecideUsePower(Plan& plan, const Command& c, Analyst& /*analyst*/,
                            v1::ClaimRuling* /*ruling*/) {
  EventSink sink = SinkOf(plan, c);
  return DecidePower(sink, c.side, c.irregular, c.reason);
}

}  // namespace

absl::Span<const CommandRule> ArbiterRules() {
  static constexpr CommandRule kRows[] = {
      {CommandKind::kStopClocks, "stop_clocks", ValidateStopClocks, DecideStopClocksCommand},
      {CommandKind::kRuleStop, "rule_stop", ValidateRuleStop, DecideRuleStopCommand},
      {CommandKind::kUsePower, "use_power", ValidateUsePower, DecideUsePower},
  };
  return kRows;
}

}  // namespace arbitration
