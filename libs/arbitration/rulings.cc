#include "libs/arbitration/rulings.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/plan.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/laws/outcome.h"

namespace arbitration {
namespace {

using chess::Color;

constexpr std::size_t kKinds = static_cast<std::size_t>(kLastCommandKind) + 1;

// Every family's rows by kind, gathered once (a kind without a row is refused as unknown;
// command_table_test checks that there is none).
const std::array<const CommandRule*, kKinds>& Rows() {
  static const std::array<const CommandRule*, kKinds>* const rows = [] {
    auto* by_kind = new std::array<const CommandRule*, kKinds>{};
    for (absl::Span<const CommandRule> (*family)() :
         {MoveRules, DrawRules, ClockRules, ResultRules, ArbiterRules, AdjournmentRules}) {
      for (const CommandRule& row : family()) {
        const auto i = static_cast<std::size_t>(row.kind);
        if (i < kKinds && (*by_kind)[i] == nullptr) (*by_kind)[i] = &row;
      }
    }
    return by_kind;
  }();
  return *rows;
}

const CommandRule* RuleOf(CommandKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  return i < kKinds ? Rows()[i] : nullptr;
}

}  // namespace

v1::ArbitrationEvent ClockStopped() {
  v1::ArbitrationEvent e;
  e.mutable_clock_stopped();
  return e;
}

v1::ArbitrationEvent ClockRestarted() {
  v1::ArbitrationEvent e;
  e.mutable_clock_restarted();
  return e;
}

// Moves, offers and 9.2 / 9.3 / 10.2 claims need a game in play.
absl::Status CheckInPlay(const GameState& s) {
  switch (s.status()) {
    case GameStatus::kCreated:
      return Error(kErrGameNotStarted, "the game has not started (6.5)");
    case GameStatus::kEnded:
      return Error(kErrGameOver,
                   absl::StrCat("the game is over (", laws::ResultText(s.outcome().result), ", ",
                                s.outcome().article, ")"));
    case GameStatus::kAwaitingRuling:
      return Error(kErrAwaitingRuling,
                   "a claim awaits the arbiter's ruling; the clocks are stopped");
    case GameStatus::kAdjourned:
      return Error(kErrGameAdjourned,
                   "the game is adjourned (Appendix A): play waits for the resumption (A9)");
    case GameStatus::kOngoing:
      break;
  }
  return absl::OkStatus();
}

// 6.13a: while the arbiter has the clocks stopped the game is interrupted: no move and no claim
// (a claim stops a clock, 9.2 / 10.2, and none runs). Resignation, offers and their answers stay
// possible: they need no clock.
absl::Status CheckNotPaused(const GameState& s) {
  if (s.paused()) {
    return Error(kErrGamePaused,
                 "the arbiter has stopped the clocks (6.13a): play resumes when he restarts them");
  }
  return absl::OkStatus();
}

// Resignation and answers to offers are possible while a ruling is awaited, not before the start
// or after the end.
absl::Status CheckNotOver(const GameState& s) {
  if (s.status() == GameStatus::kCreated) {
    return Error(kErrGameNotStarted, "the game has not started (6.5)");
  }
  if (s.status() == GameStatus::kEnded) return Error(kErrGameOver, "the game is over");
  return absl::OkStatus();
}

absl::Status RequireSide(const Command& c) {
  if (!c.side) {
    return Error(kErrBadArgument,
                 absl::StrCat(CommandKindName(c.kind), ": the side (white or black) is required"));
  }
  return absl::OkStatus();
}

// The arbiter's reason for what he does, recorded with it: at most 1,024 bytes, and required
// where `required`.
absl::Status CheckReason(const Command& c, bool required) {
  if (required && c.reason.empty()) {
    return Error(kErrBadArgument, absl::StrCat(CommandKindName(c.kind), ": a reason is required"));
  }
  if (c.reason.size() > 1024) {
    return Error(kErrBadArgument,
                 absl::StrCat(CommandKindName(c.kind), ": the reason is too long (1,024 bytes)"));
  }
  return absl::OkStatus();
}

absl::Status RequireReason(const Command& c) { return CheckReason(c, /*required=*/true); }
absl::Status OptionalReason(const Command& c) { return CheckReason(c, /*required=*/false); }

absl::string_view CommandKindName(CommandKind kind) {
  const CommandRule* rule = RuleOf(kind);
  return rule ? rule->name : "unknown";
}

v1::Actor ServerActor() {
  v1::Actor a;
  a.set_subject("arbiter");
  a.set_role("server");
  return a;
}

absl::StatusOr<Decision> Decide(const GameState& game, const Command& command, std::int64_t now_ms,
                                Analyst& analyst) {
  const CommandRule* rule = RuleOf(command.kind);
  RETURN_IF_ERROR(rule ? rule->validate(command) : RequireSide(command));
  Plan plan{game, {}, std::max(now_ms, game.last_event_ms()), command.opened_move};
  RETURN_IF_ERROR(SettleInto(plan, plan.now_ms, analyst));
  Decision d;
  Plan settled = plan;
  absl::Status refused = rule ? rule->decide(plan, command, analyst, &d.claim_ruling)
                              : Error(kErrBadArgument, "unknown command");
  if (refused.ok()) refused = SettleInto(plan, plan.now_ms, analyst);
  if (!refused.ok()) {
    plan = std::move(settled);  // a refused command changes nothing
    d.claim_ruling = v1::CLAIM_RULING_UNSPECIFIED;
  }
  d.events = std::move(plan.events);
  d.refused = refused;
  d.after = std::move(plan.state);
  return d;
}

std::vector<v1::ArbitrationEvent> Settle(const GameState& game, std::int64_t now_ms,
                                         Analyst& analyst,
                                         const std::optional<std::string>& opened_move) {
  Plan plan{game, {}, std::max(now_ms, game.last_event_ms()), opened_move};
  absl::Status settled = SettleInto(plan, plan.now_ms, analyst);
  (void)settled;  // what applied before a failure is still what happened
  return std::move(plan.events);
}

namespace {

// A question for search-analysis asked first at `first_ms` and unanswered: asked again 1 s later,
// then after 2, 4, ... 32 s, then every minute; the first of those instants after `now_ms`.
std::int64_t AskAgainAt(std::int64_t first_ms, std::int64_t now_ms) {
  constexpr std::int64_t kFirstMs = 1'000;
  constexpr std::int64_t kMaxMs = 60'000;
  std::int64_t at = first_ms;
  for (std::int64_t wait = kFirstMs;; wait = std::min(wait * 2, kMaxMs)) {
    if (wait == kMaxMs && at <= now_ms) at += (now_ms - at) / kMaxMs * kMaxMs;
    at += wait;
    if (at > now_ms) return at;
  }
}

// When the deadline check next asks search-analysis what it waits for: a review (first 1 s after
// the flag's ruling) and the oldest dead-position question (first at once, off the move's path).
// `checked_at_ms`: a check at that instant found them unanswered (the backoff's next step).
std::optional<std::int64_t> AnalysisDue(const GameState& game,
                                        std::optional<std::int64_t> checked_at_ms) {
  std::optional<std::int64_t> next;
  auto due = [&](std::int64_t first_ms, std::int64_t initial_ms) {
    const std::int64_t t = checked_at_ms ? AskAgainAt(first_ms, *checked_at_ms) : initial_ms;
    next = next ? std::min(*next, t) : t;
  };
  if (game.review_awaits_analysis() && game.ended_at_ms()) {
    due(*game.ended_at_ms(), *game.ended_at_ms() + 1'000);
  }
  if (!game.dead_position_questions().empty()) {
    const std::int64_t arose = game.dead_position_questions().front().at_ms;
    due(arose, arose);
  }
  return next;
}

std::optional<std::int64_t> DeadlineOf(const GameState& game,
                                       std::optional<std::int64_t> checked_at_ms) {
  std::optional<std::int64_t> next = AnalysisDue(game, checked_at_ms);
  if (game.status() != GameStatus::kOngoing) return next;
  if (std::optional<Color> running = game.clock().running();
      running && !game.FlagRecorded(*running)) {
    if (std::optional<std::int64_t> flag = game.clock().Deadline()) {
      next = next ? std::min(*next, *flag) : *flag;
    }
  }
  if (game.default_deadline_ms() &&
      (!game.present(Color::kWhite) || !game.present(Color::kBlack))) {
    const std::int64_t t = *game.default_deadline_ms() + 1;
    next = next ? std::min(*next, t) : t;
  }
  // Appendix A1b: an envelope sealed early closes at the session's end.
  if (std::optional<std::int64_t> close_at = EnvelopeClosesAt(game)) {
    next = next ? std::min(*next, *close_at) : *close_at;
  }
  return next;
}

}  // namespace

std::optional<std::int64_t> NextDeadline(const GameState& game) {
  return DeadlineOf(game, std::nullopt);
}

std::optional<std::int64_t> NextDeadlineAfter(const GameState& game, std::int64_t now_ms) {
  return DeadlineOf(game, now_ms);
}

std::optional<std::int64_t> ReviewReaskAt(const GameState& game, std::int64_t now_ms) {
  if (!game.review_awaits_analysis() || !game.ended_at_ms()) return std::nullopt;
  return AskAgainAt(*game.ended_at_ms(), now_ms);
}

}  // namespace arbitration
