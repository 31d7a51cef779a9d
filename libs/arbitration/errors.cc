#include "libs/arbitration/errors.h"

#include "libs/base/error.h"

namespace arbitration {

absl::Status Error(const ErrorCode& code, absl::string_view message) {
  return base::Error(code.status, code.code, message);
}

}  // namespace arbitration
