#include "tools/arbiterctl/listing_cmds.h"

#include <array>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/client.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using Stub = v1::Arbitration::Stub;
using OrderedJson = nlohmann::ordered_json;

constexpr char kGamesUsage[] =
    "arbiterctl games [--status S] [--event ID] [--round R] [--player ID] [--page-size N] "
    "[--json]\n"
    "  S: created | ongoing | awaiting_ruling | adjourned | flag_under_review | ended | archived";
constexpr char kEventUsage[] =
    "arbiterctl event games --event ID [--status S] [--round R] [--player ID] [--json]\n"
    "  arbiterctl event pause --event ID --command-id ID --reason T [--json]   (6.13a)\n"
    "  arbiterctl event resume --event ID --command-id ID [--outage-started-ms N] [--reason T] "
    "[--json]";

// ListedStatus by its name (the index's, libs/arbitration/authority.h).
constexpr std::array<const char*, 8> kStatusNames = {
    "",          "created",           "ongoing", "awaiting_ruling",
    "adjourned", "flag_under_review", "ended",   "archived"};

const char* StatusName(v1::ListedStatus s) {
  const auto i = static_cast<size_t>(s);
  return i < kStatusNames.size() ? kStatusNames[i] : "";
}

// Every page of the listing `req` (filters set), printed as one JSON array or one line a game.
int List(const Args& args, v1::ListGamesRequest req, const char* command, const char* usage,
         std::ostream& out, std::ostream& err) {
  const std::string status = args.Get("status");
  if (!status.empty()) {
    bool known = false;
    for (size_t i = 1; i < kStatusNames.size(); ++i) {
      if (status == kStatusNames[i]) {
        req.set_status(static_cast<v1::ListedStatus>(i));
        known = true;
      }
    }
    if (!known) return Usage(err, command, usage, absl::StrCat("unknown --status ", status));
  }
  req.set_round(args.Get("round"));
  req.set_player_id(args.Get("player"));
  if (args.Has("page-size")) {
    int n = 0;
    if (!absl::SimpleAtoi(args.Get("page-size"), &n) || n < 1) {
      return Usage(err, command, usage, "--page-size: a number >= 1");
    }
    req.set_page_size(n);
  }
  const bool json = args.Has("json");
  std::unique_ptr<Stub> stub = v1::Arbitration::NewStub(Connect(args));
  OrderedJson games = OrderedJson::array();
  while (true) {
    grpc::ClientContext ctx;
    Prepare(args, &ctx);
    v1::ListGamesReply reply;
    const grpc::Status st = stub->ListGames(&ctx, req, &reply);
    if (!st.ok()) return PrintRpcError(st, json, out, err);
    for (const v1::GameSummary& g : reply.games()) {
      if (json) {
        games.push_back(OrderedJson{{"game", g.game_id()},
                                    {"status", StatusName(g.status())},
                                    {"event", g.event()},
                                    {"round", g.round()},
                                    {"white_id", g.white_id()},
                                    {"black_id", g.black_id()},
                                    {"result", g.result()}});
      } else {
        out << g.game_id() << " " << StatusName(g.status()) << " event=" << g.event()
            << " round=" << g.round() << " " << g.white_id() << "-" << g.black_id()
            << (g.result().empty() ? "" : " ") << g.result() << "\n";
      }
    }
    if (reply.next_page_token().empty()) break;
    req.set_page_token(reply.next_page_token());
  }
  if (json) out << games.dump() << "\n";
  return 0;
}

int PrintOutcomes(const v1::EventGamesReply& reply, bool json, std::ostream& out) {
  OrderedJson games = OrderedJson::array();
  for (const v1::EventGameOutcome& g : reply.games()) {
    const char* given_to = g.time_given_back_to() == v1::COLOR_WHITE   ? "white"
                           : g.time_given_back_to() == v1::COLOR_BLACK ? "black"
                                                                       : "";
    if (json) {
      games.push_back(OrderedJson{{"game", g.game_id()},
                                  {"ok", g.ok()},
                                  {"code", g.code()},
                                  {"replayed", g.replayed()},
                                  {"version", g.version()},
                                  {"time_given_back_ms", g.time_given_back_ms()},
                                  {"time_given_back_to", given_to}});
    } else {
      out << g.game_id() << " " << (g.ok() ? "ok" : g.code()) << (g.replayed() ? " (replayed)" : "")
          << (g.time_given_back_ms() > 0
                  ? absl::StrCat(" +", g.time_given_back_ms(), " ms to ", given_to)
                  : "")
          << (g.ok() ? "" : absl::StrCat(": ", g.message())) << "\n";
    }
  }
  if (json) out << games.dump() << "\n";
  return 0;
}

}  // namespace

int RunGames(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.positional.size() != 1) return Usage(err, "games", kGamesUsage, "no subcommand");
  v1::ListGamesRequest req;
  req.set_event(args.Get("event"));
  return List(args, req, "games", kGamesUsage, out, err);
}

int RunEvent(const Args& args, std::ostream& out, std::ostream& err) {
  const std::string sub = args.positional.size() == 2 ? args.positional[1] : "";
  const std::string event = args.Get("event");
  if (sub != "games" && sub != "pause" && sub != "resume") {
    return Usage(err, "event", kEventUsage,
                 "event games|pause|resume (or create|get|round|results|pgn)");
  }
  if (event.empty()) return Usage(err, "event", kEventUsage, "--event ID is required");
  if (sub == "games") {
    v1::ListGamesRequest req;
    req.set_event(event);
    return List(args, req, "event", kEventUsage, out, err);
  }
  const bool json = args.Has("json");
  std::unique_ptr<Stub> stub = v1::Arbitration::NewStub(Connect(args));
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  v1::EventGamesReply reply;
  grpc::Status st;
  if (sub == "pause") {
    v1::PauseEventRequest req;
    req.set_event(event);
    req.set_command_id(args.Get("command-id"));
    req.set_reason(args.Get("reason"));
    st = stub->PauseEvent(&ctx, req, &reply);
  } else {
    v1::ResumeEventRequest req;
    req.set_event(event);
    req.set_command_id(args.Get("command-id"));
    req.set_reason(args.Get("reason"));
    if (args.Has("outage-started-ms")) {
      std::int64_t at = 0;
      if (!absl::SimpleAtoi(args.Get("outage-started-ms"), &at) || at < 0) {
        return Usage(err, "event", kEventUsage,
                     "--outage-started-ms: ms on the server's time base");
      }
      req.set_outage_started_ms(at);
    }
    st = stub->ResumeEvent(&ctx, req, &reply);
  }
  if (!st.ok()) return PrintRpcError(st, json, out, err);
  return PrintOutcomes(reply, json, out);
}

}  // namespace arbiterctl
