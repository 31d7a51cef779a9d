// Command ids a replica makes for commands that came without one: "a:<owner>:<nonce>:<n>",
// unique across replicas and restarts (the nonce is drawn once per process), so the store's
// idempotency by command id never mistakes two commands for one.
#ifndef ARBITER_LIBS_STORE_COMMAND_IDS_H_
#define ARBITER_LIBS_STORE_COMMAND_IDS_H_

#include <atomic>
#include <cstdint>
#include <string>

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

}  // namespace store

#endif  // ARBITER_LIBS_STORE_COMMAND_IDS_H_
