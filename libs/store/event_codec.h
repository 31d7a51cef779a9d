// A compact form of one kind of event body, which the Redis store keeps in its records instead of
// the body's bytes (README.md, "The record of an append"). The store knows no domain: the layer
// that owns the events gives it a codec (RedisGameStoreOptions::event_codec), and the store asks
// the codec for each event of the codec's type URL. A codec must be a pure function of the event:
// the same event, the same bytes, in every process and release that reads the store, since a
// record written by one replica is read by all.
#ifndef ARBITER_LIBS_STORE_EVENT_CODEC_H_
#define ARBITER_LIBS_STORE_EVENT_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/arbiter/v1/store.pb.h"

namespace store {

class EventCodec {
 public:
  virtual ~EventCodec() = default;

  // The type URL of the bodies the codec encodes (Any.type_url).
  virtual absl::string_view type_url() const = 0;

  // The compact form of `event`'s body (of type_url()), or nullopt when the codec has none for
  // it (another kind of event, a field it does not carry): the store then keeps the body's bytes.
  // The store keeps a compact form only if Decode gives back the body's bytes exactly.
  virtual std::optional<std::string> Encode(const arbiter::v1::GameEvent& event) const = 0;

  // The body's bytes (Any.value) of a compact form, for an event recorded at `recorded_at_ms`.
  // A damaged form fails.
  virtual absl::StatusOr<std::string> Decode(absl::string_view compact,
                                             std::int64_t recorded_at_ms) const = 0;

  // Where the form's name begins, when it ends with one: a string that a game's events repeat
  // (a move's actor), written last as its length (a varint) and its bytes, which the store may
  // keep once per game instead of in every record (README.md, "The game's names"). nullopt: the
  // form ends with no such string.
  virtual std::optional<std::size_t> NameAt(absl::string_view compact) const {
    return std::nullopt;
  }
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_EVENT_CODEC_H_
