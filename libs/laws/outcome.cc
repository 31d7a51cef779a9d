#include "libs/laws/outcome.h"

namespace laws {

absl::string_view ResultText(Result result) {
  switch (result) {
    case Result::kOngoing:
      return "*";
    case Result::kWhiteWins:
      return "1-0";
    case Result::kBlackWins:
      return "0-1";
    case Result::kDraw:
      return "1/2-1/2";
    case Result::kDoubleForfeit:
      return "0-0";
    case Result::kAnnulled:
      return "annulled";
  }
  return "*";
}

absl::string_view TerminationName(Termination termination) {
  switch (termination) {
    case Termination::kNone:
      return "";
    case Termination::kCheckmate:
      return "checkmate";
    case Termination::kResignation:
      return "resignation";
    case Termination::kTimeForfeit:
      return "time_forfeit";
    case Termination::kStalemate:
      return "stalemate";
    case Termination::kDeadPosition:
      return "dead_position";
    case Termination::kAgreement:
      return "agreement";
    case Termination::kThreefoldRepetition:
      return "threefold_repetition";
    case Termination::kFiftyMoves:
      return "fifty_moves";
    case Termination::kFivefoldRepetition:
      return "fivefold_repetition";
    case Termination::kSeventyFiveMoves:
      return "seventy_five_moves";
    case Termination::kTimeoutVsInsufficient:
      return "timeout_vs_insufficient";
    case Termination::kBothFlags:
      return "both_flags";
    case Termination::kIllegalMoves:
      return "illegal_moves";
    case Termination::kDefault:
      return "default";
    case Termination::kArbiterDecision:
      return "arbiter_decision";
    case Termination::kQuickplayFinishClaim:
      return "quickplay_finish_claim";
    case Termination::kSealedMoveInvalid:
      return "sealed_move_invalid";
  }
  return "";
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
