// How Appendix A's events change a game's state: the sealed move (A1), the envelope closed (A1,
// A2, A9c), the resumption (A5, A9, A10's default time) and a lost envelope (A11). Apply stays
// mechanical: the rulings (adjournment.cc) decided what the events carry.
#include <algorithm>

#include "libs/arbitration/apply_log.h"
#include "libs/arbitration/game_state.h"
#include "libs/base/status_macros.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {

using chess::Color;

// Appendix A.
std::vector<GameState::EventRule> GameState::AdjournmentEvents() {
  return {
      {v1::ArbitrationEvent::kMoveSealed,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         // Appendix A1 (and A9c: the reply in a second envelope).
         const v1::MoveSealed& ms = event.move_sealed();
         std::optional<Color> side = SideOf(ms.side());
         if (!side || *side != s.to_move())
           return CorruptLog("a move sealed by the side not to move");
         if (s.status_ != GameStatus::kOngoing) return CorruptLog("a move sealed out of play");
         if (!ms.wrapped_key().empty() && s.adjournment_.wrapped_key.empty()) {
           s.adjournment_.wrapped_key = ms.wrapped_key();
           s.adjournment_.key_id = ms.key_id();
         }
         s.adjournment_.sealed = ms;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kSealCalled,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         s.adjournment_.seal_called = true;  // A1a
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kAdjourned,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         // A1: the envelope closed; the sealer stops his clock. The sealed move completes his move
         // on the clock (6.8a: the counter, the period's time), so that at the resumption the
         // replier's clock is the one that runs (A9).
         const v1::GameAdjourned& a = event.adjourned();
         std::optional<Color> sealer = SideOf(a.sealer());
         if (!sealer || !s.adjournment_.sealed || *sealer != s.to_move()) {
           return CorruptLog("an envelope closed without a sealed move");
         }
         if (s.clock_.status() != chessclock::ClockStatus::kRunning) {
           return CorruptLog("an envelope closed while the clocks are stopped");
         }
         RETURN_IF_ERROR(s.clock_.Press(*sealer, at));
         s.adjournment_.envelope = a;
         s.adjournment_.seal_called = false;
         if (a.reply()) {
           // A9c: the replier's second envelope; the sealer's clock runs until he arrives.
           s.turn_start_remaining_ms_ = s.clock_.RemainingMs(~*sealer, at);
           return absl::OkStatus();
         }
         s.StopClock(at);
         s.adjournment_.session = a.session();
         s.status_ = GameStatus::kAdjourned;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kAdjournedResumed,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         // A5: the position before the sealed move stands and the clocks show the recorded times.
         const v1::AdjournedGameResumed& r = event.adjourned_resumed();
         if (s.status_ != GameStatus::kAdjourned)
           return CorruptLog("a resumption of no adjourned game");
         if (r.session() < 0 || r.session() >= s.created_->sessions_size()) {
           return CorruptLog("a resumption in no session");
         }
         s.adjournment_.session = r.session();
         ASSIGN_OR_RETURN(s.adjournment_.absent, AbsentSides(r.absent()));
         RETURN_IF_ERROR(s.clock_.Resume(at));
         if (std::optional<Color> running = s.clock_.running()) {
           s.turn_start_remaining_ms_ = s.clock_.RemainingMs(*running, at);
         }
         // A10: the default time counts from the session's scheduled start.
         s.default_deadline_ms_ =
             s.created_->sessions(r.session()).start_ms() + laws::DefaultTimeMs(s.ruleset_);
         s.status_ = GameStatus::kOngoing;
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kEnvelopeLost,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         // A11a: the game resumes from the recorded position and times and the sealer makes his
         // "sealed" move on the board: the press of the closing is undone. A11b: GameEnded follows.
         // Also after the resumption while the envelope waits (A9b, A9c): the clocks go back to the
         // envelope's recorded times and the sealer's runs.
         if ((s.status_ != GameStatus::kAdjourned && s.status_ != GameStatus::kOngoing) ||
             !s.adjournment_.envelope) {
           return CorruptLog("an envelope lost that was not closed");
         }
         if (!event.envelope_lost().position_unknown()) {
           const v1::GameAdjourned& env = *s.adjournment_.envelope;
           std::optional<Color> sealer = SideOf(env.sealer());
           if (!sealer) return CorruptLog("an envelope without its sealer");
           chessclock::ClockSetting setting;
           setting.white_ms = env.white_ms();
           setting.black_ms = env.black_ms();
           setting.to_move = *sealer;
           const int moves = std::max(0, s.clock_.moves(*sealer) - 1);
           (*sealer == Color::kWhite ? setting.white_moves : setting.black_moves) = moves;
           RETURN_IF_ERROR(s.clock_.Set(setting, at));
           s.turn_start_remaining_ms_ = s.clock_.RemainingMs(*sealer, at);
         }
         s.adjournment_.sealed.reset();
         s.adjournment_.envelope.reset();
         return absl::OkStatus();
       }},
  };
}

}  // namespace arbitration
