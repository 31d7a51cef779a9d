#include "tools/arbiterctl/clock_simulate.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/json_lines.h"
#include "tools/arbiterctl/json_test_util.h"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

Json Simulate(const std::string& line) { return ParseOutputLine(SimulateClockLine(line)); }

// A scenario of two periods, exact to the millisecond.
TEST(ClockSimulateTest, TheIssuesExample) {
  Json out = Simulate(R"({"time_control": "40/5400+30:1800+30", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 61234, "type": "press"},
                 {"at_ms": 70000, "type": "pause"}, {"at_ms": 90000, "type": "resume"},
                 {"at_ms": 95000, "type": "adjust", "side": "white", "delta_ms": 120000}],
      "query_ms": 123456})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  // White: 90 min - 61.234 s + 30 s (increment) + 2 min. Black: ran 8.766 s + 33.456 s.
  EXPECT_EQ(out["white_ms"], 5'400'000 - 61'234 + 30'000 + 120'000);
  EXPECT_EQ(out["black_ms"], 5'400'000 - (70'000 - 61'234) - (123'456 - 90'000));
  EXPECT_EQ(out["running"], "black");
  EXPECT_EQ(out["moves"], Json::parse(R"({"white": 1, "black": 0})"));
  EXPECT_EQ(out["period"], Json::parse(R"({"white": 1, "black": 1})"));
  EXPECT_EQ(out["delay_left_ms"], 0);
  EXPECT_TRUE(out["flag"].is_null());
  EXPECT_EQ(out["speed"], "standard");
  EXPECT_EQ(out["status"], "running");
  EXPECT_EQ(out["deadline_ms"], 123'456 + 5'357'778);
  EXPECT_EQ(out["display"]["black"], "1:29:17.78");
  EXPECT_EQ(out["scoresheet_duty_lapsed"], Json::parse(R"({"white": false, "black": false})"));
}

TEST(ClockSimulateTest, ContractFieldOrder) {
  const std::string out = SimulateClockLine(
      R"({"time_control": "300+2", "edition": "fide2023", "events": [], "query_ms": 0})");
  EXPECT_EQ(out.rfind(R"({"white_ms":300000,"black_ms":300000,"running":null,"moves":)", 0), 0u)
      << out;
}

TEST(ClockSimulateTest, HumanFormSimpleDelay) {
  Json out = Simulate(R"({"time_control_human": "G/60 d5", "edition": "fide2005",
      "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 4000, "type": "press", "side": "white"}],
      "query_ms": 6000})");
  EXPECT_EQ(out["white_ms"], 3'600'000);  // a press inside the delay leaves the main time unchanged
  EXPECT_EQ(out["black_ms"], 3'600'000);
  EXPECT_EQ(out["delay_left_ms"], 3'000);
  EXPECT_EQ(out["speed"], "rapid");  // 60 minutes: B1 "zwischen 15 und 60 Minuten"
}

TEST(ClockSimulateTest, FlagAndDeadline) {
  Json out = Simulate(R"({"time_control": "300+2", "edition": "fide2023",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 300500})");
  EXPECT_EQ(out["white_ms"], 0);
  EXPECT_EQ(out["flag"], Json::parse(R"({"side": "white", "at_ms": 300000})"));
  EXPECT_EQ(out["deadline_ms"], 300'000);
  EXPECT_EQ(out["speed"], "blitz");  // 5 min + 60 x 2 s = 7 min
}

TEST(ClockSimulateTest, SpeedBoundariesPerEdition) {
  auto speed = [](const std::string& tc, const std::string& edition) {
    return Simulate(absl::StrCat(R"({"time_control": ")", tc, R"(", "edition": ")", edition,
                                 R"(", "events": [], "query_ms": 0})"))["speed"];
  };
  EXPECT_EQ(speed("899", "fide2001"), "blitz");  // 14:59
  EXPECT_EQ(speed("900", "fide2001"), "rapid");  // 15:00
  EXPECT_EQ(speed("900", "fide1997"), "rapid");
  EXPECT_EQ(speed("600", "fide2023"), "blitz");    // 10 min + 0
  EXPECT_EQ(speed("540+1", "fide2023"), "blitz");  // 9 min + 1 s
  EXPECT_EQ(speed("540+2", "fide2023"), "rapid");
}

// 6.12 / 10.3 when it cannot be established which flag fell first: both clocks set to zero
// together (6.14) in the final period, both flags at 10 s.
TEST(ClockSimulateTest, BothFlags2001Versus2005) {
  const std::string scenario = R"({"time_control_human": "40/120, 60", "edition": "%s",
      "events": [{"at_ms": 0, "type": "start"},
                 {"at_ms": 10000, "type": "set", "white_ms": 0, "black_ms": 0,
                  "moves": {"white": 45, "black": 45}}],
      "query_ms": 20000})";
  auto run = [&scenario](const std::string& edition) {
    return Simulate(absl::StrReplaceAll(scenario, {{"%s", edition}}));
  };
  Json out2001 = run("fide2001");
  EXPECT_EQ(out2001["both_flags"], Json::parse(R"({"outcome": "draw", "article": "10.3"})"));
  EXPECT_EQ(out2001["flags"], Json::parse(R"({"white": 10000, "black": 10000})"));
  Json out2005 = run("fide2005");
  EXPECT_EQ(out2005["both_flags"], Json::parse(R"({"outcome": "draw", "article": "6.12b"})"));
}

TEST(ClockSimulateTest, ArrivalAndDefault) {
  Json out = Simulate(R"({"time_control_human": "90+30", "edition": "fide2023",
      "default_time_ms": 900000,
      "events": [{"at_ms": 0, "type": "start", "absent": ["white", "black"]},
                 {"at_ms": 300000, "type": "arrive", "side": "white"},
                 {"at_ms": 301000, "type": "press"}],
      "query_ms": 900001})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["white_ms"], 5'400'000 - 301'000 + 30'000);  // 6.6: White's time ran until arrival
  EXPECT_EQ(out["defaulted"], Json::parse(R"(["black"])"));
  // 2023 without a default time in the regulations: 0.
  Json zero = Simulate(R"({"time_control_human": "90+30", "edition": "fide2023",
      "events": [{"at_ms": 0, "type": "start", "absent": ["black"]}], "query_ms": 1})");
  EXPECT_EQ(zero["defaulted"], Json::parse(R"(["black"])"));
}

// 6.3 without a count from the scoresheets: the clock's record decides (8.6 applies only where the
// record cannot show it). "40/90, 30", White never moved: his flag fell at 90 min with 0 moves.
TEST(ClockSimulateTest, FlagCheckWithoutACountReadsTheClocksRecord) {
  Json out = Simulate(R"({"time_control_human": "40/90, 30", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"},
                 {"at_ms": 5700000, "type": "flag_check", "side": "white"}],
      "query_ms": 5700000})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["flag_checks"][0]["outcome"], "not_completed");
  EXPECT_EQ(out["flag_checks"][0]["article"], "6.3, 6.10");
  EXPECT_EQ(out["moves"]["white"], 0);
  EXPECT_EQ(out["period"]["white"], 1);
  EXPECT_EQ(out["flag"], Json::parse(R"({"side": "white", "at_ms": 5400000})"));
}

TEST(ClockSimulateTest, SetReplaceAndLag) {
  Json out = Simulate(R"({"time_control": "180+2", "edition": "fide2023", "lag_compensation": true,
      "events": [{"at_ms": 0, "type": "start"},
                 {"at_ms": 5000, "type": "press", "lag_ms": 400},
                 {"at_ms": 6000, "type": "replace", "white_ms": 170000, "black_ms": 175000},
                 {"at_ms": 7000, "type": "set", "white_ms": 100000, "black_ms": 90000,
                  "moves": {"white": 0, "black": 0}, "to_move": "white"}],
      "query_ms": 8000})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["white_ms"], 99'000);
  EXPECT_EQ(out["black_ms"], 90'000);
  EXPECT_EQ(out["running"], "white");
  EXPECT_EQ(out["moves"]["white"], 0);
  EXPECT_EQ(out["lag_quota_ms"]["white"], 3'000 + 1'000 - 400);
}

TEST(ClockSimulateTest, PreciseErrors) {
  struct Case {
    std::string line;
    std::string code;
    std::string message;
  };
  const std::string ok_prefix = R"({"time_control": "300+2", "edition": "fide2023", )";
  for (const Case& c : std::vector<Case>{
           {"not json", "ERR_BAD_JSON", "not valid JSON"},
           {"[1, 2]", "ERR_BAD_SCENARIO", "a scenario is a JSON object"},
           {R"({"edition": "fide2023", "query_ms": 0})", "ERR_BAD_SCENARIO", "exactly one"},
           {R"({"time_control": "90+30", "time_control_human": "90+30", "edition": "fide2023",
               "query_ms": 0})",
            "ERR_BAD_SCENARIO", "exactly one"},
           {R"({"time_control": "40/90m", "edition": "fide2023", "query_ms": 0})",
            "ERR_BAD_TIME_CONTROL", "time_control: field 1"},
           {R"({"time_control": "-", "edition": "fide2023", "query_ms": 0})",
            "ERR_BAD_TIME_CONTROL", "no clock to run"},
           {R"({"time_control": "300", "edition": "fide2018", "query_ms": 0})", "ERR_BAD_EDITION",
            "fide2018"},
           {ok_prefix + R"("events": []})", "ERR_BAD_SCENARIO", "\"query_ms\" is required"},
           {ok_prefix + R"("query_ms": 1.5})", "ERR_BAD_SCENARIO", "must be an integer"},
           {ok_prefix + R"("query_ms": 0, "colour": 1})", "ERR_BAD_SCENARIO",
            "unknown field \"colour\""},
           {ok_prefix + R"("query_ms": 0, "events": {}})", "ERR_BAD_SCENARIO", "must be a list"},
           {ok_prefix + R"("query_ms": 0, "events": [{"at_ms": 0, "type": "go"}]})",
            "ERR_BAD_EVENT", "events[0]: unknown type \"go\""},
           {ok_prefix + R"("query_ms": 0, "events": [{"type": "start"}]})", "ERR_BAD_EVENT",
            "events[0]: \"at_ms\" is required"},
           {ok_prefix + R"("query_ms": 9, "events": [{"at_ms": 0, "type": "start"},
                {"at_ms": 5, "type": "adjust", "side": "red", "delta_ms": 1}]})",
            "ERR_BAD_EVENT", "events[1]: \"side\" must be \"white\" or \"black\""},
           {ok_prefix + R"("query_ms": 9, "events": [{"at_ms": 0, "type": "start"},
                {"at_ms": 5, "type": "press", "delta_ms": 1}]})",
            "ERR_BAD_EVENT", "unknown field \"delta_ms\""},
           {ok_prefix + R"("query_ms": 0, "events": [{"at_ms": 0, "type": "press"}]})",
            "ERR_CLOCK_NOT_STARTED", "events[0] (press at 0 ms)"},
           {ok_prefix + R"("query_ms": 99, "events": [{"at_ms": 0, "type": "start"},
                {"at_ms": 5, "type": "pause"}, {"at_ms": 7, "type": "press"}]})",
            "ERR_CLOCK_PAUSED", "events[2] (press at 7 ms)"},
           {ok_prefix + R"("query_ms": 99, "events": [{"at_ms": 0, "type": "start"},
                {"at_ms": 5, "type": "press", "side": "black"}]})",
            "ERR_NOT_YOUR_TURN", "black pressed"},
           {ok_prefix + R"("query_ms": 99, "events": [{"at_ms": 0, "type": "start"},
                {"at_ms": 5, "type": "adjust", "side": "white", "delta_ms": -1,
                 "reason": "7.4b"}]})",
            "ERR_BAD_ADJUSTMENT", "7.4b"},
           {ok_prefix + R"("query_ms": 99, "events": [{"at_ms": 0, "type": "start"},
                {"at_ms": 5, "type": "adjust", "side": "white", "delta_ms": 1,
                 "reason": "1.1"}]})",
            "ERR_BAD_ADJUSTMENT", "unknown adjustment reason"},
           {ok_prefix + R"("query_ms": 99, "events": [{"at_ms": 10, "type": "start"},
                {"at_ms": 5, "type": "pause"}]})",
            "ERR_TIME_WENT_BACKWARDS", "events[1]"},
           {ok_prefix + R"("query_ms": 1, "events": [{"at_ms": 10, "type": "start"}]})",
            "ERR_TIME_WENT_BACKWARDS", "query_ms 1"},
           {ok_prefix + R"("query_ms": 99, "events": [{"at_ms": 0, "type": "start"},
                {"at_ms": 5, "type": "flag_check", "side": "white"}]})",
            "ERR_NO_FLAG", "6.3"},
       }) {
    Json out = Simulate(c.line);
    EXPECT_EQ(ErrorCode(out), c.code) << c.line << "\n" << out.dump();
    if (out.contains("error")) {
      EXPECT_THAT(out["error"]["message"].get<std::string>(), HasSubstr(c.message)) << c.line;
    }
  }
}

TEST(ClockSimulateTest, OneLineOutPerScenarioAndABadLineStopsNothing) {
  std::istringstream in(
      R"({"time_control": "60", "edition": "fide2001", )"
      R"("events": [{"at_ms": 0, "type": "start"}], "query_ms": 1000})"
      "\n"
      "{oops\n"
      "\n"
      R"({"time_control": "60", "edition": "fide2001", "events": [], "query_ms": 0, )"
      R"("name": "idle"})"
      "\n");
  std::ostringstream out;
  EXPECT_EQ(RunJsonLines(in, out, SimulateClockLine), 0);
  std::istringstream lines(out.str());
  std::string first, second, third, extra;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  ASSERT_TRUE(std::getline(lines, third));
  EXPECT_FALSE(std::getline(lines, extra));
  EXPECT_EQ(Json::parse(first)["white_ms"], 59'000);
  EXPECT_EQ(ErrorCode(Json::parse(second)), "ERR_BAD_JSON");
  EXPECT_EQ(Json::parse(third)["name"], "idle");
  EXPECT_EQ(Json::parse(third)["running"], nullptr);
}

TEST(ClockSimulateTest, InvalidUtf8DoesNotCrash) {
  Json out = Simulate("{\"time_control\": \"\xff\", \"edition\": \"fide2001\", \"query_ms\": 0}");
  EXPECT_EQ(ErrorCode(out), "ERR_BAD_JSON");
  out = Simulate(
      "{\"time_control\": \"300\", \"edition\": \"fide2001\", \"query_ms\": 0, "
      "\"events\": [{\"at_ms\": 0, \"type\": \"\\u00ff\"}]}");
  EXPECT_EQ(ErrorCode(out), "ERR_BAD_EVENT");
}

// --- How a flag is ruled, as scripts see it ------------------------------------------------

// 6.10: "4k3/8/8/8/8/8/8/3QK3 w", G/90, fide2001, White never moves. Black cannot mate,
// so the game is drawn; the clock, knowing no position, says White's flag fell and that the
// result follows from 6.10, never "Black wins".
TEST(ClockSimulateTest, AFlagIsNotAWin) {
  Json out = Simulate(R"({"time_control_human": "G/90", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 5400000})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["flag"], Json::parse(R"({"side": "white", "at_ms": 5400000})"));
  const Json& result = out["flag_result"];
  EXPECT_EQ(result["side"], "white");
  EXPECT_EQ(result["result"], "by_position");
  EXPECT_EQ(result["article"], "6.10");
  EXPECT_EQ(result["needs_mating_potential"], false);
  EXPECT_THAT(result["note"].get<std::string>(),
              HasSubstr("white has lost unless black cannot checkmate him"));
  EXPECT_EQ(out.dump().find("wins"), std::string::npos) << out.dump();
  // 1997 blitz: C4, mating potential.
  Json blitz = Simulate(R"({"time_control": "180", "edition": "fide1997",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 200000})");
  EXPECT_EQ(blitz["flag_result"]["article"], "C4 (1997)");
  EXPECT_EQ(blitz["flag_result"]["needs_mating_potential"], true);
  // No flag, no flag_result.
  Json none = Simulate(R"({"time_control": "180", "edition": "fide1997",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 1000})");
  EXPECT_FALSE(none.contains("flag_result"));
}

// 10.3: both flags down and not provable which first (set to zero together) is a ruling by itself.
TEST(ClockSimulateTest, BothFlagsInAnUnknownOrderAreARuling) {
  Json out = Simulate(R"({"time_control_human": "40/120, 60", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"},
                 {"at_ms": 10000, "type": "set", "white_ms": 0, "black_ms": 0,
                  "moves": {"white": 45, "black": 45}}],
      "query_ms": 20000})");
  EXPECT_EQ(out["flag_result"]["result"], "draw");
  EXPECT_EQ(out["flag_result"]["article"], "10.3");
}

// 6.12 (2001), 6.12b (2005), 10.3 "wenn ... nicht nachweisbar ist, welches das erste war": the
// clock records each flag's instant. "40/120, 60", both set to 1 s in the final period (45 moves
// each): White's flag falls at 11 s, Black's at 13 s. White's fell first and decides (6.9, 6.10):
// no both_flags ruling, flag_result is White's.
TEST(ClockSimulateTest, BothFlagsInAKnownOrderTheFirstDecides) {
  for (const char* edition : {"fide2001", "fide2005", "fide2023"}) {
    Json out =
        Simulate(absl::StrCat(R"({"time_control_human": "40/120, 60", "edition": ")", edition, R"(",
      "events": [{"at_ms": 0, "type": "start"},
                 {"at_ms": 10000, "type": "set", "white_ms": 1000, "black_ms": 1000,
                  "moves": {"white": 45, "black": 45}},
                 {"at_ms": 12000, "type": "press"}],
      "query_ms": 20000})"));
    ASSERT_FALSE(out.contains("error")) << out.dump();
    EXPECT_EQ(out["flags"], Json::parse(R"({"white": 11000, "black": 13000})")) << edition;
    EXPECT_TRUE(out["both_flags"].is_null()) << edition << out.dump();
    EXPECT_EQ(out["flag_result"]["side"], "white") << edition;
    EXPECT_EQ(out["flag_result"]["at_ms"], 11000) << edition;
    EXPECT_EQ(out["flag_result"]["result"], "by_position") << edition;
  }
}

// 6.3 / 8.6: control "2/1, 2/1, 1", presses at 61, 62 and 63 s (White's flag fell at 60 s with no
// move made), flag_check for White without a move count at 64 s: the flag's period is checked at
// the fall, and the clock's record shows 0 of its 2 moves; the moves after the flag do not
// complete it. The flag stands (6.3, 6.10); 8.6 does not apply, the record shows it.
TEST(ClockSimulateTest, FlagBeforeThePeriodsMovesStandsWhateverTheMovesAfterIt) {
  Json out = Simulate(R"({"time_control_human": "2/1, 2/1, 1", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 61000, "type": "press"},
                 {"at_ms": 62000, "type": "press"}, {"at_ms": 63000, "type": "press"},
                 {"at_ms": 64000, "type": "flag_check", "side": "white"}],
      "query_ms": 64000})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["flag_checks"][0]["outcome"], "not_completed");
  EXPECT_EQ(out["flag_checks"][0]["article"], "6.3, 6.10");
  EXPECT_EQ(out["flags"]["white"], 60'000);
  EXPECT_EQ(out["flag"], Json::parse(R"({"side": "white", "at_ms": 60000})"));
  EXPECT_EQ(out["flag_result"]["side"], "white");
  // The scoresheets prove no move by the flag: not completed, the flag stands (6.3, 6.10).
  Json proven = Simulate(R"({"time_control_human": "2/1, 2/1, 1", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 61000, "type": "press"},
                 {"at_ms": 62000, "type": "press"}, {"at_ms": 63000, "type": "press"},
                 {"at_ms": 64000, "type": "flag_check", "side": "white", "moves_completed": 0}],
      "query_ms": 64000})");
  EXPECT_EQ(proven["flag_checks"][0]["outcome"], "not_completed");
  EXPECT_EQ(proven["flags"]["white"], 60'000);
}

// B6 with lag compensation: G/1, fide2001, lag compensation: the press at 60.5 s with 1 s of lag
// arrives after the flag at 60 s; the flag stays and White is not given 500 ms.
TEST(ClockSimulateTest, LagDoesNotEraseAFallenFlag) {
  Json out = Simulate(R"({"time_control_human": "G/1", "edition": "fide2001",
      "lag_compensation": true,
      "events": [{"at_ms": 0, "type": "start"},
                 {"at_ms": 60500, "type": "press", "lag_ms": 1000}],
      "query_ms": 60500})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["flags"]["white"], 60'000);
  EXPECT_EQ(out["white_ms"], 0);
  EXPECT_EQ(out["flag_result"]["side"], "white");
}

// 6.1 / B6 after an adjustment: G/15, fide2001: White's flag falls at 900 s; pause; +2 min (7.4b);
// resume. The clock shows 1:54 and no flag, as Set and Replace would (6.1, 6.11, 6.14, B7).
TEST(ClockSimulateTest, AdjustSetAndReplaceTreatTheFlagAlike) {
  for (const char* change :
       {R"({"at_ms": 906000, "type": "adjust", "side": "white", "delta_ms": 120000,
            "reason": "7.4b"})",
        R"({"at_ms": 906000, "type": "set", "white_ms": 114000, "black_ms": 900000})",
        R"({"at_ms": 906000, "type": "replace", "white_ms": 114000, "black_ms": 900000})"}) {
    Json out = Simulate(absl::StrCat(
        R"({"time_control_human": "G/15", "edition": "fide2001", "events": [
            {"at_ms": 0, "type": "start"}, {"at_ms": 906000, "type": "pause"}, )",
        change, R"(, {"at_ms": 906000, "type": "resume"}], "query_ms": 906000})"));
    ASSERT_FALSE(out.contains("error")) << out.dump();
    EXPECT_EQ(out["white_ms"], 114'000) << change;
    EXPECT_TRUE(out["flags"]["white"].is_null()) << change;
    EXPECT_TRUE(out["flag"].is_null()) << change;
  }
}

// 6.7: scheduled 10:00, the clock started 10:20 with Black absent: Black is defaulted at
// 11:00:00.001, not 11:20:00.001.
TEST(ClockSimulateTest, DefaultCountsFromTheScheduledStart) {
  auto defaulted = [](std::int64_t query_ms) {
    return Simulate(absl::StrCat(R"({"time_control_human": "G/90", "edition": "fide2001",
        "scheduled_start_ms": 36000000,
        "events": [{"at_ms": 37200000, "type": "start", "absent": ["black"]}],
        "query_ms": )",
                                 query_ms, "}"))["defaulted"];
  };
  EXPECT_EQ(defaulted(39'600'000), Json::array());
  EXPECT_EQ(defaulted(39'600'001), Json::parse(R"(["black"])"));
  Json bad = Simulate(R"({"time_control": "300", "edition": "fide2001", "query_ms": 0,
      "scheduled_start_ms": "10:00"})");
  EXPECT_EQ(ErrorCode(bad), "ERR_BAD_SCENARIO");
}

// B1, C1: a repeating "20/5" is neither rapid nor blitz; "40/10, 5" counts its 15
// minutes; 2001 ignores the increment.
TEST(ClockSimulateTest, SpeedCategoriesOfRepeatingControls) {
  auto speed = [](const std::string& tc, const std::string& edition) {
    return Simulate(absl::StrCat(R"({"time_control_human": ")", tc, R"(", "edition": ")", edition,
                                 R"(", "events": [], "query_ms": 0})"))["speed"];
  };
  EXPECT_EQ(speed("20/5", "fide2001"), "standard");
  EXPECT_EQ(speed("20/5", "fide2023"), "standard");
  EXPECT_EQ(speed("40/10, 5", "fide2001"), "rapid");
  EXPECT_EQ(speed("G/60+30", "fide2001"), "rapid");
  EXPECT_EQ(speed("G/14+30", "fide2005"), "blitz");
  EXPECT_EQ(speed("G/14+30", "fide2023"), "rapid");
}

// 6.2b: the simple delay's flag falls after delay + main time, Bronstein's at the main
// time: G/1 d5 at 65 s, G/1 b5 at 60 s.
TEST(ClockSimulateTest, FlagInstantOfEachDelayMode) {
  auto run = [](const std::string& tc) {
    return Simulate(absl::StrCat(R"({"time_control_human": ")", tc,
                                 R"(", "edition": "fide2005",
        "events": [{"at_ms": 0, "type": "start"}], "query_ms": 70000})"));
  };
  Json simple = run("G/1 d5");
  EXPECT_EQ(simple["deadline_ms"], 65'000);
  EXPECT_EQ(simple["flags"]["white"], 65'000);
  Json bronstein = run("G/1 b5");
  EXPECT_EQ(bronstein["deadline_ms"], 60'000);
  EXPECT_EQ(bronstein["flags"]["white"], 60'000);
}

// 8.4 / 8.5b: after a flag both players must complete their records.
TEST(ClockSimulateTest, NoScoresheetLapseAfterAFlag) {
  Json before = Simulate(R"({"time_control_human": "G/90", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 5399999})");
  EXPECT_EQ(before["scoresheet_duty_lapsed"]["white"], true);
  Json after = Simulate(R"({"time_control_human": "G/90", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 5400000})");
  EXPECT_EQ(after["scoresheet_duty_lapsed"], Json::parse(R"({"white": false, "black": false})"));
}

// B3 "Die Spieler müssen die Züge nicht aufzeichnen" (blitz through C2; 2023 A.2): rapid and blitz
// have no duty at all, with any time left; standard play has 8.1's, lapsing under 8.4.
TEST(ClockSimulateTest, AppendixB3NoScoresheetDutyInRapidOrBlitz) {
  for (const char* edition : {"fide1997", "fide2001", "fide2005", "fide2023"}) {
    for (const char* tc : {"G/30", "G/5"}) {
      Json out = Simulate(absl::StrCat(R"({"time_control_human": ")", tc, R"(", "edition": ")",
                                       edition, R"(", "events": [{"at_ms": 0, "type": "start"}],
          "query_ms": 1000})"));
      ASSERT_FALSE(out.contains("error")) << out.dump();
      EXPECT_EQ(out["scoresheet_duty_lapsed"], Json::parse(R"({"white": true, "black": true})"))
          << edition << " " << tc;
    }
  }
  Json rapid = Simulate(R"({"time_control_human": "G/30", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 1000})");
  EXPECT_EQ(rapid["scoresheet_duty_article"], "B3");
  Json standard = Simulate(R"({"time_control_human": "G/90", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 1000})");
  EXPECT_EQ(standard["scoresheet_duty_lapsed"], Json::parse(R"({"white": false, "black": false})"));
  EXPECT_EQ(standard["scoresheet_duty_article"], "8.1, 8.4");
}

// B6 (2001 rapid): the flag is the clock's fact, counted only on a valid claim (B7); a claim that
// finds both flags down is B8's draw. G/15: White's flag at 900 s, he presses at 901 s, Black's
// falls at 1'801 s.
TEST(ClockSimulateTest, AppendixB6FlagCountsOnlyOnAClaim) {
  Json one = Simulate(R"({"time_control_human": "G/15", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 1000000})");
  EXPECT_EQ(one["flag_result"]["counts_when_observed"], false);
  EXPECT_EQ(one["flag_result"]["flag_article"], "B6");
  EXPECT_FALSE(one["flag_result"].contains("claim_ruling"));
  EXPECT_THAT(one["flag_result"]["note"].get<std::string>(), HasSubstr("validly claims it"));
  Json both = Simulate(R"({"time_control_human": "G/15", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 901000, "type": "press"}],
      "query_ms": 2000000})");
  EXPECT_TRUE(both["both_flags"].is_null()) << both.dump();
  EXPECT_EQ(both["flag_result"]["side"], "white");
  EXPECT_EQ(both["flag_result"]["claim_ruling"],
            Json::parse(R"({"result": "draw", "article": "B8"})"));
}

// 2023 rapid and blitz flags per the event: A.3 (supervised, the default) counts as in standard
// play; A.4.5 ("supervised": false) only on a player's valid claim.
TEST(ClockSimulateTest, Fide2023FlagFollowsTheEventsSupervision) {
  Json supervised = Simulate(R"({"time_control_human": "G/5", "edition": "fide2023",
      "events": [{"at_ms": 0, "type": "start"}], "query_ms": 400000})");
  EXPECT_EQ(supervised["flag_result"]["counts_when_observed"], true);
  EXPECT_EQ(supervised["flag_result"]["flag_article"], "B.3 (2023)");
  Json unsupervised = Simulate(R"({"time_control_human": "G/15", "edition": "fide2023",
      "supervised": false, "events": [{"at_ms": 0, "type": "start"}], "query_ms": 1000000})");
  EXPECT_EQ(unsupervised["flag_result"]["counts_when_observed"], false);
  EXPECT_EQ(unsupervised["flag_result"]["flag_article"], "A.4.5 (2023)");
  Json bad = Simulate(R"({"time_control_human": "G/15", "edition": "fide2023",
      "supervised": "no", "events": [], "query_ms": 0})");
  EXPECT_EQ(bad["error"]["code"], "ERR_BAD_SCENARIO") << bad.dump();
}

}  // namespace
}  // namespace arbiterctl
