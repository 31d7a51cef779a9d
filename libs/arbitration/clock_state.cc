// How the events of time change a game's state: a flag (6.9, B6, 10.2b), an adjustment, the
// clocks stopped for a claim and restarted, the arbiter's interruption (6.13a) and the clocks set
// (6.14). Apply stays mechanical: the rulings (clock_rulings.cc) decided what the events carry.
#include <algorithm>

#include "libs/arbitration/apply_log.h"
#include "libs/arbitration/game_state.h"
#include "libs/base/status_macros.h"
#include "libs/clock/clock.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {

using chess::Color;

namespace {

// The clock's reason for a recorded adjustment, by the article the ruling cited.
chessclock::AdjustReason AdjustReasonFor(absl::string_view article) {
  if (article == "9.5.2") return chessclock::AdjustReason::kIncorrectClaim;  // 2023's numbering
  absl::StatusOr<chessclock::AdjustReason> reason = chessclock::ParseAdjustReason(article);
  return reason.ok() ? *reason : chessclock::AdjustReason::kArbiter;
}

}  // namespace

// Flags, adjustments, the clocks stopped, restarted and set.
std::vector<GameState::EventRule> GameState::TimeEvents() {
  return {
      {v1::ArbitrationEvent::kFlag,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         ASSIGN_OR_RETURN(const Color side, SideOr(event.flag().side(), "a flag"));
         s.flags_.push_back(event.flag());
         // 10.2b: in a postponed game the arbiter fixes the result after a flag falls.
         if (event.flag().counts() && s.claim_postponed_ && s.status_ == GameStatus::kOngoing) {
           s.StopClock(at);
           s.awaiting_after_flag_ = true;
           s.after_flag_loser_ = side;
           s.status_ = GameStatus::kAwaitingRuling;
         }
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kAdjusted,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         const v1::TimeAdjusted& a = event.adjusted();
         ASSIGN_OR_RETURN(const Color side, SideOr(a.side(), "an adjustment"));
         return s.clock_.Adjust(side, a.delta_ms(), AdjustReasonFor(a.article()), at);
       }},
      {v1::ArbitrationEvent::kClockStopped,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         s.StopClock(at);
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kClockRestarted,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         if (s.clock_.status() == chessclock::ClockStatus::kPaused) {
           RETURN_IF_ERROR(s.clock_.Resume(at));
           s.turn_start_remaining_ms_ = s.clock_.RemainingMs(s.to_move(), at);
         }
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kPaused,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         if (s.status_ != GameStatus::kOngoing || s.paused_)
           return CorruptLog("a pause out of play");
         s.StopClock(at);
         s.paused_ = true;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kClocksSet,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         const v1::ClocksSet& c = event.clocks_set();
         chessclock::ClockSetting setting;
         setting.white_ms = c.white_ms();
         setting.black_ms = c.black_ms();
         if (c.has_white_moves()) setting.white_moves = c.white_moves();
         if (c.has_black_moves()) setting.black_moves = c.black_moves();
         RETURN_IF_ERROR(s.clock_.Set(setting, at));
         s.turn_start_remaining_ms_ = s.clock_.RemainingMs(s.to_move(), at);
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kResumed,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         if (!s.paused_) return CorruptLog("a resumption without a pause");
         s.paused_ = false;
         if (s.clock_.status() == chessclock::ClockStatus::kPaused) {
           RETURN_IF_ERROR(s.clock_.Resume(at));
           s.turn_start_remaining_ms_ = s.clock_.RemainingMs(s.to_move(), at);
         }
         return absl::OkStatus();
       }},
  };
}

}  // namespace arbitration
