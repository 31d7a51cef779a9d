#include "libs/clock_authority/testing/commands.h"

#include <string>

namespace clock_authority::testing {

v1::CreateClockRequest ClockRequest(absl::string_view pgn, v1::Edition edition, v1::GameType type) {
  v1::CreateClockRequest r;
  r.set_time_control(std::string(pgn));
  r.set_edition(edition);
  r.set_game_type(type);
  return r;
}

v1::CreateClockRequest HumanClockRequest(absl::string_view human, v1::Edition edition,
                                         v1::GameType type) {
  v1::CreateClockRequest r;
  r.set_time_control_human(std::string(human));
  r.set_edition(edition);
  r.set_game_type(type);
  return r;
}

v1::ClockEvent Start(std::initializer_list<v1::Color> absent) {
  v1::ClockEvent e;
  e.mutable_started();
  for (v1::Color side : absent) e.mutable_started()->add_absent(side);
  return e;
}

v1::ClockEvent Press(v1::Color side, std::int64_t lag_ms) {
  v1::ClockEvent e;
  e.mutable_pressed()->set_side(side);
  e.mutable_pressed()->set_lag_ms(lag_ms);
  return e;
}

v1::ClockEvent Pause() {
  v1::ClockEvent e;
  e.mutable_paused();
  return e;
}

v1::ClockEvent Resume() {
  v1::ClockEvent e;
  e.mutable_resumed();
  return e;
}

v1::ClockEvent Adjust(v1::Color side, std::int64_t delta_ms, absl::string_view reason) {
  v1::ClockEvent e;
  v1::ClockAdjusted* a = e.mutable_adjusted();
  a->set_side(side);
  a->set_delta_ms(delta_ms);
  a->set_reason(std::string(reason));
  return e;
}

v1::ClockEvent Set(std::int64_t white_ms, std::int64_t black_ms) {
  v1::ClockEvent e;
  e.mutable_set()->set_white_ms(white_ms);
  e.mutable_set()->set_black_ms(black_ms);
  return e;
}

v1::ClockEvent Replace(std::int64_t white_ms, std::int64_t black_ms) {
  v1::ClockEvent e;
  e.mutable_replaced()->set_white_ms(white_ms);
  e.mutable_replaced()->set_black_ms(black_ms);
  return e;
}

v1::ClockEvent Arrive(v1::Color side) {
  v1::ClockEvent e;
  e.mutable_arrived()->set_side(side);
  return e;
}

v1::ClockEvent ClaimFlag(v1::Color claimant) {
  v1::ClockEvent e;
  e.mutable_flag_claimed()->set_claimant(claimant);
  return e;
}

}  // namespace clock_authority::testing
