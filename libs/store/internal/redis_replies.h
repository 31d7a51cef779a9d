// What the Redis client's files (redis_client.cc, redis_pipeline.cc) share about error replies.
// The store's own: visible only to libs/store.
#ifndef ARBITER_LIBS_STORE_INTERNAL_REDIS_REPLIES_H_
#define ARBITER_LIBS_STORE_INTERNAL_REDIS_REPLIES_H_

#include <hiredis/hiredis.h>

#include <string>

#include "absl/strings/string_view.h"

namespace store::internal {

// The first word of an error reply's message ("READONLY", "NOAUTH", ...).
std::string ErrorPrefix(absl::string_view message);

// Error replies after which the connection's server is not (or no longer) the master: a demoted
// master (READONLY), a replica cut off from its master (MASTERDOWN). The command did not run.
bool NotTheMaster(const redisReply& reply);

}  // namespace store::internal

#endif  // ARBITER_LIBS_STORE_INTERNAL_REDIS_REPLIES_H_
