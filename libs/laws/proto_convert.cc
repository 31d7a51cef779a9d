#include "libs/laws/proto_convert.h"

#include "libs/base/enum_table.h"
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

namespace {

// The proto's enumerators in the order of Edition, SpeedCategory and Result.
constexpr v1::Edition kProtoEditions[] = {v1::EDITION_FIDE_1997, v1::EDITION_FIDE_2001,
                                          v1::EDITION_FIDE_2005, v1::EDITION_FIDE_2023};
constexpr v1::GameType kProtoGameTypes[] = {v1::GAME_TYPE_STANDARD, v1::GAME_TYPE_RAPID,
                                            v1::GAME_TYPE_BLITZ};
constexpr v1::Result kProtoResults[] = {v1::RESULT_ONGOING,        v1::RESULT_WHITE_WINS,
                                        v1::RESULT_BLACK_WINS,     v1::RESULT_DRAW,
                                        v1::RESULT_DOUBLE_FORFEIT, v1::RESULT_ANNULLED};

}  // namespace

absl::StatusOr<laws::Edition> EditionOf(v1::Edition edition) {
  if (std::optional<Edition> e = base::EnumOfEntry<Edition>(kProtoEditions, edition)) return *e;
  return base::Error(laws::kErrBadEdition,
                     "edition: one of fide1997, fide2001, fide2005, fide2023 is required");
}

v1::Edition ToProto(laws::Edition edition) {
  return base::EnumEntry(kProtoEditions, edition, v1::EDITION_UNSPECIFIED);
}

std::optional<SpeedCategory> SpeedCategoryOf(v1::GameType type) {
  return base::EnumOfEntry<SpeedCategory>(kProtoGameTypes, type);
}

v1::GameType ToProto(laws::SpeedCategory category) {
  return base::EnumEntry(kProtoGameTypes, category, v1::GAME_TYPE_UNSPECIFIED);
}

v1::Result ToProto(Result result) {
  return base::EnumEntry(kProtoResults, result, v1::RESULT_UNSPECIFIED);
}

absl::StatusOr<Result> ResultOf(v1::Result result) {
  if (std::optional<Result> r = base::EnumOfEntry<Result>(kProtoResults, result)) return *r;
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
