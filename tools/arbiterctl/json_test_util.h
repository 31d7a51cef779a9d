// For the tests of arbiterctl's JSON-lines commands: one output line read back as JSON.
#ifndef ARBITER_TOOLS_ARBITERCTL_JSON_TEST_UTIL_H_
#define ARBITER_TOOLS_ARBITERCTL_JSON_TEST_UTIL_H_

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace arbiterctl {

// The JSON of one output line; a test failure if it is no JSON.
inline nlohmann::json ParseOutputLine(const std::string& out) {
  nlohmann::json parsed = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << out;
  return parsed;
}

// The stable code of an {"error": {"code": ...}} line; "" for any other line.
inline std::string ErrorCode(const nlohmann::json& out) {
  if (!out.contains("error")) return "";
  return out["error"]["code"].get<std::string>();
}

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_JSON_TEST_UTIL_H_
