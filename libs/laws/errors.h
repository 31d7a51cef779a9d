// The Laws' vocabulary: the stable error codes of this layer, each with its canonical status (issue
// 11.4). Clients match on the code, never on the message; docs/ERRORS.md lists every code of
// every layer. A status is made with base::Error(kErrX, "message").
#ifndef ARBITER_LIBS_LAWS_ERRORS_H_
#define ARBITER_LIBS_LAWS_ERRORS_H_

#include "absl/status/status.h"
#include "libs/base/error.h"

namespace laws {

// no edition of the Laws (fide1997, fide2001, fide2005, fide2023)
inline constexpr base::ErrorSpec kErrBadEdition{"ERR_BAD_EDITION",
                                                absl::StatusCode::kInvalidArgument};

}  // namespace laws

#endif  // ARBITER_LIBS_LAWS_ERRORS_H_
