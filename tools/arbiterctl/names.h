// The names arbiterctl's client commands print for the API's enums (the names `clock simulate`
// and `game simulate` use).
#ifndef ARBITER_TOOLS_ARBITERCTL_NAMES_H_
#define ARBITER_TOOLS_ARBITERCTL_NAMES_H_

#include <string>

#include "nlohmann/json.hpp"
#include "proto/arbiter/v1/common.pb.h"

namespace arbiterctl {

// "white", "black", or JSON null for COLOR_UNSPECIFIED.
nlohmann::ordered_json SideName(arbiter::v1::Color c);
// "fide1997" ... "fide2023", "" for EDITION_UNSPECIFIED.
std::string EditionName(arbiter::v1::Edition e);
// "standard", "rapid", "blitz" (standard for GAME_TYPE_UNSPECIFIED).
std::string GameTypeName(arbiter::v1::GameType t);

}  // namespace arbiterctl

#endif  // ARBITER_TOOLS_ARBITERCTL_NAMES_H_
