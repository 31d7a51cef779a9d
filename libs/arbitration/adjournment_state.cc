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
absl::Status GameState::ApplyAdjournment(const v1::ArbitrationEvent& event) {
  const std::int64_t at = event.at_ms();
  switch (event.kind_case()) {
    case v1::ArbitrationEvent::kMoveSealed: {
      // Appendix A1 (and A9c: the reply in a second envelope).
      const v1::MoveSealed& ms = event.move_sealed();
      std::optional<Color> side = SideOf(ms.side());
      if (!side || *side != to_move()) return CorruptLog("a move sealed by the side not to move");
      if (status_ != GameStatus::kOngoing) return CorruptLog("a move sealed out of play");
      if (!ms.wrapped_key().empty() && adjournment_.wrapped_key.empty()) {
        adjournment_.wrapped_key = ms.wrapped_key();
        adjournment_.key_id = ms.key_id();
      }
      adjournment_.sealed = ms;
      return absl::OkStatus();
    }
    case v1::ArbitrationEvent::kSealCalled:
      adjournment_.seal_called = true;  // A1a
      return absl::OkStatus();
    case v1::ArbitrationEvent::kAdjourned: {
      // A1: the envelope closed; the sealer stops his clock. The sealed move completes his move
      // on the clock (6.8a: the counter, the period's time), so that at the resumption the
      // replier's clock is the one that runs (A9).
      const v1::GameAdjourned& a = event.adjourned();
      std::optional<Color> sealer = SideOf(a.sealer());
      if (!sealer || !adjournment_.sealed || *sealer != to_move()) {
        return CorruptLog("an envelope closed without a sealed move");
      }
      if (clock_.status() != chessclock::ClockStatus::kRunning) {
        return CorruptLog("an envelope closed while the clocks are stopped");
      }
      RETURN_IF_ERROR(clock_.Press(*sealer, at));
      adjournment_.envelope = a;
      adjournment_.seal_called = false;
      if (a.reply()) {
        // A9c: the replier's second envelope; the sealer's clock runs until he arrives.
        turn_start_remaining_ms_ = clock_.RemainingMs(~*sealer, at);
        return absl::OkStatus();
      }
      StopClock(at);
      adjournment_.session = a.session();
      status_ = GameStatus::kAdjourned;
      return absl::OkStatus();
    }
    case v1::ArbitrationEvent::kAdjournedResumed: {
      // A5: the position before the sealed move stands and the clocks show the recorded times.
      const v1::AdjournedGameResumed& r = event.adjourned_resumed();
      if (status_ != GameStatus::kAdjourned) return CorruptLog("a resumption of no adjourned game");
      if (r.session() < 0 || r.session() >= created_->sessions_size()) {
        return CorruptLog("a resumption in no session");
      }
      adjournment_.session = r.session();
      adjournment_.absent = {};
      for (int c : r.absent()) {
        std::optional<Color> side = SideOf(static_cast<v1::Color>(c));
        if (!side) return CorruptLog("an absent side without a colour");
        adjournment_.absent[chess::Index(*side)] = true;
      }
      RETURN_IF_ERROR(clock_.Resume(at));
      if (std::optional<Color> running = clock_.running()) {
        turn_start_remaining_ms_ = clock_.RemainingMs(*running, at);
      }
      // A10: the default time counts from the session's scheduled start.
      default_deadline_ms_ =
          created_->sessions(r.session()).start_ms() + laws::DefaultTimeMs(ruleset_);
      status_ = GameStatus::kOngoing;
      return absl::OkStatus();
    }
    case v1::ArbitrationEvent::kEnvelopeLost: {
      // A11a: the game resumes from the recorded position and times and the sealer makes his
      // "sealed" move on the board: the press of the closing is undone. A11b: GameEnded follows.
      // Also after the resumption while the envelope waits (A9b, A9c): the clocks go back to the
      // envelope's recorded times and the sealer's runs.
      if ((status_ != GameStatus::kAdjourned && status_ != GameStatus::kOngoing) ||
          !adjournment_.envelope) {
        return CorruptLog("an envelope lost that was not closed");
      }
      if (!event.envelope_lost().position_unknown()) {
        const v1::GameAdjourned& env = *adjournment_.envelope;
        std::optional<Color> sealer = SideOf(env.sealer());
        if (!sealer) return CorruptLog("an envelope without its sealer");
        chessclock::ClockSetting setting;
        setting.white_ms = env.white_ms();
        setting.black_ms = env.black_ms();
        setting.to_move = *sealer;
        const int moves = std::max(0, clock_.moves(*sealer) - 1);
        (*sealer == Color::kWhite ? setting.white_moves : setting.black_moves) = moves;
        RETURN_IF_ERROR(clock_.Set(setting, at));
        turn_start_remaining_ms_ = clock_.RemainingMs(*sealer, at);
      }
      adjournment_.sealed.reset();
      adjournment_.envelope.reset();
      return absl::OkStatus();
    }
    default:
      break;
  }
  return CorruptLog("an event of no known kind");
}

}  // namespace arbitration
