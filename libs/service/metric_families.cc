#include "libs/service/metric_families.h"

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"

namespace service {

std::string OutcomeCode(const absl::Status& status) {
  return status.ok() ? "OK" : base::ErrorCode(status);
}

CounterSeries::CounterSeries(prometheus::Registry& registry, const std::string& name,
                             const std::string& help, std::vector<std::string> label_names)
    : family_(AddFamily<prometheus::Counter>(registry, name, help)),
      label_names_(std::move(label_names)) {}

prometheus::Counter& CounterSeries::With(std::initializer_list<absl::string_view> values) {
  std::string key;
  for (absl::string_view v : values) absl::StrAppend(&key, v, "|");
  absl::MutexLock lock(&mu_);
  auto it = series_.find(key);
  if (it != series_.end()) return *it->second;
  prometheus::Labels labels;
  auto name = label_names_.begin();
  for (auto v = values.begin(); v != values.end() && name != label_names_.end(); ++v, ++name) {
    labels.emplace(*name, std::string(*v));
  }
  prometheus::Counter* counter = &family_.Add(labels);
  series_.emplace(std::move(key), counter);
  return *counter;
}

}  // namespace service
