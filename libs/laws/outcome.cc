#include "libs/laws/outcome.h"

#include "libs/base/enum_table.h"

namespace laws {

absl::string_view ResultText(Result result) {
  static constexpr absl::string_view kNames[] = {"*", "1-0", "0-1", "1/2-1/2", "0-0", "annulled"};
  return base::EnumEntry(kNames, result, "*");
}

absl::string_view TerminationName(Termination termination) {
  static constexpr absl::string_view kNames[] = {"",
                                                 "checkmate",
                                                 "resignation",
                                                 "time_forfeit",
                                                 "stalemate",
                                                 "dead_position",
                                                 "agreement",
                                                 "threefold_repetition",
                                                 "fifty_moves",
                                                 "fivefold_repetition",
                                                 "seventy_five_moves",
                                                 "timeout_vs_insufficient",
                                                 "both_flags",
                                                 "illegal_moves",
                                                 "default",
                                                 "arbiter_decision",
                                                 "quickplay_finish_claim",
                                                 "sealed_move_invalid"};
  return base::EnumEntry(kNames, termination, "");
}

Outcome Outcome::Win(chess::Color winner, Termination termination, absl::string_view article) {
  return {winner == chess::Color::kWhite ? Result::kWhiteWins : Result::kBlackWins, termination,
          std::string(article)};
}

Outcome Outcome::Draw(Termination termination, absl::string_view article) {
  return {Result::kDraw, termination, std::string(article)};
}

Outcome Outcome::BothLose(Termination termination, absl::string_view article) {
  return {Result::kDoubleForfeit, termination, std::string(article)};
}

std::optional<chess::Color> Outcome::winner() const {
  if (result == Result::kWhiteWins) return chess::Color::kWhite;
  if (result == Result::kBlackWins) return chess::Color::kBlack;
  return std::nullopt;
}

std::pair<double, double> Score(Result result, const Points& points) {
  switch (result) {
    case Result::kWhiteWins:
      return {points.win, points.loss};
    case Result::kBlackWins:
      return {points.loss, points.win};
    case Result::kDraw:
      return {points.draw, points.draw};
    case Result::kDoubleForfeit:
      return {points.loss, points.loss};
    case Result::kOngoing:
    case Result::kAnnulled:
      break;
  }
  return {0.0, 0.0};
}

}  // namespace laws
