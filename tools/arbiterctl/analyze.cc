#include "tools/arbiterctl/analyze.h"

#include <algorithm>
#include <istream>
#include <ostream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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

constexpr size_t kMaxMoves = 10000;

std::vector<std::string> SortedStrings(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

std::string AnalyzeLine(const std::string& line) {
  absl::StatusOr<json> parsed = ParseObjectLine(line);
  if (!parsed.ok()) return ErrorJson(parsed.status()).dump(-1, ' ', false, kReplace);
  json& in = *parsed;
  std::string fen = "startpos";
  if (in.contains("fen")) {
    if (!in["fen"].is_string())
      return ErrorJson(base::Error(arbiterctl::kErrBadJson, "\"fen\" must be a string"))
          .dump(-1, ' ', false, kReplace);
    fen = in["fen"].get<std::string>();
  }
  absl::StatusOr<chess::Position> start = chess::ParseFenTolerant(fen);
  if (!start.ok()) return ErrorJson(start.status()).dump(-1, ' ', false, kReplace);
  chess::Game game(*start);
  std::vector<size_t> draw_offers;  // the moves written with "(=)"
  if (in.contains("moves")) {
    const json& moves = in["moves"];
    if (!moves.is_array())
      return ErrorJson(
                 base::Error(arbiterctl::kErrBadJson, "\"moves\" must be an array of strings"))
          .dump(-1, ' ', false, kReplace);
    if (moves.size() > kMaxMoves)
      return ErrorJson(base::Error(base::kErrTooLarge, "at most 10000 moves"))
          .dump(-1, ' ', false, kReplace);
    for (size_t i = 0; i < moves.size(); ++i) {
      if (!moves[i].is_string()) {
        return ErrorJson(base::Error(arbiterctl::kErrBadJson,
                                     absl::StrCat("moves[", i, "] must be a string")))
            .dump(-1, ' ', false, kReplace);
      }
      const std::string text = moves[i].get<std::string>();
      // Appendix E12: "(=)" after a move is a draw offer.
      const chess::MoveText split = chess::SplitDrawOffer(text);
      if (split.draw_offer) draw_offers.push_back(i);
      absl::StatusOr<chess::Move> move = chess::ParseMove(game.position(), split.move);
      absl::Status status = move.ok() ? game.Play(*move) : move.status();
      if (!status.ok()) {
        json err = ErrorJson(status);
        err["error"]["message"] = absl::StrCat("moves[", i, "] ", text, ": ", status.message());
        err["error"]["move_index"] = i;
        if (chess::IllegalReasonOf(status) != chess::IllegalMoveReason::kNone) {
          err["error"]["reason"] =
              std::string(chess::IllegalMoveReasonName(chess::IllegalReasonOf(status)));
        }
        return err.dump(-1, ' ', false, kReplace);
      }
    }
  }
  const chess::Position& pos = game.position();
  std::vector<std::string> uci, san;
  for (chess::Move m : pos.LegalMoves()) {
    uci.push_back(chess::ToUci(m));
    san.push_back(chess::ToSan(pos, m));
  }
  chess::DrawClaim threefold = game.ThreefoldClaim();
  chess::DrawClaim fifty = game.FiftyMoveClaim();
  std::vector<std::string> threefold_moves, fifty_moves;
  for (chess::Move m : threefold.by_moves) threefold_moves.push_back(chess::ToUci(m));
  for (chess::Move m : fifty.by_moves) fifty_moves.push_back(chess::ToUci(m));
  const bool checkmate = pos.IsCheckmate();
  json out = {
      {"fen", chess::ToFen(pos)},
      // 9.1 / Appendix E12: the indices of the moves written with "(=)", and whether the last
      // one carried an offer (the offer stands until the opponent moves).
      {"draw_offers", draw_offers},
      {"draw_offer", !draw_offers.empty() && game.moves().size() > 0 &&
                         draw_offers.back() + 1 == game.moves().size()},
      {"legal_uci", SortedStrings(std::move(uci))},
      {"legal_san", SortedStrings(std::move(san))},
      {"check", pos.InCheck()},
      {"checkmate", checkmate},
      {"stalemate", pos.IsStalemate()},
      {"insufficient_material", pos.IsInsufficientMaterial()},
      {"can_claim_threefold", threefold.possible()},
      {"can_claim_fifty", fifty.possible()},
      {"fivefold", game.IsFivefoldRepetition()},
      {"seventyfive", game.IsSeventyFiveMoveRule()},
      // Extensions: how the claims can be made (9.2a/9.3a moves, in UCI) and the counters.
      {"threefold_now", threefold.now},
      {"threefold_moves", SortedStrings(std::move(threefold_moves))},
      {"fifty_now", fifty.now},
      {"fifty_moves", SortedStrings(std::move(fifty_moves))},
      {"repetitions", game.RepetitionCount()},
      {"halfmove_clock", pos.halfmove_clock()},
      {"fullmove_number", pos.fullmove_number()},
      {"turn", std::string(chess::ColorName(pos.side_to_move()))},
  };
  return out.dump(-1, ' ', false, kReplace);
}

int RunAnalyze(std::istream& in, std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    out << AnalyzeLine(line) << '\n';
  }
  out.flush();
  return 0;
}

}  // namespace arbiterctl
