// Errors are values with stable, machine-readable codes (ERR_ILLEGAL_MOVE, ERR_BAD_FEN, ...).
// The code travels as a payload on absl::Status so domain libraries stay free of gRPC; the service
// layer maps the canonical absl code to gRPC and copies the stable code into the response.
// Clients match on the code, never on the message.
//
//   return base::Error(absl::StatusCode::kInvalidArgument, "ERR_BAD_FEN", "column 3: ...");
//   if (base::ErrorCode(status) == "ERR_AMBIGUOUS_SAN") ...
#ifndef ARBITER_LIBS_BASE_ERROR_H_
#define ARBITER_LIBS_BASE_ERROR_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace base {

// The payload type URL under which the stable code is stored.
inline constexpr absl::string_view kErrorCodePayload = "type.arbiter.dev/arbiter.v1.ErrorCode";
// The payload under which a refused move's status carries the reason's name (libs/chess sets it,
// chess::IllegalReasonOf reads it; the service layer carries it to ErrorInfo as it stands).
inline constexpr absl::string_view kIllegalMoveReasonPayload =
    "type.arbiter.dev/arbiter.v1.IllegalMoveReason";

// A stable code and its canonical status: an entry of a layer's catalogue (its errors.h; the
// whole list is docs/ERRORS.md). Reads as its code where a string is expected.
struct ErrorSpec {
  absl::string_view code;
  absl::StatusCode status;
  constexpr operator absl::string_view() const { return code; }  // NOLINT: a code is a string
  // `base::ErrorCode(status) == kErrVersionConflict`: branch on the catalogue, not on a literal.
  friend bool operator==(absl::string_view a, const ErrorSpec& b) { return a == b.code; }
};

// A status with a canonical code, a stable error code and a human message.
absl::Status Error(absl::StatusCode code, absl::string_view error_code, absl::string_view message);
// The same for a catalogued code: its canonical status, its stable code.
absl::Status Error(const ErrorSpec& spec, absl::string_view message);

// Shorthands for the canonical codes the project uses (docs/ARCHITECTURE.md, "Errors").
absl::Status InvalidArgument(absl::string_view error_code, absl::string_view message);  // malformed
absl::Status FailedPrecondition(absl::string_view error_code,
                                absl::string_view message);  // not now
absl::Status NotFound(absl::string_view error_code, absl::string_view message);
absl::Status Aborted(absl::string_view error_code, absl::string_view message);      // lost a race
absl::Status Unavailable(absl::string_view error_code, absl::string_view message);  // backend down

// The stable code of `status`: its payload if set, otherwise a generic code derived from the
// canonical code ("ERR_INVALID_ARGUMENT", ...); "" for OK.
std::string ErrorCode(const absl::Status& status);

}  // namespace base

#endif  // ARBITER_LIBS_BASE_ERROR_H_
