#include "tools/arbiterctl/game_scenario.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/laws/edition.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"
#include "libs/laws/ruleset.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/errors.h"
#include "tools/arbiterctl/json_fields.h"
#include "tools/arbiterctl/names.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using arbitration::Command;
using arbitration::CommandKind;
using chess::Color;
using Json = nlohmann::json;

// In a game scenario, "key": null is the same as no "key".
constexpr JsonFields::Null kNull = JsonFields::Null::kAbsent;

// One of the values of `names` (names.h), by its name.
template <typename Enum, std::size_t N>
absl::StatusOr<Enum> OneOf(const JsonFields& f, const char* key, const EnumName<Enum> (&names)[N]) {
  std::vector<absl::string_view> list;
  for (const EnumName<Enum>& n : names) list.push_back(n.name);
  ASSIGN_OR_RETURN(int i, f.OneOf(key, list));
  return names[i].value;
}

// The request the platform would send (CreateGameRequest), from the scenario's fields.
absl::StatusOr<v1::CreateGameRequest> ParseCreation(const Json& root) {
  const JsonFields top(root, "scenario", arbiterctl::kErrBadScenario, kNull);
  RETURN_IF_ERROR(
      top.OnlyKeys({"edition", "time_control", "arbiter_present", "start_fen", "default_time_ms",
                    "events", "query_ms", "no_draw_offers_before_move", "max_draw_offers",
                    "comment", "sessions", "illegal_move_extra_ms", "supervised"}));
  v1::CreateGameRequest req;
  req.set_game_id("simulated");
  req.set_white_id("white");
  req.set_black_id("black");
  ASSIGN_OR_RETURN(std::string edition_name, top.String("edition"));
  ASSIGN_OR_RETURN(laws::Edition edition, laws::ParseEdition(edition_name));
  req.mutable_ruleset()->set_edition(laws::ToProto(edition));
  ASSIGN_OR_RETURN(std::string tc, top.String("time_control"));
  req.set_time_control(tc);
  v1::Regulations* regs = req.mutable_ruleset()->mutable_regulations();
  ASSIGN_OR_RETURN(bool arbiter, top.Bool("arbiter_present", true));
  regs->set_arbiter_present(arbiter);
  if (top.Has("start_fen")) {
    ASSIGN_OR_RETURN(std::string fen, top.String("start_fen"));
    req.set_start_fen(fen);
  }
  if (top.Has("default_time_ms")) {
    ASSIGN_OR_RETURN(std::int64_t ms, top.Int("default_time_ms", 0, kMaxScenarioMs));
    regs->set_default_time_ms(ms);
  }
  if (top.Has("no_draw_offers_before_move")) {
    ASSIGN_OR_RETURN(std::int64_t n, top.Int("no_draw_offers_before_move", 0, 10'000));
    regs->set_no_draw_offers_before_move(static_cast<int>(n));
  }
  if (top.Has("max_draw_offers")) {
    ASSIGN_OR_RETURN(std::int64_t n, top.Int("max_draw_offers", 0, 10'000));
    regs->set_max_draw_offers(static_cast<int>(n));
  }
  if (top.Has("illegal_move_extra_ms")) {  // 2023 7.5.5
    ASSIGN_OR_RETURN(std::int64_t ms, top.Int("illegal_move_extra_ms", 0, kMaxScenarioMs));
    regs->set_illegal_move_extra_ms(ms);
  }
  if (top.Has("supervised")) {  // 2023 rapid and blitz: A.3 (true) or A.4.5 (false)
    ASSIGN_OR_RETURN(bool supervised, top.Bool("supervised", laws::kDefaultSupervised));
    regs->set_supervised(supervised);
  }
  // Appendix A13: [{"start_ms", "end_ms", "place"}, ...]; NewGame checks their order.
  if (top.Has("sessions")) {
    if (!root["sessions"].is_array() || root["sessions"].size() > 64) {
      return BadScenario("scenario: \"sessions\" must be a list of at most 64 sessions");
    }
    for (size_t i = 0; i < root["sessions"].size(); ++i) {
      const JsonFields f(root["sessions"][i], absl::StrCat("sessions[", i, "]"),
                         arbiterctl::kErrBadScenario, kNull);
      RETURN_IF_ERROR(f.OnlyKeys({"start_ms", "end_ms", "place"}));
      v1::Session* session = req.add_sessions();
      ASSIGN_OR_RETURN(std::int64_t start, f.Int("start_ms", 0, kMaxScenarioMs));
      ASSIGN_OR_RETURN(std::int64_t end, f.Int("end_ms", 0, kMaxScenarioMs));
      session->set_start_ms(start);
      session->set_end_ms(end);
      if (f.Has("place")) {
        ASSIGN_OR_RETURN(std::string place, f.String("place"));
        session->set_place(place);
      }
    }
  }
  return req;
}

}  // namespace

v1::Actor ActorFor(absl::string_view subject, absl::string_view role) {
  v1::Actor a;
  a.set_subject(std::string(subject));
  a.set_role(std::string(role));
  return a;
}
namespace {

// The index of `name` among the event names `names`; -1 when it is none of them.
template <size_t N>
int EventIndex(const absl::string_view (&names)[N], absl::string_view name) {
  for (int i = 0; i < static_cast<int>(N); ++i) {
    if (names[i] == name) return i;
  }
  return -1;
}

// --- Irregularities (Article 7), 6.13b/d, the arbiter's powers (12, 13.4) ---------

constexpr absl::string_view kIrregularEvents[] = {
    "report_illegal", "complete_illegal", "irregularity", "stop_clocks", "rule_stop", "power"};

absl::Status ParseIrregularEvent(const JsonFields& f, const Json& event, int type,
                                 ParsedEvent& out) {
  const std::string& where = f.where();
  std::optional<int> by;  // 0 white, 1 black, 2 arbiter
  if (f.Has("by")) {
    ASSIGN_OR_RETURN(by, f.OneOf("by", {"white", "black", "arbiter"}));
  }
  Command& c = out.command;
  arbitration::IrregularArgs& a = c.irregular;
  const bool players = type == 1 || type == 3;  // complete_illegal, stop_clocks
  if (players) {
    if (by != 0 && by != 1) {
      out.refused = base::Error(base::kErrBadArgument,
                                absl::StrCat(where, ": \"by\" must be \"white\" or \"black\""));
    } else {
      c.side = by == 0 ? Color::kWhite : Color::kBlack;
      c.actor = ActorFor(chess::ColorName(*c.side), "player");
    }
  } else {
    if (by.has_value() && by != 2) {
      out.refused = base::Error(base::kErrBadArgument,
                                absl::StrCat(where, ": only the arbiter gives this ruling"));
    }
    c.actor = ActorFor("arbiter", "arbiter");
  }
  auto text = [&](const char* key, std::string* value) -> absl::Status {
    if (f.Has(key)) {
      ASSIGN_OR_RETURN(*value, f.String(key));
    }
    return absl::OkStatus();
  };
  auto side = [&](const char* key) -> absl::StatusOr<std::optional<Color>> {
    if (!f.Has(key)) return std::optional<Color>();
    ASSIGN_OR_RETURN(int s, f.OneOf(key, {"white", "black"}));
    return std::optional<Color>(s == 0 ? Color::kWhite : Color::kBlack);
  };
  auto clocks = [&]() -> absl::Status {
    if (f.Has("white_ms")) {
      ASSIGN_OR_RETURN(a.white_ms, f.Int("white_ms", -kMaxScenarioMs, kMaxScenarioMs));
    }
    if (f.Has("black_ms")) {
      ASSIGN_OR_RETURN(a.black_ms, f.Int("black_ms", -kMaxScenarioMs, kMaxScenarioMs));
    }
    if (f.Has("ply")) {
      ASSIGN_OR_RETURN(a.ply, f.Int("ply", 0, 100'000));
    }
    return absl::OkStatus();
  };
  switch (type) {
    case 0: {  // report_illegal: 7.4a, by the arbiter
      RETURN_IF_ERROR(
          f.OnlyKeys({"at_ms", "type", "by", "side", "ply", "from", "to", "promotion", "white_ms",
                      "black_ms", "reason", "position_unknown", "comment"}));
      c.kind = CommandKind::kReportIllegalMove;
      ASSIGN_OR_RETURN(a.position_unknown, f.Bool("position_unknown", false));
      ASSIGN_OR_RETURN(c.side, side("side"));  // the offender, optional
      ASSIGN_OR_RETURN(a.from, f.String("from"));
      ASSIGN_OR_RETURN(a.to, f.String("to"));
      RETURN_IF_ERROR(text("promotion", &a.promotion));
      RETURN_IF_ERROR(clocks());
      return text("reason", &c.reason);
    }
    case 1: {  // complete_illegal: C3, by the offender
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "from", "to", "promotion", "comment"}));
      c.kind = CommandKind::kCompleteIllegalMove;
      ASSIGN_OR_RETURN(a.from, f.String("from"));
      ASSIGN_OR_RETURN(a.to, f.String("to"));
      return text("promotion", &a.promotion);
    }
    case 2: {  // irregularity: 7.1a, 7.1b, 7.2, 7.3, 7.5
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "article", "replay", "ply", "white_ms",
                                  "black_ms", "reason", "side", "position_unknown", "comment"}));
      c.kind = CommandKind::kRuleIrregularity;
      ASSIGN_OR_RETURN(a.displaced_by, side("side"));  // 7.3: who displaced the pieces
      ASSIGN_OR_RETURN(a.position_unknown, f.Bool("position_unknown", false));
      ASSIGN_OR_RETURN(c.article, f.String("article"));
      ASSIGN_OR_RETURN(a.replay, f.Bool("replay", false));
      RETURN_IF_ERROR(clocks());
      return text("reason", &c.reason);
    }
    case 3:  // stop_clocks: 6.13b, by a player
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "reason", "comment"}));
      c.kind = CommandKind::kStopClocks;
      return text("reason", &c.reason);
    case 4: {  // rule_stop: 6.13d
      RETURN_IF_ERROR(f.OnlyKeys(
          {"at_ms", "type", "by", "valid", "penalty", "penalty_ms", "reason", "comment"}));
      c.kind = CommandKind::kRuleStop;
      ASSIGN_OR_RETURN(a.valid, f.Bool("valid", false));
      RETURN_IF_ERROR(text("penalty", &a.penalty));
      if (f.Has("penalty_ms")) {
        ASSIGN_OR_RETURN(c.delta_ms, f.Int("penalty_ms", 0, kMaxScenarioMs));
      }
      return text("reason", &c.reason);
    }
    case 5: {  // power: 12.4, 12.7, 12.8, 13.4a/d/e/f/g
      RETURN_IF_ERROR(
          f.OnlyKeys({"at_ms", "type", "by", "power", "side", "points", "reason", "comment"}));
      c.kind = CommandKind::kUsePower;
      ASSIGN_OR_RETURN(a.power, OneOf(f, "power", kArbiterPowerNames));
      ASSIGN_OR_RETURN(c.side, side("side"));
      if (f.Has("points")) {
        if (!event["points"].is_number()) return f.Error("\"points\" must be a number");
        a.points = event["points"].get<double>();
      }
      return text("reason", &c.reason);
    }
    default:
      break;
  }
  return f.Error("unknown event type");
}

// --- Electronic boards and touch-move (Article 4) --------------------------------------

// "board": one report of the electronic board ("placement": FEN's first field; "pressed": the
// clock pressed after it, 7.4a; "adjust": "j'adoube" announced first, 4.2), by the board relay
// (or "by": "arbiter"). "jadoube": the player to move ("by") announces "j'adoube" (4.2), the board
// unchanged. The touch-move claim is "claim" with "kind": "touch_move".
absl::Status ParseBoardEvent(const JsonFields& f, bool jadoube, ParsedEvent& out) {
  Command& c = out.command;
  c.kind = CommandKind::kBoardFeed;
  v1::BoardPlacement& frame = c.feed.emplace_back();
  frame.set_at_ms(out.at_ms);
  if (jadoube) {
    RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "comment"}));
    ASSIGN_OR_RETURN(int by, f.OneOf("by", {"white", "black"}));
    c.side = by == 0 ? Color::kWhite : Color::kBlack;
    c.actor = ActorFor(chess::ColorName(*c.side), "player");
    frame.set_adjust(true);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "placement", "pressed", "adjust", "comment"}));
  c.actor = ActorFor("board", "service");
  if (f.Has("by")) {
    ASSIGN_OR_RETURN(int by, f.OneOf("by", {"board", "arbiter"}));
    if (by == 1) c.actor = ActorFor("arbiter", "arbiter");
  }
  ASSIGN_OR_RETURN(std::string placement, f.String("placement"));
  frame.set_placement(placement);
  ASSIGN_OR_RETURN(bool pressed, f.Bool("pressed", false));
  frame.set_clock_pressed(pressed);
  ASSIGN_OR_RETURN(bool adjust, f.Bool("adjust", false));
  frame.set_adjust(adjust);
  return absl::OkStatus();
}

// --- Adjourned games (Appendix A) ------------------------------------------------------

// "seal" (A1: "by" the player on move, "move" as he writes it, "stop_clock"), "adjourn" (A1a, the
// arbiter: the call to seal, or the envelope closed; "reason"), "resume_adjourned" (A5, A9: the
// arbiter, "absent"), "envelope_lost" (A11: the arbiter, "position_unknown", "reason").
constexpr absl::string_view kAdjournmentEvents[] = {"seal", "adjourn", "resume_adjourned",
                                                    "envelope_lost"};

absl::Status ParseAdjournmentEvent(const JsonFields& f, const Json& event, int type,
                                   ParsedEvent& out) {
  std::optional<int> by;  // 0 white, 1 black, 2 arbiter
  if (f.Has("by")) {
    ASSIGN_OR_RETURN(by, f.OneOf("by", {"white", "black", "arbiter"}));
  }
  Command& c = out.command;
  if (type == 0) {  // seal: the player on move
    RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "move", "stop_clock", "comment"}));
    c.kind = CommandKind::kSealMove;
    // The text is sealed by the run's key just before the command (Simulate), then cleared.
    ASSIGN_OR_RETURN(c.move, f.String("move"));
    ASSIGN_OR_RETURN(c.stop_clock, f.Bool("stop_clock", false));
    if (by != 0 && by != 1) {
      out.refused = base::Error(base::kErrBadArgument,
                                absl::StrCat(f.where(), ": \"by\" must be \"white\" or \"black\""));
      return absl::OkStatus();
    }
    c.side = by == 0 ? Color::kWhite : Color::kBlack;
    c.actor = ActorFor(chess::ColorName(*c.side), "player");
    return absl::OkStatus();
  }
  if (by.has_value() && by != 2) {
    out.refused = base::Error(base::kErrBadArgument,
                              absl::StrCat(f.where(), ": only the arbiter adjourns and resumes"));
  }
  c.actor = ActorFor("arbiter", "arbiter");
  auto reason = [&]() -> absl::Status {
    if (f.Has("reason")) {
      ASSIGN_OR_RETURN(c.reason, f.String("reason"));
    }
    return absl::OkStatus();
  };
  switch (type) {
    case 1:
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "reason", "comment"}));
      c.kind = CommandKind::kAdjourn;
      return reason();
    case 2:
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "absent", "comment"}));
      c.kind = CommandKind::kResumeAdjourned;
      if (f.Has("absent")) {
        if (!event["absent"].is_array()) return f.Error("\"absent\" must be a list of sides");
        for (const Json& side : event["absent"]) {
          if (side != "white" && side != "black") {
            return f.Error("\"absent\" must list \"white\" and/or \"black\"");
          }
          c.absent.push_back(side == "white" ? Color::kWhite : Color::kBlack);
        }
      }
      return absl::OkStatus();
    case 3: {
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "position_unknown", "reason", "comment"}));
      c.kind = CommandKind::kReportEnvelopeLost;
      ASSIGN_OR_RETURN(c.position_unknown, f.Bool("position_unknown", false));
      return reason();
    }
    default:
      break;
  }
  return f.Error("unknown event type");
}

absl::StatusOr<ParsedEvent> ParseEvent(const Json& event, size_t index) {
  ASSIGN_OR_RETURN(const JsonFields f, JsonFields::Event(event, index, kNull));
  const std::string& where = f.where();
  ParsedEvent out;
  ASSIGN_OR_RETURN(out.at_ms, f.Int("at_ms", 0, kMaxScenarioMs));
  if (absl::StatusOr<std::string> name = f.String("type");
      name.ok() && (*name == "board" || *name == "jadoube")) {
    RETURN_IF_ERROR(ParseBoardEvent(f, *name == "jadoube", out));
    return out;
  }
  if (absl::StatusOr<std::string> name = f.String("type");
      name.ok() && EventIndex(kAdjournmentEvents, *name) >= 0) {
    RETURN_IF_ERROR(ParseAdjournmentEvent(f, event, EventIndex(kAdjournmentEvents, *name), out));
    return out;
  }
  // The events of Article 7, 6.13b/d, 12, 13.4 are read by name in ParseIrregularEvent.
  if (absl::StatusOr<std::string> name = f.String("type");
      name.ok() && EventIndex(kIrregularEvents, *name) >= 0) {
    RETURN_IF_ERROR(ParseIrregularEvent(f, event, EventIndex(kIrregularEvents, *name), out));
    return out;
  }
  ASSIGN_OR_RETURN(
      int type,
      f.OneOf("type", {"start", "arrive", "move", "offer_draw", "accept_draw", "decline_draw",
                       "resign", "claim", "ruling", "pause", "resume", "adjust", "set_clocks"}));
  std::optional<int> by;  // 0 white, 1 black, 2 arbiter
  if (f.Has("by")) {
    ASSIGN_OR_RETURN(by, f.OneOf("by", {"white", "black", "arbiter"}));
  }
  Command& c = out.command;
  if (by == 0 || by == 1) {
    c.side = by == 0 ? Color::kWhite : Color::kBlack;
    c.actor = ActorFor(chess::ColorName(*c.side), "player");
  } else if (by == 2) {
    c.actor = ActorFor("arbiter", "arbiter");
  } else {
    c.actor = ActorFor("platform", "platform");
  }
  // Commands of a player need the player.
  auto need_player = [&]() {
    if (!c.side.has_value()) {
      out.refused = base::Error(base::kErrBadArgument,
                                absl::StrCat(where, ": \"by\" must be \"white\" or \"black\""));
    }
  };
  // Commands only the arbiter gives (his rulings and his powers over the clocks): anyone else's
  // is refused, and the command is recorded as the arbiter's, for no side.
  auto need_arbiter = [&](absl::string_view what) {
    if (by.has_value() && by != 2) {
      out.refused =
          base::Error(base::kErrBadArgument, absl::StrCat(where, ": only the arbiter ", what));
    }
    c.side.reset();
    c.actor = ActorFor("arbiter", "arbiter");
  };
  // An optional text field.
  auto optional_string = [&](const char* key, std::string* value) -> absl::Status {
    if (f.Has(key)) {
      ASSIGN_OR_RETURN(*value, f.String(key));
    }
    return absl::OkStatus();
  };
  switch (type) {
    case 0: {  // start, 6.5 / 6.6
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "absent", "comment"}));
      c.kind = CommandKind::kStart;
      c.side.reset();  // the platform or the arbiter starts the game, not a player
      if (f.Has("absent")) {
        if (!event["absent"].is_array()) return f.Error("\"absent\" must be a list of sides");
        for (const Json& side : event["absent"]) {
          if (side == "white") {
            c.absent.push_back(Color::kWhite);
          } else if (side == "black") {
            c.absent.push_back(Color::kBlack);
          } else {
            return f.Error(
                absl::StrCat("\"absent\" must list \"white\" and/or \"black\", got ", side.dump()));
          }
        }
      }
      break;
    }
    case 1:  // arrive, 6.6
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "comment"}));
      c.kind = CommandKind::kArrive;
      need_player();
      break;
    case 2: {  // move
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "move", "offer_draw", "comment"}));
      c.kind = CommandKind::kMove;
      ASSIGN_OR_RETURN(c.move, f.String("move"));
      ASSIGN_OR_RETURN(c.offer_draw, f.Bool("offer_draw", false));
      need_player();
      break;
    }
    case 3:
    case 4:
    case 5:
    case 6:
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "comment"}));
      c.kind = type == 3   ? CommandKind::kOfferDraw
               : type == 4 ? CommandKind::kAcceptDraw
               : type == 5 ? CommandKind::kDeclineDraw
                           : CommandKind::kResign;
      need_player();
      break;
    case 7: {  // claim: 9.2, 9.3, 10.2 / D1, B7; C3 or, with "from", 7.4a / B5
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "kind", "move", "ground", "from", "to",
                                  "promotion", "ply", "reason", "comment"}));
      c.kind = CommandKind::kClaim;
      ASSIGN_OR_RETURN(c.claim, OneOf(f, "kind", kClaimKindNames));
      if (f.Has("move")) {
        ASSIGN_OR_RETURN(c.move, f.String("move"));
      }
      if (f.Has("ground")) {
        ASSIGN_OR_RETURN(c.ground, OneOf(f, "ground", kQuickplayGroundNames));
      }
      if (c.claim == v1::CLAIM_KIND_ILLEGAL_MOVE && f.Has("from")) {
        // 7.4a, B5: the player's claim of the opponent's illegal move, for the arbiter's ruling.
        c.kind = CommandKind::kClaimIllegalMove;
        ASSIGN_OR_RETURN(c.irregular.from, f.String("from"));
        ASSIGN_OR_RETURN(c.irregular.to, f.String("to"));
        if (f.Has("promotion")) {
          ASSIGN_OR_RETURN(c.irregular.promotion, f.String("promotion"));
        }
        if (f.Has("ply")) {
          ASSIGN_OR_RETURN(c.irregular.ply, f.Int("ply", 0, 100'000));
        }
        RETURN_IF_ERROR(optional_string("reason", &c.reason));
      }
      need_player();
      break;
    }
    case 8: {  // ruling: 10.2 a, b, c and D1, by the arbiter
      RETURN_IF_ERROR(
          f.OnlyKeys({"at_ms", "type", "by", "decision", "add_time", "reason", "comment"}));
      c.kind = CommandKind::kRule;
      ASSIGN_OR_RETURN(c.decision, OneOf(f, "decision", kRulingDecisionNames));
      ASSIGN_OR_RETURN(c.add_time, f.Bool("add_time", false));
      RETURN_IF_ERROR(optional_string("reason", &c.reason));
      need_arbiter("rules on a claim");
      break;
    }
    case 11: {  // adjust: the arbiter changes "side"'s clock by "delta_ms" ("article", "reason")
      RETURN_IF_ERROR(
          f.OnlyKeys({"at_ms", "type", "by", "side", "delta_ms", "article", "reason", "comment"}));
      c.kind = CommandKind::kAdjustTime;
      ASSIGN_OR_RETURN(int side, f.OneOf("side", {"white", "black"}));
      ASSIGN_OR_RETURN(c.delta_ms, f.Int("delta_ms", -kMaxScenarioMs, kMaxScenarioMs));
      RETURN_IF_ERROR(optional_string("article", &c.article));
      RETURN_IF_ERROR(optional_string("reason", &c.reason));
      need_arbiter("adjusts a clock");
      c.side = side == 0 ? Color::kWhite : Color::kBlack;  // the clock adjusted, not the actor
      break;
    }
    case 12: {  // set_clocks: the arbiter sets both clocks (6.14 / 6.11)
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "white_ms", "black_ms", "white_moves",
                                  "black_moves", "article", "reason", "comment"}));
      c.kind = CommandKind::kSetClocks;
      ASSIGN_OR_RETURN(std::int64_t white, f.Int("white_ms", -kMaxScenarioMs, kMaxScenarioMs));
      ASSIGN_OR_RETURN(std::int64_t black, f.Int("black_ms", -kMaxScenarioMs, kMaxScenarioMs));
      c.clocks.set_white_ms(white);
      c.clocks.set_black_ms(black);
      for (const char* key : {"white_moves", "black_moves"}) {
        if (!f.Has(key)) continue;
        ASSIGN_OR_RETURN(std::int64_t n, f.Int(key, 0, 1'000'000));
        if (key[0] == 'w') {
          c.clocks.set_white_moves(static_cast<int>(n));
        } else {
          c.clocks.set_black_moves(static_cast<int>(n));
        }
      }
      RETURN_IF_ERROR(optional_string("article", &c.article));
      RETURN_IF_ERROR(optional_string("reason", &c.reason));
      need_arbiter("sets the clocks");
      break;
    }
    case 9:     // pause: the arbiter stops the clocks, 6.13a ("reason" required)
    case 10: {  // resume: he restarts them
      RETURN_IF_ERROR(f.OnlyKeys({"at_ms", "type", "by", "reason", "comment"}));
      c.kind = type == 9 ? CommandKind::kPause : CommandKind::kResume;
      RETURN_IF_ERROR(optional_string("reason", &c.reason));
      need_arbiter("stops and restarts the clocks (6.13a)");
      break;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Scenario> ParseScenario(const std::string& line) {
  Scenario s;
  ASSIGN_OR_RETURN(Json root, ParseScenarioLine(line, "the line is not JSON"));
  ASSIGN_OR_RETURN(s.request, ParseCreation(root));
  if (!root.contains("events") || !root["events"].is_array()) {
    return BadScenario("scenario: \"events\" is required and must be a list");
  }
  const Json& events = root["events"];
  // Every event is read before any is played, so a malformed line answers with its error alone.
  s.events.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    ASSIGN_OR_RETURN(ParsedEvent e, ParseEvent(events[i], i));
    s.events.push_back(std::move(e));
  }
  if (root.contains("query_ms") && !root["query_ms"].is_null()) {
    const JsonFields top(root, "scenario", arbiterctl::kErrBadScenario, kNull);
    ASSIGN_OR_RETURN(s.query_ms, top.Int("query_ms", 0, kMaxScenarioMs));
  }
  return s;
}

}  // namespace arbiterctl
