// arbiterctl: the command-line tool of Arbiter.
//
//   arbiterctl perft --fen <FEN|startpos> --depth N [--divide]
//   arbiterctl analyze            < JSON lines
//   arbiterctl pgn check FILE [--json]
//   arbiterctl clock simulate     < JSON lines
//   arbiterctl game simulate      < JSON lines
//   arbiterctl demo               (a short demonstration game)
//   arbiterctl record keygen|verify|get|keys  (signed records, record_cmds.h)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/chess/perft.h"
#include "tools/arbiterctl/analysis_cmds.h"
#include "tools/arbiterctl/analyze.h"
#include "tools/arbiterctl/client.h"
#include "tools/arbiterctl/clock_client.h"
#include "tools/arbiterctl/clock_simulate.h"
#include "tools/arbiterctl/demo.h"
#include "tools/arbiterctl/errors.h"
#include "tools/arbiterctl/event_cmds.h"
#include "tools/arbiterctl/game_client.h"
#include "tools/arbiterctl/game_simulate.h"
#include "tools/arbiterctl/json_lines.h"
#include "tools/arbiterctl/listing_cmds.h"
#include "tools/arbiterctl/pgn_check.h"
#include "tools/arbiterctl/record_cmds.h"

namespace arbiterctl {
namespace {

constexpr char kUsage[] =
    "usage:\n"
    "  arbiterctl perft --fen <FEN|startpos> --depth N [--divide]\n"
    "  arbiterctl analyze < JSON lines ({\"fen\": ..., \"moves\": [...]})\n"
    "  arbiterctl pgn check FILE [--json]\n"
    "  arbiterctl clock simulate < JSON lines (scenarios)\n"
    "  arbiterctl game simulate < JSON lines ({\"edition\", \"time_control\", \"events\": [...]})\n"
    "  arbiterctl unwinnable < JSON lines ({\"fen\": ..., \"side\": \"white\"|\"black\"})\n"
    "  arbiterctl dead --fen <FEN> [--max-nodes N]\n"
    "  arbiterctl advise --fen <FEN> [--moves \"e4 e5 ...\"] [--engine PATH|none] [--depth N] ...\n"
    "  arbiterctl demo\n"
    "  arbiterctl record keygen --private-key PATH [--public-key PATH]\n"
    "  arbiterctl record verify --record FILE (--public-key FILE | --keys FILE) [--json]\n"
    "client commands (a running server; --server=host:port --token=JWT --json):\n"
    "  arbiterctl health [--service NAME]\n"
    "  arbiterctl rules validate --fen <FEN|startpos> --move <UCI|SAN>\n"
    "  arbiterctl rules status --fen <FEN|startpos> [--moves m1,m2,...] [--edition fide2023]\n"
    "  arbiterctl rules apply|legal|perft --fen ... [--moves ...] [--depth N]\n"
    "  arbiterctl clock create --game ID --time-control TC --edition E\n"
    "  arbiterctl clock start|press|pause|resume|get|watch --game ID [--json]\n"
    "  arbiterctl clock adjust --game ID --side S --delta-ms N\n"
    "  arbiterctl game create --game ID --white ID --black ID --edition E --time-control TC\n"
    "             [--no-arbiter] [--unsupervised] [--start-fen FEN] [--default-time-ms N]\n"
    "             [--event T] ...  (--event naming an event: edition, time control may go)\n"
    "  arbiterctl game start|arrive|offer|resign|confirm --game ID [--side S] [--absent S,S]\n"
    "  arbiterctl game move --game ID --side S --move M [--offer-draw]\n"
    "  arbiterctl game respond --game ID --side S --accept|--decline\n"
    "  arbiterctl game claim --game ID --side S --kind threefold|fifty|quickplay|time [--move M]\n"
    "  arbiterctl game rule --game ID --decision draw|postpone|reject [--add-time] [--reason T]\n"
    "  arbiterctl game result --game ID --result 1-0|0-1|1/2-1/2|0-0 --article A --reason T\n"
    "  arbiterctl game get|watch|pgn --game ID [--json]\n"
    "  arbiterctl game feed --game ID [--file PATH]  (a board's placements, one a line; stdin)\n"
    "  arbiterctl game claim --game ID --side S --kind touch_move  (4.3-4.5, B5a)\n"
    "  (every mutating game command: [--command-id ID] [--expected-version N])\n"
    "  arbiterctl games [--status S] [--event ID] [--round R] [--player ID] --json\n"
    "  arbiterctl event create --event ID --edition E --time-control TC [--name N]\n"
    "             [--default-time S] [--first-draw-offer N] [--no-arbiter] [--unsupervised]\n"
    "  arbiterctl event get --event ID\n"
    "  arbiterctl event round --event ID --round N --pairings FILE|JSON --command-id ID "
    "[--start]\n"
    "  arbiterctl event results --event ID [--round N] --json\n"
    "  arbiterctl event pgn --event ID [--round N]\n"
    "  arbiterctl event games --event ID [--status S] --json\n"
    "  arbiterctl event pause|resume --event ID --command-id ID [--reason T] "
    "[--outage-started-ms N]\n"
    "  arbiterctl record get --game ID [--block]  (the signed record; --block: its block only)\n"
    "  arbiterctl record keys  (the public keys records are signed with, as PEM)\n";

int Fail(const absl::Status& status) { return PrintError(status, std::cerr); }

int Perft(const Args& args) {
  absl::StatusOr<chess::Position> pos = chess::ParseFenOrStartpos(args.Get("fen", "startpos"));
  if (!pos.ok()) return Fail(pos.status());
  int depth = 0;
  if (!absl::SimpleAtoi(args.Get("depth", ""), &depth) || depth < 0 || depth > 12) {
    return Fail(base::Error(base::kErrBadArgument, "--depth must be a whole number 0..12"));
  }
  auto start = std::chrono::steady_clock::now();
  std::uint64_t nodes = 0;
  if (args.Has("divide") && depth >= 1) {
    for (const auto& [move, count] : chess::PerftDivide(*pos, depth)) {
      std::cout << chess::ToUci(move) << ": " << count << "\n";
      nodes += count;
    }
    std::cout << "\n";
  } else {
    nodes = chess::Perft(*pos, depth);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << "perft depth " << depth << ": " << nodes << " nodes in "
            << static_cast<long long>(seconds * 1000) << " ms, "
            << static_cast<long long>(seconds > 0 ? nodes / seconds : 0) << " nodes/s\n";
  std::cout << "Nodes searched: " << nodes << "\n";
  return 0;
}

int Pgn(const Args& args) {
  if (args.positional.size() != 3 || args.positional[1] != "check") {
    std::cerr << kUsage;
    return 2;
  }
  std::ifstream file(args.positional[2], std::ios::binary);
  if (!file)
    return Fail(base::Error(arbiterctl::kErrFileNotFound, "cannot open " + args.positional[2]));
  std::stringstream text;
  text << file.rdbuf();
  return CheckPgn(text.str(), args.Has("json"), std::cout);
}

// The flags `command` reads; any other is refused before anything runs.
std::vector<std::string> KnownFlags(const std::string& command, bool simulate) {
  std::vector<std::string> known;
  auto add = [&known](const auto& flags) {
    known.insert(known.end(), std::begin(flags), std::end(flags));
  };
  if (command == "perft") add(std::vector<std::string>{"fen", "depth", "divide"});
  if (command == "pgn") add(std::vector<std::string>{"json"});
  if (command == "dead") add(kDeadFlags);
  if (command == "advise") add(kAdviseFlags);
  if (command == "record") {
    add(kRecordFlags);
    add(kConnectionFlags);
  }
  if (simulate) return known;  // `clock simulate`, `game simulate`: the scenario is on stdin
  if (command == "health" || command == "rules" || command == "clock" || command == "game") {
    add(kConnectionFlags);
  }
  if (command == "health" || command == "rules") add(kRulesFlags);
  if (command == "clock") add(kClockFlags);
  if (command == "game") add(kGameFlags);
  if (command == "games" || command == "event") {
    add(kConnectionFlags);
    add(kListingFlags);
  }
  if (command == "event") add(kEventFlags);
  return known;
}

int Main(int argc, char** argv) {
  std::vector<std::string> boolean_flags = {"divide", "json", "lag-compensation", "block"};
  boolean_flags.insert(boolean_flags.end(), std::begin(kGameBooleanFlags),
                       std::end(kGameBooleanFlags));
  boolean_flags.insert(boolean_flags.end(), std::begin(kEventBooleanFlags),
                       std::end(kEventBooleanFlags));
  Args args = Args::Parse(argc, argv, boolean_flags);
  if (args.positional.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string& command = args.positional[0];
  const bool simulate = args.positional.size() == 2 && args.positional[1] == "simulate";
  if (const std::string unknown = UnknownFlag(args, KnownFlags(command, simulate));
      !unknown.empty()) {
    std::cerr << "arbiterctl " << command << ": " << unknown << "\n";
    return 2;
  }
  if (command == "perft") return Perft(args);
  if (command == "analyze") return RunAnalyze(std::cin, std::cout);
  if (command == "pgn") return Pgn(args);
  if (command == "clock" && simulate) {
    return RunJsonLines(std::cin, std::cout, SimulateClockLine);
  }
  if (command ==
      "clock") {  // create|start|press|pause|resume|adjust|set|replace|arrive|claim|get|watch
    return RunClockClient(args, std::cout, std::cerr);
  }
  if (command == "game" && simulate) {
    return RunJsonLines(std::cin, std::cout, SimulateGameLine);
  }
  if (command == "game") {  // create|start|arrive|move|offer|respond|claim|rule|...|watch|pgn
    return RunGameClient(args, std::cout, std::cerr);
  }
  if (command == "demo") return RunDemo(std::cout);
  if (command == "record") return RunRecord(args, std::cout, std::cerr);
  if (command == "games") return RunGames(args, std::cout, std::cerr);
  if (command == "event") {  // create|get|round|results|pgn, or games|pause|resume
    return IsEventRecordCommand(args) ? RunEventRecord(args, std::cout, std::cerr)
                                      : RunEvent(args, std::cout, std::cerr);
  }
  if (command == "unwinnable") return RunUnwinnable(std::cin, std::cout);
  if (command == "dead") return RunDead(args.flags, std::cout, std::cerr);
  if (command == "advise") return RunAdvise(args.flags, std::cout, std::cerr);
  if (command == "health" || command == "rules") {
    return RunClient(args, std::cout, std::cerr);
  }
  std::cerr << kUsage;
  return 2;
}

}  // namespace
}  // namespace arbiterctl

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return arbiterctl::Main(argc, argv);
}
