// Tables indexed by an enum whose values run 0, 1, 2, ... in declaration order: its stable names,
// its proto enumerators. One table and one lookup each way instead of a switch per direction.
//
//   constexpr absl::string_view kNames[] = {"not_started", "running", "paused"};  // ClockStatus
//   base::EnumEntry(kNames, ClockStatus::kPaused, "?");              // "paused"
//   base::EnumOfEntry<ClockStatus>(kNames, "running");               // ClockStatus::kRunning
//
// A table lists one entry for every value of the enum, in the enum's order.
#ifndef ARBITER_LIBS_BASE_ENUM_TABLE_H_
#define ARBITER_LIBS_BASE_ENUM_TABLE_H_

#include <cstddef>
#include <optional>
#include <type_traits>

namespace base {

// The entry of `value` in `table`; `otherwise` for a value beyond the table.
template <typename T, std::size_t N, typename Enum>
constexpr T EnumEntry(const T (&table)[N], Enum value, std::type_identity_t<T> otherwise) {
  const auto index = static_cast<std::size_t>(value);
  return index < N ? table[index] : otherwise;
}

// The value whose entry in `table` is `entry` (the first one), nullopt if there is none.
template <typename Enum, typename T, std::size_t N, typename Entry>
constexpr std::optional<Enum> EnumOfEntry(const T (&table)[N], const Entry& entry) {
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i] == entry) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

}  // namespace base

#endif  // ARBITER_LIBS_BASE_ENUM_TABLE_H_
