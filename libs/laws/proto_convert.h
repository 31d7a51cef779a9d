// Conversions between the public API's vocabulary (proto/arbiter/v1/common.proto) and the domain's
// (libs/chess, libs/clock, libs/laws), in one place.
#ifndef ARBITER_LIBS_LAWS_PROTO_CONVERT_H_
#define ARBITER_LIBS_LAWS_PROTO_CONVERT_H_

#include <optional>

#include "absl/status/statusor.h"
#include "libs/chess/types.h"
#include "libs/laws/edition.h"
#include "libs/laws/outcome.h"
#include "proto/arbiter/v1/common.pb.h"

namespace laws {

namespace v1 = arbiter::v1;

std::optional<chess::Color> ColorOf(v1::Color color);  // nullopt for UNSPECIFIED
v1::Color ToProto(chess::Color color);
v1::Color ToProto(std::optional<chess::Color> color);

// INVALID_ARGUMENT ERR_BAD_EDITION for UNSPECIFIED or an unknown value.
absl::StatusOr<laws::Edition> EditionOf(v1::Edition edition);
v1::Edition ToProto(laws::Edition edition);
std::optional<SpeedCategory> SpeedCategoryOf(v1::GameType type);  // nullopt for UNSPECIFIED
v1::GameType ToProto(laws::SpeedCategory category);

v1::Result ToProto(Result result);
absl::StatusOr<Result> ResultOf(v1::Result result);  // ERR_BAD_ARGUMENT for UNSPECIFIED
v1::Termination ToProto(Termination termination);
Termination TerminationOf(v1::Termination termination);

void ToProto(const Outcome& outcome, v1::Outcome* out);
Outcome OutcomeOf(const v1::Outcome& outcome);

}  // namespace laws

#endif  // ARBITER_LIBS_LAWS_PROTO_CONVERT_H_
