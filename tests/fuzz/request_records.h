// The input of the request fuzz targets: records of [kind byte][seconds since the previous
// record][length][serialized request of that length], at most 64; a record cut short ends it.
//
//   fuzz::ForEachRecord(data, size, [&](int kind, std::int64_t now_ms, const std::string& bytes) {
//     ... parse `bytes` as the request `kind` names, decide it at now_ms ...
//   });
#ifndef ARBITER_TESTS_FUZZ_REQUEST_RECORDS_H_
#define ARBITER_TESTS_FUZZ_REQUEST_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace fuzz {

// Calls fn(kind, now_ms, bytes) for each record, now_ms growing from 0; returns the last now_ms.
template <typename Fn>
std::int64_t ForEachRecord(const std::uint8_t* data, std::size_t size, Fn fn) {
  std::int64_t now_ms = 0;
  std::size_t at = 0;
  for (int records = 0; at + 3 <= size && records < 64; ++records) {
    const int kind = data[at];
    now_ms += std::int64_t{data[at + 1]} * 1000;
    const std::size_t length = data[at + 2];
    at += 3;
    if (at + length > size) break;
    fn(kind, now_ms, std::string(reinterpret_cast<const char*>(data) + at, length));
    at += length;
  }
  return now_ms;
}

}  // namespace fuzz

#endif  // ARBITER_TESTS_FUZZ_REQUEST_RECORDS_H_
