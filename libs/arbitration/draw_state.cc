// How offers (9.1), claims (9.2-9.5, 10.2, B7, Appendix D, 7.4a) and the arbiter's rulings on
// them change a game's state. Apply stays mechanical: the rulings (draw_rulings.cc) decided what
// the events carry.
#include <algorithm>

#include "libs/arbitration/apply_log.h"
#include "libs/arbitration/game_state.h"
#include "libs/base/status_macros.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {

using chess::Color;

// 9.1 offers and their answers, claims and rulings.
absl::Status GameState::ApplyDrawOrClaim(const v1::ArbitrationEvent& event) {
  const std::int64_t at = event.at_ms();
  switch (event.kind_case()) {
    case v1::ArbitrationEvent::kDrawOffered: {
      std::optional<Color> side = SideOf(event.draw_offered().side());
      if (!side) return CorruptLog("an offer without a colour");
      draw_offer_ = *side;
      ++offers_[chess::Index(*side)];
      return absl::OkStatus();
    }
    case v1::ArbitrationEvent::kDrawAnswered:
      draw_offer_.reset();
      return absl::OkStatus();
    case v1::ArbitrationEvent::kDrawOfferRefused:
      return absl::OkStatus();  // 9.1a: the record of a refused offer; nothing is pending
    case v1::ArbitrationEvent::kClaim: {
      const v1::ClaimMade& c = event.claim();
      std::optional<Color> side = SideOf(c.side());
      if (!side) return CorruptLog("a claim without a colour");
      if (c.ruling() == v1::CLAIM_RULING_PENDING) {
        pending_claim_ = c;
        status_ = GameStatus::kAwaitingRuling;
      }
      // 10.2b in rapid (B6, B7): the flag counts once the claim is correct; in a postponed game
      // the arbiter then fixes the result, in every speed.
      if (c.kind() == v1::CLAIM_KIND_TIME && c.ruling() == v1::CLAIM_RULING_CORRECT &&
          claim_postponed_ && status_ == GameStatus::kOngoing) {
        StopClock(at);
        awaiting_after_flag_ = true;
        after_flag_loser_ = ~*side;
        status_ = GameStatus::kAwaitingRuling;
      }
      // 9.1c: a 9.2, 9.3 or 10.2 claim counts as a draw offer (a claim of an illegal move,
      // 7.4a, does not). 9.1a: an offer pending already stands until it is accepted, rejected
      // orally or by touching a piece, or the game ends: a claim by the player who received it is
      // none of these, so it is kept (and he may still accept it).
      if (c.kind() != v1::CLAIM_KIND_TIME && c.ruling() != v1::CLAIM_RULING_CORRECT &&
          c.kind() != v1::CLAIM_KIND_UNSPECIFIED && c.kind() != v1::CLAIM_KIND_ILLEGAL_MOVE &&
          !draw_offer_) {
        draw_offer_ = *side;
      }
      return absl::OkStatus();
    }
    case v1::ArbitrationEvent::kRuled: {
      if (!pending_claim_ && !awaiting_after_flag_) return CorruptLog("a ruling without a claim");
      if (event.ruled().decision() == v1::RULING_DECISION_POSTPONE) claim_postponed_ = true;
      pending_claim_.reset();
      awaiting_after_flag_ = false;
      if (status_ == GameStatus::kAwaitingRuling) status_ = GameStatus::kOngoing;
      return absl::OkStatus();
    }
    default:
      break;
  }
  return CorruptLog("an event of no known kind");
}

}  // namespace arbitration
