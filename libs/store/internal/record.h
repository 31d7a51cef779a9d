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
//
// With `names`, a form that ends with a name (EventCodec::NameAt) is written as type kNamed: the
// form without its name, then the name inline (the byte 0, its length, its bytes), which the
// append function replaces by the name's place in the game's list (one byte, 1..250). `names`
// lists them for the function (its ARGV[14], redis_scripts.h): for each, where its inline form
// begins in the events (3 bytes, big-endian, from 0), its length (1 byte) and its bytes.
struct EncodedEvents {
  std::string events;
  std::string names;
};
EncodedEvents EncodeEvents(const std::vector<arbiter::v1::GameEvent>& events,
                           const EventCodec* codec = nullptr, bool names = false);

// A whole record (header and events) of the entry "<last>-<n>": its events with versions
// last-n+1..last and the header's command id, a scoped one completed from `list` (the game's
// field u: its callers' scopes and its names), names by their place from the same list, compact
// bodies expanded by `codec`. Fails NOT_FOUND on a place `list` does not hold (a reader's list
// older than the record: it reads the game's list and decodes again), DATA_LOSS on a damaged
// record, FAILED_PRECONDITION on a compact body with no codec to read it.
absl::StatusOr<std::vector<arbiter::v1::GameEvent>> DecodeRecord(absl::string_view record,
                                                                 std::int64_t last, int n,
                                                                 absl::string_view list = "",
                                                                 const EventCodec* codec = nullptr);

}  // namespace store::internal

#endif  // ARBITER_LIBS_STORE_INTERNAL_RECORD_H_
