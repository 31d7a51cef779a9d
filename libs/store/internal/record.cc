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
// A compact form whose name the game's list keeps (EncodeEvents): the form without the name, then
// the name's place in the list (one byte), or 0 and the name (its length, its bytes).
constexpr std::uint64_t kNamed = kCompact + 1;

// A name in the game's list takes one byte of length (the append function's list).
constexpr std::size_t kMaxNameBytes = 255;
// The names' offsets are 3 bytes.
constexpr std::size_t kMaxNameOffset = (1 << 24) - 1;

using base::PutBytes;
using base::PutVarint;
using base::UnZigZag;
using base::ZigZag;
using Reader = base::ByteReader;

absl::Status Damaged() { return absl::DataLossError("a damaged record"); }
absl::Status NotInList() { return absl::NotFoundError("a place the game's list does not hold"); }

// The header's first byte for a scoped command id (a whole id's length is at most kMaxIdLength).
constexpr unsigned char kScoped = 0xff;

// The index-th (from 1) of the game's list (its callers' scopes and its names), each one byte of
// length and the string.
bool ListAt(absl::string_view list, int index, absl::string_view& scope) {
  Reader in(list);
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

// Where a compact form's name begins, when the codec says it ends with one the list can keep.
std::optional<std::size_t> NameOf(absl::string_view compact, const EventCodec& codec) {
  const std::optional<std::size_t> at = codec.NameAt(compact);
  if (!at.has_value() || *at > compact.size()) return std::nullopt;
  Reader in(compact.substr(*at));
  absl::string_view name;
  if (!in.Bytes(name) || !in.empty() || name.empty() || name.size() > kMaxNameBytes) {
    return std::nullopt;
  }
  return at;
}

}  // namespace

EncodedEvents EncodeEvents(const std::vector<arbiter::v1::GameEvent>& events,
                           const EventCodec* codec, bool names) {
  EncodedEvents encoded;
  std::string& out = encoded.events;
  std::int64_t previous = 0;
  for (const arbiter::v1::GameEvent& e : events) {
    const std::string& url = e.body().type_url();
    const std::optional<std::string> compact = CompactBody(e, codec);
    std::optional<std::size_t> name_at;
    if (compact.has_value() && names) name_at = NameOf(*compact, *codec);
    auto known = std::find(std::begin(kKnownTypes) + 1, std::end(kKnownTypes), url);
    if (name_at.has_value()) {
      PutVarint(out, kNamed);
    } else if (compact.has_value()) {
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
    if (!name_at.has_value()) {
      PutBytes(out, compact.has_value() ? *compact : e.body().value());
      continue;
    }
    PutBytes(out, absl::string_view(*compact).substr(0, *name_at));
    const std::size_t inline_at = out.size();
    const absl::string_view inline_name = absl::string_view(*compact).substr(*name_at);
    out.push_back(0);
    out.append(inline_name.data(), inline_name.size());
    if (inline_at > kMaxNameOffset) continue;  // left inline: the record reads the same
    Reader in(inline_name);
    absl::string_view name;
    in.Bytes(name);  // checked by NameOf
    for (int shift : {16, 8, 0}) encoded.names.push_back(static_cast<char>(inline_at >> shift));
    encoded.names.push_back(static_cast<char>(name.size()));
    encoded.names.append(name.data(), name.size());
  }
  return encoded;
}

absl::StatusOr<std::vector<arbiter::v1::GameEvent>> DecodeRecord(absl::string_view record,
                                                                 std::int64_t last, int n,
                                                                 absl::string_view list,
                                                                 const EventCodec* codec) {
  Reader in(record);
  absl::string_view length_byte, rest, scope;
  if (!record.empty() && static_cast<unsigned char>(record[0]) == kScoped) {
    absl::string_view index_byte;
    if (!in.Skip(1) || !in.Take(1, index_byte)) return Damaged();
    if (!ListAt(list, static_cast<unsigned char>(index_byte[0]), scope)) return NotInList();
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
    if (!in.Varint(type) || type > kNamed) return Damaged();
    if (type == 0) {
      if (!in.Bytes(url)) return Damaged();
    } else if (type == kCompact || type == kNamed) {
      if (codec == nullptr) {
        return absl::FailedPreconditionError("a compact body and no codec to read it");
      }
      url = codec->type_url();
    } else {
      url = kKnownTypes[type];
    }
    if (!in.Varint(schema) || !in.Varint(delta) || !in.Bytes(body)) return Damaged();
    previous += UnZigZag(delta);
    std::string form;
    if (type == kNamed) {
      absl::string_view place_byte, name;
      if (!in.Take(1, place_byte)) return Damaged();
      const int place = static_cast<unsigned char>(place_byte[0]);
      if (place == 0) {
        if (!in.Bytes(name)) return Damaged();
      } else if (!ListAt(list, place, name)) {
        return NotInList();
      }
      form.assign(body.data(), body.size());
      PutBytes(form, name);
      body = form;
    }
    std::string expanded;
    if (type == kCompact || type == kNamed) {
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
