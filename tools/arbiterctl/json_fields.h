// Reading the scenarios of arbiterctl's offline simulations (`clock simulate`, `game simulate`):
// the scenario line itself, and one JSON object's fields with precise errors
// ("<where>: "<key>" ...").
#ifndef ARBITER_TOOLS_ARBITERCTL_JSON_FIELDS_H_
#define ARBITER_TOOLS_ARBITERCTL_JSON_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/base/error.h"
#include "libs/chess/types.h"
#include "nlohmann/json.hpp"

namespace arbiterctl {

// Instants and times in a scenario stay well inside int64 arithmetic (~317 years).
inline constexpr std::int64_t kMaxScenarioMs = 10'000'000'000'000;

// ERR_BAD_SCENARIO with `message`.
absl::Status BadScenario(absl::string_view message);

// The scenario on one input line, a JSON object: else ERR_BAD_JSON with `not_json` as its
// message, or ERR_BAD_SCENARIO.
absl::StatusOr<nlohmann::json> ParseScenarioLine(const std::string& line,
                                                 absl::string_view not_json);

class JsonFields {
 public:
  // How a field given as null reads: as a value (of the wrong type, for a required one) or as a
  // field not given.
  enum class Null { kValue, kAbsent };

  // The fields of `object`; errors are `error` (its canonical code and stable code).
  JsonFields(const nlohmann::json& object, std::string where, const base::ErrorSpec& error,
             Null null = Null::kValue);
  // The fields of events[index], which must be an object (ERR_BAD_EVENT).
  static absl::StatusOr<JsonFields> Event(const nlohmann::json& event, std::size_t index,
                                          Null null = Null::kValue);

  const std::string& where() const { return where_; }
  // `error` with "<where>: " in front of `message`.
  absl::Status Error(absl::string_view message) const;
  // Given, and not null.
  bool Has(const char* key) const;

  // A required integer in [lo, hi].
  absl::StatusOr<std::int64_t> Int(const char* key, std::int64_t lo = -kMaxScenarioMs,
                                   std::int64_t hi = kMaxScenarioMs) const;
  // A required string.
  absl::StatusOr<std::string> String(const char* key) const;
  // true or false; `fallback` when not given.
  absl::StatusOr<bool> Bool(const char* key, bool fallback) const;
  // A required side, "white" or "black".
  absl::StatusOr<chess::Color> Side(const char* key) const;
  // `name` as the side of field `key`.
  absl::StatusOr<chess::Color> ParseSide(absl::string_view name, absl::string_view key) const;
  // One of `names`: the value's index in it.
  absl::StatusOr<int> OneOf(const char* key, absl::Span<const absl::string_view> names) const;
  // Unknown keys are errors: a typo must not pass silently as a default.
  absl::Status OnlyKeys(std::initializer_list<absl::string_view> allowed) const;

  const nlohmann::json& operator[](const char* key) const { return object_[key]; }

 private:
  // Given, as the required fields need: not null either with Null::kAbsent.
  bool Given(const char* key) const;

  const nlohmann::json& object_;
  std::string where_;
  base::ErrorSpec error_;
  Null null_;
};

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_JSON_FIELDS_H_
