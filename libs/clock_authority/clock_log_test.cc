// The clock as an event log, by article: commands decide events at exact instants, flags are
// recorded at the instant they fell and count per edition (6.9 / B6 / B7 / B8 / 2023 A.4.5), and
// replaying the log (or the snapshot) gives the same clock.
#include "libs/clock_authority/clock_log.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "libs/base/status_matchers.h"
#include "libs/clock_authority/testing/commands.h"
#include "libs/laws/outcome.h"

namespace clock_authority {
namespace {

using ::base::HasErrorCode;
using testing::Adjust;
using testing::Arrive;
using testing::ClaimFlag;
using testing::ClockRequest;
using testing::Pause;
using testing::Press;
using testing::Resume;
using testing::Set;
using testing::Start;

// The decision as the reading and the snapshot carry it.
v1::ClockDecision DecisionOf(const ClockGame& game) { return DecisionToProto(*game.decision()); }

ClockGame NewGame(const std::string& pgn, v1::Edition edition, std::int64_t at_ms = 0) {
  absl::StatusOr<v1::ClockCreated> created = NewClock(ClockRequest(pgn, edition), at_ms);
  EXPECT_OK(created);
  absl::StatusOr<ClockGame> game = ClockGame::Create(*created);
  EXPECT_OK(game);
  return *game;
}

// Decides `command` at `now_ms` and applies what it appends; returns the decision.
absl::StatusOr<Decision> Play(ClockGame& game, const v1::ClockEvent& command, std::int64_t now_ms,
                              std::vector<v1::ClockEvent>* log = nullptr) {
  absl::StatusOr<Decision> d = Decide(game, command, now_ms);
  if (!d.ok()) return d;
  for (const v1::ClockEvent& e : d->events) {
    absl::Status st = game.Apply(e);
    if (!st.ok()) return st;
    if (log != nullptr) log->push_back(e);
  }
  return d;
}

// A counted flag (6.9) or a granted B7 claim says that `flagged`'s flag fell, and that the result
// follows from 6.10 (C4 in 1997 blitz): never a win.
void ExpectFlagFell(const v1::ClockDecision& d, v1::Color flagged, const std::string& article,
                    const std::string& result_article) {
  EXPECT_EQ(d.kind(), v1::ClockDecision::KIND_FLAG_FELL);
  EXPECT_EQ(d.flagged(), flagged);
  EXPECT_EQ(d.article(), article);
  EXPECT_EQ(d.result_article(), result_article);
  EXPECT_EQ(d.outcome().result(), v1::RESULT_UNSPECIFIED);
  EXPECT_EQ(d.outcome().termination(), v1::TERMINATION_TIME_FORFEIT);
  EXPECT_EQ(d.outcome().winner(), v1::COLOR_UNSPECIFIED);
  EXPECT_EQ(d.outcome().article(), result_article);
}

// Starts `game` at 0 and lets it run to `at_ms`: the one flag that fell by then (the test fails
// unless exactly one did).
v1::ClockEvent OnlyFlag(ClockGame& game, std::int64_t at_ms) {
  EXPECT_OK(Play(game, Start(), 0));
  std::vector<v1::ClockEvent> flags = SettleFlags(game, at_ms);
  EXPECT_EQ(flags.size(), 1u);
  return flags.empty() ? v1::ClockEvent() : flags[0];
}

// The one flag of `game` left to run to `at_ms` counts when it falls, under `article`.
void ExpectCountedFlag(ClockGame& game, std::int64_t at_ms, absl::string_view article) {
  const v1::ClockEvent flag = OnlyFlag(game, at_ms);
  EXPECT_TRUE(flag.flag_fell().counts());
  EXPECT_EQ(flag.flag_fell().article(), article);
}

TEST(NewClock, ParsesOneNotationAndResolvesTheRuleset) {
  absl::StatusOr<v1::ClockCreated> created =
      NewClock(ClockRequest("40/5400+30:1800+30", v1::EDITION_FIDE_2001), 1000);
  ASSERT_OK(created);
  EXPECT_EQ(created->periods_size(), 2);
  EXPECT_EQ(created->periods(0).moves(), 40);
  EXPECT_EQ(created->periods(0).time_ms(), 5'400'000);
  EXPECT_EQ(created->periods(0).bonus(), "increment");
  EXPECT_EQ(created->periods(1).bonus_ms(), 30'000);
  EXPECT_EQ(created->game_type(), v1::GAME_TYPE_STANDARD);
  EXPECT_EQ(created->default_time_ms(), 3'600'000);  // 6.7 (2001): one hour
  EXPECT_EQ(created->at_ms(), 1000);

  v1::CreateClockRequest human;
  human.set_time_control_human("G/5 d3");
  human.set_edition(v1::EDITION_FIDE_2001);
  created = NewClock(human, 0);
  ASSERT_OK(created);
  EXPECT_EQ(created->game_type(), v1::GAME_TYPE_BLITZ);  // C1: under 15 minutes
  EXPECT_EQ(created->periods(0).bonus(), "simple_delay");

  v1::CreateClockRequest both = ClockRequest("300", v1::EDITION_FIDE_2023);
  both.set_time_control_human("5");
  EXPECT_THAT(NewClock(both, 0), HasErrorCode("ERR_BAD_TIME_CONTROL"));
  EXPECT_THAT(NewClock(ClockRequest("-", v1::EDITION_FIDE_2023), 0),
              HasErrorCode("ERR_BAD_TIME_CONTROL"));
  EXPECT_THAT(NewClock(ClockRequest("300", v1::EDITION_UNSPECIFIED), 0),
              HasErrorCode("ERR_BAD_EDITION"));
  EXPECT_THAT(NewClock(ClockRequest("3x0", v1::EDITION_FIDE_2023), 0),
              HasErrorCode("ERR_BAD_TIME_CONTROL"));
}

TEST(ClockLog, StartAndPressFollowArticleSix) {
  ClockGame game = NewGame("40/5400+30:1800+30", v1::EDITION_FIDE_2001);
  EXPECT_EQ(Read(game, "g1", 0).status(), "not_started");
  EXPECT_FALSE(NextDeadline(game).has_value());
  ASSERT_OK(Play(game, Start(), 1000));  // 6.5
  EXPECT_EQ(NextDeadline(game), 1000 + 5'400'000);
  ASSERT_OK(Play(game, Press(v1::COLOR_WHITE), 62'234));  // 6.8a: +30 s
  v1::ClockReading r = Read(game, "g1", 62'234);
  EXPECT_EQ(r.white_ms(), 5'400'000 - 61'234 + 30'000);
  EXPECT_EQ(r.running(), v1::COLOR_BLACK);
  EXPECT_EQ(r.white_moves(), 1);
  EXPECT_EQ(r.version(), 3);
  EXPECT_EQ(NextDeadline(game), 62'234 + 5'400'000);
  // Only the running side may press.
  EXPECT_THAT(Decide(game, Press(v1::COLOR_WHITE), 70'000), HasErrorCode("ERR_NOT_YOUR_TURN"));
}

TEST(ClockLog, StandardFlagCountsAtTheInstantItFell) {
  // A one-minute control is blitz by C1; the platform names the game standard.
  v1::CreateClockRequest req = ClockRequest("60", v1::EDITION_FIDE_2001);
  req.set_game_type(v1::GAME_TYPE_STANDARD);
  ClockGame game = *ClockGame::Create(*NewClock(req, 0));
  ASSERT_OK(Play(game, Start(), 1000));
  EXPECT_TRUE(SettleFlags(game, 60'999).empty());
  // Noticed 7 ms late: the event carries the instant it fell, and when it was noticed.
  std::vector<v1::ClockEvent> flags = SettleFlags(game, 61'007);
  ASSERT_EQ(flags.size(), 1u);
  const v1::FlagFell& f = flags[0].flag_fell();
  EXPECT_EQ(f.side(), v1::COLOR_WHITE);
  EXPECT_EQ(f.fell_at_ms(), 61'000);
  EXPECT_EQ(f.noticed_at_ms(), 61'007);
  EXPECT_TRUE(f.counts());
  EXPECT_EQ(f.article(), "6.9");
  ASSERT_OK(game.Apply(flags[0]));
  // 6.9, 8.5a: decided, the clocks stopped at the fall: the display stays at zero.
  v1::ClockReading r = Read(game, "g1", 90'000);
  EXPECT_EQ(r.white_remaining_ms(), 0);
  EXPECT_EQ(r.status(), "paused");
  // Not "Black wins": 6.10 decides.
  ExpectFlagFell(r.decision(), v1::COLOR_WHITE, "6.9", "6.10");
  EXPECT_EQ(r.flag_event().fell_at_ms(), 61'000);
  EXPECT_EQ(r.flag_event().version(), 3);
  EXPECT_FALSE(NextDeadline(game).has_value());
  EXPECT_TRUE(SettleFlags(game, 90'000).empty());  // recorded once
  EXPECT_THAT(Decide(game, Press(), 90'000), HasErrorCode("ERR_FLAG_FALLEN"));
  EXPECT_THAT(Decide(game, Resume(), 90'000), HasErrorCode("ERR_GAME_DECIDED"));
  // 6.14: the arbiter sets the clock; play may go on.
  ASSERT_OK(Play(game, Set(10'000, 60'000), 95'000));
  EXPECT_FALSE(Read(game, "g1", 95'000).has_decision());
  ASSERT_OK(Play(game, Resume(), 96'000));
  EXPECT_EQ(NextDeadline(game), 106'000);
}

TEST(ClockLog, APressAfterTheFlagIsRefusedAndTheFallRecorded) {
  v1::CreateClockRequest req = ClockRequest("60", v1::EDITION_FIDE_2005);
  req.set_game_type(v1::GAME_TYPE_STANDARD);
  ClockGame game = *ClockGame::Create(*NewClock(req, 0));
  ASSERT_OK(Play(game, Start(), 0));
  // 6.1: the flag falls the instant the time is used up; a press at that instant is too late.
  absl::StatusOr<Decision> d = Decide(game, Press(v1::COLOR_WHITE), 60'000);
  ASSERT_OK(d);
  EXPECT_THAT(d->refused, HasErrorCode("ERR_FLAG_FALLEN"));
  ASSERT_EQ(d->events.size(), 1u);
  EXPECT_EQ(d->events[0].flag_fell().fell_at_ms(), 60'000);
  // One ms earlier the press is in time.
  d = Decide(game, Press(v1::COLOR_WHITE), 59'999);
  ASSERT_OK(d);
  EXPECT_OK(d->refused);
  ASSERT_EQ(d->events.size(), 1u);
  EXPECT_TRUE(d->events[0].has_pressed());
}

TEST(ClockLog, BlitzFlagCountsOnlyWhenClaimed) {
  // B6 (2001): the fall is recorded, but play goes on until a player claims it.
  ClockGame game = NewGame("180", v1::EDITION_FIDE_2001);
  ASSERT_EQ(game.speed(), laws::SpeedCategory::kBlitz);
  ASSERT_OK(Play(game, Start(), 0));
  ASSERT_OK(Play(game, Press(), 1000));  // white 179 s left
  std::vector<v1::ClockEvent> log;
  // Black's flag falls at 181'000; black presses at 182'000: accepted, the fall recorded first.
  absl::StatusOr<Decision> d = Play(game, Press(v1::COLOR_BLACK), 182'000, &log);
  ASSERT_OK(d);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].flag_fell().fell_at_ms(), 181'000);
  EXPECT_FALSE(log[0].flag_fell().counts());
  EXPECT_EQ(log[0].flag_fell().article(), "B6");
  EXPECT_TRUE(log[1].has_pressed());
  EXPECT_FALSE(Read(game, "g1", 182'000).has_decision());
  EXPECT_EQ(NextDeadline(game), 182'000 + 179'000);  // white's clock runs
  // White's claim is not a refusal of the call: the ruling is recorded.
  log.clear();
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_WHITE), 183'000, &log));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_TRUE(log[0].flag_claimed().granted());
  EXPECT_EQ(log[0].flag_claimed().article(), "B7");
  v1::ClockReading r = Read(game, "g1", 200'000);
  // Black's flag counts on the claim; the result is 6.10's, not "White wins".
  ExpectFlagFell(r.decision(), v1::COLOR_BLACK, "B7", "6.10");
  EXPECT_EQ(log[0].flag_claimed().outcome().result(), v1::RESULT_UNSPECIFIED);
  EXPECT_EQ(r.status(), "paused");  // B7: the claimant stops both clocks
  EXPECT_FALSE(NextDeadline(game).has_value());
}

TEST(ClockLog, BlitzClaimRefusedWhenTheOpponentsFlagIsUp) {
  ClockGame game = NewGame("180", v1::EDITION_FIDE_1997);
  ASSERT_OK(Play(game, Start(), 0));
  std::vector<v1::ClockEvent> log;
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_BLACK), 10'000, &log));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_FALSE(log[0].flag_claimed().granted());
  EXPECT_EQ(Read(game, "g1", 10'000).status(), "running");  // refused: play goes on
  // Black's own flag down, white's up: refused too (B7).
  ASSERT_OK(Play(game, Press(), 10'000));
  log.clear();
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_BLACK), 200'000, &log));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].flag_fell().side(), v1::COLOR_BLACK);
  EXPECT_EQ(log[0].flag_fell().article(), "B6 (1997)");
  EXPECT_FALSE(log[1].flag_claimed().granted());
}

TEST(ClockLog, BothFlagsDownInBlitzIsADraw) {
  ClockGame game = NewGame("60", v1::EDITION_FIDE_2001);
  ASSERT_OK(Play(game, Start(), 0));
  // White overruns (flag at 60'000, recorded, not counting), then presses; black's flag falls.
  ASSERT_OK(Play(game, Press(), 61'000));
  std::vector<v1::ClockEvent> log;
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_WHITE), 130'000, &log));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].flag_fell().fell_at_ms(), 121'000);
  EXPECT_TRUE(log[1].flag_claimed().granted());
  EXPECT_EQ(log[1].flag_claimed().article(), "B8");
  v1::ClockReading r = Read(game, "g1", 130'000);
  EXPECT_EQ(r.decision().outcome().result(), v1::RESULT_DRAW);
  EXPECT_EQ(r.decision().outcome().termination(), v1::TERMINATION_BOTH_FLAGS);
  // B8 is the claim's ruling; the clock knows White's flag fell first, so no 6.12 / 10.3 reading.
  EXPECT_EQ(r.both_flags_outcome(), "");
  EXPECT_EQ(r.white_flag_ms(), 60'000);
  EXPECT_EQ(r.black_flag_ms(), 121'000);
}

// 6.12 / 10.3 "aber nicht nachweisbar ist, welches zuerst": G/90 (2001, standard) with both
// clocks set low in the final period, White's flag falls first at +1 s and counts (6.9): no
// both-flags ruling. Both set to zero together: the order is unknown, 10.3 draws.
TEST(ClockLog, FlagsInAKnownOrderAreRuledByTheFirst) {
  ClockGame game = NewGame("5400", v1::EDITION_FIDE_2001);
  ASSERT_EQ(game.speed(), laws::SpeedCategory::kStandard);
  ASSERT_OK(Play(game, Start(), 0));
  ASSERT_OK(Play(game, Set(1'000, 3'000), 10'000));
  for (const v1::ClockEvent& e : SettleFlags(game, 20'000)) ASSERT_OK(game.Apply(e));
  v1::ClockReading r = Read(game, "g1", 20'000);
  ExpectFlagFell(r.decision(), v1::COLOR_WHITE, "6.9", "6.10");
  EXPECT_EQ(r.both_flags_outcome(), "");
  ClockGame zero = NewGame("5400", v1::EDITION_FIDE_2001);
  ASSERT_OK(Play(zero, Start(), 0));
  ASSERT_OK(Play(zero, Set(0, 0), 10'000));
  v1::ClockReading both = Read(zero, "g1", 10'000);
  EXPECT_EQ(both.both_flags_outcome(), "draw");
  EXPECT_EQ(both.both_flags_article(), "10.3");
}

// 2023 blitz without adequate supervision (CreateClockRequest.supervised false): A.4.5 through B.4,
// "The flag is considered to have fallen when a player has made a valid claim to that effect".
// "180": White's flag falls at 180 s, recorded without counting; Black's claim at 190 s counts it.
TEST(ClockLog, Blitz2023UnsupervisedFlagCountsOnlyOnAClaim) {
  v1::CreateClockRequest req = ClockRequest("180", v1::EDITION_FIDE_2023);
  req.set_supervised(false);
  ClockGame game = *ClockGame::Create(*NewClock(req, 0));
  ASSERT_EQ(game.speed(), laws::SpeedCategory::kBlitz);
  const v1::ClockEvent flag = OnlyFlag(game, 180'001);
  EXPECT_FALSE(flag.flag_fell().counts());
  EXPECT_EQ(flag.flag_fell().article(), "A.4.5 (2023, B.4)");
  ASSERT_OK(game.Apply(flag));
  EXPECT_FALSE(Read(game, "g1", 180'001).has_decision());
  std::vector<v1::ClockEvent> log;
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_BLACK), 190'000, &log));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_TRUE(log[0].flag_claimed().granted());
  EXPECT_EQ(log[0].flag_claimed().article(), "A.4.5 (2023, B.4)");
  ExpectFlagFell(Read(game, "g1", 190'000).decision(), v1::COLOR_WHITE, "A.4.5 (2023, B.4)",
                 "6.9 (2023)");
  // The same clock supervised (unset: A.3, blitz B.3) counts the flag when it falls.
  ClockGame supervised = NewGame("180", v1::EDITION_FIDE_2023);
  ExpectCountedFlag(supervised, 180'001, "B.3 (2023)");
}

// B3 "Die Spieler müssen die Züge nicht aufzeichnen": a rapid clock (G/30, 2001) reports no duty
// from the start; a standard one (G/90) only under 8.4.
TEST(ClockLog, RapidAndBlitzReportNoScoresheetDuty) {
  ClockGame rapid = NewGame("1800", v1::EDITION_FIDE_2001);
  ASSERT_OK(Play(rapid, Start(), 0));
  v1::ClockReading r = Read(rapid, "g1", 1'000);
  EXPECT_TRUE(r.white_scoresheet_duty_lapsed());
  EXPECT_TRUE(r.black_scoresheet_duty_lapsed());
  ClockGame standard = NewGame("5400", v1::EDITION_FIDE_2001);
  ASSERT_OK(Play(standard, Start(), 0));
  EXPECT_FALSE(Read(standard, "g1", 1'000).white_scoresheet_duty_lapsed());
}

TEST(ClockLog, Rapid2023FlagCountsWhenObserved) {
  ClockGame game = NewGame("900+10", v1::EDITION_FIDE_2023);
  ASSERT_EQ(game.speed(), laws::SpeedCategory::kRapid);
  // A.3 (the Competition Rules under adequate supervision: the server observes every flag).
  ExpectCountedFlag(game, 900'001, "A.3 (2023)");
}

TEST(ClockLog, SettingAClockToZeroRecordsItsFlagAtOnce) {
  ClockGame game = NewGame("40/5400:1800", v1::EDITION_FIDE_2001);
  ASSERT_OK(Play(game, Start(), 0));
  std::vector<v1::ClockEvent> log;
  ASSERT_OK(Play(game, Set(60'000, 0), 5'000, &log));  // 6.14
  ASSERT_EQ(log.size(), 2u);
  EXPECT_TRUE(log[0].has_set());
  EXPECT_EQ(log[1].flag_fell().side(), v1::COLOR_BLACK);
  EXPECT_EQ(log[1].flag_fell().fell_at_ms(), 5'000);
  ExpectFlagFell(Read(game, "g1", 5'000).decision(), v1::COLOR_BLACK, "6.9", "6.10");
}

TEST(ClockLog, PausedTimeCountsForNobody) {
  ClockGame game = NewGame("300+2", v1::EDITION_FIDE_2023);
  ASSERT_OK(Play(game, Start(), 0));
  ASSERT_OK(Play(game, Pause(), 10'000));  // 6.13
  EXPECT_FALSE(NextDeadline(game).has_value());
  EXPECT_TRUE(SettleFlags(game, 10'000'000).empty());
  ASSERT_OK(Play(game, Resume(), 1'000'000));
  EXPECT_EQ(Read(game, "g1", 1'000'000).white_ms(), 290'000);
  EXPECT_EQ(NextDeadline(game), 1'000'000 + 290'000);
  EXPECT_THAT(Decide(game, Resume(), 1'000'001), HasErrorCode("ERR_CLOCK_NOT_PAUSED"));
}

TEST(ClockLog, TimeNeverGoesBackwards) {
  ClockGame game = NewGame("300", v1::EDITION_FIDE_2023);
  ASSERT_OK(Play(game, Start(), 50'000));
  // A replica whose time estimate is a hair behind records at the last event's instant.
  std::vector<v1::ClockEvent> log;
  ASSERT_OK(Play(game, Press(), 49'999, &log));
  EXPECT_EQ(log[0].pressed().at_ms(), 50'000);
  EXPECT_EQ(game.last_event_ms(), 50'000);
}

TEST(ClockLog, ReplayAndSnapshotGiveTheSameClock) {
  ClockGame game = NewGame("40/5400+30:1800+30", v1::EDITION_FIDE_2001, 100);
  std::vector<v1::ClockEvent> log;
  v1::ClockEvent created;
  *created.mutable_created() = game.created();
  log.push_back(created);
  ASSERT_OK(Play(game, Start(), 1'000, &log));
  std::int64_t t = 1'000;
  for (int i = 0; i < 90; ++i) {
    t += 1'000 + (i * 7919) % 50'000;
    ASSERT_OK(Play(game, Press(), t, &log));
    if (i == 30) {  // 6.13: an interruption
      ASSERT_OK(Play(game, Pause(), t + 10, &log));
      ASSERT_OK(Play(game, Resume(), t + 20'000, &log));
      t += 20'000;
    }
  }
  ASSERT_OK(Play(game, Adjust(v1::COLOR_BLACK, 120'000, "7.4b"), t + 5, &log));

  absl::StatusOr<ClockGame> replayed = ClockGame::Replay(log);
  ASSERT_OK(replayed);
  v1::GameSnapshot snapshot = ToSnapshot(game);
  snapshot.set_version(game.version());
  absl::StatusOr<ClockGame> restored = FromSnapshot(snapshot);
  ASSERT_OK(restored);
  for (std::int64_t at : {t + 5, t + 77'777, t + 9'999'999}) {
    const std::string want = Read(game, "g1", at).SerializeAsString();
    EXPECT_EQ(Read(*replayed, "g1", at).SerializeAsString(), want);
    EXPECT_EQ(Read(*restored, "g1", at).SerializeAsString(), want);
  }
  EXPECT_EQ(replayed->version(), static_cast<std::int64_t>(log.size()));
  EXPECT_EQ(NextDeadline(*restored), NextDeadline(game));
  EXPECT_EQ(restored->version(), game.version());
  EXPECT_EQ(restored->last_event_ms(), game.last_event_ms());

  // The snapshot is the state, not the history: after 90 moves it is as small as after none.
  ClockGame fresh = NewGame("40/5400+30:1800+30", v1::EDITION_FIDE_2001, 100);
  ASSERT_OK(Play(fresh, Start(), 1'000));
  EXPECT_LE(ToSnapshot(game).ByteSizeLong(), ToSnapshot(fresh).ByteSizeLong() + 16);
  EXPECT_LT(ToSnapshot(game).ByteSizeLong(), 300u);

  // Snapshots of schema 1 (the list of events) written before are still read, by replaying.
  v1::ClockSnapshot events;
  for (const v1::ClockEvent& e : log) *events.add_events() = e;
  v1::GameSnapshot old_snapshot;
  old_snapshot.set_schema_version(kClockReplaySnapshotSchemaVersion);
  old_snapshot.set_version(game.version());
  old_snapshot.mutable_state()->set_type_url(snapshot.state().type_url());
  old_snapshot.mutable_state()->set_value(events.SerializeAsString());
  absl::StatusOr<ClockGame> from_old = FromSnapshot(old_snapshot);
  ASSERT_OK(from_old);
  EXPECT_EQ(Read(*from_old, "g1", t + 77'777).SerializeAsString(),
            Read(game, "g1", t + 77'777).SerializeAsString());
  old_snapshot.set_schema_version(3);
  EXPECT_THAT(FromSnapshot(old_snapshot), HasErrorCode("ERR_CORRUPT_LOG"));
}

// B6/B7 (2001 blitz): the recorded flag, the claim and the decision all survive the snapshot, so
// a replica that loads the game refuses the moves and claims the log already ruled on.
TEST(ClockLog, TheSnapshotCarriesFlagsClaimsAndTheDecision) {
  ClockGame game = NewGame("180", v1::EDITION_FIDE_2001);
  ASSERT_OK(Play(game, Start(), 0));
  ASSERT_OK(Play(game, Press(v1::COLOR_WHITE), 1'000));
  ASSERT_OK(Play(game, Press(v1::COLOR_BLACK), 182'000));  // Black's flag fell at 181 s (B6)
  ASSERT_EQ(game.recorded_flags().size(), 1u);
  auto same = [](const ClockGame& a, const ClockGame& b) {
    for (std::int64_t at : {183'000, 190'000, 900'000}) {
      EXPECT_EQ(Read(a, "g1", at).SerializeAsString(), Read(b, "g1", at).SerializeAsString());
    }
    EXPECT_EQ(a.recorded_flags().size(), b.recorded_flags().size());
    EXPECT_EQ(a.decision().has_value(), b.decision().has_value());
    EXPECT_EQ(a.last_claim().has_value(), b.last_claim().has_value());
    EXPECT_EQ(NextDeadline(a), NextDeadline(b));
    EXPECT_EQ(a.version(), b.version());
  };
  absl::StatusOr<ClockGame> restored = FromSnapshot(ToSnapshot(game));
  ASSERT_OK(restored);
  same(game, *restored);
  EXPECT_FALSE(restored->recorded_flags()[0].counts);
  EXPECT_EQ(restored->recorded_flags()[0].fell_at_ms, 181'000);

  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_WHITE), 183'000));  // B7: granted
  restored = FromSnapshot(ToSnapshot(game));
  ASSERT_OK(restored);
  same(game, *restored);
  ASSERT_TRUE(restored->decision().has_value());
  ExpectFlagFell(DecisionOf(*restored), v1::COLOR_BLACK, "B7", "6.10");
  ASSERT_TRUE(restored->last_claim().has_value());
  EXPECT_TRUE(restored->last_claim()->granted());
  EXPECT_THAT(Decide(*restored, Press(v1::COLOR_WHITE), 184'000), HasErrorCode(kErrGameDecided));

  // A damaged snapshot is reported as a corrupt log, never half-believed.
  v1::GameSnapshot damaged = ToSnapshot(game);
  v1::ClockSnapshot state;
  ASSERT_TRUE(state.ParseFromString(damaged.state().value()));
  state.mutable_clock()->mutable_white()->set_moves(-3);
  damaged.mutable_state()->set_value(state.SerializeAsString());
  EXPECT_THAT(FromSnapshot(damaged), HasErrorCode("ERR_CORRUPT_LOG"));
}

// The rulings answer in the Laws' terms; the codec writes them as before, so decisions in
// snapshots written earlier (some before `kind` existed, when a flag was a win) read back and are
// written again byte for byte.
TEST(ClockCodec, DecisionsReadBackAsTheyWereWritten) {
  v1::ClockDecision legacy;
  legacy.mutable_outcome()->set_result(v1::RESULT_BLACK_WINS);
  legacy.mutable_outcome()->set_termination(v1::TERMINATION_TIME_FORFEIT);
  legacy.mutable_outcome()->set_winner(v1::COLOR_BLACK);
  legacy.set_article("6.9");
  legacy.set_at_ms(61'000);
  v1::ClockDecision both_lose;  // 6.7, both absent
  both_lose.mutable_outcome()->set_result(v1::RESULT_DOUBLE_FORFEIT);
  both_lose.mutable_outcome()->set_termination(v1::TERMINATION_DEFAULT);
  both_lose.set_article("6.7");
  both_lose.set_at_ms(1'001);
  both_lose.set_kind(v1::ClockDecision::KIND_RESULT);
  v1::ClockDecision flag;  // 1997 blitz, a granted B7 claim: C4 decides
  flag.mutable_outcome()->set_result(v1::RESULT_UNSPECIFIED);
  flag.mutable_outcome()->set_termination(v1::TERMINATION_TIME_FORFEIT);
  flag.mutable_outcome()->set_article("C4 (1997)");
  flag.set_article("B7");
  flag.set_at_ms(181'000);
  flag.set_kind(v1::ClockDecision::KIND_FLAG_FELL);
  flag.set_flagged(v1::COLOR_WHITE);
  flag.set_result_article("C4 (1997)");
  flag.set_needs_mating_potential(true);
  for (const v1::ClockDecision& d : {legacy, both_lose, flag}) {
    EXPECT_EQ(DecisionToProto(DecisionFromProto(d)).SerializeAsString(), d.SerializeAsString())
        << d.ShortDebugString();
  }
  EXPECT_EQ(DecisionFromProto(both_lose).outcome,
            laws::Outcome::BothLose(laws::Termination::kDefault, "6.7"));
  EXPECT_FALSE(DecisionFromProto(flag).outcome.over());  // 6.10: not a win by itself

  // A game's snapshot, decision included, is written again as it was read.
  ClockGame game = NewGame("180", v1::EDITION_FIDE_1997);
  ASSERT_OK(Play(game, Start(), 0));
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_BLACK), 181'000));
  absl::StatusOr<ClockGame> restored = FromSnapshot(ToSnapshot(game));
  ASSERT_OK(restored);
  EXPECT_EQ(ToSnapshot(*restored).SerializeAsString(), ToSnapshot(game).SerializeAsString());
}

TEST(ClockLog, ACorruptLogIsReportedNotReplayed) {
  ClockGame game = NewGame("300", v1::EDITION_FIDE_2023);
  std::vector<v1::ClockEvent> log;
  v1::ClockEvent created;
  *created.mutable_created() = game.created();
  log.push_back(created);
  v1::ClockEvent started;
  started.mutable_started()->set_at_ms(0);
  log.push_back(started);
  v1::ClockEvent flag;  // a flag that did not fall then
  flag.mutable_flag_fell()->set_side(v1::COLOR_WHITE);
  flag.mutable_flag_fell()->set_fell_at_ms(100'000);
  flag.mutable_flag_fell()->set_noticed_at_ms(100'000);
  log.push_back(flag);
  EXPECT_THAT(ClockGame::Replay(log), HasErrorCode("ERR_CORRUPT_LOG"));
  EXPECT_THAT(ClockGame::Replay(std::vector<v1::ClockEvent>{started}),
              HasErrorCode("ERR_CORRUPT_LOG"));
  v1::GameSnapshot foreign;
  foreign.mutable_state()->set_type_url("type.googleapis.com/arbiter.v1.Position");
  EXPECT_THAT(FromSnapshot(foreign), HasErrorCode("ERR_CORRUPT_LOG"));
}

TEST(ClockLog, AdjustmentsFollowTheirArticlesSign) {
  ClockGame game = NewGame("300", v1::EDITION_FIDE_2023);
  ASSERT_OK(Play(game, Start(), 0));
  v1::ClockEvent adjust =
      Adjust(v1::COLOR_WHITE, -60'000, "7.4b");  // time is added to the opponent
  EXPECT_THAT(Decide(game, adjust, 1'000), HasErrorCode("ERR_BAD_ADJUSTMENT"));
  adjust.mutable_adjusted()->set_reason("13.4c");
  ASSERT_OK(Play(game, adjust, 1'000));
  EXPECT_EQ(Read(game, "g1", 1'000).white_ms(), 300'000 - 1'000 - 60'000);
  EXPECT_EQ(NextDeadline(game), 240'000);
}

// --- 6.7: the default time ----------------------------------------------------------------------

// 2005, 6.7: "more than one hour after the scheduled start" loses. The deadline is in the index
// like a flag's, the scheduler's check records it at the first instant after the hour, and an
// arrival after that is refused: the game is decided.
TEST(ClockLog, AnAbsentPlayerLosesByDefaultTheInstantAfterTheDefaultTime) {
  ClockGame game = NewGame("40/5400+30:1800+30", v1::EDITION_FIDE_2005);
  ASSERT_OK(Play(game, Start({v1::COLOR_BLACK}), 0));
  EXPECT_EQ(NextDeadline(game), 3'600'001);  // before White's flag (90 min)
  EXPECT_TRUE(SettleFlags(game, 3'600'000).empty());
  std::vector<v1::ClockEvent> due = SettleFlags(game, 3'600'250);
  ASSERT_EQ(due.size(), 1u);
  ASSERT_TRUE(due[0].has_defaulted());
  EXPECT_EQ(due[0].defaulted().at_ms(), 3'600'001);
  EXPECT_EQ(due[0].defaulted().noticed_at_ms(), 3'600'250);
  EXPECT_EQ(due[0].defaulted().article(), "6.7");
  ASSERT_EQ(due[0].defaulted().sides_size(), 1);
  EXPECT_EQ(due[0].defaulted().sides(0), v1::COLOR_BLACK);

  // Black arrives after the hour, before anyone recorded it: the default comes first.
  ClockGame late = game;
  std::vector<v1::ClockEvent> log;
  absl::StatusOr<Decision> d = Decide(late, Arrive(v1::COLOR_BLACK), 3'650'000);
  ASSERT_OK(d);
  EXPECT_THAT(d->refused, HasErrorCode(kErrGameDecided));
  ASSERT_EQ(d->events.size(), 1u);
  EXPECT_TRUE(d->events[0].has_defaulted());

  ASSERT_OK(game.Apply(due[0]));
  v1::ClockReading r = Read(game, "g1", 4'000'000);
  EXPECT_EQ(r.decision().outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(r.decision().outcome().termination(), v1::TERMINATION_DEFAULT);
  EXPECT_EQ(r.decision().article(), "6.7");
  EXPECT_EQ(r.status(), "paused");  // the clock stopped with the game
  EXPECT_EQ(r.white_ms(), 5'400'000 - 3'600'001);
  EXPECT_FALSE(NextDeadline(game).has_value());
  EXPECT_TRUE(SettleFlags(game, 9'000'000).empty());  // ruled on once
  EXPECT_THAT(Decide(game, Arrive(v1::COLOR_BLACK), 3'700'000), HasErrorCode(kErrGameDecided));
  EXPECT_THAT(game.Apply(due[0]), HasErrorCode("ERR_BAD_ARGUMENT"));  // never twice

  // The snapshot remembers it was ruled on; 6.14: the arbiter may let the game go on, and the
  // default is not recorded again.
  absl::StatusOr<ClockGame> restored = FromSnapshot(ToSnapshot(game));
  ASSERT_OK(restored);
  EXPECT_TRUE(restored->default_recorded());
  ASSERT_OK(Play(*restored, Set(1'000'000, 1'000'000), 3'700'000));
  EXPECT_FALSE(restored->decision().has_value());
  EXPECT_TRUE(SettleFlags(*restored, 3'800'000).empty());
}

TEST(ClockLog, ArrivingOnTheHourIsInTime) {
  ClockGame game = NewGame("40/5400+30:1800+30", v1::EDITION_FIDE_2005);
  ASSERT_OK(Play(game, Start({v1::COLOR_WHITE}), 0));
  // 6.6: the absent White's clock runs; he arrives exactly one hour after the start.
  ASSERT_OK(Play(game, Arrive(v1::COLOR_WHITE), 3'600'000));
  EXPECT_EQ(NextDeadline(game), 5'400'000);  // only his flag is pending now
  EXPECT_TRUE(SettleFlags(game, 4'000'000).empty());
  EXPECT_FALSE(Read(game, "g1", 4'000'000).has_decision());
}

// 2023 without event regulations: the default time is 0, so a player absent at the start loses
// at once; both absent, both lose.
TEST(ClockLog, WithNoDefaultTimeAbsenceAtTheStartLoses) {
  ClockGame game = NewGame("3+2", v1::EDITION_FIDE_2023);
  ASSERT_OK(Play(game, Start({v1::COLOR_WHITE, v1::COLOR_BLACK}), 1'000));
  EXPECT_EQ(NextDeadline(game), 1'001);
  std::vector<v1::ClockEvent> due = SettleFlags(game, 1'001);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].defaulted().sides_size(), 2);
  ASSERT_OK(game.Apply(due[0]));
  EXPECT_EQ(DecisionOf(game).outcome().result(), v1::RESULT_DOUBLE_FORFEIT);
  EXPECT_EQ(DecisionOf(game).outcome().winner(), v1::COLOR_UNSPECIFIED);

  // One absent, in blitz: his flag would fall after 3 minutes, the default came first.
  ClockGame one = NewGame("3+2", v1::EDITION_FIDE_2023);
  ASSERT_OK(Play(one, Start({v1::COLOR_BLACK}), 0));
  due = SettleFlags(one, 500'000);  // noticed late: White's flag "fell" after the default
  ASSERT_EQ(due.size(), 1u);
  EXPECT_TRUE(due[0].has_defaulted());
  ASSERT_OK(one.Apply(due[0]));
  EXPECT_EQ(DecisionOf(one).outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_TRUE(SettleFlags(one, 900'000).empty());  // the clock stopped: no flag falls later
}

// --- How a flag is ruled, by article and edition -------------------------------------------

// 6.10: a flag is not a win by itself. 4k3/8/8/8/8/8/8/3QK3 w, G/90,
// fide2001, White never moves. Black (a bare king) cannot mate, so the game is drawn; the clock
// knows no position and must not say "Black wins": it says White's flag fell, result per 6.10.
TEST(FlagRuling, AFlagIsNotAWinByItself) {
  ClockGame game = NewGame("5400", v1::EDITION_FIDE_2001);  // G/90: standard
  ASSERT_EQ(game.speed(), laws::SpeedCategory::kStandard);
  ASSERT_OK(Play(game, Start(), 0));
  std::vector<v1::ClockEvent> flags = SettleFlags(game, 5'400'000);
  ASSERT_EQ(flags.size(), 1u);
  ASSERT_OK(game.Apply(flags[0]));
  const v1::ClockReading r = Read(game, "g1", 5'400'000);
  ExpectFlagFell(r.decision(), v1::COLOR_WHITE, "6.9", "6.10");
  EXPECT_FALSE(r.decision().needs_mating_potential());
  EXPECT_EQ(r.decision().at_ms(), 5'400'000);
}

// 1997 C4: in blitz the result of a flag needs the claimant's mating potential.
TEST(FlagRuling, In1997BlitzTheFlagsResultFollowsFromC4) {
  ClockGame game = NewGame("180", v1::EDITION_FIDE_1997);
  ASSERT_OK(Play(game, Start(), 0));
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_BLACK), 181'000));  // B7: White's flag fell at 180 s
  ASSERT_TRUE(game.decision().has_value());
  ExpectFlagFell(DecisionOf(game), v1::COLOR_WHITE, "B7", "C4 (1997)");
  EXPECT_TRUE(DecisionOf(game).needs_mating_potential());
  // B8 stays a result by itself.
  ClockGame both = NewGame("60", v1::EDITION_FIDE_2001);
  ASSERT_OK(Play(both, Start(), 0));
  ASSERT_OK(Play(both, Press(), 61'000));
  ASSERT_OK(Play(both, ClaimFlag(v1::COLOR_WHITE), 130'000));
  EXPECT_EQ(DecisionOf(both).kind(), v1::ClockDecision::KIND_RESULT);
  EXPECT_EQ(DecisionOf(both).outcome().result(), v1::RESULT_DRAW);
}

// B6 with lag compensation: G/1, fide2001 (blitz, B6), lag compensation on. White's flag falls at
// 60 s; his press arrives at 60.5 s reporting 1 s of lag. The fall is recorded (B6) and the clock
// keeps it, so Black's B7 claim is granted (before, the clock forgot it and refused the claim).
TEST(FlagRuling, LagCompensationDoesNotEraseARecordedFlag) {
  v1::CreateClockRequest req;
  req.set_time_control_human("G/1");
  req.set_edition(v1::EDITION_FIDE_2001);
  req.set_lag_compensation(true);
  ClockGame game = *ClockGame::Create(*NewClock(req, 0));
  ASSERT_OK(Play(game, Start(), 0));
  EXPECT_EQ(Read(game, "g1", 60'200).white_flag_ms(), 60'000);
  std::vector<v1::ClockEvent> log;
  ASSERT_OK(Play(game, Press(v1::COLOR_WHITE, 1'000), 60'500, &log));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].flag_fell().fell_at_ms(), 60'000);
  EXPECT_FALSE(log[0].flag_fell().counts());
  v1::ClockReading r = Read(game, "g1", 60'500);
  EXPECT_EQ(r.white_flag_ms(), 60'000);
  EXPECT_EQ(r.white_remaining_ms(), -500);
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_BLACK), 61'000));
  ExpectFlagFell(DecisionOf(game), v1::COLOR_WHITE, "B7", "6.10");
}

// 6.1 / B6 after an adjustment: G/15, fide2001 (rapid, B6). White's flag falls at 900 s; the
// arbiter pauses, adds 2 minutes (7.4b), resumes: the clock shows 1:54 and no flag, as after Set or
// Replace (6.1, 6.11, 6.14), and a B7 claim then is refused ("nach Anhalten der Uhren ... das
// seines Gegners gefallen"). The fall stays in the log as what happened.
TEST(FlagRuling, AnAdjustmentThatLeavesTimeRaisesTheFlag) {
  ClockGame game = NewGame("900", v1::EDITION_FIDE_2001);
  ASSERT_EQ(game.speed(), laws::SpeedCategory::kRapid);
  ASSERT_OK(Play(game, Start(), 0));
  std::vector<v1::ClockEvent> log;
  ASSERT_OK(Play(game, Pause(), 906'000, &log));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_FALSE(log[0].flag_fell().counts());  // B6
  ASSERT_OK(Play(game, Adjust(v1::COLOR_WHITE, 120'000, "7.4b"), 906'000));
  ASSERT_OK(Play(game, Resume(), 906'000));
  v1::ClockReading r = Read(game, "g1", 906'000);
  EXPECT_EQ(r.white_ms(), 114'000);
  EXPECT_FALSE(r.has_white_flag_ms());
  EXPECT_EQ(r.recorded_flags_size(), 1);
  log.clear();
  ASSERT_OK(Play(game, ClaimFlag(v1::COLOR_BLACK), 907'000, &log));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_FALSE(log[0].flag_claimed().granted());
  // Where the flag counted (6.9) the game is decided: no adjustment; 6.14 continues it.
  v1::CreateClockRequest req = ClockRequest("900", v1::EDITION_FIDE_2001);
  req.set_game_type(v1::GAME_TYPE_STANDARD);
  ClockGame standard = *ClockGame::Create(*NewClock(req, 0));
  ASSERT_OK(Play(standard, Start(), 0));
  absl::StatusOr<Decision> d = Play(standard, Adjust(v1::COLOR_WHITE, 120'000, "7.4b"), 906'000);
  ASSERT_OK(d);  // the flag is recorded (it decides), the adjustment refused
  EXPECT_THAT(d->refused, HasErrorCode(kErrGameDecided));
  EXPECT_THAT(Decide(standard, Adjust(v1::COLOR_WHITE, 120'000, "7.4b"), 907'000),
              HasErrorCode(kErrGameDecided));
}

// 6.7 counts from the scheduled start. Scheduled 10:00, the clock started 10:20 with
// Black absent: Black is defaulted at 11:00:00.001 (not 11:20:00.001).
TEST(FlagRuling, TheDefaultCountsFromTheScheduledStart) {
  constexpr std::int64_t kTen = 36'000'000;
  v1::CreateClockRequest req = ClockRequest("5400", v1::EDITION_FIDE_2001);
  req.set_scheduled_start_ms(kTen);
  absl::StatusOr<v1::ClockCreated> created = NewClock(req, kTen - 600'000);
  ASSERT_OK(created);
  EXPECT_EQ(created->scheduled_start_ms(), kTen);
  ClockGame game = *ClockGame::Create(*created);
  ASSERT_OK(Play(game, Start({v1::COLOR_BLACK}), kTen + 1'200'000));
  EXPECT_EQ(NextDeadline(game), kTen + 3'600'001);
  std::vector<v1::ClockEvent> due = SettleFlags(game, kTen + 3'600'001);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].defaulted().at_ms(), kTen + 3'600'001);
  ASSERT_OK(game.Apply(due[0]));
  EXPECT_EQ(DecisionOf(game).outcome().result(), v1::RESULT_WHITE_WINS);
  EXPECT_EQ(DecisionOf(game).kind(), v1::ClockDecision::KIND_RESULT);
  // The snapshot keeps the scheduled start.
  absl::StatusOr<ClockGame> restored = FromSnapshot(ToSnapshot(game));
  ASSERT_OK(restored);
  EXPECT_EQ(restored->clock().DefaultDeadline(), kTen + 3'600'000);

  // A clock started only once both are present, at 11:30: both came more than an hour late.
  ClockGame late = *ClockGame::Create(*created);
  std::vector<v1::ClockEvent> log;
  ASSERT_OK(Play(late, Start(), kTen + 5'400'000, &log));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_TRUE(log[0].has_started());
  ASSERT_TRUE(log[1].has_defaulted());
  EXPECT_EQ(log[1].defaulted().sides_size(), 2);
  EXPECT_EQ(DecisionOf(late).outcome().result(), v1::RESULT_DOUBLE_FORFEIT);
  // Started at 10:20 with both present: nobody is late, nothing pending but the flag.
  ClockGame on_time = *ClockGame::Create(*created);
  ASSERT_OK(Play(on_time, Start(), kTen + 1'200'000));
  EXPECT_EQ(NextDeadline(on_time), kTen + 1'200'000 + 5'400'000);
}

}  // namespace
}  // namespace clock_authority
