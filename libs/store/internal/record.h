// The Redis store's compact record of one append (arbiter_v3, redis_scripts.h "Records"): what
// the events say, without what every event repeats or the log's position gives. The function
// prefixes the command id and the command's identity; this file encodes and decodes the events.
#ifndef ARBITER_LIBS_STORE_INTERNAL_RECORD_H_
#define ARBITER_LIBS_STORE_INTERNAL_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/store/event_codec.h"
#include "proto/arbiter/v1/store.pb.h"

namespace store::internal {

// The events of one append, each: its body's type (a small number for the known envelopes, else
// 0 and the type URL), schema version, recorded_at_ms as the difference from the previous
// event's (the first's from 0), and the body's bytes, or, for a body of `codec`'s type that the
// codec encodes and decodes back to the same bytes, type kCompact and the codec's form. Version
// and command id are not stored: the entry's ID gives the versions, the record's header the
// command id.
std::string EncodeEvents(const std::vector<arbiter::v1::GameEvent>& events,
                         const EventCodec* codec = nullptr);

// Whether the record's command id is stored scoped: its caller's scope by its index in the game's
// list of scopes (field u of the game's hash, redis_scripts.h "Records"), which DecodeRecord then
// needs.
bool HasScopedId(absl::string_view record);

// Whether `scopes` (a game's field u) holds the scope a scoped record names.
bool HoldsScopeOf(absl::string_view scopes, absl::string_view record);

// A whole record (header and events) of the entry "<last>-<n>": its events with versions
// last-n+1..last and the header's command id, a scoped one completed from `scopes` (the game's
// field u), compact bodies expanded by `codec`. Fails on a damaged record, on a scope that
// `scopes` does not hold, and on a compact body with no codec to read it.
absl::StatusOr<std::vector<arbiter::v1::GameEvent>> DecodeRecord(absl::string_view record,
                                                                 std::int64_t last, int n,
                                                                 absl::string_view scopes = "",
                                                                 const EventCodec* codec = nullptr);

}  // namespace store::internal

#endif  // ARBITER_LIBS_STORE_INTERNAL_RECORD_H_
