#include "services/arbiterd/registry.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "libs/base/error.h"
#include "libs/service/errors.h"
#include "services/modules.h"

namespace arbiterd {

const std::vector<Registration>& Registry() {
  // Started in this order, stopped in the reverse: the games (arbitration) last, first down.
  static const std::vector<Registration>* const kRegistry = new std::vector<Registration>{
      {"rules_validation", &rules_validation::CreateModule},
      {"search_analysis", &search_analysis::CreateModule},
      {"clock_authority", &clock_authority_service::CreateModule},
      {"arbitration", &arbitration_service::CreateModule},
  };
  return *kRegistry;
}

absl::StatusOr<std::vector<Registration>> Select(absl::string_view spec) {
  std::set<std::string> wanted;
  std::vector<std::string> known;
  for (const Registration& r : Registry()) known.push_back(r.name);
  for (absl::string_view s : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    s = absl::StripAsciiWhitespace(s);
    if (s == "all") {
      wanted.insert(known.begin(), known.end());
    } else if (std::find(known.begin(), known.end(), s) != known.end()) {
      wanted.insert(std::string(s));
    } else {
      return base::Error(service::kErrBadFlag,
                         absl::StrCat("--services: unknown service '", s,
                                      "' (known: ", absl::StrJoin(known, ", "), ", all)"));
    }
  }
  if (wanted.empty()) return base::Error(service::kErrBadFlag, "--services names no service");
  std::vector<Registration> out;
  for (const Registration& r : Registry()) {
    if (wanted.count(r.name)) out.push_back(r);
  }
  return out;
}

}  // namespace arbiterd
