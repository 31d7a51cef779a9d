// The clock authority's domain service: runs clock commands against the game store, one atomic
// append each (events + snapshot + flag deadline, compare-and-set on the version), and checks
// flags for the scheduler. The store and the time source are injected: no gRPC, no Redis here.
//
//   ClockAuthority authority(&store, &time, {.owner = "pod-a:1234"});
//   ASSIGN_OR_RETURN(CommandResult r, authority.Create("g1", create_request, {}));
//   v1::ClockEvent press;
//   press.mutable_pressed();
//   ASSIGN_OR_RETURN(r, authority.Execute("g1", press, {.command_id = "m1"}));
//
// - A command is decided (Decide) on the latest state and appended at that state's version.
//   The replica keeps the latest state of the games it served (a cache), so a command is usually
//   one store round trip; a stale entry only costs the compare-and-set's ERR_VERSION_CONFLICT,
//   after which the state is read again and the command decided again (a refusal is only ever
//   given on a state just read from the store).
// - Idempotent by command id: a retry (same id, same fingerprint) returns the original result,
//   with the state as of that version, replayed.
// - Every append sets or clears the game's flag deadline in the same write (NextDeadline).
// - Flags: CheckFlags records every flag fallen by now (and a default, 6.7, once due) with the
//   command id "flag:<game>:<version>" (fingerprinted by that id; a namespace no client id can
//   enter, store/command_ids.h), so any number of replicas
//   checking the same state append it once; a command that finds the mover's flag fallen (or the
//   default time run out) appends it the same way before refusing (6.9, 6.7).
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_AUTHORITY_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_AUTHORITY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "libs/clock_authority/clock_commands.h"
#include "libs/clock_authority/clock_game.h"
#include "libs/ledger/time_source.h"
#include "libs/store/command_ids.h"
#include "libs/store/game_store.h"
#include "libs/store/state_cache.h"

namespace clock_authority {

using ledger::TimeSource;

struct AuthorityOptions {
  std::string owner = "clock-authority";  // this replica, unique (pod name and pid)
  int max_attempts = 8;                   // decide-and-append rounds on version conflicts
  size_t cache_size = 50'000;  // games whose latest state this replica keeps (a few KB each)
};

// Hooks for metrics and for the flag scheduler. Called on the calling thread, after the fact.
class AuthorityObserver {
 public:
  virtual ~AuthorityObserver() = default;
  // A command finished (kind: "create", "press", ...; status OK or its error).
  virtual void OnCommand(absl::string_view kind, const absl::Status& status) {}
  // This replica appended a flag fall.
  virtual void OnFlagRecorded(absl::string_view game_id, const v1::FlagFell& flag) {}
  // This replica appended a default (6.7).
  virtual void OnDefaultRecorded(absl::string_view game_id, const v1::PlayerDefaulted& d) {}
  // A compare-and-set lost to another writer (the state is read again).
  virtual void OnConflict() {}
  // This replica appended; `deadline` is what the append set (nullopt: cleared).
  virtual void OnAppended(absl::string_view game_id, const ClockGame& after,
                          std::optional<std::int64_t> deadline) {}
  // This replica read a game's latest state from the store.
  virtual void OnLoaded(absl::string_view game_id, const ClockGame& game) {}
};

struct CommandOptions {
  // Client-chosen, unique per command within the game; "" = the authority makes one (a retry is
  // then a new command). Stored scoped to `caller` (store::ScopedCommandId), so no caller's id
  // pre-empts another's; an id in the server's namespace ("flag:...", store::IsReservedCommandId)
  // is refused INVALID_ARGUMENT ERR_RESERVED_COMMAND_ID and changes nothing (issue 15).
  std::string command_id;
  // Who sends the command (the token's subject; "" without authentication): the scope of its id.
  std::string caller;
  // Who creates the clock, recorded in its first event (Create; a command carries its own
  // ClockEvent.actor).
  v1::Actor actor;
  // The request's identity for retries (e.g. a hash of it); "" = the command id.
  std::string fingerprint;
  // 0: any version; otherwise ERR_VERSION_CONFLICT unless the game is at it.
  std::int64_t expected_version = 0;
};

struct CommandResult {
  std::shared_ptr<const ClockGame> game;  // the state after the command (replay: as of then)
  std::int64_t version = 0;
  bool replayed = false;
  std::int64_t now_ms = 0;  // the instant to read the state at
};

struct FlagCheckResult {
  int recorded = 0;                           // flag falls this call appended
  bool already_recorded = false;              // another replica (or a retry) appended them first
  std::optional<std::int64_t> next_deadline;  // of the state after the check
  std::int64_t version = 0;
};

class ClockAuthority {
 public:
  ClockAuthority(store::GameStore* store, TimeSource* time, AuthorityOptions options = {});

  // Observers must outlive the authority; add them before use.
  void AddObserver(AuthorityObserver* observer) { observers_.push_back(observer); }

  absl::StatusOr<CommandResult> Create(absl::string_view game_id,
                                       const v1::CreateClockRequest& request,
                                       const CommandOptions& options);
  // A command (see Decide in clock_commands.h); `kind` names it for observers.
  absl::StatusOr<CommandResult> Execute(absl::string_view game_id, const v1::ClockEvent& command,
                                        const CommandOptions& options);
  using CommandCallback = std::function<void(absl::StatusOr<CommandResult>)>;
  // Runs `work` on a thread that may wait on the store (a worker pool's).
  using Offload = std::function<void(std::function<void()>)>;
  // Execute without waiting for the store where it can: a command on a state this replica has
  // cached is decided on the caller's thread and appended with the store's AppendAsync, and
  // `done` runs where the store completes it (the Redis store's I/O lane). Everything else (no
  // cached state, a refusal to confirm on the store's state, a conflict, a replay) goes on as
  // Execute, through `offload`. `done` runs exactly once; the outcome is Execute's.
  void ExecuteAsync(absl::string_view game_id, const v1::ClockEvent& command,
                    const CommandOptions& options, const Offload& offload, CommandCallback done);
  // The latest state, read from the store, and the time to read it at.
  absl::StatusOr<CommandResult> Get(absl::string_view game_id);
  // Records every flag of the game fallen by now. `known_version`: the version whose deadline
  // triggered the check (the cached state is used when it is at that version).
  absl::StatusOr<FlagCheckResult> CheckFlags(absl::string_view game_id,
                                             std::int64_t known_version = 0);

  // The state as of `version` (replaying the log's first `version` events).
  absl::StatusOr<std::shared_ptr<const ClockGame>> StateAt(absl::string_view game_id,
                                                           std::int64_t version);

  TimeSource* time() const { return time_; }
  store::GameStore* store() const { return store_; }
  const std::string& owner() const { return options_.owner; }

  // The command kind of a ClockEvent ("press", "pause", ...).
  static absl::string_view KindOf(const v1::ClockEvent& command);

 private:
  // The id the store records for a command: the client's, scoped to its caller, or a new one.
  absl::StatusOr<std::string> StoredCommandId(const CommandOptions& options);
  // The latest state: from the cache if `use_cache`, else read from the store (and cached).
  absl::StatusOr<std::shared_ptr<const ClockGame>> Load(absl::string_view game_id, bool use_cache);
  absl::StatusOr<CommandResult> Replayed(absl::string_view game_id, std::int64_t version);
  // A client's retry whose id the store has recorded (`latest`: the state just read): its
  // original result once an append under the id (a probe answered from the record) has been
  // acknowledged like any append; nullopt if the id is not recorded; ERR_COMMAND_ID_REUSED for
  // another command under the id.
  absl::StatusOr<std::optional<CommandResult>> Recorded(absl::string_view game_id,
                                                        const ClockGame& latest,
                                                        const v1::ClockEvent& command,
                                                        const std::string& command_id,
                                                        const CommandOptions& options);
  // The store request of one append of `events` on `before`, giving `after`.
  store::AppendRequest AppendRequestFor(absl::string_view game_id, const ClockGame& before,
                                        const ClockGame& after,
                                        const std::vector<v1::ClockEvent>& events,
                                        const std::string& command_id,
                                        const std::string& fingerprint,
                                        std::int64_t recorded_at_ms);
  // A command ExecuteAsync sent to the store, until the store answers.
  struct PendingCommand {
    std::string game_id;
    v1::ClockEvent command;
    CommandOptions options;  // as given (the stored id is derived from them again)
    std::shared_ptr<const ClockGame> after;
    std::vector<v1::ClockEvent> events;
    std::int64_t now_ms = 0;
    Offload offload;
    CommandCallback done;
  };
  // The store's answer to ExecuteAsync's append.
  void Appended(PendingCommand pending, absl::StatusOr<store::AppendResult> result);
  // Execute on the offload, then `done`.
  void ExecuteLater(const Offload& offload, std::string game_id, v1::ClockEvent command,
                    CommandOptions options, CommandCallback done);
  // An append of `events` that landed (not a replay), giving `after`: the observers told, the
  // state cached. One place for Create, Execute, ExecuteAsync and CheckFlags.
  // `tip`: the append's (AppendResult.tip), cached with the state.
  void Landed(absl::string_view game_id, std::shared_ptr<const ClockGame> after,
              const std::vector<v1::ClockEvent>& events, std::string tip);
  // One append of `events` on `before`, giving `after`.
  absl::StatusOr<store::AppendResult> Append(absl::string_view game_id, const ClockGame& before,
                                             const ClockGame& after,
                                             const std::vector<v1::ClockEvent>& events,
                                             const std::string& command_id,
                                             const std::string& fingerprint,
                                             std::int64_t recorded_at_ms);
  void NotifyCommand(absl::string_view kind, const absl::Status& status);
  // OnFlagRecorded / OnDefaultRecorded for the flag falls and defaults among `events`.
  void NotifyRecorded(absl::string_view game_id, const std::vector<v1::ClockEvent>& events);

  store::GameStore* const store_;
  TimeSource* const time_;
  const AuthorityOptions options_;
  std::vector<AuthorityObserver*> observers_;

  store::CommandIds command_ids_;
  store::StateCache<ClockGame> cache_;
};

// Maps the store's "no such game" to the clock's (NOT_FOUND ERR_CLOCK_NOT_FOUND).
absl::Status ClockNotFound(absl::string_view game_id);

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_AUTHORITY_H_
