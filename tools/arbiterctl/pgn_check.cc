#include "tools/arbiterctl/pgn_check.h"

#include <ostream>

#include "libs/base/error.h"
#include "libs/chess/pgn.h"
#include "nlohmann/json.hpp"

namespace arbiterctl {

int CheckPgn(const std::string& text, bool json, std::ostream& out) {
  absl::StatusOr<std::vector<chess::PgnGame>> games = chess::ParsePgn(text);
  if (!games.ok()) {
    if (json) {
      out << nlohmann::json{{"error",
                             {{"code", base::ErrorCode(games.status())},
                              {"message", std::string(games.status().message())}}}}
                 .dump()
          << '\n';
    } else {
      out << base::ErrorCode(games.status()) << ": " << games.status().message() << '\n';
    }
    return 1;
  }
  int bad = 0;
  for (size_t i = 0; i < games->size(); ++i) {
    chess::PgnGame& game = (*games)[i];
    int ply = -1;
    absl::Status st = chess::ReplayGame(&game, &ply);
    if (st.ok()) continue;
    ++bad;
    const int number = static_cast<int>(i) + 1;
    if (json) {
      nlohmann::json line = {
          {"game", number}, {"code", base::ErrorCode(st)}, {"message", std::string(st.message())}};
      if (ply >= 0) {
        const chess::PgnMove& m = game.moves[ply];
        line["ply"] = ply + 1;
        line["san"] = m.san;
        line["line"] = m.line;
        line["column"] = m.column;
      }
      if (chess::IllegalReasonOf(st) != chess::IllegalMoveReason::kNone) {
        line["reason"] = std::string(chess::IllegalMoveReasonName(chess::IllegalReasonOf(st)));
      }
      out << line.dump() << '\n';
    } else {
      out << "game " << number << ": " << base::ErrorCode(st) << ": " << st.message() << '\n';
    }
  }
  if (json) {
    out << nlohmann::json{{"games", games->size()}, {"bad", bad}}.dump() << '\n';
  } else {
    out << games->size() << " games, " << bad << " with an illegal or ambiguous move\n";
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace arbiterctl
