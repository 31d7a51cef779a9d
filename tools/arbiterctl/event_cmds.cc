#include "tools/arbiterctl/event_cmds.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/client.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using Stub = v1::Arbitration::Stub;
using Json = nlohmann::json;

constexpr char kUsage[] =
    "arbiterctl event create --event ID --edition E --time-control TC [--name N] [--site S]\n"
    "      [--default-time S | --default-time-ms N] [--first-draw-offer N] [--no-arbiter]\n"
    "      [--unsupervised] [--command-id ID] [--json]\n"
    "  arbiterctl event get --event ID [--json]\n"
    "  arbiterctl event round --event ID --round N --pairings FILE|JSON [--scheduled-start-ms N]\n"
    "      [--start] --command-id ID [--json]\n"
    "  arbiterctl event results --event ID [--round N] [--json]\n"
    "  arbiterctl event pgn --event ID [--round N]";

std::string Sub(const Args& args) { return args.positional.size() == 2 ? args.positional[1] : ""; }

// The reply in the protobuf JSON mapping, one line.
void PrintJson(const google::protobuf::Message& reply, std::ostream& out) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(reply, &text, options);
  out << text << "\n";
}

void PrintEvent(const v1::EventReply& reply, std::ostream& out) {
  const v1::EventView& e = reply.event();
  out << "event " << e.event() << (e.name().empty() ? "" : absl::StrCat(" \"", e.name(), "\""))
      << ": " << v1::Edition_Name(e.ruleset().edition()) << " " << e.time_control() << " ("
      << v1::GameType_Name(e.ruleset().game_type()) << "), " << e.rounds_size() << " round(s)"
      << (reply.replayed() ? " (replayed)" : "") << "\n";
  for (const v1::RoundView& r : e.rounds()) {
    for (const v1::RoundPairing& p : r.pairings()) {
      out << "round " << r.round() << " board " << p.board() << " " << p.game_id() << " "
          << p.white_id() << "-" << p.black_id() << "\n";
    }
  }
}

// --pairings: inline JSON, or a file holding it.
bool ReadPairings(const std::string& value, v1::CreateRoundRequest* req, std::string* error) {
  std::string text = value;
  if (text.find('[') == std::string::npos) {
    std::ifstream file(value, std::ios::binary);
    if (!file) {
      *error = absl::StrCat("--pairings: cannot open ", value);
      return false;
    }
    std::stringstream all;
    all << file.rdbuf();
    text = all.str();
  }
  const Json pairings = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!pairings.is_array()) {
    *error = "--pairings: a JSON array of {board, game, white, white_name, black, black_name}";
    return false;
  }
  for (const Json& p : pairings) {
    if (!p.is_object()) {
      *error = "--pairings: each pairing is a JSON object";
      return false;
    }
    v1::RoundPairing* out = req->add_pairings();
    auto text_of = [&](const char* key) -> std::string {
      auto it = p.find(key);
      return it != p.end() && it->is_string() ? it->get<std::string>() : "";
    };
    auto board = p.find("board");
    if (board != p.end()) {
      if (!board->is_number_integer()) {
        *error = "--pairings: board is a whole number";
        return false;
      }
      out->set_board(board->get<int>());
    }
    out->set_game_id(text_of("game"));
    out->set_white_id(text_of("white"));
    out->set_white_name(text_of("white_name"));
    out->set_black_id(text_of("black"));
    out->set_black_name(text_of("black_name"));
  }
  return true;
}

int Create(const Args& args, Stub& stub, std::ostream& out, std::ostream& err) {
  FlagReader flags(args);
  v1::CreateEventRequest req;
  req.set_event(args.Get("event"));
  req.set_command_id(args.Get("command-id"));
  req.set_name(args.Get("name"));
  req.set_site(args.Get("site"));
  req.mutable_ruleset()->set_edition(flags.Edition(flags.Required("edition")));
  req.set_time_control(flags.Required("time-control"));
  v1::Regulations* regs = req.mutable_ruleset()->mutable_regulations();
  // 10.2 with an arbiter present unless the event has none (Appendix D).
  regs->set_arbiter_present(!flags.Bool("no-arbiter"));
  // 6.7a: the default time, in seconds (or ms).
  if (args.Has("default-time")) regs->set_default_time_ms(flags.Int("default-time") * 1000);
  if (args.Has("default-time-ms")) regs->set_default_time_ms(flags.Int("default-time-ms"));
  // 9.1a: no draw offers before this move.
  if (args.Has("first-draw-offer")) {
    regs->set_no_draw_offers_before_move(static_cast<int>(flags.Int("first-draw-offer")));
  }
  // 2023 rapid and blitz: A.4 / B.4 (no adequate supervision) when the event says so.
  if (flags.Bool("unsupervised")) regs->set_supervised(false);
  if (!flags.ok()) return Usage(err, "event", kUsage, flags.error());
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  v1::EventReply reply;
  const grpc::Status st = stub.CreateEvent(&ctx, req, &reply);
  if (!st.ok()) return PrintRpcError(st, args.Has("json"), out, err);
  args.Has("json") ? PrintJson(reply, out) : PrintEvent(reply, out);
  return 0;
}

int Round(const Args& args, Stub& stub, std::ostream& out, std::ostream& err) {
  FlagReader flags(args);
  v1::CreateRoundRequest req;
  req.set_event(args.Get("event"));
  req.set_command_id(flags.Required("command-id"));
  req.set_round(static_cast<int>(flags.Int("round")));
  if (args.Has("scheduled-start-ms")) req.set_scheduled_start_ms(flags.Int("scheduled-start-ms"));
  req.set_start(flags.Bool("start"));
  std::string error;
  if (!ReadPairings(flags.Required("pairings"), &req, &error)) flags.Fail(error);
  if (!flags.ok()) return Usage(err, "event", kUsage, flags.error());
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  v1::RoundReply reply;
  const grpc::Status st = stub.CreateRound(&ctx, req, &reply);
  if (!st.ok()) return PrintRpcError(st, args.Has("json"), out, err);
  if (args.Has("json")) {
    PrintJson(reply, out);
    return 0;
  }
  for (int i = 0; i < reply.round().pairings_size(); ++i) {
    const v1::RoundPairing& p = reply.round().pairings(i);
    out << "board " << p.board() << " " << p.game_id() << " " << p.white_id() << "-" << p.black_id()
        << (i < reply.games_size() ? absl::StrCat(" version ", reply.games(i).game().version())
                                   : "")
        << (reply.replayed() ? " (replayed)" : "") << "\n";
  }
  return 0;
}

int Results(const Args& args, Stub& stub, int round, std::ostream& out, std::ostream& err) {
  v1::GetEventResultsRequest req;
  req.set_event(args.Get("event"));
  req.set_round(round);
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  v1::EventResultsReply reply;
  const grpc::Status st = stub.GetEventResults(&ctx, req, &reply);
  if (!st.ok()) return PrintRpcError(st, args.Has("json"), out, err);
  if (args.Has("json")) {
    PrintJson(reply, out);
    return 0;
  }
  for (const v1::RoundResults& r : reply.rounds()) {
    for (const v1::PairingResult& g : r.games()) {
      out << "round " << r.round() << " board " << g.board() << " " << g.game_id() << " "
          << g.white_id() << "-" << g.black_id() << " "
          << (g.pending()
                  ? std::string("pending")
                  : absl::StrCat(g.result(), " (", g.white_points(), "-", g.black_points(), ")"))
          << "\n";
    }
  }
  return 0;
}

int Pgn(const Args& args, Stub& stub, int round, std::ostream& out, std::ostream& err) {
  v1::ExportEventPgnRequest req;
  req.set_event(args.Get("event"));
  req.set_round(round);
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  v1::ExportPgnReply reply;
  const grpc::Status st = stub.ExportEventPgn(&ctx, req, &reply);
  if (!st.ok()) return PrintRpcError(st, args.Has("json"), out, err);
  out << reply.pgn();
  return 0;
}

}  // namespace

bool IsEventRecordCommand(const Args& args) {
  const std::string sub = Sub(args);
  return sub == "create" || sub == "get" || sub == "round" || sub == "results" || sub == "pgn";
}

int RunEventRecord(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.Get("event").empty()) return Usage(err, "event", kUsage, "--event ID is required");
  const std::string sub = Sub(args);
  int round = 0;  // results, pgn: 0 = every round
  if ((sub == "results" || sub == "pgn") && args.Has("round")) {
    FlagReader flags(args);
    round = static_cast<int>(flags.Int("round"));
    if (!flags.ok() || round < 1) return Usage(err, "event", kUsage, "--round: a number >= 1");
  }
  std::unique_ptr<Stub> stub = v1::Arbitration::NewStub(Connect(args));
  if (sub == "create") return Create(args, *stub, out, err);
  if (sub == "round") return Round(args, *stub, out, err);
  if (sub == "results") return Results(args, *stub, round, out, err);
  if (sub == "pgn") return Pgn(args, *stub, round, out, err);
  v1::GetEventRequest req;
  req.set_event(args.Get("event"));
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  v1::EventReply reply;
  const grpc::Status st = stub->GetEvent(&ctx, req, &reply);
  if (!st.ok()) return PrintRpcError(st, args.Has("json"), out, err);
  args.Has("json") ? PrintJson(reply, out) : PrintEvent(reply, out);
  return 0;
}

}  // namespace arbiterctl
