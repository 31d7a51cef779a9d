#include "tools/arbiterctl/json_fields.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "libs/base/status_macros.h"
#include "tools/arbiterctl/errors.h"

namespace arbiterctl {

using Json = nlohmann::json;

absl::Status BadScenario(absl::string_view message) {
  return base::Error(arbiterctl::kErrBadScenario, message);
}

absl::StatusOr<Json> ParseScenarioLine(const std::string& line, absl::string_view not_json) {
  Json root = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return base::Error(arbiterctl::kErrBadJson, not_json);
  if (!root.is_object()) return BadScenario("a scenario is a JSON object");
  return root;
}

JsonFields::JsonFields(const Json& object, std::string where, const base::ErrorSpec& error,
                       Null null)
    : object_(object), where_(std::move(where)), error_(error), null_(null) {}

absl::StatusOr<JsonFields> JsonFields::Event(const Json& event, std::size_t index, Null null) {
  std::string where = absl::StrCat("events[", index, "]");
  if (!event.is_object()) {
    return base::Error(arbiterctl::kErrBadEvent, absl::StrCat(where, ": must be an object"));
  }
  return JsonFields(event, std::move(where), arbiterctl::kErrBadEvent, null);
}

absl::Status JsonFields::Error(absl::string_view message) const {
  return base::Error(error_, absl::StrCat(where_, ": ", message));
}

bool JsonFields::Has(const char* key) const {
  return object_.contains(key) && !object_[key].is_null();
}

bool JsonFields::Given(const char* key) const {
  return null_ == Null::kAbsent ? Has(key) : object_.contains(key);
}

absl::StatusOr<std::int64_t> JsonFields::Int(const char* key, std::int64_t lo,
                                             std::int64_t hi) const {
  if (!Given(key)) return Error(absl::StrCat("\"", key, "\" is required"));
  const Json& v = object_[key];
  if (!v.is_number_integer()) {
    return Error(absl::StrCat("\"", key, "\" must be an integer, got ", v.dump()));
  }
  if ((v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) ||
      v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
    return Error(absl::StrCat("\"", key, "\" is out of range [", lo, ", ", hi, "]"));
  }
  return v.get<std::int64_t>();
}

absl::StatusOr<std::string> JsonFields::String(const char* key) const {
  if (!Given(key)) return Error(absl::StrCat("\"", key, "\" is required"));
  const Json& v = object_[key];
  if (!v.is_string()) {
    return Error(absl::StrCat("\"", key, "\" must be a string, got ", v.dump()));
  }
  return v.get<std::string>();
}

absl::StatusOr<bool> JsonFields::Bool(const char* key, bool fallback) const {
  if (!Has(key)) return fallback;
  const Json& v = object_[key];
  if (!v.is_boolean()) {
    return Error(absl::StrCat("\"", key, "\" must be true or false, got ", v.dump()));
  }
  return v.get<bool>();
}

absl::StatusOr<chess::Color> JsonFields::Side(const char* key) const {
  ASSIGN_OR_RETURN(std::string name, String(key));
  return ParseSide(name, key);
}

absl::StatusOr<chess::Color> JsonFields::ParseSide(absl::string_view name,
                                                   absl::string_view key) const {
  if (name == "white") return chess::Color::kWhite;
  if (name == "black") return chess::Color::kBlack;
  return Error(absl::StrCat("\"", key, "\" must be \"white\" or \"black\", got \"", name, "\""));
}

absl::StatusOr<int> JsonFields::OneOf(const char* key,
                                      absl::Span<const absl::string_view> names) const {
  ASSIGN_OR_RETURN(std::string value, String(key));
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (value == names[i]) return static_cast<int>(i);
  }
  return Error(absl::StrCat("\"", key, "\" must be one of ", absl::StrJoin(names, ", "), "; got \"",
                            value, "\""));
}

absl::Status JsonFields::OnlyKeys(std::initializer_list<absl::string_view> allowed) const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      return Error(absl::StrCat("unknown field \"", it.key(), "\"; expected ",
                                absl::StrJoin(allowed, ", ")));
    }
  }
  return absl::OkStatus();
}

}  // namespace arbiterctl
