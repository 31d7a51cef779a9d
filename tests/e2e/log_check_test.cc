// The fault suite's checks find what they are there to find: on a made-up game (5 s, 1. e4 d6,
// then White's flag), a lost acknowledgement, a move applied twice, a flag at the wrong instant or
// recorded twice, and times that disagree with the log are each counted; the clean log is not.
#include "tests/e2e/log_check.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace e2e {
namespace {

v1::GameUpdate Update(std::int64_t version, const std::string& command_id, std::int64_t at_ms) {
  v1::GameUpdate u;
  u.set_version(version);
  u.set_command_id(command_id);
  u.mutable_event()->set_at_ms(at_ms);
  return u;
}

v1::GameUpdate Move(std::int64_t version, const std::string& command_id, std::int64_t at_ms,
                    v1::Color side, const std::string& san, std::int64_t clock_ms) {
  v1::GameUpdate u = Update(version, command_id, at_ms);
  v1::MoveMade* m = u.mutable_event()->mutable_move();
  m->set_side(side);
  m->set_san(san);
  m->set_clock_ms(clock_ms);
  return u;
}

// Created at 500, started at 1000; 1. e4 at 2000 (White 4,000 ms left), 1... d6 at 2500 (Black
// 4,500); White's flag falls at 2500 + 4000 = 6500 and ends the game.
struct Fixture {
  GameRecord game;
  std::vector<v1::GameUpdate> log;
  v1::GameView now;

  Fixture() {
    game.game_id = "g";
    game.flag_game = true;
    game.moves_acked = 2;
    game.expected_flag_ms = 6500;
    game.flag_seen_ms = 6520;
    auto ack = [&](const std::string& id, int ply, std::int64_t version, std::int64_t now_ms,
                   std::int64_t white, std::int64_t black, std::int64_t deadline) {
      game.acks.push_back(
          {.command_id = id,
           .ply = ply,
           .reply = {.version = version,
                     .status = version == 1 ? v1::GAME_STATUS_CREATED : v1::GAME_STATUS_ONGOING,
                     .white_ms = white,
                     .black_ms = black,
                     .now_ms = now_ms,
                     .deadline_ms = deadline}});
    };
    ack("create", -1, 1, 500, 5000, 5000, 0);
    ack("start", -1, 2, 1000, 5000, 5000, 6000);
    ack("m0", 0, 3, 2000, 4000, 5000, 7000);
    ack("m1", 1, 4, 2500, 4000, 4500, 6500);

    v1::GameUpdate created = Update(1, "create", 500);
    created.mutable_event()->mutable_created()->set_time_control("5");
    log.push_back(created);
    v1::GameUpdate started = Update(2, "start", 1000);
    started.mutable_event()->mutable_started();
    log.push_back(started);
    log.push_back(Move(3, "m0", 2000, v1::COLOR_WHITE, "e4", 4000));
    log.push_back(Move(4, "m1", 2500, v1::COLOR_BLACK, "d6", 4500));
    log.push_back(Flag(5, 6500));
    v1::GameUpdate ended = Update(6, "settle:g:4", 6500);
    ended.mutable_event()->mutable_ended();
    log.push_back(ended);

    now.set_version(6);
    now.set_status(v1::GAME_STATUS_ENDED);
    now.set_white_ms(0);
    now.set_black_ms(4500);
    now.set_now_ms(9000);
  }

  static v1::GameUpdate Flag(std::int64_t version, std::int64_t fell_at) {
    v1::GameUpdate u = Update(version, "settle:g:4", fell_at);
    u.mutable_event()->mutable_flag()->set_side(v1::COLOR_WHITE);
    u.mutable_event()->mutable_flag()->set_fell_at_ms(fell_at);
    return u;
  }

  Tally Check() const {
    Tally t;
    CheckGame(game, log, now, &t);
    return t;
  }
};

TEST(LogCheck, ACleanLogPasses) {
  Tally t = Fixture().Check();
  EXPECT_EQ(t.lost, 0);
  EXPECT_EQ(t.applied_twice, 0);
  EXPECT_EQ(t.flag_errors, 0);
  EXPECT_EQ(t.clock_errors, 0);
  EXPECT_EQ(t.other_errors, 0);
  EXPECT_EQ(t.flags_at_instant, 1);
  EXPECT_EQ(t.moves_in_logs, 2);
  ASSERT_EQ(t.flag_timings.size(), 1u);
  EXPECT_EQ(t.flag_timings[0].fell_at_ms, 6500);
  EXPECT_TRUE(t.problems.empty()) << t.problems[0];
}

TEST(LogCheck, AnAcknowledgedMoveMissingIsLost) {
  Fixture f;
  f.game.acks.push_back({.command_id = "m2", .ply = 2, .reply = {.version = 5}});
  f.game.moves_acked = 3;
  EXPECT_EQ(f.Check().lost, 1);
}

TEST(LogCheck, AMoveAppliedTwiceIsCounted) {
  Fixture f;
  f.log.insert(f.log.begin() + 4, Move(5, "m1", 2600, v1::COLOR_BLACK, "d6", 4500));
  for (size_t i = 0; i < f.log.size(); ++i) f.log[i].set_version(static_cast<std::int64_t>(i) + 1);
  EXPECT_GE(f.Check().applied_twice, 1);
}

TEST(LogCheck, AFlagAtAnotherInstantOrTwiceIsAnError) {
  Fixture late;
  late.log[4] = Fixture::Flag(5, 6600);
  late.log[5].mutable_event()->set_at_ms(6600);
  EXPECT_GE(late.Check().flag_errors, 1);

  Fixture twice;
  twice.log.insert(twice.log.begin() + 5, Fixture::Flag(6, 6500));
  twice.log[6].set_version(7);
  twice.now.set_version(7);
  EXPECT_GE(twice.Check().flag_errors, 1);

  Fixture missing;
  missing.log.resize(4);
  missing.now.set_version(4);
  missing.now.set_status(v1::GAME_STATUS_ONGOING);
  missing.now.set_now_ms(2500);
  EXPECT_GE(missing.Check().flag_errors, 1);
}

TEST(LogCheck, TimesThatDisagreeWithTheLogAreClockErrors) {
  Fixture move;
  move.log[2].mutable_event()->mutable_move()->set_clock_ms(3999);
  EXPECT_EQ(move.Check().clock_errors, 1);

  Fixture reply;
  reply.game.acks[3].reply.black_ms = 4400;
  EXPECT_EQ(reply.Check().clock_errors, 1);

  Fixture deadline;
  deadline.game.acks[2].reply.deadline_ms = 7100;
  EXPECT_EQ(deadline.Check().clock_errors, 1);

  Fixture final_view;
  final_view.now.set_black_ms(4000);
  EXPECT_EQ(final_view.Check().clock_errors, 1);
}

TEST(LogCheck, AMoveAfterAnUnrecordedFlagIsAnError) {
  Fixture f;
  f.log.resize(4);
  f.log.push_back(Move(5, "m2", 7000, v1::COLOR_WHITE, "d4", -500));
  f.game.flag_game = false;
  f.game.moves_acked = 3;
  f.now.set_version(5);
  f.now.set_status(v1::GAME_STATUS_ONGOING);
  EXPECT_GE(f.Check().clock_errors, 1);
}

}  // namespace
}  // namespace e2e
