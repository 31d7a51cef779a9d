#include "libs/laws/proto_convert.h"

#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/laws/errors.h"

namespace laws {

std::optional<chess::Color> ColorOf(v1::Color color) {
  if (color == v1::COLOR_WHITE) return chess::Color::kWhite;
  if (color == v1::COLOR_BLACK) return chess::Color::kBlack;
  return std::nullopt;
}

v1::Color ToProto(chess::Color color) {
  return color == chess::Color::kWhite ? v1::COLOR_WHITE : v1::COLOR_BLACK;
}

v1::Color ToProto(std::optional<chess::Color> color) {
  return color ? ToProto(*color) : v1::COLOR_UNSPECIFIED;
}

absl::StatusOr<laws::Edition> EditionOf(v1::Edition edition) {
  switch (edition) {
    case v1::EDITION_FIDE_1997:
      return laws::Edition::kFide1997;
    case v1::EDITION_FIDE_2001:
      return laws::Edition::kFide2001;
    case v1::EDITION_FIDE_2005:
      return laws::Edition::kFide2005;
    case v1::EDITION_FIDE_2023:
      return laws::Edition::kFide2023;
    default:
      break;
  }
  return base::Error(laws::kErrBadEdition,
                     "edition: one of fide1997, fide2001, fide2005, fide2023 is required");
}

v1::Edition ToProto(laws::Edition edition) {
  switch (edition) {
    case laws::Edition::kFide1997:
      return v1::EDITION_FIDE_1997;
    case laws::Edition::kFide2001:
      return v1::EDITION_FIDE_2001;
    case laws::Edition::kFide2005:
      return v1::EDITION_FIDE_2005;
    case laws::Edition::kFide2023:
      return v1::EDITION_FIDE_2023;
  }
  return v1::EDITION_UNSPECIFIED;
}

v1::GameType ToProto(laws::SpeedCategory category) {
  switch (category) {
    case laws::SpeedCategory::kStandard:
      return v1::GAME_TYPE_STANDARD;
    case laws::SpeedCategory::kRapid:
      return v1::GAME_TYPE_RAPID;
    case laws::SpeedCategory::kBlitz:
      return v1::GAME_TYPE_BLITZ;
  }
  return v1::GAME_TYPE_UNSPECIFIED;
}

v1::Result ToProto(Result result) {
  switch (result) {
    case Result::kOngoing:
      return v1::RESULT_ONGOING;
    case Result::kWhiteWins:
      return v1::RESULT_WHITE_WINS;
    case Result::kBlackWins:
      return v1::RESULT_BLACK_WINS;
    case Result::kDraw:
      return v1::RESULT_DRAW;
    case Result::kDoubleForfeit:
      return v1::RESULT_DOUBLE_FORFEIT;
    case Result::kAnnulled:
      return v1::RESULT_ANNULLED;
  }
  return v1::RESULT_UNSPECIFIED;
}

absl::StatusOr<Result> ResultOf(v1::Result result) {
  switch (result) {
    case v1::RESULT_ONGOING:
      return Result::kOngoing;
    case v1::RESULT_WHITE_WINS:
      return Result::kWhiteWins;
    case v1::RESULT_BLACK_WINS:
      return Result::kBlackWins;
    case v1::RESULT_DRAW:
      return Result::kDraw;
    case v1::RESULT_DOUBLE_FORFEIT:
      return Result::kDoubleForfeit;
    case v1::RESULT_ANNULLED:
      return Result::kAnnulled;
    default:
      break;
  }
  return base::Error(base::kErrBadArgument, "result: a result is required");
}

// The domain's Termination enumerators follow the proto's in order (common.proto's numbers).
v1::Termination ToProto(Termination termination) {
  return static_cast<v1::Termination>(static_cast<int>(termination));
}

Termination TerminationOf(v1::Termination termination) {
  const int n = static_cast<int>(termination);
  if (n < 0 || n > static_cast<int>(Termination::kSealedMoveInvalid)) return Termination::kNone;
  return static_cast<Termination>(n);
}

void ToProto(const Outcome& outcome, v1::Outcome* out) {
  out->set_result(ToProto(outcome.result));
  out->set_termination(ToProto(outcome.termination));
  out->set_article(outcome.article);
  out->set_winner(ToProto(outcome.winner()));
}

Outcome OutcomeOf(const v1::Outcome& outcome) {
  Outcome o;
  absl::StatusOr<Result> r = ResultOf(outcome.result());
  o.result = r.ok() ? *r : Result::kOngoing;
  o.termination = TerminationOf(outcome.termination());
  o.article = outcome.article();
  return o;
}

}  // namespace laws
