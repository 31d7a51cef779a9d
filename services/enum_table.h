// Conversions between the domain's enums and the protos' as tables rather than switches:
//
//   v1::Verdict VerdictProto(analysis::Verdict v) {
//     static constexpr std::pair<analysis::Verdict, v1::Verdict> kTable[] = {
//         {analysis::Verdict::kWinnable, v1::VERDICT_WINNABLE}, ...};
//     return services::MapEnum(v, kTable, v1::VERDICT_UNSPECIFIED);
//   }
#ifndef ARBITER_SERVICES_ENUM_TABLE_H_
#define ARBITER_SERVICES_ENUM_TABLE_H_

#include <cstddef>
#include <utility>

namespace services {

// What `table` maps `from` to; `otherwise` when it has no row for it.
template <typename From, typename To, std::size_t N>
constexpr To MapEnum(From from, const std::pair<From, To> (&table)[N], To otherwise) {
  for (const auto& [key, value] : table) {
    if (key == from) return value;
  }
  return otherwise;
}

}  // namespace services

#endif  // ARBITER_SERVICES_ENUM_TABLE_H_
