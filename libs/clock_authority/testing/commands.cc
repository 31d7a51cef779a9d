#include "libs/clock_authority/testing/commands.h"

#include <string>

namespace clock_authority::testing {
namespace {

// A command of the kind `kBody` sets, with nothing more to say.
template <auto kBody>
v1::ClockEvent Marker() {
  v1::ClockEvent e;
  (e.*kBody)();
  return e;
}

// A command of the kind `kBody` sets, with both clocks' times.
template <auto kBody>
v1::ClockEvent WithTimes(std::int64_t white_ms, std::int64_t black_ms) {
  v1::ClockEvent e;
  (e.*kBody)()->set_white_ms(white_ms);
  (e.*kBody)()->set_black_ms(black_ms);
  return e;
}

}  // namespace

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

v1::ClockEvent Pause() { return Marker<&v1::ClockEvent::mutable_paused>(); }

v1::ClockEvent Resume() { return Marker<&v1::ClockEvent::mutable_resumed>(); }

v1::ClockEvent Adjust(v1::Color side, std::int64_t delta_ms, absl::string_view reason) {
  v1::ClockEvent e;
  v1::ClockAdjusted* a = e.mutable_adjusted();
  a->set_side(side);
  a->set_delta_ms(delta_ms);
  a->set_reason(std::string(reason));
  return e;
}

v1::ClockEvent Set(std::int64_t white_ms, std::int64_t black_ms) {
  return WithTimes<&v1::ClockEvent::mutable_set>(white_ms, black_ms);
}

v1::ClockEvent Replace(std::int64_t white_ms, std::int64_t black_ms) {
  return WithTimes<&v1::ClockEvent::mutable_replaced>(white_ms, black_ms);
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
