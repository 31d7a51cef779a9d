#include "libs/ledger/authority.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/ledger/errors.h"

namespace ledger {
namespace {

std::uint64_t Fnv1a64(absl::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string SystemCommandId(absl::string_view prefix, absl::string_view game_id,
                            std::int64_t version) {
  std::string id = absl::StrCat(prefix, ":", game_id, ":", version);
  if (id.size() > static_cast<size_t>(store::kMaxIdLength)) {
    id = absl::StrCat(prefix, ":h", absl::Hex(Fnv1a64(game_id), absl::kZeroPad16), ":", version);
  }
  return id;
}

std::string SystemFallbackId(absl::string_view prefix, absl::string_view game_id,
                             std::int64_t version) {
  return absl::StrCat("sys:", absl::Hex(Fnv1a64(game_id), absl::kZeroPad16), ":", prefix, ":",
                      version);
}

namespace internal {

bool IsConflict(const absl::Status& status) {
  return base::ErrorCode(status) == store::kErrVersionConflict;
}

bool IsReused(const absl::Status& status) {
  return base::ErrorCode(status) == store::kErrCommandIdReused;
}

store::AppendRequest RecordProbe(absl::string_view game_id, const std::string& command_id,
                                 const std::string& fingerprint,
                                 arbiter::v1::GameSnapshot snapshot) {
  store::AppendRequest probe;
  probe.game_id = std::string(game_id);
  probe.expected_version = 0;
  probe.command_id = command_id;
  probe.fingerprint = fingerprint.empty() ? command_id : fingerprint;
  // Never written (the game exists): any well-formed event will do.
  arbiter::v1::GameEvent event;
  event.set_schema_version(snapshot.schema_version());
  *event.mutable_body() = snapshot.state();
  probe.events.push_back(std::move(event));
  probe.snapshot = std::move(snapshot);
  return probe;
}

absl::Status ArchivedCommand(absl::Status status, const CommandOptions& options,
                             absl::string_view game_id) {
  if (options.command_id.empty() || base::ErrorCode(status) != store::kErrGameArchived) {
    return status;
  }
  return base::Error(
      kErrArchivedCommandUnknown,
      absl::StrCat("game \"", game_id, "\" was archived: whether command \"", options.command_id,
                   "\" was applied before is no longer recorded (the archived "
                   "record has the final version and result)"));
}

absl::Status GaveUp(absl::string_view what, int attempts, absl::string_view game_id) {
  return base::Aborted(store::kErrVersionConflict,
                       absl::StrCat(what, " gave up after ", attempts,
                                    " version conflicts on game \"", game_id, "\""));
}

absl::Status CorruptLog(absl::string_view message) {
  return base::Error(store::kErrCorruptLog, message);
}

}  // namespace internal
}  // namespace ledger
