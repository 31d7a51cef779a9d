#include "tools/arbiterctl/game_client.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"
#include "libs/service/grpc_status.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/names.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using OrderedJson = nlohmann::ordered_json;

constexpr char kCommands[] =
    "create|start|arrive|move|offer|respond|claim|rule|resign|confirm|result|get|watch|pgn";

int Usage(std::ostream& err, const std::string& message) {
  return arbiterctl::Usage(
      err, "game",
      absl::StrCat("arbiterctl --server=host:port game ", kCommands, " --game ID [...] [--json]"),
      message);
}

// --- Output --------------------------------------------------------------------------------------

// The names `game simulate` uses.
std::string StatusName(v1::GameStatus s) {
  switch (s) {
    case v1::GAME_STATUS_CREATED:
      return "created";
    case v1::GAME_STATUS_AWAITING_RULING:
      return "awaiting_ruling";
    case v1::GAME_STATUS_ENDED:
      return "ended";
    default:
      return "ongoing";
  }
}

std::string ResultName(v1::Result r) {
  absl::StatusOr<laws::Result> result = laws::ResultOf(r);
  return std::string(laws::ResultText(result.ok() ? *result : laws::Result::kOngoing));
}

OrderedJson TerminationJson(v1::Termination t) {
  const absl::string_view name = laws::TerminationName(laws::TerminationOf(t));
  if (name.empty()) return nullptr;
  return std::string(name);
}

std::string ClaimKindName(v1::ClaimKind k) {
  switch (k) {
    case v1::CLAIM_KIND_THREEFOLD:
      return "threefold";
    case v1::CLAIM_KIND_FIFTY:
      return "fifty";
    case v1::CLAIM_KIND_QUICKPLAY:
      return "quickplay";
    case v1::CLAIM_KIND_TIME:
      return "time";
    default:
      return "";
  }
}

OrderedJson RulingJson(v1::ClaimRuling r) {
  switch (r) {
    case v1::CLAIM_RULING_CORRECT:
      return "correct";
    case v1::CLAIM_RULING_INCORRECT:
      return "incorrect";
    case v1::CLAIM_RULING_PENDING:
      return "pending";
    default:
      return nullptr;
  }
}

OrderedJson GameJson(const v1::GameView& g) {
  OrderedJson out;
  out["game_id"] = g.game_id();
  out["version"] = g.version();
  out["status"] = StatusName(g.status());
  out["result"] = ResultName(g.outcome().result());
  out["termination"] = TerminationJson(g.outcome().termination());
  out["article"] = g.outcome().article();
  out["winner"] = SideName(g.outcome().winner());
  out["fen"] = g.fen();
  out["moves"] = OrderedJson(std::vector<std::string>(g.moves_san().begin(), g.moves_san().end()));
  out["to_move"] = SideName(g.to_move());
  out["white_ms"] = g.white_ms();
  out["black_ms"] = g.black_ms();
  out["clock_running"] = SideName(g.clock_running());
  out["draw_offer"] = SideName(g.draw_offer());
  if (g.has_pending_claim()) {
    const v1::ClaimMade& c = g.pending_claim();
    out["pending_claim"] = {{"side", SideName(c.side())},
                            {"kind", ClaimKindName(c.kind())},
                            {"article", c.article()},
                            {"advice", c.advice()}};
  } else {
    out["pending_claim"] = nullptr;
  }
  out["white_confirmed"] = g.white_confirmed();
  out["black_confirmed"] = g.black_confirmed();
  out["white_points"] = g.white_points();
  out["black_points"] = g.black_points();
  out["edition"] = EditionName(g.ruleset().edition());
  out["game_type"] = GameTypeName(g.ruleset().game_type());
  out["white_id"] = g.white_id();
  out["black_id"] = g.black_id();
  out["now_ms"] = g.now_ms();
  out["review"] = g.review();
  out["deadline_ms"] = g.deadline_ms() > 0 ? OrderedJson(g.deadline_ms()) : OrderedJson(nullptr);
  return out;
}

std::string Clock(std::int64_t ms) {
  if (ms < 0) ms = 0;
  const std::int64_t s = ms / 1000;
  return absl::StrCat(s / 3600, ":", absl::Dec(s / 60 % 60, absl::kZeroPad2), ":",
                      absl::Dec(s % 60, absl::kZeroPad2), ".", ms % 1000 / 100);
}

void PrintGame(const v1::GameView& g, std::ostream& out) {
  out << g.game_id() << " v" << g.version() << " " << StatusName(g.status());
  if (g.status() == v1::GAME_STATUS_ENDED) {
    out << " " << ResultName(g.outcome().result());
    const OrderedJson t = TerminationJson(g.outcome().termination());
    if (!t.is_null()) out << " by " << t.get<std::string>();
    if (!g.outcome().article().empty()) out << " (" << g.outcome().article() << ")";
  } else if (g.to_move() != v1::COLOR_UNSPECIFIED) {
    out << ", " << SideName(g.to_move()).get<std::string>() << " to move";
  }
  out << "  white " << Clock(g.white_ms()) << "  black " << Clock(g.black_ms());
  if (g.draw_offer() != v1::COLOR_UNSPECIFIED) {
    out << "  draw offered by " << SideName(g.draw_offer()).get<std::string>();
  }
  if (g.review()) out << "  [for the arbiter's review]";
  out << "\n  " << g.fen() << "\n";
  if (g.moves_san_size() > 0) out << "  " << absl::StrJoin(g.moves_san(), " ") << "\n";
  if (g.has_pending_claim()) {
    out << "  awaiting the arbiter: " << SideName(g.pending_claim().side()).get<std::string>()
        << "'s " << ClaimKindName(g.pending_claim().kind()) << " claim ("
        << g.pending_claim().article() << ")\n";
  }
}

int Print(const v1::GameReply& reply, bool json, std::ostream& out) {
  if (json) {
    OrderedJson j = GameJson(reply.game());
    j["replayed"] = reply.replayed();
    j["claim_ruling"] = RulingJson(reply.claim_ruling());
    out << j.dump() << "\n";
  } else {
    if (reply.replayed()) out << "(replayed: this command was applied before)\n";
    if (const OrderedJson r = RulingJson(reply.claim_ruling()); !r.is_null()) {
      out << "claim " << r.get<std::string>() << "\n";
    }
    PrintGame(reply.game(), out);
  }
  return reply.claim_ruling() == v1::CLAIM_RULING_INCORRECT ? 1 : 0;
}

OrderedJson EventJson(const v1::ArbitrationEvent& e) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(e, &text, options);
  OrderedJson j = OrderedJson::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? OrderedJson::object() : j;
}

int Watch(const ClientArgs& args, v1::Arbitration::Stub* stub, bool json, std::ostream& out,
          std::ostream& err) {
  FlagReader flags(args);
  v1::WatchGameRequest req;
  req.set_game_id(args.Get("game"));
  if (args.Has("after-version")) req.set_after_version(flags.Int("after-version"));
  const std::int64_t count = args.Has("count") ? flags.Int("count") : -1;
  if (!flags.ok()) return Usage(err, flags.error());
  grpc::ClientContext ctx;
  Prepare(args, &ctx, /*deadline=*/false);
  std::unique_ptr<grpc::ClientReader<v1::GameUpdate>> reader = stub->WatchGame(&ctx, req);
  v1::GameUpdate update;
  std::int64_t seen = 0;
  bool stopped = false;
  while (reader->Read(&update)) {
    OrderedJson event = EventJson(update.event());
    if (json) {
      out << OrderedJson{{"version", update.version()},
                         {"command_id", update.command_id()},
                         {"event", event}}
                 .dump()
          << "\n";
    } else {
      out << "v" << update.version() << " " << event.dump() << "\n";
    }
    out.flush();
    ++seen;
    // The record ends with the result; a watcher that wants confirmations asks with --count.
    if ((count >= 0 && seen >= count) || (count < 0 && update.event().has_ended())) {
      stopped = true;
      ctx.TryCancel();
      break;
    }
  }
  grpc::Status st = reader->Finish();
  if (stopped || st.ok()) return 0;
  return PrintRpcError(st, json, out, err);
}

int Run(const ClientArgs& args, std::ostream& out, std::ostream& err) {
  const std::string what = args.positional.size() > 1 ? args.positional[1] : "";
  const bool json = args.Has("json");
  if (what.empty()) return Usage(err, "which command?");
  if (!args.Has("game") || args.Get("game").empty()) return Usage(err, "--game ID is required");
  auto stub = v1::Arbitration::NewStub(Connect(args));
  if (what == "watch") return Watch(args, stub.get(), json, out, err);

  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  FlagReader flags(args);
  grpc::Status st;
  auto send = [&](auto&& call) {
    if (flags.ok()) st = call();
  };

  if (what == "pgn") {
    v1::ExportPgnRequest req;
    req.set_game_id(args.Get("game"));
    v1::ExportPgnReply reply;
    st = stub->ExportPgn(&ctx, req, &reply);
    if (!st.ok()) return PrintRpcError(st, json, out, err);
    if (json) {
      out << OrderedJson{{"pgn", reply.pgn()}}.dump() << "\n";
    } else {
      out << reply.pgn();
    }
    return 0;
  }

  v1::GameReply reply;
  if (what == "create") {
    v1::CreateGameRequest req;
    req.set_game_id(args.Get("game"));
    if (args.Has("command-id")) req.set_command_id(args.Get("command-id"));
    req.set_white_id(flags.Required("white"));
    req.set_black_id(flags.Required("black"));
    req.mutable_ruleset()->set_edition(flags.Edition(flags.Required("edition")));
    req.set_time_control(flags.Required("time-control"));
    v1::Regulations* regs = req.mutable_ruleset()->mutable_regulations();
    // 10.2 with an arbiter present unless the event has none (Appendix D).
    regs->set_arbiter_present(!flags.Bool("no-arbiter"));
    if (args.Has("default-time-ms")) regs->set_default_time_ms(flags.Int("default-time-ms"));
    if (args.Has("no-draw-offers-before-move")) {
      regs->set_no_draw_offers_before_move(
          static_cast<int>(flags.Int("no-draw-offers-before-move")));
    }
    if (args.Has("max-draw-offers")) {
      regs->set_max_draw_offers(static_cast<int>(flags.Int("max-draw-offers")));
    }
    regs->set_lag_compensation(flags.Bool("lag-compensation"));
    if (args.Has("start-fen")) req.set_start_fen(args.Get("start-fen"));
    if (args.Has("scheduled-start-ms")) req.set_scheduled_start_ms(flags.Int("scheduled-start-ms"));
    if (args.Has("broadcast-delay-plies")) {
      req.set_broadcast_delay_plies(static_cast<int>(flags.Int("broadcast-delay-plies")));
    }
    if (args.Has("broadcast-delay-ms")) req.set_broadcast_delay_ms(flags.Int("broadcast-delay-ms"));
    req.set_event(args.Get("event"));
    req.set_site(args.Get("site"));
    req.set_round(args.Get("round"));
    req.set_white_name(args.Get("white-name"));
    req.set_black_name(args.Get("black-name"));
    send([&] { return stub->CreateGame(&ctx, req, &reply); });
  } else if (what == "start") {
    v1::StartGameRequest req;
    SetCommandFields(args, flags, &req);
    for (absl::string_view s : absl::StrSplit(args.Get("absent"), ',', absl::SkipEmpty())) {
      req.add_absent(flags.Color(std::string(s), "absent"));
    }
    send([&] { return stub->StartGame(&ctx, req, &reply); });
  } else if (what == "arrive") {
    v1::ArriveRequest req;
    SetCommandFields(args, flags, &req);
    req.set_side(flags.Side());
    send([&] { return stub->Arrive(&ctx, req, &reply); });
  } else if (what == "move") {
    v1::SubmitMoveRequest req;
    SetCommandFields(args, flags, &req);
    req.set_side(flags.Side());
    req.set_move(flags.Required("move"));
    req.set_offer_draw(flags.Bool("offer-draw"));
    if (args.Has("lag-ms")) req.set_lag_ms(flags.Int("lag-ms"));
    send([&] { return stub->SubmitMove(&ctx, req, &reply); });
  } else if (what == "offer") {
    v1::OfferDrawRequest req;
    SetCommandFields(args, flags, &req);
    req.set_side(flags.Side());
    send([&] { return stub->OfferDraw(&ctx, req, &reply); });
  } else if (what == "respond") {
    v1::RespondDrawRequest req;
    SetCommandFields(args, flags, &req);
    req.set_side(flags.Side());
    const bool accept = flags.Bool("accept");
    const bool decline = flags.Bool("decline");
    if (accept == decline) flags.Fail("respond needs exactly one of --accept and --decline");
    req.set_accept(accept);
    send([&] { return stub->RespondDraw(&ctx, req, &reply); });
  } else if (what == "claim") {
    v1::ClaimRequest req;
    SetCommandFields(args, flags, &req);
    req.set_side(flags.Side());
    const std::string kind = flags.Required("kind");
    if (kind == "threefold") {
      req.set_kind(v1::CLAIM_KIND_THREEFOLD);
    } else if (kind == "fifty") {
      req.set_kind(v1::CLAIM_KIND_FIFTY);
    } else if (kind == "quickplay") {
      req.set_kind(v1::CLAIM_KIND_QUICKPLAY);
    } else if (kind == "time") {
      req.set_kind(v1::CLAIM_KIND_TIME);
    } else if (!kind.empty()) {
      flags.Fail("--kind must be threefold, fifty, quickplay or time");
    }
    req.set_intended_move(args.Get("move"));
    if (args.Has("ground")) {
      const std::string ground = args.Get("ground");
      if (ground == "cannot_win") {
        req.set_ground(v1::QUICKPLAY_GROUND_CANNOT_WIN);
      } else if (ground == "no_attempt") {
        req.set_ground(v1::QUICKPLAY_GROUND_NO_ATTEMPT);
      } else {
        flags.Fail("--ground must be cannot_win or no_attempt");
      }
    }
    send([&] { return stub->Claim(&ctx, req, &reply); });
  } else if (what == "rule") {
    v1::RuleRequest req;
    SetCommandFields(args, flags, &req);
    const std::string decision = flags.Required("decision");
    if (decision == "draw") {
      req.set_decision(v1::RULING_DECISION_DRAW);
    } else if (decision == "postpone") {
      req.set_decision(v1::RULING_DECISION_POSTPONE);
    } else if (decision == "reject") {
      req.set_decision(v1::RULING_DECISION_REJECT);
    } else if (!decision.empty()) {
      flags.Fail("--decision must be draw, postpone or reject");
    }
    req.set_add_time(flags.Bool("add-time"));
    req.set_reason(args.Get("reason"));
    send([&] { return stub->Rule(&ctx, req, &reply); });
  } else if (what == "resign") {
    v1::ResignRequest req;
    SetCommandFields(args, flags, &req);
    req.set_side(flags.Side());
    send([&] { return stub->Resign(&ctx, req, &reply); });
  } else if (what == "confirm") {
    v1::ConfirmResultRequest req;
    SetCommandFields(args, flags, &req);
    req.set_side(flags.Side());
    send([&] { return stub->ConfirmResult(&ctx, req, &reply); });
  } else if (what == "result") {
    v1::SetResultRequest req;
    SetCommandFields(args, flags, &req);
    const std::string result = flags.Required("result");
    if (result == "1-0") {
      req.set_result(v1::RESULT_WHITE_WINS);
    } else if (result == "0-1") {
      req.set_result(v1::RESULT_BLACK_WINS);
    } else if (result == "1/2-1/2" || result == "draw") {
      req.set_result(v1::RESULT_DRAW);
    } else if (result == "0-0") {
      req.set_result(v1::RESULT_DOUBLE_FORFEIT);
    } else if (!result.empty()) {
      flags.Fail("--result must be 1-0, 0-1, 1/2-1/2 or 0-0");
    }
    req.set_article(flags.Required("article"));
    req.set_reason(flags.Required("reason"));
    send([&] { return stub->SetResult(&ctx, req, &reply); });
  } else if (what == "get") {
    v1::GetGameRequest req;
    req.set_game_id(args.Get("game"));
    send([&] { return stub->GetGame(&ctx, req, &reply); });
  } else {
    return Usage(err, absl::StrCat("unknown command \"", what, "\""));
  }
  if (!flags.ok()) return Usage(err, flags.error());
  if (!st.ok()) return PrintRpcError(st, json, out, err);
  return Print(reply, json, out);
}

}  // namespace

int RunGameClient(const ClientArgs& args, std::ostream& out, std::ostream& err) {
  return Run(args, out, err);
}

}  // namespace arbiterctl
