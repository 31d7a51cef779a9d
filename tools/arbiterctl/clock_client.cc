#include "tools/arbiterctl/clock_client.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "libs/clock/display.h"
#include "libs/clock/time_control.h"
#include "libs/laws/edition.h"
#include "libs/laws/proto_convert.h"
#include "libs/service/grpc_status.h"
#include "libs/service/metrics.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "tools/arbiterctl/client_commands.h"
#include "tools/arbiterctl/names.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using OrderedJson = nlohmann::ordered_json;

int Usage(std::ostream& err, const std::string& message) {
  return arbiterctl::Usage(err, "clock",
                           "arbiterctl --server=host:port clock "
                           "create|start|press|pause|resume|adjust|set|replace|arrive|claim|get|"
                           "watch --game ID [...] [--json]",
                           message);
}

bool True(const std::string& text) { return text.empty() || text == "true" || text == "1"; }

// --- Output ------------------------------------------------------------------------------------

OrderedJson FlagJson(const v1::FlagRecord& f) {
  return OrderedJson{{"side", SideName(f.side())},
                     {"fell_at_ms", f.fell_at_ms()},
                     {"noticed_at_ms", f.noticed_at_ms()},
                     {"counts", f.counts()},
                     {"article", f.article()},
                     {"version", f.version()}};
}

OrderedJson OutcomeJson(const v1::Outcome& o) {
  return OrderedJson{{"result", v1::Result_Name(o.result())},
                     {"termination", v1::Termination_Name(o.termination())},
                     {"winner", SideName(o.winner())}};
}

// The clock as `clock simulate` reports it, plus what only a live clock has.
OrderedJson ClockJson(const v1::ClockReading& c) {
  OrderedJson out;
  out["white_ms"] = c.white_ms();
  out["black_ms"] = c.black_ms();
  out["running"] = SideName(c.running());
  out["moves"] = {{"white", c.white_moves()}, {"black", c.black_moves()}};
  out["period"] = {{"white", c.white_period()}, {"black", c.black_period()}};
  out["delay_left_ms"] = c.delay_left_ms();
  if (c.has_flag_side()) {
    out["flag"] = {{"side", SideName(c.flag_side())}, {"at_ms", c.flag_at_ms()}};
  } else {
    out["flag"] = nullptr;
  }
  out["speed"] = GameTypeName(c.speed());
  out["status"] = c.status();
  out["to_move"] = SideName(c.to_move());
  out["deadline_ms"] = c.has_deadline_ms() ? OrderedJson(c.deadline_ms()) : OrderedJson(nullptr);
  out["display"] = {{"white", chessclock::FormatHmsCentis(c.white_remaining_ms())},
                    {"black", chessclock::FormatHmsCentis(c.black_remaining_ms())}};
  out["flags"] = {
      {"white", c.has_white_flag_ms() ? OrderedJson(c.white_flag_ms()) : OrderedJson(nullptr)},
      {"black", c.has_black_flag_ms() ? OrderedJson(c.black_flag_ms()) : OrderedJson(nullptr)}};
  if (!c.both_flags_outcome().empty()) {
    out["both_flags"] = {{"outcome", c.both_flags_outcome()}, {"article", c.both_flags_article()}};
  } else {
    out["both_flags"] = nullptr;
  }
  OrderedJson defaulted = OrderedJson::array();
  for (int side : c.defaulted()) defaulted.push_back(SideName(static_cast<v1::Color>(side)));
  out["defaulted"] = defaulted;
  out["scoresheet_duty_lapsed"] = {{"white", c.white_scoresheet_duty_lapsed()},
                                   {"black", c.black_scoresheet_duty_lapsed()}};
  // 8.1 / 8.4 in standard play; B3 (2023 A.2) in rapid and blitz: the edition's and speed's.
  const absl::StatusOr<laws::Edition> edition = laws::EditionOf(c.edition());
  const std::optional<laws::SpeedCategory> speed = laws::SpeedCategoryOf(c.speed());
  out["scoresheet_duty_article"] =
      edition.ok() && speed.has_value()
          ? OrderedJson(std::string(laws::ScoresheetDutyFor(*edition, *speed).article))
          : OrderedJson(nullptr);
  out["flag_checks"] = OrderedJson::array();
  if (c.has_white_lag_quota_ms()) {
    out["lag_quota_ms"] = {{"white", c.white_lag_quota_ms()}, {"black", c.black_lag_quota_ms()}};
  }
  out["game_id"] = c.game_id();
  out["version"] = c.version();
  out["server_time_ms"] = c.server_time_ms();
  out["edition"] = EditionName(c.edition());
  out["time_control"] = c.time_control();
  out["flag_event"] = c.has_flag_event() ? FlagJson(c.flag_event()) : OrderedJson(nullptr);
  OrderedJson recorded = OrderedJson::array();
  for (const v1::FlagRecord& f : c.recorded_flags()) recorded.push_back(FlagJson(f));
  out["recorded_flags"] = recorded;
  if (c.has_decision()) {
    OrderedJson d = OutcomeJson(c.decision().outcome());
    d["article"] = c.decision().article();
    d["at_ms"] = c.decision().at_ms();
    if (c.decision().kind() == v1::ClockDecision::KIND_FLAG_FELL) {
      // 6.10: a flag is not a result by itself; the game rules on it.
      d["kind"] = "flag_fell";
      d["flagged"] = c.decision().flagged() == v1::COLOR_WHITE ? "white" : "black";
      d["result_article"] = c.decision().result_article();
    }
    out["decision"] = d;
  } else {
    out["decision"] = nullptr;
  }
  return out;
}

OrderedJson EventJson(const v1::ClockEvent& e) {
  OrderedJson out;
  switch (e.event_case()) {
    case v1::ClockEvent::kCreated:
      out = {{"type", "created"},
             {"at_ms", e.created().at_ms()},
             {"time_control", e.created().time_control()},
             {"edition", EditionName(e.created().edition())},
             {"speed", GameTypeName(e.created().game_type())}};
      break;
    case v1::ClockEvent::kStarted: {
      OrderedJson absent = OrderedJson::array();
      for (int s : e.started().absent()) absent.push_back(SideName(static_cast<v1::Color>(s)));
      out = {{"type", "started"}, {"at_ms", e.started().at_ms()}, {"absent", absent}};
      break;
    }
    case v1::ClockEvent::kPressed:
      out = {{"type", "pressed"},
             {"at_ms", e.pressed().at_ms()},
             {"side", SideName(e.pressed().side())},
             {"lag_ms", e.pressed().lag_ms()}};
      break;
    case v1::ClockEvent::kArrived:
      out = {{"type", "arrived"},
             {"at_ms", e.arrived().at_ms()},
             {"side", SideName(e.arrived().side())}};
      break;
    case v1::ClockEvent::kPaused:
      out = {{"type", "paused"}, {"at_ms", e.paused().at_ms()}};
      break;
    case v1::ClockEvent::kResumed:
      out = {{"type", "resumed"}, {"at_ms", e.resumed().at_ms()}};
      break;
    case v1::ClockEvent::kAdjusted:
      out = {{"type", "adjusted"},
             {"at_ms", e.adjusted().at_ms()},
             {"side", SideName(e.adjusted().side())},
             {"delta_ms", e.adjusted().delta_ms()},
             {"reason", e.adjusted().reason()}};
      break;
    case v1::ClockEvent::kSet:
      out = {{"type", "set"},
             {"at_ms", e.set().at_ms()},
             {"white_ms", e.set().white_ms()},
             {"black_ms", e.set().black_ms()}};
      if (e.set().has_white_moves()) out["white_moves"] = e.set().white_moves();
      if (e.set().has_black_moves()) out["black_moves"] = e.set().black_moves();
      if (e.set().to_move() != v1::COLOR_UNSPECIFIED) out["to_move"] = SideName(e.set().to_move());
      break;
    case v1::ClockEvent::kReplaced:
      out = {{"type", "replaced"},
             {"at_ms", e.replaced().at_ms()},
             {"white_ms", e.replaced().white_ms()},
             {"black_ms", e.replaced().black_ms()}};
      break;
    case v1::ClockEvent::kFlagFell:
      out = {{"type", "flag_fell"},
             {"side", SideName(e.flag_fell().side())},
             {"fell_at_ms", e.flag_fell().fell_at_ms()},
             {"noticed_at_ms", e.flag_fell().noticed_at_ms()},
             {"counts", e.flag_fell().counts()},
             {"article", e.flag_fell().article()}};
      break;
    case v1::ClockEvent::kFlagClaimed:
      out = {{"type", "flag_claimed"},
             {"at_ms", e.flag_claimed().at_ms()},
             {"claimant", SideName(e.flag_claimed().claimant())},
             {"granted", e.flag_claimed().granted()},
             {"article", e.flag_claimed().article()}};
      if (e.flag_claimed().granted()) out["outcome"] = OutcomeJson(e.flag_claimed().outcome());
      break;
    case v1::ClockEvent::kDefaulted: {
      OrderedJson sides = OrderedJson::array();
      for (int s : e.defaulted().sides()) sides.push_back(SideName(static_cast<v1::Color>(s)));
      out = {{"type", "defaulted"},
             {"sides", sides},
             {"at_ms", e.defaulted().at_ms()},
             {"noticed_at_ms", e.defaulted().noticed_at_ms()},
             {"article", e.defaulted().article()}};
      break;
    }
    case v1::ClockEvent::EVENT_NOT_SET:
      out = {{"type", "unknown"}};
      break;
  }
  return out;
}

std::string Side(const v1::ClockReading& c, bool white) {
  const std::int64_t remaining = white ? c.white_remaining_ms() : c.black_remaining_ms();
  return absl::StrCat(white ? "white " : "black ", chessclock::FormatHmsCentis(remaining), " (",
                      white ? c.white_moves() : c.black_moves(), " moves, period ",
                      white ? c.white_period() : c.black_period(), ")");
}

// One human line per clock, then flag and decision lines if any.
void PrintClock(const v1::ClockReading& c, std::ostream& out) {
  out << c.game_id() << " v" << c.version() << " " << c.status();
  if (c.running() != v1::COLOR_UNSPECIFIED) {
    out << ", " << SideName(c.running()).get<std::string>() << " to move";
  }
  out << "  " << Side(c, true) << "  " << Side(c, false);
  if (c.delay_left_ms() > 0) out << "  delay " << c.delay_left_ms() << " ms";
  out << "  [" << c.time_control() << ", " << GameTypeName(c.speed()) << ", "
      << EditionName(c.edition()) << "]\n";
  if (c.has_flag_event()) {
    const v1::FlagRecord& f = c.flag_event();
    out << "  flag: " << SideName(f.side()).get<std::string>() << " fell at " << f.fell_at_ms()
        << " ms (noticed " << (f.noticed_at_ms() - f.fell_at_ms()) << " ms later), "
        << (f.counts() ? "counts" : "counts only when claimed") << " (" << f.article() << ")\n";
  }
  if (c.has_decision() && c.decision().kind() == v1::ClockDecision::KIND_FLAG_FELL) {
    out << "  flag fell: " << (c.decision().flagged() == v1::COLOR_WHITE ? "white" : "black")
        << " (" << c.decision().article() << "); the result follows from "
        << c.decision().result_article() << " and the position\n";
  } else if (c.has_decision()) {
    out << "  decided: " << v1::Result_Name(c.decision().outcome().result()) << " by "
        << v1::Termination_Name(c.decision().outcome().termination()) << " ("
        << c.decision().article() << ")\n";
  }
}

int Print(const v1::ClockResponse& resp, bool json, std::ostream& out) {
  if (json) {
    OrderedJson j = ClockJson(resp.clock());
    j["replayed"] = resp.replayed();
    if (resp.has_claim())
      j["claim"] = EventJson([&] {
        v1::ClockEvent e;
        *e.mutable_flag_claimed() = resp.claim();
        return e;
      }());
    out << j.dump() << "\n";
  } else {
    if (resp.replayed()) out << "(replayed: this command was applied before)\n";
    if (resp.has_claim()) {
      out << "claim " << (resp.claim().granted() ? "granted" : "refused") << " ("
          << resp.claim().article() << ")\n";
    }
    PrintClock(resp.clock(), out);
  }
  return resp.has_claim() && !resp.claim().granted() ? 1 : 0;
}

using Stub = v1::ClockAuthority::Stub;
using Call = RpcCall<Stub, v1::ClockResponse>;

int Watch(const ClientArgs& args, Stub& stub, std::ostream& out, std::ostream& err) {
  const bool json = args.Has("json");
  const bool until_flag = args.Get("until") == "flag";
  auto print = [&](const v1::ClockUpdate& update) {
    if (json) {
      out << OrderedJson{{"version", update.version()},
                         {"command_id", update.command_id()},
                         {"event", EventJson(update.event())},
                         {"clock", ClockJson(update.clock())}}
                 .dump()
          << "\n";
    } else {
      const OrderedJson e = EventJson(update.event());
      out << "v" << update.version() << " " << e["type"].get<std::string>();
      for (auto it = e.begin(); it != e.end(); ++it) {
        if (it.key() != "type") out << " " << it.key() << "=" << it.value().dump();
      }
      out << "\n  ";
      PrintClock(update.clock(), out);
    }
  };
  auto last = [&](const v1::ClockUpdate& update, std::int64_t) {
    return until_flag && update.event().has_flag_fell();
  };
  return arbiterctl::Watch(args, stub, &Stub::WatchClock, Usage, print, last, out, err);
}

// --- The subcommands' requests -------------------------------------------------------------------

constexpr EnumName<v1::DelaySavedTime> kDelaySavedTimeNames[] = {
    {v1::DELAY_SAVED_TIME_CARRY, "carry"}, {v1::DELAY_SAVED_TIME_DISCARD, "discard"}};

void Create(Call& c) {
  const ClientArgs& args = c.args();
  FlagReader& flags = c.flags();
  v1::CreateClockRequest req = c.ForGame<v1::CreateClockRequest>();
  if (args.Has("command-id")) req.set_command_id(args.Get("command-id"));
  if (args.Has("time-control-human")) {
    req.set_time_control_human(args.Get("time-control-human"));
  } else if (args.Has("time-control")) {
    // The PGN tag when it reads as one; otherwise the arbiters' form (the server checks it).
    const std::string tc = args.Get("time-control");
    if (chessclock::ParsePgnTimeControl(tc).ok()) {
      req.set_time_control(tc);
    } else {
      req.set_time_control_human(tc);
    }
  } else {
    flags.Fail("create needs --time-control TC");
  }
  if (!args.Has("edition")) flags.Fail("create needs --edition E");
  // Before the flags read below: a bad --delay-saved-time is the error reported.
  if (args.Has("delay-saved-time")) {
    req.set_delay_saved_time(flags.OneOf(args.Get("delay-saved-time"), kDelaySavedTimeNames,
                                         "--delay-saved-time must be carry or discard"));
  }
  req.set_edition(flags.Edition(args.Get("edition")));
  if (args.Has("game-type")) req.set_game_type(flags.GameType(args.Get("game-type")));
  if (args.Has("default-time-ms")) req.set_default_time_ms(flags.Int("default-time-ms"));
  if (args.Has("lag-compensation")) req.set_lag_compensation(True(args.Get("lag-compensation")));
  if (args.Has("event")) req.set_event(args.Get("event"));  // whose arbiters
  // 2023 rapid and blitz: A.3 (true) or A.4.5 (false); unset, A.3.
  if (args.Has("supervised")) req.set_supervised(True(args.Get("supervised")));
  c.Send(&Stub::CreateClock, req);
}

void Press(Call& c) {
  v1::PressClockRequest req = c.Command<v1::PressClockRequest>();
  if (c.args().Has("color")) req.set_color(c.flags().Color("color"));
  if (c.args().Has("lag-ms")) req.set_lag_ms(c.flags().Int("lag-ms"));
  c.Send(&Stub::PressClock, req);
}

void Adjust(Call& c) {
  v1::AdjustClockRequest req = c.Command<v1::AdjustClockRequest>();
  req.set_side(c.flags().Color("side"));
  req.set_delta_ms(c.flags().Int("delta-ms"));
  req.set_reason(c.args().Get("reason"));
  c.Send(&Stub::AdjustClock, req);
}

void Set(Call& c) {
  const ClientArgs& args = c.args();
  FlagReader& flags = c.flags();
  v1::SetClockRequest req = c.Command<v1::SetClockRequest>();
  req.set_white_ms(flags.Int("white-ms"));
  req.set_black_ms(flags.Int("black-ms"));
  if (args.Has("white-moves")) req.set_white_moves(static_cast<int>(flags.Int("white-moves")));
  if (args.Has("black-moves")) req.set_black_moves(static_cast<int>(flags.Int("black-moves")));
  if (args.Has("to-move")) req.set_to_move(flags.Color("to-move"));
  c.Send(&Stub::SetClock, req);
}

void Replace(Call& c) {
  v1::ReplaceClockRequest req = c.Command<v1::ReplaceClockRequest>();
  req.set_white_ms(c.flags().Int("white-ms"));
  req.set_black_ms(c.flags().Int("black-ms"));
  c.Send(&Stub::ReplaceClock, req);
}

void Arrive(Call& c) {
  v1::RecordArrivalRequest req = c.Command<v1::RecordArrivalRequest>();
  req.set_side(c.flags().Color("side"));
  c.Send(&Stub::RecordArrival, req);
}

void Claim(Call& c) {
  v1::ClaimFlagRequest req = c.Command<v1::ClaimFlagRequest>();
  req.set_color(c.flags().Color("color"));
  c.Send(&Stub::ClaimFlag, req);
}

// The subcommands whose reply is the clock after them (Print).
constexpr ClientCall<Stub, v1::ClockResponse> kCalls[] = {
    {"create", Create},
    {"start", [](Call& c) { c.Send(&Stub::StartClock, c.StartCommand<v1::StartClockRequest>()); }},
    {"press", Press},
    {"pause", [](Call& c) { c.Send(&Stub::PauseClock, c.Command<v1::PauseClockRequest>()); }},
    {"resume", [](Call& c) { c.Send(&Stub::ResumeClock, c.Command<v1::ResumeClockRequest>()); }},
    {"adjust", Adjust},
    {"set", Set},
    {"replace", Replace},
    {"arrive", Arrive},
    {"claim", Claim},
    {"get", [](Call& c) { c.Send(&Stub::GetClock, c.ForGame<v1::GetClockRequest>()); }},
};

constexpr ClientStream<Stub> kStreams[] = {{"watch", Watch}};

}  // namespace

int RunClockClient(const ClientArgs& args, std::ostream& out, std::ostream& err) {
  return RunClientCommand<v1::ClockAuthority, v1::ClockResponse>(args, Usage, kCalls, Print,
                                                                 kStreams, out, err);
}

}  // namespace arbiterctl
