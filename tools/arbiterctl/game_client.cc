#include "tools/arbiterctl/game_client.h"

#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"
#include "libs/service/grpc_status.h"
#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "tools/arbiterctl/client_commands.h"
#include "tools/arbiterctl/names.h"

namespace arbiterctl {
namespace {

namespace v1 = arbiter::v1;
using OrderedJson = nlohmann::ordered_json;

constexpr char kCommands[] =
    "create|start|arrive|move|offer|respond|claim|rule|resign|confirm|result|pause|resume|adjust|"
    "set-clocks|report-illegal|complete-illegal|irregularity|stop-clocks|rule-stop|power|feed|get|"
    "watch|pgn|archive|seal|adjourn|resume-adjourned|envelope-lost";

int Usage(std::ostream& err, const std::string& message) {
  return arbiterctl::Usage(
      err, "game",
      absl::StrCat("arbiterctl --server=host:port game ", kCommands, " --game ID [...] [--json]"),
      message);
}

// --- Output --------------------------------------------------------------------------------------

// The names `game simulate` uses; "ongoing" for the others.
constexpr EnumName<v1::GameStatus> kGameStatusNames[] = {
    {v1::GAME_STATUS_CREATED, "created"},
    {v1::GAME_STATUS_AWAITING_RULING, "awaiting_ruling"},
    {v1::GAME_STATUS_ENDED, "ended"},
    {v1::GAME_STATUS_ADJOURNED, "adjourned"}};

std::string StatusName(v1::GameStatus s) {
  const std::string name = NameOf(kGameStatusNames, s);
  return name.empty() ? "ongoing" : name;
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

std::string ClaimKindName(v1::ClaimKind k) { return NameOf(kClaimKindNames, k); }

OrderedJson RulingJson(v1::ClaimRuling r) {
  const std::string name = NameOf(kClaimRulingNames, r);
  if (name.empty()) return nullptr;
  return name;
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
  out["paused"] = g.paused();
  out["deadline_ms"] = g.deadline_ms() > 0 ? OrderedJson(g.deadline_ms()) : OrderedJson(nullptr);
  // The illegal-move ledger (7.4b, 7.5.5, C3).
  OrderedJson ledger = OrderedJson::array();
  for (const v1::IllegalMoveEntry& e : g.illegal_moves().entries()) {
    ledger.push_back({{"side", SideName(e.side())},
                      {"ply", e.ply()},
                      {"move", e.move()},
                      {"article", e.article()},
                      {"ruling", e.ruling()}});
  }
  out["illegal_moves"] = {{"white", g.illegal_moves().white()},
                          {"black", g.illegal_moves().black()},
                          {"entries", ledger}};
  // Appendix A: whether a move is sealed (never which), the call to seal, the envelope (A2).
  out["move_sealed"] = g.move_sealed();
  out["seal_called"] = g.seal_called();
  if (g.has_envelope()) {
    const v1::GameAdjourned& e = g.envelope();
    out["envelope"] = {
        {"sealer", SideName(e.sealer())},     {"move_number", e.move_number()},
        {"fen_before", e.fen_before()},       {"white_ms", e.white_ms()},
        {"black_ms", e.black_ms()},           {"white_used_ms", e.white_used_ms()},
        {"black_used_ms", e.black_used_ms()}, {"draw_offer", SideName(e.draw_offer())},
        {"resume_at_ms", e.resume_at_ms()},   {"resume_place", e.resume_place()}};
  } else {
    out["envelope"] = nullptr;
  }
  // Article 4 (only when present, so that other games' output stays as it was): this
  // turn's touches and the move they oblige.
  if (g.touched_size() > 0) {
    OrderedJson touched = OrderedJson::array();
    for (const v1::PieceTouched& t : g.touched()) {
      OrderedJson j = {{"square", t.square()}, {"piece", t.piece()}, {"adjusting", t.adjusting()}};
      if (t.promotion()) j["promotion"] = true;
      touched.push_back(std::move(j));
    }
    out["touched"] = std::move(touched);
  }
  if (g.has_obligation()) {
    const v1::MoveObligation& o = g.obligation();
    out["obligation"] = {
        {"free", o.free()},
        {"owed", OrderedJson(std::vector<std::string>(o.owed_uci().begin(), o.owed_uci().end()))},
        {"article", o.article()},
        {"reason", o.reason()},
        {"enforced", o.enforced()}};
  }
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
  // Article 4: "touched: N g1, P e2 (j'adoube)"; "owed (4.3a): ...: g1e2 g1f3 g1h3".
  if (g.touched_size() > 0) {
    std::vector<std::string> touched;
    for (const v1::PieceTouched& t : g.touched()) {
      touched.push_back(absl::StrCat(t.piece(), " ", t.square(), t.adjusting() ? " (j'adoube)" : "",
                                     t.promotion() ? " (promotion)" : ""));
    }
    out << "  touched: " << absl::StrJoin(touched, ", ") << "\n";
  }
  if (g.has_obligation()) {
    const v1::MoveObligation& o = g.obligation();
    out << "  " << (o.free() ? "free" : "owed") << " (" << o.article()
        << (o.enforced() ? "" : ", on claim") << "): " << o.reason();
    if (!o.free()) out << ": " << absl::StrJoin(o.owed_uci(), " ");
    out << "\n";
  }
}

int Print(const v1::GameReply& reply, bool json, std::ostream& out) {
  if (json) {
    OrderedJson j = GameJson(reply.game());
    j["replayed"] = reply.replayed();
    j["claim_ruling"] = RulingJson(reply.claim_ruling());
    // 9.1a: the move was made; its draw offer refused by the regulations (absent otherwise).
    if (reply.has_draw_offer_refused()) {
      j["draw_offer_refused"] = reply.draw_offer_refused().code();
    }
    out << j.dump() << "\n";
  } else {
    if (reply.replayed()) out << "(replayed: this command was applied before)\n";
    if (const OrderedJson r = RulingJson(reply.claim_ruling()); !r.is_null()) {
      out << "claim " << r.get<std::string>() << "\n";
    }
    if (reply.has_draw_offer_refused()) {
      out << "draw offer refused (" << reply.draw_offer_refused().code()
          << "): " << reply.draw_offer_refused().reason() << "\n";
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

using Stub = v1::Arbitration::Stub;
using Call = RpcCall<Stub, v1::GameReply>;

int Watch(const ClientArgs& args, Stub& stub, std::ostream& out, std::ostream& err) {
  const bool json = args.Has("json");
  auto print = [&](const v1::GameUpdate& update) {
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
  };
  // The record ends with the result; a watcher that wants confirmations asks with --count.
  auto last = [](const v1::GameUpdate& update, std::int64_t count) {
    return count < 0 && update.event().has_ended();
  };
  return arbiterctl::Watch(args, stub, &Stub::WatchGame, Usage, print, last, out, err);
}

// A call on --game's game whose reply is not a GameReply: `print` writes it (JSON or text).
template <typename Request, typename Reply, typename Print>
int CallOnGame(const ClientArgs& args, Stub& stub,
               grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Reply*),
               std::ostream& out, std::ostream& err, Print print) {
  grpc::ClientContext ctx;
  Prepare(args, &ctx);
  Request req;
  req.set_game_id(args.Get("game"));
  Reply reply;
  grpc::Status st = (stub.*method)(&ctx, req, &reply);
  const bool json = args.Has("json");
  if (!st.ok()) return PrintRpcError(st, json, out, err);
  print(reply, json);
  return 0;
}

int Pgn(const ClientArgs& args, Stub& stub, std::ostream& out, std::ostream& err) {
  return CallOnGame(args, stub, &Stub::ExportPgn, out, err,
                    [&](const v1::ExportPgnReply& reply, bool json) {
                      if (json) {
                        out << OrderedJson{{"pgn", reply.pgn()}}.dump() << "\n";
                      } else {
                        out << reply.pgn();
                      }
                    });
}

// `game archive`: a game that is over leaves the live store; prints its tombstone.
int Archive(const ClientArgs& args, Stub& stub, std::ostream& out, std::ostream& err) {
  return CallOnGame(
      args, stub, &Stub::ArchiveGame, out, err, [&](const v1::ArchiveGameReply& reply, bool json) {
        const v1::ArchivedGame& a = reply.archived();
        if (!json) {
          out << "archived " << a.game_id() << " at version " << a.version() << ": " << a.result()
              << " (" << a.article() << "), record sha256 " << a.record_sha256()
              << (a.has_record_signature()
                      ? absl::StrCat(", signed with key ", a.record_signature().key_id())
                      : "")
              << (reply.replayed() ? " (archived before)" : "") << "\n";
          return;
        }
        OrderedJson o;
        o["game_id"] = a.game_id();
        o["version"] = a.version();
        o["result"] = a.result();
        o["termination"] = TerminationJson(a.termination());
        o["article"] = a.article();
        o["record_sha256"] = a.record_sha256();
        o["archived_at_ms"] = a.archived_at_ms();
        o["replayed"] = reply.replayed();
        // Signed records (docs/RECORDS.md): what `record verify --record` reads, for the platform
        // to keep; only from the call that archived the game.
        if (!reply.signed_record().empty()) o["signed_record"] = reply.signed_record();
        out << o.dump() << "\n";
      });
}

// --- The subcommands' requests -------------------------------------------------------------------

// --result: the arbiter's result (also "draw").
constexpr EnumName<v1::Result> kResultFlagNames[] = {{v1::RESULT_WHITE_WINS, "1-0"},
                                                     {v1::RESULT_BLACK_WINS, "0-1"},
                                                     {v1::RESULT_DRAW, "1/2-1/2"},
                                                     {v1::RESULT_DRAW, "draw"},
                                                     {v1::RESULT_DOUBLE_FORFEIT, "0-0"}};

// A player's command: the mutating command's fields and --side.
template <typename Request>
Request BySide(Call& c) {
  Request req = c.Command<Request>();
  req.set_side(c.flags().Side());
  return req;
}

void Create(Call& c) {
  const ClientArgs& args = c.args();
  FlagReader& flags = c.flags();
  v1::CreateGameRequest req = c.ForGame<v1::CreateGameRequest>();
  if (args.Has("command-id")) req.set_command_id(args.Get("command-id"));
  req.set_white_id(flags.Required("white"));
  req.set_black_id(flags.Required("black"));
  // A game of an event (--event naming one CreateEvent created) joins it: what is left out, the
  // edition, the time control and the regulations, is the event's.
  const bool joins = args.Has("event") && !args.Has("edition");
  if (!joins) req.mutable_ruleset()->set_edition(flags.Edition(flags.Required("edition")));
  req.set_time_control(joins ? args.Get("time-control") : flags.Required("time-control"));
  const bool regulated = !joins || args.Has("no-arbiter") || args.Has("default-time-ms") ||
                         args.Has("no-draw-offers-before-move") || args.Has("max-draw-offers") ||
                         args.Has("lag-compensation") || args.Has("unsupervised") ||
                         args.Has("illegal-move-extra-ms");
  v1::Regulations* regs = req.mutable_ruleset()->mutable_regulations();
  // 10.2 with an arbiter present unless the event has none (Appendix D).
  if (regulated) regs->set_arbiter_present(!flags.Bool("no-arbiter"));
  if (args.Has("default-time-ms")) regs->set_default_time_ms(flags.Int("default-time-ms"));
  if (args.Has("no-draw-offers-before-move")) {
    regs->set_no_draw_offers_before_move(static_cast<int>(flags.Int("no-draw-offers-before-move")));
  }
  if (args.Has("max-draw-offers")) {
    regs->set_max_draw_offers(static_cast<int>(flags.Int("max-draw-offers")));
  }
  if (regulated) regs->set_lag_compensation(flags.Bool("lag-compensation"));
  // 2023 rapid and blitz: A.4 (no adequate supervision, A.4.5) when the event says so; else A.3.
  if (flags.Bool("unsupervised")) regs->set_supervised(false);
  // 2023 7.5.5: the regulations' time for a first illegal move.
  if (args.Has("illegal-move-extra-ms")) {
    regs->set_illegal_move_extra_ms(flags.Int("illegal-move-extra-ms"));
  }
  if (!regulated) req.clear_ruleset();
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
  // Appendix A13: --sessions START_MS-END_MS[@PLACE],... (the server's time base, ms).
  for (absl::string_view session : absl::StrSplit(args.Get("sessions"), ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> at = absl::StrSplit(session, absl::MaxSplits('@', 1));
    std::pair<std::string, std::string> span = absl::StrSplit(at.first, absl::MaxSplits('-', 1));
    v1::Session* s = req.add_sessions();
    std::int64_t start = 0, end = 0;
    if (!absl::SimpleAtoi(span.first, &start) || !absl::SimpleAtoi(span.second, &end)) {
      return flags.Fail("--sessions: START_MS-END_MS[@PLACE], comma-separated");
    }
    s->set_start_ms(start);
    s->set_end_ms(end);
    s->set_place(at.second);
  }
  c.Send(&Stub::CreateGame, req);
}

void Move(Call& c) {
  v1::SubmitMoveRequest req = BySide<v1::SubmitMoveRequest>(c);
  req.set_move(c.flags().Required("move"));
  req.set_offer_draw(c.flags().Bool("offer-draw"));
  if (c.args().Has("lag-ms")) req.set_lag_ms(c.flags().Int("lag-ms"));
  c.Send(&Stub::SubmitMove, req);
}

void Respond(Call& c) {
  v1::RespondDrawRequest req = BySide<v1::RespondDrawRequest>(c);
  const bool accept = c.flags().Bool("accept");
  const bool decline = c.flags().Bool("decline");
  if (accept == decline) c.flags().Fail("respond needs exactly one of --accept and --decline");
  req.set_accept(accept);
  c.Send(&Stub::RespondDraw, req);
}

void Claim(Call& c) {
  FlagReader& flags = c.flags();
  v1::ClaimRequest req = BySide<v1::ClaimRequest>(c);
  req.set_kind(flags.OneOf(flags.Required("kind"), kClaimKindNames,
                           "--kind must be threefold, fifty, quickplay, time, illegal_move or "
                           "touch_move"));
  req.set_intended_move(c.args().Get("move"));
  if (c.args().Has("ground")) {
    req.set_ground(flags.OneOf(c.args().Get("ground"), kQuickplayGroundNames,
                               "--ground must be cannot_win or no_attempt"));
  }
  c.Send(&Stub::Claim, req);
}

void Rule(Call& c) {
  FlagReader& flags = c.flags();
  v1::RuleRequest req = c.Command<v1::RuleRequest>();
  req.set_decision(flags.OneOf(flags.Required("decision"), kRulingDecisionNames,
                               "--decision must be draw, postpone or reject"));
  req.set_add_time(flags.Bool("add-time"));
  req.set_reason(c.args().Get("reason"));
  c.Send(&Stub::Rule, req);
}

void SetResult(Call& c) {
  FlagReader& flags = c.flags();
  v1::SetResultRequest req = c.Command<v1::SetResultRequest>();
  req.set_result(flags.OneOf(flags.Required("result"), kResultFlagNames,
                             "--result must be 1-0, 0-1, 1/2-1/2 or 0-0"));
  req.set_article(flags.Required("article"));
  req.set_reason(flags.Required("reason"));
  c.Send(&Stub::SetResult, req);
}

// 6.13a: the arbiter interrupts the game (a reason is required) and restarts it.
void Pause(Call& c) {
  v1::PauseGameRequest req = c.Command<v1::PauseGameRequest>();
  req.set_reason(c.flags().Required("reason"));
  c.Send(&Stub::PauseGame, req);
}

void Resume(Call& c) {
  v1::ResumeGameRequest req = c.Command<v1::ResumeGameRequest>();
  req.set_reason(c.args().Get("reason"));
  c.Send(&Stub::ResumeGame, req);
}

// The arbiter adds time to a side or deducts it (--delta-ms, negative to deduct), with the
// article (6.8d, 7.4b, 8.1, 13.4b, 13.4c, 13.5; none: his decision) and the reason.
void Adjust(Call& c) {
  FlagReader& flags = c.flags();
  v1::AdjustTimeRequest req = BySide<v1::AdjustTimeRequest>(c);
  req.set_delta_ms(flags.Int("delta-ms"));
  req.set_article(c.args().Get("article"));
  req.set_reason(flags.Required("reason"));
  c.Send(&Stub::AdjustTime, req);
}

// 6.14 / 6.11: the arbiter sets both clocks (and, if given, the move counters).
void SetClocks(Call& c) {
  FlagReader& flags = c.flags();
  v1::SetClocksRequest req = c.Command<v1::SetClocksRequest>();
  req.set_white_ms(flags.Int("white-ms"));
  req.set_black_ms(flags.Int("black-ms"));
  if (c.args().Has("white-moves")) req.set_white_moves(static_cast<int>(flags.Int("white-moves")));
  if (c.args().Has("black-moves")) req.set_black_moves(static_cast<int>(flags.Int("black-moves")));
  req.set_article(c.args().Get("article"));
  req.set_reason(flags.Required("reason"));
  c.Send(&Stub::SetClocks, req);
}

// An electronic board's reports (4.3-4.7, 7.4a) from --file PATH ("-" or none: stdin),
// one a line: a placement (FEN's first field, or a whole FEN) with optional words "pressed" (the
// clock pressed after it) and "adjust" (4.2: "j'adoube" first) and "at=MS"; or a JSON object
// {"at_ms", "placement", "clock_pressed", "adjust"}. Blank lines and "#" comments are skipped.
void Feed(Call& c) {
  FlagReader& flags = c.flags();
  v1::SubmitBoardFeedRequest req = c.Command<v1::SubmitBoardFeedRequest>();
  const std::string path = c.args().Has("file") ? c.args().Get("file") : "-";
  std::ifstream file;
  if (path != "-") {
    file.open(path);
    if (!file) return flags.Fail(absl::StrCat("--file: cannot read ", path));
  }
  std::istream& in = path == "-" ? std::cin : file;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text[0] == '#') continue;
    v1::BoardPlacement* p = req.add_placements();
    if (text[0] == '{') {
      if (!google::protobuf::util::JsonStringToMessage(std::string(text), p).ok()) {
        return flags.Fail(absl::StrCat("line ", n, ": not a board report"));
      }
      continue;
    }
    std::vector<std::string> words = absl::StrSplit(text, ' ', absl::SkipWhitespace());
    p->set_placement(words[0]);
    for (size_t i = 1; i < words.size(); ++i) {
      std::int64_t at = 0;
      if (words[i] == "pressed") {
        p->set_clock_pressed(true);
      } else if (words[i] == "adjust") {
        p->set_adjust(true);
      } else if (absl::StartsWith(words[i], "at=") && absl::SimpleAtoi(words[i].substr(3), &at)) {
        p->set_at_ms(at);
      } else if (i > 5 || words[i].find('/') != std::string::npos) {
        return flags.Fail(absl::StrCat("line ", n, ": \"", words[i], "\"?"));
      }
      // The rest of a whole FEN (side, castling, en passant, counters) is ignored.
    }
  }
  if (req.placements().empty()) return flags.Fail("feed: no board reports");
  c.Send(&Stub::SubmitBoardFeed, req);
}

// --- Article 7, 6.13b/d, 12, 13.4 ---

// 6.14: --white-ms and --black-ms, both or neither.
template <typename Request>
void ClocksFlags(Call& c, Request& req) {
  if (c.args().Has("white-ms")) req.set_white_ms(c.flags().Int("white-ms"));
  if (c.args().Has("black-ms")) req.set_black_ms(c.flags().Int("black-ms"));
}

// 7.4a: the arbiter reports an illegal move (--from --to [--promotion] [--ply] [--side]).
void ReportIllegal(Call& c) {
  FlagReader& flags = c.flags();
  v1::ReportIllegalMoveRequest req = c.Command<v1::ReportIllegalMoveRequest>();
  if (c.args().Has("side")) req.set_side(flags.Side());
  if (c.args().Has("ply")) req.set_ply(static_cast<int>(flags.Int("ply")));
  req.set_from(flags.Required("from"));
  req.set_to(flags.Required("to"));
  req.set_promotion(c.args().Get("promotion"));
  ClocksFlags(c, req);
  req.set_reason(c.args().Get("reason"));
  req.set_position_unknown(flags.Bool("position-unknown"));  // 7.4a: --ply is the last known
  c.Send(&Stub::ReportIllegalMove, req);
}

// C3: the offender made an illegal move and pressed the clock.
void CompleteIllegal(Call& c) {
  FlagReader& flags = c.flags();
  v1::CompleteIllegalMoveRequest req = BySide<v1::CompleteIllegalMoveRequest>(c);
  req.set_from(flags.Required("from"));
  req.set_to(flags.Required("to"));
  req.set_promotion(c.args().Get("promotion"));
  c.Send(&Stub::CompleteIllegalMove, req);
}

// 7.1a, 7.1b, 7.2 (--replay), 7.3, 7.5 (--ply, the clocks).
void Irregularity(Call& c) {
  FlagReader& flags = c.flags();
  v1::RuleIrregularityRequest req = c.Command<v1::RuleIrregularityRequest>();
  req.set_article(flags.Required("article"));
  req.set_replay(flags.Bool("replay"));
  if (c.args().Has("ply")) req.set_ply(static_cast<int>(flags.Int("ply")));
  ClocksFlags(c, req);
  req.set_reason(flags.Required("reason"));
  if (c.args().Has("side")) req.set_side(flags.Side());      // 7.3: who displaced the pieces
  req.set_position_unknown(flags.Bool("position-unknown"));  // 7.5: --ply is the last known
  c.Send(&Stub::RuleIrregularity, req);
}

// 6.13b: a player stops the clocks to seek the arbiter.
void StopClocks(Call& c) {
  v1::StopClocksRequest req = BySide<v1::StopClocksRequest>(c);
  req.set_reason(c.flags().Required("reason"));
  c.Send(&Stub::StopClocks, req);
}

// 6.13d: --valid, or without it the penalty (--penalty 13.4a|13.4b|13.4c [--penalty-ms]).
void RuleStop(Call& c) {
  FlagReader& flags = c.flags();
  v1::RuleStopRequest req = c.Command<v1::RuleStopRequest>();
  req.set_valid(flags.Bool("valid"));
  req.set_penalty(c.args().Get("penalty"));
  if (c.args().Has("penalty-ms")) req.set_penalty_ms(flags.Int("penalty-ms"));
  req.set_reason(flags.Required("reason"));
  c.Send(&Stub::RuleStop, req);
}

// 12.4, 12.7, 12.8, 13.4a/d/e/f/g.
void Power(Call& c) {
  FlagReader& flags = c.flags();
  v1::UsePowerRequest req = c.Command<v1::UsePowerRequest>();
  req.set_power(flags.OneOf(flags.Required("power"), kArbiterPowerNames,
                            "--power must be warning, loss, reduce_points, increase_points, "
                            "expulsion, persistent_refusal, both_refuse or leave_permitted"));
  if (c.args().Has("side")) req.set_side(flags.Side());
  if (c.args().Has("points")) {
    double points = 0;
    if (!absl::SimpleAtod(c.args().Get("points"), &points)) {
      flags.Fail("--points must be a number");
    }
    req.set_points(points);
  }
  req.set_reason(flags.Required("reason"));
  c.Send(&Stub::UsePower, req);
}

// Appendix A1: the player on move seals (--stop-clock: he stops his clock, the envelope closes).
void Seal(Call& c) {
  v1::SealMoveRequest req = BySide<v1::SealMoveRequest>(c);
  req.set_move(c.flags().Required("move"));
  req.set_stop_clock(c.flags().Bool("stop-clock"));
  c.Send(&Stub::SealMove, req);
}

// A1: the arbiter calls for the seal, or closes the sealed envelope.
void Adjourn(Call& c) {
  v1::AdjournGameRequest req = c.Command<v1::AdjournGameRequest>();
  req.set_reason(c.args().Get("reason"));
  c.Send(&Stub::AdjournGame, req);
}

// A11: the envelope is lost (--position-unknown: A11b, the game is void).
void EnvelopeLost(Call& c) {
  v1::ReportEnvelopeLostRequest req = c.Command<v1::ReportEnvelopeLostRequest>();
  req.set_position_unknown(c.flags().Bool("position-unknown"));
  req.set_reason(c.flags().Required("reason"));
  c.Send(&Stub::ReportEnvelopeLost, req);
}

// The subcommands whose reply is the game after them (Print).
constexpr ClientCall<Stub, v1::GameReply> kCalls[] = {
    {"create", Create},
    {"start", [](Call& c) { c.Send(&Stub::StartGame, c.StartCommand<v1::StartGameRequest>()); }},
    {"arrive", [](Call& c) { c.Send(&Stub::Arrive, BySide<v1::ArriveRequest>(c)); }},
    {"move", Move},
    {"offer", [](Call& c) { c.Send(&Stub::OfferDraw, BySide<v1::OfferDrawRequest>(c)); }},
    {"respond", Respond},
    {"claim", Claim},
    {"rule", Rule},
    {"resign", [](Call& c) { c.Send(&Stub::Resign, BySide<v1::ResignRequest>(c)); }},
    {"confirm", [](Call& c) { c.Send(&Stub::ConfirmResult, BySide<v1::ConfirmResultRequest>(c)); }},
    {"result", SetResult},
    {"pause", Pause},
    {"resume", Resume},
    {"adjust", Adjust},
    {"set-clocks", SetClocks},
    {"feed", Feed},
    {"report-illegal", ReportIllegal},
    {"complete-illegal", CompleteIllegal},
    {"irregularity", Irregularity},
    {"stop-clocks", StopClocks},
    {"rule-stop", RuleStop},
    {"power", Power},
    {"seal", Seal},
    {"adjourn", Adjourn},
    {"resume-adjourned",  // A5, A9: [--absent white,black]
     [](Call& c) {
       c.Send(&Stub::ResumeAdjournedGame, c.StartCommand<v1::ResumeAdjournedGameRequest>());
     }},
    {"envelope-lost", EnvelopeLost},
    {"get", [](Call& c) { c.Send(&Stub::GetGame, c.ForGame<v1::GetGameRequest>()); }},
};

constexpr ClientStream<Stub> kStreams[] = {{"watch", Watch}, {"pgn", Pgn}, {"archive", Archive}};

}  // namespace

int RunGameClient(const ClientArgs& args, std::ostream& out, std::ostream& err) {
  return RunClientCommand<v1::Arbitration, v1::GameReply>(args, Usage, kCalls, Print, kStreams, out,
                                                          err);
}

}  // namespace arbiterctl
