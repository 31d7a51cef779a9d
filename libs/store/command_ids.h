// Command ids, and whose they are.
//
// Two namespaces share a game's record of command ids, and no id of one can ever equal an id of
// the other:
// - The server's own: ids a replica makes for commands that came without one,
//   "a:<owner>:<nonce>:<n>" (CommandIds below: unique across replicas and restarts, the nonce is
//   drawn once per process), and the ids every replica derives for what time does by itself,
//   "flag:<game>:<version>" (the clock authority's flags and defaults, 6.9, 6.7),
//   "settle:<game>:<version>" (the arbitration authority's), "sys:..." (kept for later ones).
// - The clients': a client's id is stored scoped to its caller (the token's subject) as
//   "u:<32 hex of the subject's digest>/<client id>" (ScopedCommandId), so one caller's ids never
//   pre-empt another's, and a retry by the same caller still finds its original (replayed).
// A client id that starts with a server prefix ("flag:", "settle:", "a:", "sys:", "u:") is
// refused (INVALID_ARGUMENT ERR_RESERVED_COMMAND_ID) before anything is read or written: before
// this, a player who pressed with --command-id flag:x2:3 made the server's later flag append fail
// ERR_COMMAND_ID_REUSED, and the flag was never recorded.
#ifndef ARBITER_LIBS_STORE_COMMAND_IDS_H_
#define ARBITER_LIBS_STORE_COMMAND_IDS_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace store {

class CommandIds {
 public:
  // `owner` names the replica (its first 64 characters are used).
  explicit CommandIds(absl::string_view owner);
  std::string Next();

 private:
  const std::string prefix_;
  std::atomic<std::uint64_t> next_{0};
};

// Whether `id` is in the server's namespace (starts with one of the server's prefixes).
bool IsReservedCommandId(absl::string_view id);

// OK, or INVALID_ARGUMENT ERR_RESERVED_COMMAND_ID for a client id in the server's namespace.
absl::Status CheckClientCommandId(absl::string_view client_id);

// The stored form of a client's command id: "u:<digest of subject>/<client id>"; a client id too
// long for the store's limit with that prefix is replaced by "#" and a 128-bit digest of it. The
// digest is not cryptographic: subjects are minted by the platform, not chosen by a caller.
std::string ScopedCommandId(absl::string_view subject, absl::string_view client_id);

// The client's id of a stored one ("u:<digest>/m1" -> "m1"); a server id as it is.
absl::string_view ClientCommandId(absl::string_view stored);

}  // namespace store

#endif  // ARBITER_LIBS_STORE_COMMAND_IDS_H_
