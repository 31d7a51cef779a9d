// RETURN_IF_ERROR and ASSIGN_OR_RETURN, which our Abseil (2022-06-23) lacks. Written once, here.
//
//   RETURN_IF_ERROR(Validate(x));
//   ASSIGN_OR_RETURN(Position pos, Position::FromSetup(setup));
#ifndef ARBITER_LIBS_BASE_STATUS_MACROS_H_
#define ARBITER_LIBS_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RETURN_IF_ERROR(expr)                                             \
  do {                                                                    \
    if (::absl::Status _arbiter_status = (expr); !_arbiter_status.ok()) { \
      return _arbiter_status;                                             \
    }                                                                     \
  } while (false)

#define ARBITER_STATUS_CONCAT_INNER(a, b) a##b
#define ARBITER_STATUS_CONCAT(a, b) ARBITER_STATUS_CONCAT_INNER(a, b)

#define ASSIGN_OR_RETURN(lhs, expr) \
  ARBITER_ASSIGN_OR_RETURN_IMPL(ARBITER_STATUS_CONCAT(_arbiter_statusor_, __LINE__), lhs, expr)

#define ARBITER_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // ARBITER_LIBS_BASE_STATUS_MACROS_H_
