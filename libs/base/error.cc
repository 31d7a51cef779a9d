#include "libs/base/error.h"

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace base {

absl::Status Error(absl::StatusCode code, absl::string_view error_code, absl::string_view message) {
  absl::Status status(code, message);
  status.SetPayload(kErrorCodePayload, absl::Cord(error_code));
  return status;
}

absl::Status Error(const ErrorSpec& spec, absl::string_view message) {
  return Error(spec.status, spec.code, message);
}

absl::Status InvalidArgument(absl::string_view error_code, absl::string_view message) {
  return Error(absl::StatusCode::kInvalidArgument, error_code, message);
}
absl::Status FailedPrecondition(absl::string_view error_code, absl::string_view message) {
  return Error(absl::StatusCode::kFailedPrecondition, error_code, message);
}
absl::Status NotFound(absl::string_view error_code, absl::string_view message) {
  return Error(absl::StatusCode::kNotFound, error_code, message);
}
absl::Status Aborted(absl::string_view error_code, absl::string_view message) {
  return Error(absl::StatusCode::kAborted, error_code, message);
}
absl::Status Unavailable(absl::string_view error_code, absl::string_view message) {
  return Error(absl::StatusCode::kUnavailable, error_code, message);
}

std::string ErrorCode(const absl::Status& status) {
  if (status.ok()) return "";
  if (auto payload = status.GetPayload(kErrorCodePayload); payload.has_value()) {
    return std::string(*payload);
  }
  return absl::StrCat("ERR_", absl::AsciiStrToUpper(absl::StatusCodeToString(status.code())));
}

}  // namespace base
