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
std::vector<GameState::EventRule> GameState::DrawEvents() {
  return {
      {v1::ArbitrationEvent::kDrawOffered,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         ASSIGN_OR_RETURN(const Color side, SideOr(event.draw_offered().side(), "an offer"));
         s.draw_offer_ = side;
         ++s.offers_[chess::Index(side)];
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kDrawAnswered,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         s.draw_offer_.reset();
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kDrawOfferRefused,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         return absl::OkStatus();  // 9.1a: the record of a refused offer; nothing is pending
       }},
      {v1::ArbitrationEvent::kClaim,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         const v1::ClaimMade& c = event.claim();
         ASSIGN_OR_RETURN(const Color side, SideOr(c.side(), "a claim"));
         if (c.ruling() == v1::CLAIM_RULING_PENDING) {
           s.pending_claim_ = c;
           s.status_ = GameStatus::kAwaitingRuling;
         }
         // 10.2b in rapid (B6, B7): the flag counts once the claim is correct; in a postponed game
         // the arbiter then fixes the result, in every speed.
         if (c.kind() == v1::CLAIM_KIND_TIME && c.ruling() == v1::CLAIM_RULING_CORRECT &&
             s.claim_postponed_ && s.status_ == GameStatus::kOngoing) {
           s.StopClock(at);
           s.awaiting_after_flag_ = true;
           s.after_flag_loser_ = ~side;
           s.status_ = GameStatus::kAwaitingRuling;
         }
         // 9.1c: a 9.2, 9.3 or 10.2 claim counts as a draw offer (a claim of an illegal move,
         // 7.4a, does not). 9.1a: an offer pending already stands until it is accepted, rejected
         // orally or by touching a piece, or the game ends: a claim by the player who received it
         // is none of these, so it is kept (and he may still accept it).
         if (c.kind() != v1::CLAIM_KIND_TIME && c.ruling() != v1::CLAIM_RULING_CORRECT &&
             c.kind() != v1::CLAIM_KIND_UNSPECIFIED && c.kind() != v1::CLAIM_KIND_ILLEGAL_MOVE &&
             !s.draw_offer_) {
           s.draw_offer_ = side;
         }
         return absl::OkStatus();
       }},
      {v1::ArbitrationEvent::kRuled,
       [](GameState& s, const v1::ArbitrationEvent& event, std::int64_t at) -> absl::Status {
         if (!s.pending_claim_ && !s.awaiting_after_flag_)
           return CorruptLog("a ruling without a claim");
         if (event.ruled().decision() == v1::RULING_DECISION_POSTPONE) s.claim_postponed_ = true;
         s.pending_claim_.reset();
         s.awaiting_after_flag_ = false;
         if (s.status_ == GameStatus::kAwaitingRuling) s.status_ = GameStatus::kOngoing;
         return absl::OkStatus();
       }},
  };
}

}  // namespace arbitration
