#include "tools/arbiterctl/clock_simulate.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace arbiterctl {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

Json Simulate(const std::string& line) {
  const std::string out = SimulateClockLine(line);
  Json parsed = Json::parse(out, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << out;
  return parsed;
}

std::string ErrorCode(const Json& out) {
  if (!out.contains("error")) return "";
  return out["error"]["code"].get<std::string>();
}

// The scenario of the issue, exact to the millisecond.
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

TEST(ClockSimulateTest, BothFlags2001Versus2005) {
  const std::string scenario = R"({"time_control_human": "40/120, 60", "edition": "%s",
      "events": [{"at_ms": 0, "type": "start"},
                 {"at_ms": 10000, "type": "set", "white_ms": 1000, "black_ms": 1000,
                  "moves": {"white": 45, "black": 45}},
                 {"at_ms": 12000, "type": "press"}],
      "query_ms": 20000})";
  auto run = [&scenario](const std::string& edition) {
    std::string line = scenario;
    line.replace(line.find("%s"), 2, edition);
    return Simulate(line);
  };
  Json out2001 = run("fide2001");
  EXPECT_EQ(out2001["both_flags"], Json::parse(R"({"outcome": "draw", "article": "10.3"})"));
  EXPECT_EQ(out2001["flag"], Json::parse(R"({"side": "white", "at_ms": 11000})"));
  EXPECT_EQ(out2001["flags"], Json::parse(R"({"white": 11000, "black": 13000})"));
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

TEST(ClockSimulateTest, FlagCheckWithUnknownMoveCount) {
  Json out = Simulate(R"({"time_control_human": "40/90, 30", "edition": "fide2001",
      "events": [{"at_ms": 0, "type": "start"},
                 {"at_ms": 5700000, "type": "flag_check", "side": "white"}],
      "query_ms": 5700000})");
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_EQ(out["flag_checks"][0]["outcome"], "completed");
  EXPECT_EQ(out["flag_checks"][0]["article"], "8.6");
  EXPECT_EQ(out["moves"]["white"], 40);
  EXPECT_EQ(out["period"]["white"], 2);
  EXPECT_EQ(out["white_ms"], 30 * 60'000 - 300'000);
  EXPECT_TRUE(out["flag"].is_null());
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
  EXPECT_EQ(RunClockSimulate(in, out), 0);
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

}  // namespace
}  // namespace arbiterctl
