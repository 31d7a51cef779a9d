// Base-128 varints (7 bits a byte, the low first, as protobuf writes them) and zigzag for signed
// values: the compact records' numbers (libs/store/internal/record.h,
// libs/arbitration/move_codec.h).
#ifndef ARBITER_LIBS_BASE_VARINT_H_
#define ARBITER_LIBS_BASE_VARINT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace base {

inline void PutVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Small magnitudes of either sign in few bytes: 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
inline std::uint64_t ZigZag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

inline std::int64_t UnZigZag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Reads a record front to back; each call is false (and the reader spent) when the bytes end
// early or a varint runs past 10 bytes.
class ByteReader {
 public:
  explicit ByteReader(absl::string_view in) : in_(in) {}

  bool Varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in_.empty()) return false;
      const auto byte = static_cast<unsigned char>(in_.front());
      in_.remove_prefix(1);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool SignedVarint(std::int64_t& v) {
    std::uint64_t u = 0;
    if (!Varint(u)) return false;
    v = UnZigZag(u);
    return true;
  }
  // A varint length and that many bytes.
  bool Bytes(absl::string_view& out) {
    std::uint64_t n = 0;
    if (!Varint(n) || n > in_.size()) return false;
    out = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }
  bool Take(size_t n, absl::string_view& out) {
    if (n > in_.size()) return false;
    out = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }
  bool Skip(size_t n) {
    absl::string_view skipped;
    return Take(n, skipped);
  }
  bool empty() const { return in_.empty(); }
  // How many bytes are left to read.
  size_t left() const { return in_.size(); }

 private:
  absl::string_view in_;
};

// A varint length and the bytes (what ByteReader::Bytes reads).
inline void PutBytes(std::string& out, absl::string_view bytes) {
  PutVarint(out, bytes.size());
  out.append(bytes.data(), bytes.size());
}

}  // namespace base

#endif  // ARBITER_LIBS_BASE_VARINT_H_
