// GoogleTest matchers for absl::Status / StatusOr and the stable error code, which our Abseil
// lacks.
//
//   EXPECT_OK(status);
//   EXPECT_THAT(result, IsOk());
//   EXPECT_THAT(status, HasErrorCode("ERR_BAD_FEN"));
#ifndef ARBITER_LIBS_BASE_STATUS_MATCHERS_H_
#define ARBITER_LIBS_BASE_STATUS_MATCHERS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "libs/base/error.h"

namespace base {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& s = ::base::GetStatus(arg);
  if (!s.ok()) *result_listener << "status: " << s << " code " << ::base::ErrorCode(s);
  return s.ok();
}

// `error_code`: a literal, a string or a catalogue entry (base::ErrorSpec).
MATCHER_P(HasErrorCode, error_code,
          "has stable error code " + std::string(absl::string_view(error_code))) {
  const absl::Status& s = ::base::GetStatus(arg);
  *result_listener << "status: " << s << " code " << ::base::ErrorCode(s);
  return ::base::ErrorCode(s) == absl::string_view(error_code);
}

MATCHER_P(HasStatusCode, status_code, "has canonical code") {
  const absl::Status& s = ::base::GetStatus(arg);
  *result_listener << "status: " << s;
  return s.code() == status_code;
}

}  // namespace base

#define EXPECT_OK(expr) EXPECT_THAT((expr), ::base::IsOk())
#define ASSERT_OK(expr) ASSERT_THAT((expr), ::base::IsOk())

#endif  // ARBITER_LIBS_BASE_STATUS_MATCHERS_H_
