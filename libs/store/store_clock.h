// The game store's clock: the one time base of every replica (Redis TIME for the Redis store),
// on which deadlines are compared.
#ifndef ARBITER_LIBS_STORE_STORE_CLOCK_H_
#define ARBITER_LIBS_STORE_STORE_CLOCK_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace store {

class StoreClock {
 public:
  virtual ~StoreClock() = default;

  // The store's time, ms since the Unix epoch: the one time base of all replicas.
  virtual absl::StatusOr<std::int64_t> NowMs() = 0;
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_STORE_CLOCK_H_
