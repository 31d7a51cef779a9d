#include "libs/store/internal/record.h"

#include <algorithm>
#include <iterator>

#include "absl/status/status.h"

namespace store::internal {
namespace {

// The envelopes' bodies the services store; a number, once given, is never reused (old records
// name their type by it). Other types are stored with their URL.
constexpr absl::string_view kKnownTypes[] = {
    "",  // 0: the URL follows
    "type.googleapis.com/arbiter.v1.ArbitrationEvent",
    "type.googleapis.com/arbiter.v1.ClockEvent",
};

void PutVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void PutBytes(std::string& out, absl::string_view bytes) {
  PutVarint(out, bytes.size());
  out.append(bytes.data(), bytes.size());
}

std::uint64_t ZigZag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

std::int64_t UnZigZag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

class Reader {
 public:
  explicit Reader(absl::string_view in) : in_(in) {}
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
  bool Bytes(absl::string_view& out) {
    std::uint64_t n = 0;
    if (!Varint(n) || n > in_.size()) return false;
    out = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }
  bool Skip(size_t n) {
    if (n > in_.size()) return false;
    in_.remove_prefix(n);
    return true;
  }
  bool Take(size_t n, absl::string_view& out) {
    if (n > in_.size()) return false;
    out = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }
  bool empty() const { return in_.empty(); }

 private:
  absl::string_view in_;
};

absl::Status Damaged() { return absl::DataLossError("a damaged record"); }

}  // namespace

std::string EncodeEvents(const std::vector<arbiter::v1::GameEvent>& events) {
  std::string out;
  std::int64_t previous = 0;
  for (const arbiter::v1::GameEvent& e : events) {
    const std::string& url = e.body().type_url();
    auto known = std::find(std::begin(kKnownTypes) + 1, std::end(kKnownTypes), url);
    if (known != std::end(kKnownTypes)) {
      PutVarint(out, static_cast<std::uint64_t>(known - std::begin(kKnownTypes)));
    } else {
      PutVarint(out, 0);
      PutBytes(out, url);
    }
    PutVarint(out, e.schema_version());
    PutVarint(out, ZigZag(e.recorded_at_ms() - previous));
    previous = e.recorded_at_ms();
    PutBytes(out, e.body().value());
  }
  return out;
}

absl::StatusOr<std::vector<arbiter::v1::GameEvent>> DecodeRecord(absl::string_view record,
                                                                 std::int64_t last, int n) {
  Reader in(record);
  absl::string_view length_byte, command_id;
  if (!in.Take(1, length_byte) ||
      !in.Take(static_cast<unsigned char>(length_byte[0]), command_id) || !in.Skip(8) || n < 1) {
    return Damaged();
  }
  std::vector<arbiter::v1::GameEvent> events(n);
  std::int64_t previous = 0;
  for (int i = 0; i < n; ++i) {
    arbiter::v1::GameEvent& e = events[i];
    std::uint64_t type = 0, schema = 0, delta = 0;
    absl::string_view url, body;
    if (!in.Varint(type) || type >= std::size(kKnownTypes)) return Damaged();
    if (type == 0) {
      if (!in.Bytes(url)) return Damaged();
    } else {
      url = kKnownTypes[type];
    }
    if (!in.Varint(schema) || !in.Varint(delta) || !in.Bytes(body)) return Damaged();
    previous += UnZigZag(delta);
    e.set_version(last - n + 1 + i);
    e.set_command_id(std::string(command_id));
    e.set_recorded_at_ms(previous);
    e.set_schema_version(static_cast<std::uint32_t>(schema));
    e.mutable_body()->set_type_url(std::string(url));
    e.mutable_body()->set_value(std::string(body));
  }
  if (!in.empty()) return Damaged();
  return events;
}

}  // namespace store::internal
