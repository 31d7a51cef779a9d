#include "tools/arbiterctl/analysis_cmds.h"

#include <istream>
#include <ostream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "libs/analysis/advice.h"
#include "libs/analysis/engine_pool.h"
#include "libs/analysis/errors.h"
#include "libs/analysis/unwinnable.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/chess/fen.h"
#include "libs/chess/game.h"
#include "libs/chess/notation.h"
#include "nlohmann/json.hpp"
#include "tools/arbiterctl/errors.h"
#include "tools/arbiterctl/json_lines.h"

namespace arbiterctl {
namespace {

using nlohmann::json;
// Input text reaches messages (a FEN's bad byte, a move): invalid UTF-8 is replaced rather than
// thrown on, which would end the whole command (as JsonLineOf, json_lines.h).
constexpr auto kReplace = json::error_handler_t::replace;

constexpr std::int64_t kMaxNodesCap = 100'000'000;

json LineJson(const std::vector<chess::Move>& line) {
  json out = json::array();
  for (chess::Move m : line) out.push_back(chess::ToUci(m));
  return out;
}

json ResultJson(const analysis::UnwinnabilityResult& r) {
  json out{{"verdict", std::string(analysis::VerdictName(r.verdict))},
           {"method", std::string(analysis::MethodName(r.method))},
           {"reason", r.reason},
           {"nodes", r.nodes}};
  if (r.verdict == analysis::Verdict::kWinnable) out["line"] = LineJson(r.line);
  return out;
}

const std::string* Flag(const std::map<std::string, std::string>& flags, const std::string& name) {
  auto it = flags.find(name);
  return it == flags.end() ? nullptr : &it->second;
}

// A whole number flag in [lo, hi]; `fallback` when absent.
absl::StatusOr<std::int64_t> IntFlag(const std::map<std::string, std::string>& flags,
                                     const std::string& name, std::int64_t fallback,
                                     std::int64_t lo, std::int64_t hi) {
  const std::string* v = Flag(flags, name);
  if (v == nullptr) return fallback;
  std::int64_t n = 0;
  if (!absl::SimpleAtoi(*v, &n) || n < lo || n > hi) {
    return base::Error(base::kErrBadArgument,
                       absl::StrCat("--", name, " must be a whole number ", lo, "..", hi));
  }
  return n;
}

int Usage(const absl::Status& status, std::ostream& out, std::ostream& err) {
  out << ErrorJson(status).dump(-1, ' ', false, kReplace) << "\n";
  err << "arbiterctl: " << base::ErrorCode(status) << ": " << status.message() << "\n";
  return 2;
}

}  // namespace

std::string UnwinnableLine(const std::string& line) {
  absl::StatusOr<json> parsed = ParseObjectLine(line);
  if (!parsed.ok()) return ErrorJson(parsed.status()).dump(-1, ' ', false, kReplace);
  json& in = *parsed;
  if (!in.contains("fen") || !in["fen"].is_string()) {
    return ErrorJson(base::Error(arbiterctl::kErrBadJson, "\"fen\" must be a string"))
        .dump(-1, ' ', false, kReplace);
  }
  if (!in.contains("side") || !in["side"].is_string() ||
      (in["side"] != "white" && in["side"] != "black")) {
    return ErrorJson(
               base::Error(arbiterctl::kErrBadJson, "\"side\" must be \"white\" or \"black\""))
        .dump(-1, ' ', false, kReplace);
  }
  analysis::SearchLimits limits;
  if (in.contains("max_nodes")) {
    if (!in["max_nodes"].is_number_integer() || in["max_nodes"].get<std::int64_t>() < 1 ||
        in["max_nodes"].get<std::int64_t>() > kMaxNodesCap) {
      return ErrorJson(base::Error(analysis::kErrBadLimits,
                                   "\"max_nodes\" must be a whole number 1..1e8"))
          .dump(-1, ' ', false, kReplace);
    }
    limits.max_nodes = in["max_nodes"].get<std::int64_t>();
  }
  bool potential = false;
  if (in.contains("goal")) {
    if (in["goal"] == "mating_potential") {
      potential = true;
    } else if (in["goal"] != "mate") {
      return ErrorJson(base::Error(arbiterctl::kErrBadJson,
                                   "\"goal\" must be \"mate\" or \"mating_potential\""))
          .dump(-1, ' ', false, kReplace);
    }
  }
  absl::StatusOr<chess::Position> pos = chess::ParseFenTolerant(in["fen"].get<std::string>());
  if (!pos.ok()) return ErrorJson(pos.status()).dump(-1, ' ', false, kReplace);
  const chess::Color side = in["side"] == "white" ? chess::Color::kWhite : chess::Color::kBlack;
  // 6.10 / C3 / 5.2b: can `side` mate? (C4, 1997: mating potential.)
  analysis::UnwinnabilityResult r = potential ? analysis::AnalyzeMatingPotential(*pos, side, limits)
                                              : analysis::AnalyzeUnwinnability(*pos, side, limits);
  return ResultJson(r).dump(-1, ' ', false, kReplace);
}

int RunUnwinnable(std::istream& in, std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    out << UnwinnableLine(line) << "\n";
    out.flush();
  }
  return 0;
}

int RunDead(const std::map<std::string, std::string>& flags, std::ostream& out, std::ostream& err) {
  const std::string* fen = Flag(flags, "fen");
  if (fen == nullptr)
    return Usage(base::Error(base::kErrBadArgument, "--fen is required"), out, err);
  absl::StatusOr<std::int64_t> max_nodes =
      IntFlag(flags, "max-nodes", analysis::SearchLimits{}.max_nodes, 1, kMaxNodesCap);
  if (!max_nodes.ok()) return Usage(max_nodes.status(), out, err);
  absl::StatusOr<chess::Position> pos = chess::ParseFenTolerant(*fen);
  if (!pos.ok()) return Usage(pos.status(), out, err);
  analysis::SearchLimits limits;
  limits.max_nodes = *max_nodes;
  // 5.2b / 9.6: dead when neither side can mate by any series of legal moves.
  analysis::DeadPositionResult d = analysis::AnalyzeDeadPosition(*pos, limits);
  json o{
      {"fen", chess::ToFen(*pos)}, {"white", ResultJson(d.white)}, {"black", ResultJson(d.black)}};
  switch (d.verdict) {
    case analysis::Verdict::kUnwinnable:
      o["dead"] = true;
      o["verdict"] = "dead";
      break;
    case analysis::Verdict::kWinnable:
      o["dead"] = false;
      o["verdict"] = "alive";
      break;
    case analysis::Verdict::kUndetermined:
      o["dead"] = nullptr;
      o["verdict"] = "undetermined";
      break;
  }
  out << o.dump(-1, ' ', false, kReplace) << "\n";
  return 0;
}

int RunAdvise(const std::map<std::string, std::string>& flags, std::ostream& out,
              std::ostream& err) {
  const std::string* fen = Flag(flags, "fen");
  absl::StatusOr<chess::Position> start =
      chess::ParseFenTolerant(fen == nullptr ? "startpos" : *fen);
  if (!start.ok()) return Usage(start.status(), out, err);
  chess::Game game(*start);
  if (const std::string* moves = Flag(flags, "moves")) {
    int index = 0;
    for (absl::string_view text :
         absl::StrSplit(*moves, absl::ByAnyChar(" ,"), absl::SkipEmpty())) {
      absl::StatusOr<chess::Move> m = chess::ParseMove(game.position(), text);
      absl::Status st = m.ok() ? game.Play(*m) : m.status();
      if (!st.ok()) {
        return Usage(base::Error(st.code(), base::ErrorCode(st),
                                 absl::StrCat("moves[", index, "] ", text, ": ", st.message())),
                     out, err);
      }
      ++index;
    }
  }
  absl::StatusOr<std::int64_t> depth = IntFlag(flags, "depth", 14, 0, 128);
  absl::StatusOr<std::int64_t> nodes = IntFlag(flags, "nodes", 0, 0, 1'000'000'000'000);
  absl::StatusOr<std::int64_t> movetime = IntFlag(flags, "movetime", 0, 0, 3'600'000);
  absl::StatusOr<std::int64_t> multipv = IntFlag(flags, "multipv", 3, 1, 64);
  absl::StatusOr<std::int64_t> last = IntFlag(flags, "last", 10, 1, 500);
  absl::StatusOr<std::int64_t> timeout = IntFlag(flags, "timeout", 30'000, 1, 3'600'000);
  for (const auto* s : {&depth, &nodes, &movetime, &multipv, &last, &timeout}) {
    if (!s->ok()) return Usage(s->status(), out, err);
  }
  const absl::Time deadline = absl::Now() + absl::Milliseconds(*timeout);
  analysis::ClaimAdviceOptions options;
  options.last_moves = static_cast<int>(*last);
  options.engine_limits = {.depth = static_cast<int>(*depth),
                           .nodes = *nodes,
                           .movetime = absl::Milliseconds(*movetime),
                           .multipv = static_cast<int>(*multipv)};
  // A quarter of the time for the proof; the engine gets the rest.
  options.unwinnable_limits.deadline = absl::Now() + absl::Milliseconds(*timeout) / 4;

  std::unique_ptr<analysis::EnginePool> pool;
  std::string engine_note;
  const std::string* engine = Flag(flags, "engine");
  if (engine == nullptr || *engine != "none") {
    absl::StatusOr<std::unique_ptr<analysis::EnginePool>> p = analysis::EnginePool::Create(
        {.engine_path = engine == nullptr ? analysis::kDefaultEnginePath : *engine, .size = 1});
    if (p.ok()) {
      pool = *std::move(p);
    } else {
      engine_note = absl::StrCat("engine advice unavailable: ", base::ErrorCode(p.status()), ": ",
                                 p.status().message());
    }
  }
  absl::StatusOr<analysis::ClaimAdvice> a =
      analysis::AdviseClaim(game, pool.get(), options, deadline);
  if (!a.ok()) return Usage(a.status(), out, err);
  if (!engine_note.empty()) a->notes.push_back(engine_note);

  const chess::Position& now = game.position();
  json lines = json::array();
  for (const analysis::PvLine& l : a->lines) {
    json j{{"multipv", l.multipv}, {"depth", l.depth}, {"pv", LineJson(l.pv)}};
    if (l.score_cp) j["score_cp"] = *l.score_cp;
    if (l.mate_in) j["mate_in"] = *l.mate_in;
    if (!l.pv.empty()) j["first_move_san"] = chess::ToSan(now, l.pv[0]);
    lines.push_back(j);
  }
  json material = json::array();
  for (const analysis::MaterialPoint& m : a->material) {
    material.push_back({{"ply", m.ply}, {"white", m.white}, {"black", m.black}});
  }
  json o{{"label", a->label},
         {"fen", chess::ToFen(now)},
         {"claimant", std::string(chess::ColorName(a->claimant))},
         {"opponent", std::string(chess::ColorName(a->opponent))},
         {"opponent_can_mate", ResultJson(a->opponent_can_mate)},
         {"engine_used", a->engine_used},
         {"lines", lines},
         {"progress",
          {{"moves_considered", a->moves_considered},
           {"opponent_captures", a->opponent_captures},
           {"opponent_pawn_moves", a->opponent_pawn_moves},
           {"opponent_checks", a->opponent_checks},
           {"halfmove_clock", a->halfmove_clock},
           {"material", material}}},
         {"notes", a->notes}};
  if (a->opponent_score_cp) o["opponent_score_cp"] = *a->opponent_score_cp;
  if (a->opponent_mate_in) o["opponent_mate_in"] = *a->opponent_mate_in;
  if (a->earlier_opponent_score_cp) o["earlier_opponent_score_cp"] = *a->earlier_opponent_score_cp;
  out << o.dump(-1, ' ', false, kReplace) << "\n";
  return 0;
}

}  // namespace arbiterctl
