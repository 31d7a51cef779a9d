// The clock commands a test sends (Decide, ClockAuthority::Execute): each is the event it asks
// for, without its time, which the command's decision stamps.
//
//   ASSERT_OK(authority.Create("g1", ClockRequest("300+2", v1::EDITION_FIDE_2023), {}));
//   ASSERT_OK(authority.Execute("g1", Start({v1::COLOR_BLACK}), {}));  // 6.6: Black absent
//   ASSERT_OK(authority.Execute("g1", Press(v1::COLOR_WHITE), {}));
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_TESTING_COMMANDS_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_TESTING_COMMANDS_H_

#include <cstdint>
#include <initializer_list>

#include "absl/strings/string_view.h"
#include "proto/arbiter/v1/clock.pb.h"

namespace clock_authority::testing {

namespace v1 = arbiter::v1;

// A clock with the PGN time control `pgn` (seconds, "40/5400+30:1800+30") under `edition`; with
// GAME_TYPE_UNSPECIFIED the control decides the category.
v1::CreateClockRequest ClockRequest(absl::string_view pgn, v1::Edition edition,
                                    v1::GameType type = v1::GAME_TYPE_UNSPECIFIED);
// The same in the arbiters' notation (minutes: "G/5 d3", "G/120").
v1::CreateClockRequest HumanClockRequest(absl::string_view human, v1::Edition edition,
                                         v1::GameType type = v1::GAME_TYPE_UNSPECIFIED);

// 6.5; the sides in `absent` are not there (6.6, 6.7).
v1::ClockEvent Start(std::initializer_list<v1::Color> absent = {});
// `side` completes its move; COLOR_UNSPECIFIED: whoever is to move. `lag_ms`: the lag reported.
v1::ClockEvent Press(v1::Color side = v1::COLOR_UNSPECIFIED, std::int64_t lag_ms = 0);
v1::ClockEvent Pause();   // 6.13
v1::ClockEvent Resume();  // 6.13
// The arbiter adds `delta_ms` to `side`'s time for `reason` (an article: "7.4b", "13.4c").
v1::ClockEvent Adjust(v1::Color side, std::int64_t delta_ms, absl::string_view reason);
// 6.14: the arbiter sets both clocks.
v1::ClockEvent Set(std::int64_t white_ms, std::int64_t black_ms);
// 6.11: a replacement clock with the arbiter's times.
v1::ClockEvent Replace(std::int64_t white_ms, std::int64_t black_ms);
// 6.6: an absent player arrives.
v1::ClockEvent Arrive(v1::Color side);
// B7 / 6.9: `claimant` claims the opponent's flag.
v1::ClockEvent ClaimFlag(v1::Color claimant);

}  // namespace clock_authority::testing

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_TESTING_COMMANDS_H_
