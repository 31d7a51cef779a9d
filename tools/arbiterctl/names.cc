#include "tools/arbiterctl/names.h"

#include "libs/laws/edition.h"
#include "libs/laws/proto_convert.h"

namespace arbiterctl {

namespace v1 = arbiter::v1;

nlohmann::ordered_json SideName(v1::Color c) {
  if (c == v1::COLOR_WHITE) return "white";
  if (c == v1::COLOR_BLACK) return "black";
  return nullptr;
}

std::string EditionName(v1::Edition e) {
  absl::StatusOr<laws::Edition> edition = laws::EditionOf(e);
  return edition.ok() ? std::string(laws::EditionName(*edition)) : "";
}

std::string GameTypeName(v1::GameType t) {
  switch (t) {
    case v1::GAME_TYPE_RAPID:
      return std::string(laws::SpeedCategoryName(laws::SpeedCategory::kRapid));
    case v1::GAME_TYPE_BLITZ:
      return std::string(laws::SpeedCategoryName(laws::SpeedCategory::kBlitz));
    default:
      return std::string(laws::SpeedCategoryName(laws::SpeedCategory::kStandard));
  }
}

}  // namespace arbiterctl
