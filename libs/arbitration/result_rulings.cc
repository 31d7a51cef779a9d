// The start and the players' arrival (6.5-6.7), resignation (5.1b), the players' confirmation
// of the result (8.7) and the result the arbiter sets. See plan.h for the families.
#include <utility>

#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/events.h"
#include "libs/arbitration/plan.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {

using chess::Color;
using laws::Outcome;
using laws::Termination;

namespace {

absl::Status ValidateStart(const Command& c) {
  if (c.absent.size() > 2) return Error(kErrBadArgument, "start: at most two absent players");
  return absl::OkStatus();
}

absl::Status DecideStart(Plan& plan, const Command& c, Analyst& /*analyst*/,
                         v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  if (s.status() == GameStatus::kEnded) return Error(kErrGameOver, "the game is over");
  if (s.status() != GameStatus::kCreated) {
    return Error(kErrGameAlreadyStarted, "the game has started already");
  }
  v1::ArbitrationEvent e;
  for (Color side : c.absent) e.mutable_started()->add_absent(laws::ToProto(side));
  e.mutable_started();
  return plan.Add(std::move(e), now, c.actor);
}

absl::Status DecideArrive(Plan& plan, const Command& c, Analyst& analyst,
                          v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  RETURN_IF_ERROR(CheckNotOver(s));
  if (s.present(*c.side)) return Error(kErrAlreadyPresent, "the player is present already");
  v1::ArbitrationEvent e;
  e.mutable_arrived()->set_side(laws::ToProto(*c.side));
  RETURN_IF_ERROR(plan.Add(std::move(e), now, c.actor));
  // Appendix A9b, A9c: the envelope that waited for him is opened.
  return OpenOnArrival(plan.state, c, now, plan.Adder(), analyst);
}

absl::Status DecideResign(Plan& plan, const Command& c, Analyst& /*analyst*/,
                          v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  RETURN_IF_ERROR(CheckNotOver(s));
  v1::ArbitrationEvent e;
  e.mutable_resigned()->set_side(laws::ToProto(*c.side));
  RETURN_IF_ERROR(plan.Add(std::move(e), now, c.actor));
  return plan.Add(EndedEvent(Outcome::Win(~*c.side, Termination::kResignation, "5.1b")), now,
                  c.actor);
}

absl::Status DecideConfirm(Plan& plan, const Command& c, Analyst& /*analyst*/,
                           v1::ClaimRuling* /*ruling*/) {
  const GameState& s = plan.state;
  const std::int64_t now = plan.now_ms;
  if (s.status() != GameStatus::kEnded) {
    return Error(kErrGameNotOver, "8.7: the result is confirmed after the game");
  }
  if (s.confirmed(*c.side)) return Error(kErrAlreadyConfirmed, "8.7: confirmed already");
  v1::ArbitrationEvent e;
  e.mutable_confirmed()->set_side(laws::ToProto(*c.side));
  return plan.Add(std::move(e), now, c.actor);
}

absl::Status ValidateSetResult(const Command& c) {
  if (!c.outcome.over()) return Error(kErrBadArgument, "set_result: a result is required");
  if (c.outcome.article.empty() || c.reason.empty()) {
    return Error(kErrBadArgument, "set_result: the article and a reason are required");
  }
  if (c.outcome.article.size() > 32 || c.reason.size() > 1024) {
    return Error(kErrBadArgument, "set_result: the article or the reason is too long");
  }
  return absl::OkStatus();
}

absl::Status DecideSetResult(Plan& plan, const Command& c, Analyst& /*analyst*/,
                             v1::ClaimRuling* /*ruling*/) {
  const std::int64_t now = plan.now_ms;
  v1::ArbitrationEvent e;
  laws::ToProto(c.outcome, e.mutable_result_set()->mutable_outcome());
  e.mutable_result_set()->set_reason(c.reason);
  return plan.Add(std::move(e), now, c.actor);
}

}  // namespace

absl::Span<const CommandRule> ResultRules() {
  static constexpr CommandRule kRows[] = {
      {CommandKind::kStart, "start", ValidateStart, DecideStart},
      {CommandKind::kArrive, "arrive", RequireSide, DecideArrive},
      {CommandKind::kResign, "resign", RequireSide, DecideResign},
      {CommandKind::kConfirm, "confirm", RequireSide, DecideConfirm},
      {CommandKind::kSetResult, "set_result", ValidateSetResult, DecideSetResult},
  };
  return kRows;
}

}  // namespace arbitration
