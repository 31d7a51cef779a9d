// The clock authority: a standalone clock's commands run against the game store by the ledger's
// engine (libs/ledger/authority.h: one atomic append each with the flag deadline, compare-and-set
// on the version, retries replayed after the store's fingerprint check, what fell recorded once);
// this file is the clock's part of it (ClockDomain) and the service's API over it
// (ClockAuthority). The store and the time source are injected: no gRPC, no Redis here.
//
//   ClockAuthority authority(&store, &time, {.owner = "pod-a:1234"});
//   ASSIGN_OR_RETURN(CommandResult r, authority.Create("g1", create_request, {}));
//   v1::ClockEvent press;
//   press.mutable_pressed();
//   ASSIGN_OR_RETURN(r, authority.Execute("g1", press, {.command_id = "m1"}));
//
// - Every append sets or clears the game's flag deadline in the same write (NextDeadline).
// - Flags: CheckFlags records every flag fallen by now (and a default, 6.7, once due) with the
//   command id "flag:<game>:<version>", so any number of replicas checking the same state append
//   it once; a command that finds the mover's flag fallen (or the default time run out) appends it
//   the same way before refusing (6.9, 6.7).
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
#include "libs/ledger/authority.h"
#include "libs/ledger/time_source.h"
#include "libs/store/game_store.h"

namespace clock_authority {

using ledger::TimeSource;

struct AuthorityOptions {
  std::string owner = "clock-authority";  // this replica, unique (pod name and pid)
  int max_attempts = 8;                   // decide-and-append rounds on version conflicts
  size_t cache_size = 50'000;  // games whose latest state this replica keeps (a few KB each)
  // ledger::AuthorityOptions': the snapshot every snapshot_every versions (a press then appends
  // its events alone), and the index's entry as the clocks' FlagBound, which a press rarely moves
  // earlier, so most presses write no deadline either.
  int snapshot_every = 1;
  bool deadline_bounds = false;
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
  // is refused INVALID_ARGUMENT ERR_RESERVED_COMMAND_ID and changes nothing.
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

using FlagCheckResult = ledger::SettleResult;

// The clock's part of the engine (the Domain of libs/ledger/authority.h).
class ClockDomain {
 public:
  using State = ClockGame;
  using Event = v1::ClockEvent;
  using Command = v1::ClockEvent;
  using Decision = clock_authority::Decision;
  using Result = CommandResult;
  static constexpr absl::string_view kSystemPrefix = "flag";

  absl::string_view KindOf(const v1::ClockEvent& command) const;
  // Decide (clock_commands.h); its refusals (a press out of turn, on a paused clock, ...) are
  // Decision::refused, to be confirmed on the store's latest state.
  absl::StatusOr<Decision> Decide(absl::string_view game_id, const ClockGame& game,
                                  const v1::ClockEvent& command, std::int64_t now_ms) const;
  bool DecidesInline(const ClockGame&) const { return true; }
  absl::StatusOr<std::vector<v1::ClockEvent>> Settle(absl::string_view game_id,
                                                     const ClockGame& game,
                                                     std::int64_t now_ms) const;
  std::optional<std::int64_t> NextDeadline(const ClockGame& game) const;
  // The index's bound (ledger/authority.h): the clock's FlagBound.
  std::int64_t DeadlineBound(const ClockGame& game, std::int64_t now_ms) const {
    return game.clock().FlagBound(now_ms);
  }
  v1::GameEvent ToStoreEvent(const v1::ClockEvent& event, std::int64_t recorded_at_ms) const;
  absl::StatusOr<v1::ClockEvent> FromStoreEvent(const v1::GameEvent& event) const;
  v1::GameSnapshot ToStoreSnapshot(const ClockGame& game) const;
  absl::StatusOr<ClockGame> FromStore(store::EventLog& log, absl::string_view game_id,
                                      const v1::GameSnapshot& snapshot) const;
  absl::StatusOr<ClockGame> Replay(std::vector<v1::ClockEvent> events) const;
  void Decided(CommandResult&, const Decision&) const {}
  absl::Status Replayed(store::EventLog&, absl::string_view, std::int64_t, absl::string_view,
                        CommandResult&) const {
    return absl::OkStatus();
  }
  // The store's "no such game" is the clock's (NOT_FOUND ERR_CLOCK_NOT_FOUND).
  absl::Status StoreError(absl::Status status, absl::string_view game_id) const;
};

class ClockAuthority {
 public:
  using Engine = ledger::Authority<ClockDomain>;
  using CommandCallback = Engine::Callback;
  // Runs `work` on a thread that may wait on the store (a worker pool's).
  using Offload = Engine::Offload;

  ClockAuthority(store::GameStore* store, TimeSource* time, AuthorityOptions options = {});
  ~ClockAuthority();

  // Observers must outlive the authority; add them before use.
  void AddObserver(AuthorityObserver* observer);

  absl::StatusOr<CommandResult> Create(absl::string_view game_id,
                                       const v1::CreateClockRequest& request,
                                       const CommandOptions& options);
  // A command (see Decide in clock_commands.h); KindOf names it for observers.
  absl::StatusOr<CommandResult> Execute(absl::string_view game_id, const v1::ClockEvent& command,
                                        const CommandOptions& options) {
    return engine_.Execute(game_id, command, Identity(options));
  }
  // Execute without waiting for the store where it can (ledger::Authority::ExecuteAsync). `done`
  // runs exactly once; the outcome is Execute's.
  void ExecuteAsync(absl::string_view game_id, const v1::ClockEvent& command,
                    const CommandOptions& options, const Offload& offload, CommandCallback done) {
    engine_.ExecuteAsync(game_id, command, Identity(options), offload, std::move(done));
  }
  // The latest state, read from the store, and the time to read it at.
  absl::StatusOr<CommandResult> Get(absl::string_view game_id) { return engine_.Get(game_id); }
  // The latest state this replica knows: its cache's, else the store's.
  absl::StatusOr<CommandResult> GetCached(absl::string_view game_id) {
    return engine_.GetCached(game_id);
  }
  // Records every flag of the game fallen by now. `known_version`: the version whose deadline
  // triggered the check (the cached state is used when it is at that version).
  absl::StatusOr<FlagCheckResult> CheckFlags(absl::string_view game_id,
                                             std::int64_t known_version = 0) {
    return engine_.CheckDeadline(game_id, known_version);
  }
  // The state as of `version` (replaying the log's first `version` events).
  absl::StatusOr<std::shared_ptr<const ClockGame>> StateAt(absl::string_view game_id,
                                                           std::int64_t version) {
    return engine_.StateAt(game_id, version);
  }
  // Drops the game from this replica's cache.
  void Forget(absl::string_view game_id) { engine_.Forget(game_id); }

  TimeSource* time() const { return engine_.time(); }
  store::GameStore* store() const { return engine_.store(); }
  const std::string& owner() const { return engine_.owner(); }

  // The command kind of a ClockEvent ("press", "pause", ...).
  static absl::string_view KindOf(const v1::ClockEvent& command);

 private:
  // One observer as the engine calls it: its appends, and the flags and defaults among them.
  class Notifier;
  static ledger::CommandOptions Identity(const CommandOptions& options) {
    return {.command_id = options.command_id,
            .scope = options.caller,
            .fingerprint = options.fingerprint,
            .expected_version = options.expected_version};
  }

  std::vector<std::unique_ptr<Notifier>> notifiers_;  // before engine_: they outlive it
  Engine engine_;
};

// Maps the store's "no such game" to the clock's (NOT_FOUND ERR_CLOCK_NOT_FOUND).
absl::Status ClockNotFound(absl::string_view game_id);

}  // namespace clock_authority

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_AUTHORITY_H_
