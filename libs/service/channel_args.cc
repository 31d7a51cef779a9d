#include "libs/service/channel_args.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "libs/base/error.h"
#include "libs/service/errors.h"

namespace service {

absl::StatusOr<std::vector<std::pair<std::string, int>>> ParseIntChannelArgs(
    absl::string_view list, absl::string_view flag) {
  std::vector<std::pair<std::string, int>> out;
  for (absl::string_view arg : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(arg, absl::MaxSplits('=', 1));
    int value = 0;
    if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &value)) {
      return base::Error(service::kErrBadFlag,
                         absl::StrCat(flag, ": '", arg, "' is not name=integer"));
    }
    out.emplace_back(std::move(kv.first), value);
  }
  return out;
}

}  // namespace service
