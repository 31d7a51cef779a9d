#include "tools/arbiterctl/clock_simulate.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/types.h"
#include "libs/clock/clock.h"
#include "libs/clock/display.h"
#include "libs/clock/errors.h"
#include "libs/clock/lag_compensation.h"
#include "libs/clock/time_control.h"
#include "libs/laws/edition.h"
#include "libs/laws/ruleset.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/errors.h"
#include "tools/arbiterctl/json_fields.h"
#include "tools/arbiterctl/json_lines.h"

namespace arbiterctl {
namespace {

using chess::Color;
using chessclock::Clock;
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

using Fields = JsonFields;

// The error of a library call, with where it happened in front of its message; same codes.
absl::Status At(const absl::Status& status, absl::string_view where) {
  return base::Error(status.code(), base::ErrorCode(status),
                     absl::StrCat(where, ": ", status.message()));
}

struct Scenario {
  chessclock::TimeControl tc;
  laws::Edition edition = laws::Edition::kFide2023;
  chessclock::ClockOptions options;
  std::int64_t query_ms = 0;
  std::optional<std::string> name;
  // 2023 rapid and blitz: A.3 (supervised) or A.4.5; see laws::Regulations::supervised.
  bool supervised = laws::kDefaultSupervised;
};

absl::StatusOr<chessclock::TimeControl> ParseTimeControl(const Fields& top, const Json& root) {
  const bool pgn = root.contains("time_control");
  const bool human = root.contains("time_control_human");
  if (pgn == human) {
    return BadScenario(
        "give exactly one of \"time_control\" (PGN tag, seconds) and \"time_control_human\" "
        "(minutes)");
  }
  ASSIGN_OR_RETURN(std::string text, top.String(pgn ? "time_control" : "time_control_human"));
  absl::StatusOr<chessclock::TimeControl> tc =
      pgn ? chessclock::ParsePgnTimeControl(text) : chessclock::ParseHumanTimeControl(text);
  if (!tc.ok()) return At(tc.status(), pgn ? "time_control" : "time_control_human");
  return tc;
}

absl::StatusOr<Scenario> ParseScenario(const Json& root) {
  Fields top(root, "scenario", arbiterctl::kErrBadScenario);
  RETURN_IF_ERROR(
      top.OnlyKeys({"time_control", "time_control_human", "edition", "events", "query_ms",
                    "default_time_ms", "scheduled_start_ms", "delay_saved_time", "lag_compensation",
                    "name", "comment", "supervised"}));
  Scenario scenario;
  ASSIGN_OR_RETURN(scenario.tc, ParseTimeControl(top, root));
  ASSIGN_OR_RETURN(std::string edition, top.String("edition"));
  ASSIGN_OR_RETURN(scenario.edition, laws::ParseEdition(edition));
  ASSIGN_OR_RETURN(scenario.query_ms, top.Int("query_ms"));
  if (root.contains("name")) {
    ASSIGN_OR_RETURN(std::string name, top.String("name"));
    scenario.name = name;
  }

  if (top.Has("supervised")) {
    ASSIGN_OR_RETURN(scenario.supervised, top.Bool("supervised", laws::kDefaultSupervised));
  }

  std::optional<std::int64_t> event_default;
  if (root.contains("default_time_ms")) {
    ASSIGN_OR_RETURN(event_default, top.Int("default_time_ms", 0));
  }
  scenario.options.default_time_ms = laws::DefaultTimeMs(scenario.edition, event_default);
  if (top.Has("scheduled_start_ms")) {
    // 6.7 "nach dem angesetzten Spielbeginn", in ms on the scenario's time base.
    ASSIGN_OR_RETURN(scenario.options.scheduled_start_ms, top.Int("scheduled_start_ms"));
  }
  if (root.contains("delay_saved_time")) {
    ASSIGN_OR_RETURN(std::string reading, top.String("delay_saved_time"));
    if (reading == "discard") {
      scenario.options.delay_saved_time = chessclock::DelaySavedTime::kDiscard;
    } else if (reading != "carry") {
      return top.Error("\"delay_saved_time\" must be \"carry\" or \"discard\"");
    }
  }
  if (root.contains("lag_compensation")) {
    const Json& lag = root["lag_compensation"];
    if (lag.is_boolean()) {
      scenario.options.lag_compensation = lag.get<bool>();
      scenario.options.lag = chessclock::LichessLagParams(scenario.tc);
    } else if (lag.is_object()) {
      Fields params(lag, "lag_compensation", arbiterctl::kErrBadScenario);
      RETURN_IF_ERROR(params.OnlyKeys({"quota_gain_ms", "initial_quota_ms", "quota_max_ms"}));
      scenario.options.lag_compensation = true;
      ASSIGN_OR_RETURN(scenario.options.lag.quota_gain_ms, params.Int("quota_gain_ms", 0));
      ASSIGN_OR_RETURN(scenario.options.lag.initial_quota_ms, params.Int("initial_quota_ms", 0));
      ASSIGN_OR_RETURN(scenario.options.lag.quota_max_ms, params.Int("quota_max_ms", 0));
    } else {
      return top.Error("\"lag_compensation\" must be true, false or an object of parameters");
    }
  }
  return scenario;
}

// Applies one event. `checks` collects the results of flag_check events.
absl::Status ApplyEvent(const Json& event, size_t index, Clock& clock, std::int64_t* last_ms,
                        OrderedJson& checks) {
  ASSIGN_OR_RETURN(const Fields f, Fields::Event(event, index));
  const std::string& where = f.where();
  ASSIGN_OR_RETURN(std::int64_t at, f.Int("at_ms"));
  ASSIGN_OR_RETURN(std::string type, f.String("type"));
  if (at < *last_ms) {
    return base::Error(
        chessclock::kErrTimeWentBackwards,
        absl::StrCat(where, ": at_ms ", at, " is before the previous event's ", *last_ms));
  }
  *last_ms = at;
  const std::string context = absl::StrCat(where, " (", type, " at ", at, " ms)");
  absl::Status status;
  if (type == "start") {
    RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "absent"}));
    bool present[2] = {true, true};
    if (event.contains("absent")) {
      if (!event["absent"].is_array()) return f.Error("\"absent\" must be a list of sides");
      for (const Json& side : event["absent"]) {
        if (!side.is_string()) return f.Error("\"absent\" must be a list of sides");
        ASSIGN_OR_RETURN(Color c, f.ParseSide(side.get<std::string>(), "absent"));
        present[chess::Index(c)] = false;
      }
    }
    status = clock.Start(at, present[0], present[1]);
  } else if (type == "press") {
    RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "side", "lag_ms"}));
    std::int64_t lag = 0;
    if (f.Has("lag_ms")) {
      ASSIGN_OR_RETURN(lag, f.Int("lag_ms", 0));
    }
    if (f.Has("side")) {
      ASSIGN_OR_RETURN(Color side, f.Side("side"));
      status = clock.Press(side, at, lag);
    } else {
      status = clock.Press(at, lag);
    }
  } else if (type == "pause" || type == "resume") {
    RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type"}));
    status = type == "pause" ? clock.Pause(at) : clock.Resume(at);
  } else if (type == "adjust") {
    RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "side", "delta_ms", "reason"}));
    ASSIGN_OR_RETURN(Color side, f.Side("side"));
    ASSIGN_OR_RETURN(std::int64_t delta, f.Int("delta_ms"));
    chessclock::AdjustReason reason = chessclock::AdjustReason::kArbiter;
    if (f.Has("reason")) {
      ASSIGN_OR_RETURN(std::string article, f.String("reason"));
      absl::StatusOr<chessclock::AdjustReason> parsed = chessclock::ParseAdjustReason(article);
      if (!parsed.ok()) return At(parsed.status(), context);
      reason = *parsed;
    }
    status = clock.Adjust(side, delta, reason, at);
  } else if (type == "set" || type == "replace") {
    if (type == "set") {
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "white_ms", "black_ms", "moves", "to_move"}));
    } else {
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "white_ms", "black_ms"}));
    }
    chessclock::ClockSetting setting;
    ASSIGN_OR_RETURN(setting.white_ms, f.Int("white_ms"));
    ASSIGN_OR_RETURN(setting.black_ms, f.Int("black_ms"));
    if (type == "replace") {
      status = clock.Replace(setting.white_ms, setting.black_ms, at);
    } else {
      if (f.Has("moves")) {
        if (!event["moves"].is_object()) return f.Error("\"moves\" must be {\"white\": n, ...}");
        Fields moves(event["moves"], absl::StrCat(where, ".moves"), arbiterctl::kErrBadEvent);
        RETURN_IF_ERROR(moves.OnlyKeys({"white", "black"}));
        if (moves.Has("white")) {
          ASSIGN_OR_RETURN(std::int64_t n, moves.Int("white", 0, chessclock::kMaxMoveCount));
          setting.white_moves = static_cast<int>(n);
        }
        if (moves.Has("black")) {
          ASSIGN_OR_RETURN(std::int64_t n, moves.Int("black", 0, chessclock::kMaxMoveCount));
          setting.black_moves = static_cast<int>(n);
        }
      }
      if (f.Has("to_move")) {
        ASSIGN_OR_RETURN(setting.to_move, f.Side("to_move"));
      }
      status = clock.Set(setting, at);
    }
  } else if (type == "arrive") {
    RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "side"}));
    ASSIGN_OR_RETURN(Color side, f.Side("side"));
    status = clock.Arrive(side, at);
  } else if (type == "flag_check") {
    RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "side", "moves_completed"}));
    ASSIGN_OR_RETURN(Color side, f.Side("side"));
    std::optional<int> moves;
    if (f.Has("moves_completed")) {
      ASSIGN_OR_RETURN(std::int64_t n, f.Int("moves_completed", 0, chessclock::kMaxMoveCount));
      moves = static_cast<int>(n);
    }
    absl::StatusOr<chessclock::MoveCountCheck> check = clock.CheckMoveCount(side, moves, at);
    if (!check.ok()) return At(check.status(), context);
    checks.push_back(OrderedJson{
        {"event", index},
        {"side", std::string(chess::ColorName(side))},
        {"outcome", check->outcome == chessclock::MoveCountOutcome::kCompleted ? "completed"
                                                                               : "not_completed"},
        {"moves", check->moves},
        {"period", check->period_index + 1},
        {"article", std::string(check->article)},
    });
  } else {
    return f.Error(absl::StrCat("unknown type \"", type,
                                "\"; expected start, press, pause, resume, adjust, set, replace, "
                                "arrive or flag_check"));
  }
  if (!status.ok()) return At(status, context);
  return absl::OkStatus();
}

OrderedJson SideNullable(std::optional<Color> side) {
  if (!side.has_value()) return nullptr;
  return std::string(chess::ColorName(*side));
}

// What the fallen flag(s) decide. A clock knows no position: one flag is never a win, its result
// follows from 6.10 (1997 blitz: C4). The clock knows each flag's instant, so with both down the
// first decides; only flags that fell at the same instant are ruled by 6.12 / 10.3. Where a flag
// counts only on a claim (B6; 2023 A.4.5), the result is what a valid claim would decide, and a
// claim that finds both down is B8's draw (1997-2005): "claim_ruling".
OrderedJson FlagResult(const Scenario& scenario, const Clock& clock,
                       const chessclock::FlagFall& flag, std::int64_t t) {
  const std::string side(chess::ColorName(flag.side));
  const std::string opponent(chess::ColorName(~flag.side));
  const laws::SpeedCategory speed = chessclock::Speed(scenario.tc, scenario.edition);
  const laws::FlagRule counted = laws::FlagRuleFor(scenario.edition, speed, scenario.supervised);
  OrderedJson out = {{"side", side}, {"at_ms", flag.at_ms}};
  out["counts_when_observed"] = counted.counts_when_observed;
  out["flag_article"] = std::string(counted.article);
  const bool both_down = clock.FlagFallen(Color::kWhite, t) && clock.FlagFallen(Color::kBlack, t);
  if (both_down && !counted.counts_when_observed && counted.both_down_draws) {
    out["claim_ruling"] = {{"result", "draw"}, {"article", std::string(counted.both_down_article)}};
  }
  if (std::optional<laws::BothFlagsRuling> both =
          chessclock::RuleBothFlags(clock, scenario.edition, t);
      both.has_value()) {
    out["result"] = std::string(laws::BothFlagsOutcomeName(both->outcome));
    out["article"] = std::string(both->article);
    out["note"] = both->outcome == laws::BothFlagsOutcome::kDraw
                      ? "both flags fell: the game is drawn"
                      : "both flags fell: the game continues";
    return out;
  }
  const laws::FlagResultRule rule = laws::FlagResultFor(scenario.edition, speed);
  out["result"] = "by_position";
  out["article"] = std::string(rule.article);
  out["needs_mating_potential"] = rule.needs_mating_potential;
  out["note"] = absl::StrCat(
      side, "'s flag fell", both_down ? " first" : "", ": ", side, " has lost",
      counted.counts_when_observed
          ? ""
          : absl::StrCat(" once ", opponent, " validly claims it (", counted.article, ", ",
                         counted.claim_article, ")"),
      " unless ", opponent,
      rule.needs_mating_potential ? " lacks mating potential"
                                  : " cannot checkmate him by any series of legal moves",
      " (", rule.article,
      "), and unless the game had already ended (5.1, 5.2a-c); the clock knows no position, so "
      "the game rules on the result");
  return out;
}

OrderedJson Report(const Scenario& scenario, const Clock& clock, const OrderedJson& checks) {
  const std::int64_t t = scenario.query_ms;
  const Color kWhite = Color::kWhite;
  const Color kBlack = Color::kBlack;
  OrderedJson out;
  if (scenario.name.has_value()) out["name"] = *scenario.name;
  out["white_ms"] = std::max<std::int64_t>(0, clock.RemainingMs(kWhite, t));
  out["black_ms"] = std::max<std::int64_t>(0, clock.RemainingMs(kBlack, t));
  out["running"] = SideNullable(clock.running());
  out["moves"] = {{"white", clock.moves(kWhite)}, {"black", clock.moves(kBlack)}};
  out["period"] = {{"white", clock.period_index(kWhite) + 1},
                   {"black", clock.period_index(kBlack) + 1}};
  out["delay_left_ms"] = clock.DelayLeftMs(t);
  if (std::optional<chessclock::FlagFall> flag = clock.FirstFlag(t); flag.has_value()) {
    out["flag"] = {{"side", std::string(chess::ColorName(flag->side))}, {"at_ms", flag->at_ms}};
  } else {
    out["flag"] = nullptr;
  }
  out["speed"] =
      std::string(laws::SpeedCategoryName(chessclock::Speed(scenario.tc, scenario.edition)));

  out["status"] = std::string(chessclock::ClockStatusName(clock.status()));
  out["to_move"] = std::string(chess::ColorName(clock.to_move()));
  if (std::optional<std::int64_t> deadline = clock.Deadline(); deadline.has_value()) {
    out["deadline_ms"] = *deadline;
  } else {
    out["deadline_ms"] = nullptr;
  }
  out["display"] = {{"white", chessclock::FormatHmsCentis(clock.RemainingMs(kWhite, t))},
                    {"black", chessclock::FormatHmsCentis(clock.RemainingMs(kBlack, t))}};
  OrderedJson flags = OrderedJson::object();
  for (Color side : {kWhite, kBlack}) {
    std::optional<std::int64_t> at = clock.FlagTime(side, t);
    flags[std::string(chess::ColorName(side))] = at.has_value() ? OrderedJson(*at) : nullptr;
  }
  out["flags"] = flags;
  if (std::optional<laws::BothFlagsRuling> ruling =
          chessclock::RuleBothFlags(clock, scenario.edition, t);
      ruling.has_value()) {
    out["both_flags"] = {{"outcome", std::string(laws::BothFlagsOutcomeName(ruling->outcome))},
                         {"article", std::string(ruling->article)}};
  } else {
    out["both_flags"] = nullptr;
  }
  OrderedJson defaulted = OrderedJson::array();
  for (Color side : {kWhite, kBlack}) {
    if (clock.LostByDefault(side, t)) defaulted.push_back(std::string(chess::ColorName(side)));
  }
  out["defaulted"] = defaulted;
  // 8.4; rapid and blitz have no duty at all (B3; 2023 A.2): lapsed, by the article.
  out["scoresheet_duty_lapsed"] = {
      {"white", chessclock::ScoresheetDutyLapsed(clock, scenario.edition, kWhite, t)},
      {"black", chessclock::ScoresheetDutyLapsed(clock, scenario.edition, kBlack, t)}};
  out["scoresheet_duty_article"] = std::string(
      laws::ScoresheetDutyFor(scenario.edition, chessclock::Speed(scenario.tc, scenario.edition))
          .article);
  out["flag_checks"] = checks;
  if (scenario.options.lag_compensation) {
    out["lag_quota_ms"] = {{"white", clock.lag_quota_ms(kWhite)},
                           {"black", clock.lag_quota_ms(kBlack)}};
  }
  if (std::optional<chessclock::FlagFall> flag = clock.FirstFlag(t); flag.has_value()) {
    out["flag_result"] = FlagResult(scenario, clock, *flag, t);
  }
  return out;
}

absl::StatusOr<OrderedJson> Simulate(const std::string& line) {
  ASSIGN_OR_RETURN(Json root, ParseScenarioLine(line, "the line is not valid JSON"));
  ASSIGN_OR_RETURN(Scenario scenario, ParseScenario(root));
  absl::StatusOr<Clock> created = Clock::Create(scenario.tc, scenario.options);
  if (!created.ok()) return At(created.status(), "scenario");
  Clock clock = *created;

  OrderedJson checks = OrderedJson::array();
  std::int64_t last_ms = -kMaxScenarioMs;
  if (root.contains("events")) {
    const Json& events = root["events"];
    if (!events.is_array()) return BadScenario("\"events\" must be a list");
    for (size_t i = 0; i < events.size(); ++i) {
      RETURN_IF_ERROR(ApplyEvent(events[i], i, clock, &last_ms, checks));
    }
  }
  if (scenario.query_ms < last_ms) {
    return base::Error(chessclock::kErrTimeWentBackwards,
                       absl::StrCat("query_ms ", scenario.query_ms, " is before the last event at ",
                                    last_ms, " ms"));
  }
  return Report(scenario, clock, checks);
}

}  // namespace

std::string SimulateClockLine(const std::string& line) { return JsonLineOf(Simulate(line)); }

}  // namespace arbiterctl
