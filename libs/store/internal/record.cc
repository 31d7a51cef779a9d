#include "libs/store/internal/record.h"

#include <algorithm>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

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

// The header's first byte for a scoped command id (a whole id's length is at most kMaxIdLength).
constexpr unsigned char kScoped = 0xff;

// The index-th (from 1) of the scopes, each one byte of length and the scope.
bool ScopeAt(absl::string_view scopes, int index, absl::string_view& scope) {
  Reader in(scopes);
  for (int i = 1; i <= index; ++i) {
    absl::string_view length_byte;
    if (!in.Take(1, length_byte) || !in.Take(static_cast<unsigned char>(length_byte[0]), scope)) {
      return false;
    }
  }
  return index >= 1;
}

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

bool HasScopedId(absl::string_view record) {
  return !record.empty() && static_cast<unsigned char>(record[0]) == kScoped;
}

bool HoldsScopeOf(absl::string_view scopes, absl::string_view record) {
  absl::string_view scope;
  return record.size() >= 2 && ScopeAt(scopes, static_cast<unsigned char>(record[1]), scope);
}

absl::StatusOr<std::vector<arbiter::v1::GameEvent>> DecodeRecord(absl::string_view record,
                                                                 std::int64_t last, int n,
                                                                 absl::string_view scopes) {
  Reader in(record);
  absl::string_view length_byte, rest, scope;
  if (HasScopedId(record)) {
    absl::string_view index_byte;
    if (!in.Skip(1) || !in.Take(1, index_byte) ||
        !ScopeAt(scopes, static_cast<unsigned char>(index_byte[0]), scope)) {
      return Damaged();
    }
  }
  if (!in.Take(1, length_byte) || !in.Take(static_cast<unsigned char>(length_byte[0]), rest) ||
      !in.Skip(8) || n < 1) {
    return Damaged();
  }
  const std::string command_id = absl::StrCat(scope, rest);
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
    e.set_command_id(command_id);
    e.set_recorded_at_ms(previous);
    e.set_schema_version(static_cast<std::uint32_t>(schema));
    e.mutable_body()->set_type_url(std::string(url));
    e.mutable_body()->set_value(std::string(body));
  }
  if (!in.empty()) return Damaged();
  return events;
}

}  // namespace store::internal
