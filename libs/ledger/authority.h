// The ledger's authority: one engine for every domain kept as an event log in the game store (a
// game's arbitration, a standalone clock). It decides a domain's commands on the latest state and
// appends each decision once, compare-and-set on the version; the domain supplies what is decided
// and how it is stored. No gRPC, no Redis here: the store and the time base are injected.
//
//   ledger::Authority<ClockDomain> authority(&store, &time, ClockDomain{}, {.owner = "pod-a:1"});
//   ASSIGN_OR_RETURN(Result r, authority.Create("g1", {.command_id = "c1"}, [&](std::int64_t now) {
//     return MakeCreated(request, now);  // the first event and the state it gives
//   }));
//   ASSIGN_OR_RETURN(r, authority.Execute("g1", press, {.command_id = "m1", .scope = subject}));
//
// - A command is decided (Domain::Decide) on the latest state and appended at that state's
//   version, with the snapshot after it and the deadline it leaves (Domain::NextDeadline) in the
//   same write. The replica keeps the latest state of the games it served (a cache), so a command
//   is usually one store round trip; a stale entry only costs the compare-and-set's
//   ERR_VERSION_CONFLICT, after which the state is read again and the command decided again. A
//   refusal is only ever given on a state just read from the store.
// - Idempotent by command id: a client's id is stored scoped to its caller
// (store::ScopedCommandId);
//   an id in the server's namespace is refused INVALID_ARGUMENT ERR_RESERVED_COMMAND_ID before
//   anything is read. A retry (same id, same fingerprint) returns the original result, with the
//   state as of that version, replayed; the same id with another fingerprint fails
//   ERR_COMMAND_ID_REUSED; neither writes anything. A retry the latest state would refuse (the
//   game moved on) is answered by an append under its id that cannot write (a creation of the
//   existing game): the store answers it from its record and checks the fingerprint, and a store
//   that waits for replicas (WAIT) answers only once the original append is on them.
// - With an expected version, the command is decided only on a state at that version: a cached
//   state at another one is read again; the store's at another one fails ABORTED
//   ERR_VERSION_CONFLICT, unless the id is recorded (a retry: replayed).
// - Time passes without anyone's command: what fell by now (Domain::Settle: a flag, 6.9; a
//   default, 6.7) is appended under "<Domain::kSystemPrefix>:<game>:<version>" (fingerprinted by
//   that id, store/command_ids.h), so any number of replicas checking the same state append it
//   once. A command that finds such events before it and is refused (a move after the mover's
//   flag fell) appends them the same way, then returns its refusal.
// - A command that carries a client id on a game archived since (store::EventLog::Archive) fails
//   NOT_FOUND ERR_ARCHIVED_COMMAND_UNKNOWN: the command records left with the log, so whether it
//   is a retry of one applied before cannot be answered; the tombstone has the final version and
//   result.
//
// The Domain:
//   using State;     // version(), Apply(const Event&), copyable
//   using Event;     // a domain event (a protobuf message)
//   using Command;   // copyable
//   using Decision;  // events (std::vector<Event>), refused (absl::Status), after
//                    // (std::optional<State>)
//   using Result;    // game (std::shared_ptr<const State>), version, replayed, now_ms
//   static constexpr absl::string_view kSystemPrefix;  // "settle", "flag"
//   absl::string_view KindOf(const Command&) const;      // for observers ("move", "press")
//   // Fails only for a command malformed on any state; every refusal is Decision::refused.
//   absl::StatusOr<Decision> Decide(absl::string_view game_id, const State&, const Command&,
//                                   std::int64_t now_ms);
//   bool DecidesInline(const State&) const;  // ExecuteAsync may decide it on the caller's thread
//   absl::StatusOr<std::vector<Event>> Settle(absl::string_view game_id, const State&,
//                                             std::int64_t now_ms);
//   std::optional<std::int64_t> NextDeadline(const State&) const;
//   // Optional: the deadline a check at now_ms that recorded nothing leaves (default:
//   // NextDeadline), for a deadline due with nothing to record yet (asked again later).
//   std::optional<std::int64_t> NextDeadlineAfter(const State&, std::int64_t now_ms) const;
//   // Optional: an instant no later than NextDeadline's that later appends rarely move earlier
//   // (e.g. now + the smaller of both players' times): the index's entry is then written only
//   // when it would be due after it (store::DeadlineUpdate::Bound), and an entry that comes due
//   // before the deadline is released by the check to NextDeadline's instant.
//   std::int64_t DeadlineBound(const State&, std::int64_t now_ms) const;
//   // Optional: the games index's labels an append from `before` (nullptr: the creation) to
//   // `after` writes (store::IndexUpdate), nullopt when they do not change.
//   std::optional<store::IndexUpdate> IndexUpdate(const State* before, const State& after) const;
//   arbiter::v1::GameEvent ToStoreEvent(const Event&, std::int64_t recorded_at_ms) const;
//   absl::StatusOr<Event> FromStoreEvent(const arbiter::v1::GameEvent&) const;
//   arbiter::v1::GameSnapshot ToStoreSnapshot(const State&) const;
//   // The state a snapshot stands for (reading the log's first snapshot.version() events if the
//   // domain needs them); the state a log's events give.
//   absl::StatusOr<State> FromStore(store::EventLog&, absl::string_view game_id,
//                                   const arbiter::v1::GameSnapshot&) const;
//   absl::StatusOr<State> Replay(std::vector<Event>) const;
//   void Decided(Result&, const Decision&) const;  // the domain's part of a result
//   // The domain's part of a replayed result: what the command's own events said.
//   absl::Status Replayed(store::EventLog&, absl::string_view game_id, std::int64_t version,
//                         absl::string_view command_id, Result&) const;
//   absl::Status StoreError(absl::Status, absl::string_view game_id) const;  // the domain's codes
#ifndef ARBITER_LIBS_LEDGER_AUTHORITY_H_
#define ARBITER_LIBS_LEDGER_AUTHORITY_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/ledger/time_source.h"
#include "libs/store/command_ids.h"
#include "libs/store/errors.h"
#include "libs/store/game_store.h"
#include "libs/store/state_cache.h"

namespace ledger {

struct AuthorityOptions {
  std::string owner = "ledger";  // this replica, unique (pod name and pid)
  int max_attempts = 8;          // decide-and-append rounds on version conflicts
  size_t cache_size = 20'000;    // games whose latest state this replica keeps
  // The snapshot is written with every snapshot_every-th version (store::AppendRequest); a state
  // is read as the last one written with the events after it applied (State::Apply). The
  // state cache makes such reads rare; the appends between write only their events.
  int snapshot_every = 1;
  // With a Domain that has DeadlineBound: the index's entry is written as that bound
  // (store::DeadlineUpdate::Bound), so most appends write no deadline; an entry that comes due
  // before the deadline is released by the check (DeadlineScheduler) to the deadline itself.
  bool deadline_bounds = false;
};

// A command's identity, as the domains' options carry it.
struct CommandOptions {
  // Client-chosen, unique per command within the game; "" = the authority makes one (a retry is
  // then a new command).
  std::string command_id;
  // Who sends it (the token's subject): the namespace its id is stored in.
  std::string scope;
  // The request's identity for retries (e.g. a hash of it); "" = the command id.
  std::string fingerprint;
  // 0: any version; otherwise ERR_VERSION_CONFLICT unless the game is at it.
  std::int64_t expected_version = 0;
};

struct SettleResult {
  int recorded = 0;                           // events this call appended
  bool already_recorded = false;              // another replica (or a retry) appended them first
  std::optional<std::int64_t> next_deadline;  // of the state after the check
  std::int64_t version = 0;
};

// Hooks for metrics and the deadline timers. Called on the calling thread, after the fact.
template <typename State, typename Event>
class AuthorityObserver {
 public:
  virtual ~AuthorityObserver() = default;
  // A command finished (kind: "create", "move", "press", ...; status OK or its error).
  virtual void OnCommand(absl::string_view kind, const absl::Status& status) {}
  // This replica appended `events` (not a replay), giving `after`; `deadline` is what the append
  // set in the store's index (nullopt: cleared).
  virtual void OnAppended(absl::string_view game_id, const State& after,
                          const std::vector<Event>& events, std::optional<std::int64_t> deadline) {}
  // A compare-and-set lost to another writer (the state is read again).
  virtual void OnConflict() {}
  // This replica read a game's latest state from the store.
  virtual void OnLoaded(absl::string_view game_id, const State& game) {}
};

// The id every replica derives for what fell on the state at `version` of `game_id`:
// "<prefix>:<game>:<version>" (a digest of the game id when that would be too long).
std::string SystemCommandId(absl::string_view prefix, absl::string_view game_id,
                            std::int64_t version);
// The same when SystemCommandId is taken (ERR_COMMAND_ID_REUSED: a log written when a client's
// id could still be in the server's namespace): "sys:<digest>:<prefix>:<version>".
std::string SystemFallbackId(absl::string_view prefix, absl::string_view game_id,
                             std::int64_t version);

namespace internal {

bool IsConflict(const absl::Status& status);
bool IsReused(const absl::Status& status);
// The append that answers whether `command_id` is recorded, and cannot write: a creation of a game
// that exists (the store answers a recorded id before it looks at the version).
store::AppendRequest RecordProbe(absl::string_view game_id, const std::string& command_id,
                                 const std::string& fingerprint,
                                 arbiter::v1::GameSnapshot snapshot);
// A command with a client id on an archived game: ERR_ARCHIVED_COMMAND_UNKNOWN (see above).
absl::Status ArchivedCommand(absl::Status status, const CommandOptions& options,
                             absl::string_view game_id);
absl::Status GaveUp(absl::string_view what, int attempts, absl::string_view game_id);
absl::Status CorruptLog(absl::string_view message);

}  // namespace internal

template <typename Domain>
class Authority {
 public:
  using State = typename Domain::State;
  using Event = typename Domain::Event;
  using Command = typename Domain::Command;
  using Decision = typename Domain::Decision;
  using Result = typename Domain::Result;
  using Observer = AuthorityObserver<State, Event>;
  using Callback = std::function<void(absl::StatusOr<Result>)>;
  // Runs `work` on a thread that may wait on the store (a worker pool's).
  using Offload = std::function<void(std::function<void()>)>;

  Authority(store::GameStore* store, TimeSource* time, Domain domain, AuthorityOptions options)
      : store_(store),
        time_(time),
        domain_(std::move(domain)),
        options_(std::move(options)),
        command_ids_(options_.owner),
        cache_(options_.cache_size) {}

  // Observers must outlive the authority; add them before use.
  void AddObserver(Observer* observer) { observers_.push_back(observer); }
  Domain& domain() { return domain_; }
  const Domain& domain() const { return domain_; }

  // Creates the game (expected version 0): ALREADY_EXISTS ERR_GAME_EXISTS if it exists, unless
  // this is a retry of the same creation (replayed). `make(now_ms)` gives the first event and the
  // state it starts (StatusOr<std::pair<Event, State>>).
  template <typename Make>
  absl::StatusOr<Result> Create(absl::string_view game_id, const CommandOptions& options,
                                Make make);
  // A command (Domain::Decide) at the time base's now.
  absl::StatusOr<Result> Execute(absl::string_view game_id, const Command& command,
                                 const CommandOptions& options);
  // Execute without waiting for the store where it can: a command on a state this replica has
  // cached is decided on the caller's thread and appended with the store's AppendAsync, and
  // `done` runs where the store completes it (the Redis store's I/O lane). Everything else (no
  // cached state, a refusal to confirm on the store's state, a command that first records what
  // fell, a conflict, a replay) goes on as Execute, through `offload`. `done` runs exactly once;
  // the outcome is Execute's.
  void ExecuteAsync(absl::string_view game_id, const Command& command,
                    const CommandOptions& options, const Offload& offload, Callback done);
  // The latest state, read from the store, and the time to read it at.
  absl::StatusOr<Result> Get(absl::string_view game_id) { return Current(game_id, false); }
  // The latest state this replica knows: its cache's, else the store's. For a caller whose write
  // is a compare-and-set at the state's version anyway (a stale state only loses the race).
  absl::StatusOr<Result> GetCached(absl::string_view game_id) { return Current(game_id, true); }
  // Records what fell by now (Domain::Settle). `known_version`: the version whose deadline
  // triggered the check (the cached state is used when it is at that version).
  absl::StatusOr<SettleResult> CheckDeadline(absl::string_view game_id,
                                             std::int64_t known_version = 0);
  // The state as of `version` (replaying the log's first `version` events).
  absl::StatusOr<std::shared_ptr<const State>> StateAt(absl::string_view game_id,
                                                       std::int64_t version);
  // Drops the game from this replica's cache (an archived game).
  void Forget(absl::string_view game_id) { cache_.Forget(game_id); }

  store::GameStore* store() const { return store_; }
  TimeSource* time() const { return time_; }
  std::int64_t NowMs() const { return time_->NowMs(); }
  const std::string& owner() const { return options_.owner; }

 private:
  // A command ExecuteAsync sent to the store, until the store answers.
  struct Pending {
    std::string game_id;
    Command command;
    CommandOptions options;  // as given (a conflict's retry derives the stored id again)
    std::shared_ptr<const State> after;
    Decision decision;  // its events and the domain's part of the result (`after` moved out)
    std::int64_t now_ms = 0;
    Offload offload;
    Callback done;
    std::string stored_id = {};  // the command id the append was sent with
  };

  // The id the store records for a command: the client's, scoped to its caller, or a new one.
  absl::StatusOr<std::string> StoredCommandId(const CommandOptions& options) {
    if (options.command_id.empty()) return command_ids_.Next();
    RETURN_IF_ERROR(store::CheckClientCommandId(options.command_id));
    return store::ScopedCommandId(options.scope, options.command_id);
  }
  absl::StatusOr<Result> Current(absl::string_view game_id, bool use_cache);
  // A state and the tip of the append that made it ("" if unknown: the append then compares the
  // version only).
  using Known = typename store::StateCache<State>::Known;
  // The latest state: from the cache if `use_cache`, else read from the store (and cached).
  absl::StatusOr<Known> Load(absl::string_view game_id, bool use_cache);
  // The original result of `command_id`, which appended up to `version`.
  absl::StatusOr<Result> Replayed(absl::string_view game_id, std::int64_t version,
                                  absl::string_view command_id);
  // The original result of a retried command the latest state would not take again; nullopt
  // when `command_id` is not recorded (or the client gave no id).
  absl::StatusOr<std::optional<Result>> Recorded(absl::string_view game_id, const State& latest,
                                                 const std::string& command_id,
                                                 const CommandOptions& options);
  // The append of `events` on `before` (nullptr: a creation), giving `after`. It expects the
  // store at `before`'s version and at `tip`, the append that made `before`: after a failover the
  // new master can be at that version by other appends (game_store.h).
  store::AppendRequest RequestFor(absl::string_view game_id, const State* before,
                                  absl::string_view tip, const State& after,
                                  const std::vector<Event>& events, const std::string& command_id,
                                  const std::string& fingerprint, std::int64_t now_ms);
  absl::StatusOr<store::AppendResult> Append(absl::string_view game_id, const State* before,
                                             absl::string_view tip, const State& after,
                                             const std::vector<Event>& events,
                                             const std::string& command_id,
                                             const std::string& fingerprint, std::int64_t now_ms);
  // What fell on `before`, under the system id every replica derives.
  absl::StatusOr<store::AppendResult> AppendSettled(absl::string_view game_id, const State& before,
                                                    absl::string_view tip, const State& after,
                                                    const std::vector<Event>& events,
                                                    std::int64_t now_ms);
  Result Made(std::shared_ptr<const State> game, std::int64_t version, std::int64_t now_ms,
              const Decision& decision) const {
    Result r;
    r.version = version;
    r.now_ms = now_ms;
    r.game = std::move(game);
    domain_.Decided(r, decision);
    return r;
  }
  // An append that landed (not a replay) as `tip`: the observers told, the state cached.
  void Landed(absl::string_view game_id, std::shared_ptr<const State> after,
              const std::vector<Event>& events, std::string tip) {
    const std::optional<std::int64_t> deadline = domain_.NextDeadline(*after);
    for (Observer* o : observers_) o->OnAppended(game_id, *after, events, deadline);
    cache_.Remember(game_id, std::move(after), std::move(tip));
  }
  // The cached state of `game_id`, if any, once the cache has seen the store's master epoch (a
  // switch to another master empties it: its states may hold appends the new master never got).
  Known Cached(absl::string_view game_id) {
    cache_.ObserveMasterEpoch(store_->MasterEpoch());
    return cache_.GetKnown(game_id);
  }
  // The store's answer to ExecuteAsync's append.
  void Appended(Pending pending, absl::StatusOr<store::AppendResult> result);
  // Execute on the offload, then `done`.
  void ExecuteLater(const Offload& offload, std::string game_id, Command command,
                    CommandOptions options, Callback done) {
    offload([this, game_id = std::move(game_id), command = std::move(command),
             options = std::move(options),
             done = std::move(done)] { done(Execute(game_id, command, options)); });
  }
  void NotifyCommand(absl::string_view kind, const absl::Status& status) {
    for (Observer* o : observers_) o->OnCommand(kind, status);
  }
  void NotifyConflict(absl::string_view game_id) {
    for (Observer* o : observers_) o->OnConflict();
    cache_.Forget(game_id);
  }
  // An append's status: false when it landed (or was replayed), true when it lost the
  // compare-and-set (the observers told, the cached state dropped), else its error.
  absl::StatusOr<bool> LostTheRace(absl::string_view game_id, const absl::Status& status) {
    if (status.ok()) return false;
    if (!internal::IsConflict(status)) return status;
    NotifyConflict(game_id);
    return true;
  }

  store::GameStore* const store_;
  TimeSource* const time_;
  Domain domain_;
  const AuthorityOptions options_;
  std::vector<Observer*> observers_;
  store::CommandIds command_ids_;
  store::StateCache<State> cache_;
};

// --- Implementation ------------------------------------------------------------------------------

template <typename Domain>
template <typename Make>
absl::StatusOr<typename Domain::Result> Authority<Domain>::Create(absl::string_view game_id,
                                                                  const CommandOptions& options,
                                                                  Make make) {
  auto run = [&]() -> absl::StatusOr<Result> {
    RETURN_IF_ERROR(store::ValidateGameId(game_id));
    const std::int64_t now = NowMs();
    absl::StatusOr<std::pair<Event, State>> made = make(now);
    if (!made.ok()) return made.status();
    std::vector<Event> events = {std::move(made->first)};
    auto game = std::make_shared<const State>(std::move(made->second));
    ASSIGN_OR_RETURN(const std::string id, StoredCommandId(options));
    ASSIGN_OR_RETURN(store::AppendResult result,
                     Append(game_id, nullptr, "", *game, events, id, options.fingerprint, now));
    if (result.replayed) return Replayed(game_id, result.version, id);
    Landed(game_id, game, events, result.tip);
    return Made(std::move(game), result.version, now, Decision{});
  };
  absl::StatusOr<Result> r = run();
  NotifyCommand("create", r.status());
  return r;
}

template <typename Domain>
absl::StatusOr<typename Domain::Result> Authority<Domain>::Execute(absl::string_view game_id,
                                                                   const Command& command,
                                                                   const CommandOptions& options) {
  auto run = [&]() -> absl::StatusOr<Result> {
    RETURN_IF_ERROR(store::ValidateGameId(game_id));
    ASSIGN_OR_RETURN(const std::string command_id, StoredCommandId(options));
    bool use_cache = true;
    for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
      ASSIGN_OR_RETURN(const Known known, Load(game_id, use_cache));
      const std::shared_ptr<const State>& before = known.state;
      const bool from_cache = use_cache;
      use_cache = false;  // after any surprise, decide again on the store's state
      if (options.expected_version != 0 && before->version() != options.expected_version) {
        if (from_cache) continue;
        ASSIGN_OR_RETURN(std::optional<Result> done,
                         Recorded(game_id, *before, command_id, options));
        if (done.has_value()) return *std::move(done);
        return base::Aborted(store::kErrVersionConflict,
                             absl::StrCat("game \"", game_id, "\" is at version ",
                                          before->version(), ", not ", options.expected_version));
      }
      const std::int64_t now = NowMs();
      // A malformed command is malformed on any state: no reload.
      ASSIGN_OR_RETURN(Decision decision, domain_.Decide(game_id, *before, command, now));
      const bool refused = !decision.refused.ok();
      if (refused && decision.events.empty()) {
        if (from_cache) continue;  // refuse only on the store's latest state
        ASSIGN_OR_RETURN(std::optional<Result> done,
                         Recorded(game_id, *before, command_id, options));
        if (done.has_value()) return *std::move(done);
        return decision.refused;
      }
      if (refused) {
        // What fell before the command is recorded as the deadline check would record it, under
        // the same id, so it is recorded once; then the refusal stands (unless this is a retry).
        ASSIGN_OR_RETURN(std::optional<Result> done,
                         Recorded(game_id, *before, command_id, options));
        if (done.has_value()) return *std::move(done);
      }
      if (decision.events.empty() || !decision.after.has_value()) {
        // Nothing to record (a command that changes nothing): the state as it is.
        return Made(before, before->version(), now, decision);
      }
      auto after = std::make_shared<const State>(*std::move(decision.after));
      absl::StatusOr<store::AppendResult> result =
          refused ? AppendSettled(game_id, *before, known.tip, *after, decision.events, now)
                  : Append(game_id, before.get(), known.tip, *after, decision.events, command_id,
                           options.fingerprint, now);
      // Another writer got there first: decide again on the store's state (with an expected
      // version, that state answers: a conflict, or the retry's original result).
      ASSIGN_OR_RETURN(const bool lost, LostTheRace(game_id, result.status()));
      if (lost) continue;
      if (result->replayed) {
        if (refused) {
          cache_.Forget(game_id);
          continue;  // another replica recorded what fell: decide again on its state
        }
        return Replayed(game_id, result->version, command_id);
      }
      Landed(game_id, after, decision.events, result->tip);
      if (refused) return decision.refused;
      return Made(std::move(after), result->version, now, decision);
    }
    return internal::GaveUp("command", options_.max_attempts, game_id);
  };
  absl::StatusOr<Result> r = run();
  if (!r.ok()) r = internal::ArchivedCommand(r.status(), options, game_id);
  NotifyCommand(domain_.KindOf(command), r.status());
  return r;
}

template <typename Domain>
void Authority<Domain>::ExecuteAsync(absl::string_view game_id, const Command& command,
                                     const CommandOptions& options, const Offload& offload,
                                     Callback done) {
  // Whatever the fast path cannot finish is Execute's, from the start, on a thread that may wait.
  Known known;
  // A client id in the server's namespace is refused by Execute, before anything is read.
  if (store::ValidateGameId(game_id).ok() && store::CheckClientCommandId(options.command_id).ok()) {
    known = Cached(game_id);
  }
  const std::shared_ptr<const State>& before = known.state;
  if (before == nullptr ||
      (options.expected_version != 0 && before->version() != options.expected_version) ||
      !domain_.DecidesInline(*before)) {
    return ExecuteLater(offload, std::string(game_id), command, options, std::move(done));
  }
  const std::int64_t now = NowMs();
  absl::StatusOr<Decision> decision = domain_.Decide(game_id, *before, command, now);
  // A refusal is given only on the store's latest state (and a retry must be looked up first);
  // a command that records what fell before it and is then refused, a malformed one and one
  // that changes nothing are Execute's too (all rare).
  if (!decision.ok() || !decision->refused.ok() || decision->events.empty() ||
      !decision->after.has_value()) {
    return ExecuteLater(offload, std::string(game_id), command, options, std::move(done));
  }
  Pending pending{std::string(game_id), command, options, nullptr, {}, now, offload,
                  std::move(done)};
  pending.stored_id = *StoredCommandId(options);  // checked above
  store::AppendRequest request =
      RequestFor(game_id, before.get(), known.tip, *decision->after, decision->events,
                 pending.stored_id, options.fingerprint, now);
  pending.after = std::make_shared<const State>(*std::move(decision->after));
  decision->after.reset();
  pending.decision = *std::move(decision);
  store_->AppendAsync(std::move(request), [this, pending = std::move(pending)](
                                              absl::StatusOr<store::AppendResult> result) mutable {
    Appended(std::move(pending), std::move(result));
  });
}

template <typename Domain>
void Authority<Domain>::Appended(Pending pending, absl::StatusOr<store::AppendResult> result) {
  const absl::string_view kind = domain_.KindOf(pending.command);
  if (result.ok() && !result->replayed) {
    Landed(pending.game_id, pending.after, pending.decision.events, result->tip);
    Result r = Made(std::move(pending.after), result->version, pending.now_ms, pending.decision);
    NotifyCommand(kind, absl::OkStatus());
    return pending.done(std::move(r));
  }
  if (result.ok()) {
    // A retry of a command already applied (the game moved on since, or the link to the store
    // broke after it ran): its original result, as of then, read from the log.
    return pending.offload([this, game_id = std::move(pending.game_id), version = result->version,
                            command_id = std::move(pending.stored_id), kind,
                            done = std::move(pending.done)] {
      absl::StatusOr<Result> r = Replayed(game_id, version, command_id);
      NotifyCommand(kind, r.status());
      done(std::move(r));
    });
  }
  if (internal::IsConflict(result.status())) {
    // Another writer got there first: decide again on the store's state, as Execute does.
    NotifyConflict(pending.game_id);
    return ExecuteLater(pending.offload, std::move(pending.game_id), std::move(pending.command),
                        std::move(pending.options), std::move(pending.done));
  }
  absl::Status status = internal::ArchivedCommand(
      domain_.StoreError(result.status(), pending.game_id), pending.options, pending.game_id);
  NotifyCommand(kind, status);
  pending.done(std::move(status));
}

template <typename Domain>
absl::StatusOr<typename Domain::Result> Authority<Domain>::Current(absl::string_view game_id,
                                                                   bool use_cache) {
  RETURN_IF_ERROR(store::ValidateGameId(game_id));
  ASSIGN_OR_RETURN(Known known, Load(game_id, use_cache));
  const std::int64_t version = known.state->version();
  return Made(std::move(known.state), version, NowMs(), Decision{});
}

template <typename Domain>
absl::StatusOr<typename Authority<Domain>::Known> Authority<Domain>::Load(absl::string_view game_id,
                                                                          bool use_cache) {
  if (use_cache) {
    if (Known cached = Cached(game_id); cached.state != nullptr) return cached;
  } else {
    cache_.ObserveMasterEpoch(store_->MasterEpoch());
  }
  absl::StatusOr<store::LatestState> latest = store_->ReadLatest(game_id);
  if (!latest.ok()) return domain_.StoreError(latest.status(), game_id);
  absl::StatusOr<State> game = domain_.FromStore(*store_, game_id, latest->snapshot);
  if (!game.ok()) return domain_.StoreError(game.status(), game_id);
  // The events after the snapshot last written (AuthorityOptions::snapshot_every).
  for (const arbiter::v1::GameEvent& stored : latest->tail) {
    absl::StatusOr<Event> event = domain_.FromStoreEvent(stored);
    if (!event.ok()) return domain_.StoreError(event.status(), game_id);
    if (absl::Status st = game->Apply(*event); !st.ok()) {
      return internal::CorruptLog(absl::StrCat("event ", stored.version(), " of game \"", game_id,
                                               "\" does not apply: ", st.message()));
    }
  }
  auto shared = std::make_shared<const State>(*std::move(game));
  for (Observer* o : observers_) o->OnLoaded(game_id, *shared);
  const std::string& tip = latest->snapshot.tip();
  cache_.Remember(game_id, shared, tip);
  return Known{std::move(shared), tip};
}

template <typename Domain>
absl::StatusOr<std::shared_ptr<const typename Domain::State>> Authority<Domain>::StateAt(
    absl::string_view game_id, std::int64_t version) {
  absl::StatusOr<std::vector<arbiter::v1::GameEvent>> log = store_->ReadEvents(game_id, 1, version);
  if (!log.ok()) return domain_.StoreError(log.status(), game_id);
  std::vector<Event> events;
  events.reserve(log->size());
  for (const arbiter::v1::GameEvent& e : *log) {
    ASSIGN_OR_RETURN(Event event, domain_.FromStoreEvent(e));
    events.push_back(std::move(event));
  }
  ASSIGN_OR_RETURN(State game, domain_.Replay(std::move(events)));
  return std::make_shared<const State>(std::move(game));
}

template <typename Domain>
absl::StatusOr<typename Domain::Result> Authority<Domain>::Replayed(absl::string_view game_id,
                                                                    std::int64_t version,
                                                                    absl::string_view command_id) {
  ASSIGN_OR_RETURN(std::shared_ptr<const State> game, StateAt(game_id, version));
  Result r;
  r.now_ms = game->last_event_ms();
  r.version = version;
  r.replayed = true;
  r.game = std::move(game);
  absl::Status extras = domain_.Replayed(*store_, game_id, version, command_id, r);
  if (!extras.ok()) return domain_.StoreError(std::move(extras), game_id);
  return r;
}

template <typename Domain>
absl::StatusOr<std::optional<typename Domain::Result>> Authority<Domain>::Recorded(
    absl::string_view game_id, const State& latest, const std::string& command_id,
    const CommandOptions& options) {
  if (options.command_id.empty()) return std::nullopt;
  absl::StatusOr<store::AppendResult> same = store_->Append(internal::RecordProbe(
      game_id, command_id, options.fingerprint, domain_.ToStoreSnapshot(latest)));
  if (!same.ok()) {
    // Not recorded: the creation of a game that exists is refused, and wrote nothing.
    if (base::ErrorCode(same.status()) == store::kErrGameExists) return std::nullopt;
    // Recorded for another request (ERR_COMMAND_ID_REUSED), or the store did not answer.
    return domain_.StoreError(same.status(), game_id);
  }
  if (!same->replayed) {
    return internal::CorruptLog(
        absl::StrCat("the store created game \"", game_id, "\" a second time"));
  }
  ASSIGN_OR_RETURN(Result r, Replayed(game_id, same->version, command_id));
  return r;
}

template <typename Domain>
store::AppendRequest Authority<Domain>::RequestFor(absl::string_view game_id, const State* before,
                                                   absl::string_view tip, const State& after,
                                                   const std::vector<Event>& events,
                                                   const std::string& command_id,
                                                   const std::string& fingerprint,
                                                   std::int64_t now_ms) {
  store::AppendRequest request;
  request.game_id = std::string(game_id);
  request.expected_version = before == nullptr ? 0 : before->version();
  if (before != nullptr) request.expected_tip = std::string(tip);
  request.command_id = command_id;
  request.fingerprint = fingerprint.empty() ? command_id : fingerprint;
  request.events.reserve(events.size());
  for (const Event& e : events) request.events.push_back(domain_.ToStoreEvent(e, now_ms));
  request.snapshot = domain_.ToStoreSnapshot(after);
  request.snapshot_every = options_.snapshot_every;
  // The games index: the domain's labels, when this append changes them (store/game_store.h).
  if constexpr (requires { domain_.IndexUpdate(before, after); }) {
    request.index = domain_.IndexUpdate(before, after);
  }
  const std::optional<std::int64_t> deadline = domain_.NextDeadline(after);
  if (!deadline.has_value()) {
    request.deadline = store::DeadlineUpdate::Clear();
  } else {
    request.deadline = store::DeadlineUpdate::Set(*deadline);
    if constexpr (requires { domain_.DeadlineBound(after, now_ms); }) {
      if (options_.deadline_bounds) {
        request.deadline =
            store::DeadlineUpdate::Bound(std::min(*deadline, domain_.DeadlineBound(after, now_ms)));
      }
    }
  }
  return request;
}

template <typename Domain>
absl::StatusOr<store::AppendResult> Authority<Domain>::Append(
    absl::string_view game_id, const State* before, absl::string_view tip, const State& after,
    const std::vector<Event>& events, const std::string& command_id, const std::string& fingerprint,
    std::int64_t now_ms) {
  absl::StatusOr<store::AppendResult> result = store_->Append(
      RequestFor(game_id, before, tip, after, events, command_id, fingerprint, now_ms));
  if (!result.ok()) return domain_.StoreError(result.status(), game_id);
  return result;
}

template <typename Domain>
absl::StatusOr<store::AppendResult> Authority<Domain>::AppendSettled(
    absl::string_view game_id, const State& before, absl::string_view tip, const State& after,
    const std::vector<Event>& events, std::int64_t now_ms) {
  const std::string id = SystemCommandId(Domain::kSystemPrefix, game_id, before.version());
  absl::StatusOr<store::AppendResult> result =
      Append(game_id, &before, tip, after, events, id, id, now_ms);
  if (!result.ok() && internal::IsReused(result.status())) {
    const std::string fallback = SystemFallbackId(Domain::kSystemPrefix, game_id, before.version());
    result = Append(game_id, &before, tip, after, events, fallback, fallback, now_ms);
  }
  return result;
}

template <typename Domain>
absl::StatusOr<SettleResult> Authority<Domain>::CheckDeadline(absl::string_view game_id,
                                                              std::int64_t known_version) {
  RETURN_IF_ERROR(store::ValidateGameId(game_id));
  bool use_cache = known_version > 0;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    Known known;
    if (use_cache) {
      known = Cached(game_id);
      if (known.state != nullptr && known.state->version() != known_version) known = Known{};
    }
    use_cache = false;
    if (known.state == nullptr) {
      ASSIGN_OR_RETURN(known, Load(game_id, /*use_cache=*/false));
    }
    const std::shared_ptr<const State>& before = known.state;
    const std::int64_t now = NowMs();
    ASSIGN_OR_RETURN(std::vector<Event> events, domain_.Settle(game_id, *before, now));
    SettleResult out;
    if (events.empty()) {
      // A domain may put off a deadline that is due but has nothing to record yet (a question
      // its answer waits for): NextDeadlineAfter(state, now), where it has one.
      if constexpr (requires { domain_.NextDeadlineAfter(*before, now); }) {
        out.next_deadline = domain_.NextDeadlineAfter(*before, now);
      } else {
        out.next_deadline = domain_.NextDeadline(*before);
      }
      out.version = before->version();
      return out;
    }
    State after = *before;
    for (const Event& e : events) {
      if (absl::Status st = after.Apply(e); !st.ok()) {
        return internal::CorruptLog(absl::StrCat("a settled event does not apply: ", st.message()));
      }
    }
    absl::StatusOr<store::AppendResult> result =
        AppendSettled(game_id, *before, known.tip, after, events, now);
    ASSIGN_OR_RETURN(const bool lost, LostTheRace(game_id, result.status()));
    if (lost) continue;
    if (result->replayed) {
      cache_.Forget(game_id);
      out.already_recorded = true;
      out.version = result->version;
      return out;
    }
    out.recorded = static_cast<int>(events.size());
    out.next_deadline = domain_.NextDeadline(after);
    out.version = result->version;
    Landed(game_id, std::make_shared<const State>(std::move(after)), events, result->tip);
    return out;
  }
  return internal::GaveUp("deadline check", options_.max_attempts, game_id);
}

}  // namespace ledger

#endif  // ARBITER_LIBS_LEDGER_AUTHORITY_H_
