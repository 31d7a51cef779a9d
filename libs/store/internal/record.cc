#include "libs/store/internal/record.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "libs/base/varint.h"

namespace store::internal {
namespace {

// The envelopes' bodies the services store; a number, once given, is never reused (old records
// name their type by it). Other types are stored with their URL.
constexpr absl::string_view kKnownTypes[] = {
    "",  // 0: the URL follows
    "type.googleapis.com/arbiter.v1.ArbitrationEvent",
    "type.googleapis.com/arbiter.v1.ClockEvent",
};

// The type of a body kept in the store's codec's compact form (EventCodec): its type URL is the
// codec's, its bytes the codec's Decode of the stored ones.
constexpr std::uint64_t kCompact = std::size(kKnownTypes);

using base::PutBytes;
using base::PutVarint;
using base::UnZigZag;
using base::ZigZag;
using Reader = base::ByteReader;

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

// The codec's form of e's body when it has one that reads back as the body's bytes.
std::optional<std::string> CompactBody(const arbiter::v1::GameEvent& e, const EventCodec* codec) {
  if (codec == nullptr || e.body().type_url() != codec->type_url()) return std::nullopt;
  std::optional<std::string> compact = codec->Encode(e);
  if (!compact.has_value()) return std::nullopt;
  absl::StatusOr<std::string> back = codec->Decode(*compact, e.recorded_at_ms());
  if (!back.ok() || *back != e.body().value()) return std::nullopt;
  return compact;
}

}  // namespace

std::string EncodeEvents(const std::vector<arbiter::v1::GameEvent>& events,
                         const EventCodec* codec) {
  std::string out;
  std::int64_t previous = 0;
  for (const arbiter::v1::GameEvent& e : events) {
    const std::string& url = e.body().type_url();
    const std::optional<std::string> compact = CompactBody(e, codec);
    auto known = std::find(std::begin(kKnownTypes) + 1, std::end(kKnownTypes), url);
    if (compact.has_value()) {
      PutVarint(out, kCompact);
    } else if (known != std::end(kKnownTypes)) {
      PutVarint(out, static_cast<std::uint64_t>(known - std::begin(kKnownTypes)));
    } else {
      PutVarint(out, 0);
      PutBytes(out, url);
    }
    PutVarint(out, e.schema_version());
    PutVarint(out, ZigZag(e.recorded_at_ms() - previous));
    previous = e.recorded_at_ms();
    PutBytes(out, compact.has_value() ? *compact : e.body().value());
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
                                                                 absl::string_view scopes,
                                                                 const EventCodec* codec) {
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
    if (!in.Varint(type) || type > kCompact) return Damaged();
    if (type == 0) {
      if (!in.Bytes(url)) return Damaged();
    } else if (type == kCompact) {
      if (codec == nullptr) {
        return absl::FailedPreconditionError("a compact body and no codec to read it");
      }
      url = codec->type_url();
    } else {
      url = kKnownTypes[type];
    }
    if (!in.Varint(schema) || !in.Varint(delta) || !in.Bytes(body)) return Damaged();
    previous += UnZigZag(delta);
    std::string expanded;
    if (type == kCompact) {
      absl::StatusOr<std::string> decoded = codec->Decode(body, previous);
      if (!decoded.ok()) return Damaged();
      expanded = *std::move(decoded);
    } else {
      expanded = std::string(body);
    }
    e.set_version(last - n + 1 + i);
    e.set_command_id(command_id);
    e.set_recorded_at_ms(previous);
    e.set_schema_version(static_cast<std::uint32_t>(schema));
    e.mutable_body()->set_type_url(std::string(url));
    e.mutable_body()->set_value(std::move(expanded));
  }
  if (!in.empty()) return Damaged();
  return events;
}

}  // namespace store::internal
