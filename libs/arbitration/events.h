// The events the rulings of every kind append (rulings.cc, irregularities.cc, adjournment.cc):
// one way to build each, so that a game's end or a time adjustment is recorded alike whichever
// ruling decides it.
#ifndef ARBITER_LIBS_ARBITRATION_EVENTS_H_
#define ARBITER_LIBS_ARBITRATION_EVENTS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "libs/chess/types.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"
#include "proto/arbiter/v1/arbitration.pb.h"

namespace arbitration {

// The game ends with `outcome`; `proof` (a dead position's, a flag's) and `review` (an
// undetermined search, for the arbiter; `awaits_analysis`: an unanswered one, which the server
// settles when analysis answers) are kept in the record.
inline arbiter::v1::ArbitrationEvent EndedEvent(const laws::Outcome& outcome,
                                                absl::string_view proof = "", bool review = false,
                                                bool awaits_analysis = false) {
  arbiter::v1::ArbitrationEvent e;
  laws::ToProto(outcome, e.mutable_ended()->mutable_outcome());
  e.mutable_ended()->set_proof(std::string(proof));
  e.mutable_ended()->set_review(review);
  e.mutable_ended()->set_review_awaits_analysis(review && awaits_analysis);
  return e;
}

// `side`'s clock changed by `delta_ms`, under `article`, for `reason` (may be empty).
inline arbiter::v1::ArbitrationEvent AdjustedEvent(chess::Color side, std::int64_t delta_ms,
                                                   absl::string_view article,
                                                   absl::string_view reason = "") {
  arbiter::v1::ArbitrationEvent e;
  e.mutable_adjusted()->set_side(laws::ToProto(side));
  e.mutable_adjusted()->set_delta_ms(delta_ms);
  e.mutable_adjusted()->set_article(std::string(article));
  e.mutable_adjusted()->set_reason(std::string(reason));
  return e;
}

// `side`'s claim of `kind`, ruled `ruling` (pending: the arbiter's to rule) under `article`.
inline arbiter::v1::ArbitrationEvent ClaimEvent(chess::Color side, arbiter::v1::ClaimKind kind,
                                                arbiter::v1::ClaimRuling ruling,
                                                absl::string_view article) {
  arbiter::v1::ArbitrationEvent e;
  e.mutable_claim()->set_side(laws::ToProto(side));
  e.mutable_claim()->set_kind(kind);
  e.mutable_claim()->set_ruling(ruling);
  e.mutable_claim()->set_article(std::string(article));
  return e;
}

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_EVENTS_H_
