// The arbitration domain service: runs a game's commands against the game store, one atomic
// append each (the events the rulings decided + the snapshot after them + the flag/default
// deadline, compare-and-set on the version), and records what time does by itself (flags,
// defaults) for the server's timers. The store, the time base and the analyst are injected: no
// gRPC, no Redis here. The design is the clock authority's (libs/clock_authority/authority.h).
//
//   GameAuthority authority(&store, [&] { return time.NowMs(); }, analyst, {.owner = "pod-a:1"});
//   ASSIGN_OR_RETURN(CommandResult r, authority.Create("g1", create_request, actor, {}));
//   Command move{.kind = CommandKind::kMove, .actor = actor, .side = chess::Color::kWhite,
//                .move = "e4"};
//   ASSIGN_OR_RETURN(r, authority.Execute("g1", move, {.command_id = "m1"}));
//
// - A command is decided (rulings.h) on the latest state and appended at that state's version.
//   The replica keeps the latest state of the games it served (a cache), so a command is usually
//   one store round trip; a stale entry only costs the compare-and-set's ERR_VERSION_CONFLICT,
//   after which the state is read again and the command decided again. A refusal is only ever
//   given on a state just read from the store.
// - Idempotent by command id: a retry (same id, same fingerprint) returns the original result,
//   with the state as of that version, replayed, and changes nothing.
// - Time passes without anyone's command: what fell by now (a flag, 6.9; a default, 6.7) is
//   recorded by Settle (rulings.h) with the command id "settle:<game>:<version>" (fingerprinted
//   by that id; a namespace no client id can enter, store/command_ids.h), so any number of replicas
//   checking the same state append it once. A command that finds such events before it and is
//   refused (a move after the mover's flag fell) appends them the same way, then returns its
//   refusal.
#ifndef ARBITER_LIBS_ARBITRATION_AUTHORITY_H_
#define ARBITER_LIBS_ARBITRATION_AUTHORITY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"
#include "libs/store/command_ids.h"
#include "libs/store/game_store.h"
#include "libs/store/state_cache.h"

namespace arbitration {

struct AuthorityOptions {
  std::string owner = "arbitration";  // this replica, unique (pod name and pid)
  int max_attempts = 8;               // decide-and-append rounds on version conflicts
  size_t cache_size = 20'000;         // games whose latest state this replica keeps
};

// Hooks for metrics and the deadline timers. Called on the calling thread, after the fact.
class AuthorityObserver {
 public:
  virtual ~AuthorityObserver() = default;
  // A command finished (kind: "create", "move", ...; status OK or its error).
  virtual void OnCommand(absl::string_view kind, const absl::Status& status) {}
  // This replica appended `events` (not a replay), giving `after`; `deadline` is what the append
  // set in the store's index (nullopt: cleared).
  virtual void OnAppended(absl::string_view game_id, const GameState& after,
                          const std::vector<v1::ArbitrationEvent>& events,
                          std::optional<std::int64_t> deadline) {}
  // A compare-and-set lost to another writer (the state is read again).
  virtual void OnConflict() {}
};

struct CommandOptions {
  // Client-chosen, unique per command within the game; "" = the authority makes one (a retry is
  // then a new command). Stored scoped to the actor's subject (Command::actor, Create's actor:
  // the token's subject, store::ScopedCommandId), so no caller's id pre-empts another's and a
  // retry by the same subject is replayed; an id in the server's namespace ("settle:...",
  // store::IsReservedCommandId) is refused INVALID_ARGUMENT ERR_RESERVED_COMMAND_ID and changes
  // nothing (issue 15).
  std::string command_id;
  // The request's identity for retries (e.g. a hash of it); "" = the command id.
  std::string fingerprint;
  // 0: any version; otherwise ERR_VERSION_CONFLICT unless the game is at it.
  std::int64_t expected_version = 0;
};

struct CommandResult {
  std::shared_ptr<const GameState> game;  // the state after the command (replay: as of then)
  std::int64_t version = 0;
  bool replayed = false;
  std::int64_t now_ms = 0;                                      // the instant to read the state at
  v1::ClaimRuling claim_ruling = v1::CLAIM_RULING_UNSPECIFIED;  // a claim's own ruling
  // 9.1a: the move's draw offer the regulations refused (the move was made).
  std::optional<v1::DrawOfferRefused> draw_offer_refused;
};

struct SettleResult {
  int recorded = 0;                           // events this call appended
  bool already_recorded = false;              // another replica (or a retry) appended them first
  std::optional<std::int64_t> next_deadline;  // of the state after the check
  std::int64_t version = 0;
};

// The service's part of Appendix A's secret (sealed_move.h: SealedMoves::Open): the sealed move
// waiting in `game` in clear (nullopt: none waits). FAILED_PRECONDITION ERR_SEAL_KEY_MISSING when
// the server has no seal key.
using EnvelopeOpener = std::function<absl::StatusOr<std::optional<std::string>>(
    absl::string_view game_id, const GameState& game)>;

class GameAuthority {
 public:
  using Clock = std::function<std::int64_t()>;
  // `now_ms`: the time base of every replica (the store's clock, ms since the Unix epoch).
  GameAuthority(store::GameStore* store, Clock now_ms, Analyst& analyst,
                AuthorityOptions options = {});

  // Observers must outlive the authority; add them before use.
  void AddObserver(AuthorityObserver* observer) { observers_.push_back(observer); }
  // Appendix A10: the opener of the envelope for a default that falls while it is still closed
  // and both players are absent (DefaultOpensEnvelope, adjournment.h). The rulings stay pure: the
  // authority hands them the sealed move in clear, as the service does for ResumeAdjournedGame,
  // both on the deadline path (CheckDeadline: Settle's opened_move) and before a command
  // (Command::opened_move). Unset, or without a seal key: the envelope stays closed and both lose
  // (6.7). Set it before use.
  void SetEnvelopeOpener(EnvelopeOpener opener) { open_envelope_ = std::move(opener); }

  // Creates the game (expected version 0): ALREADY_EXISTS ERR_GAME_EXISTS if it exists, unless
  // this is a retry of the same creation (replayed).
  absl::StatusOr<CommandResult> Create(absl::string_view game_id,
                                       const v1::CreateGameRequest& request, const v1::Actor& actor,
                                       const CommandOptions& options);
  // A command (Decide in rulings.h) at the time base's now.
  absl::StatusOr<CommandResult> Execute(absl::string_view game_id, const Command& command,
                                        const CommandOptions& options);
  using CommandCallback = std::function<void(absl::StatusOr<CommandResult>)>;
  // Runs `work` on a thread that may wait on the store (a worker pool's).
  using Offload = std::function<void(std::function<void()>)>;
  // Execute without waiting for the store where it can (ClockAuthority::ExecuteAsync's design): a
  // command on a state this replica has cached is decided on the caller's thread and appended
  // with the store's AppendAsync, and `done` runs where the store completes it (the Redis
  // store's I/O lane). Everything else (no cached state, a refusal to confirm on the store's
  // state, a command that first records a flag, a conflict, a replay) goes on as Execute, through
  // `offload`. `done` runs exactly once; the outcome is Execute's.
  void ExecuteAsync(absl::string_view game_id, const Command& command,
                    const CommandOptions& options, const Offload& offload, CommandCallback done);
  // The latest state, read from the store, and the time to read it at.
  absl::StatusOr<CommandResult> Get(absl::string_view game_id);
  // The latest state this replica knows: its cache's, else the store's. For a caller whose write
  // is a compare-and-set at the state's version anyway (a stale state only loses the race).
  absl::StatusOr<CommandResult> GetCached(absl::string_view game_id);
  // Records what fell by now (Settle). `known_version`: the version whose deadline triggered the
  // check (the cached state is used when it is at that version).
  absl::StatusOr<SettleResult> CheckDeadline(absl::string_view game_id,
                                             std::int64_t known_version = 0);

  // The state as of `version` (replaying the log's first `version` events).
  absl::StatusOr<std::shared_ptr<const GameState>> StateAt(absl::string_view game_id,
                                                           std::int64_t version);

  // Drops the game from this replica's cache (an archived game, libs/arbitration/archive.h).
  void Forget(absl::string_view game_id) { cache_.Forget(game_id); }

  store::GameStore* store() const { return store_; }
  Analyst& analyst() const { return analyst_; }
  std::int64_t NowMs() const { return now_ms_(); }
  const std::string& owner() const { return options_.owner; }

 private:
  // The id the store records for a command: the client's, scoped to its caller, or a new one.
  absl::StatusOr<std::string> StoredCommandId(const CommandOptions& options,
                                              const v1::Actor& actor);
  // The latest state: from the cache if `use_cache`, else read from the store (and cached).
  absl::StatusOr<CommandResult> Current(absl::string_view game_id, bool use_cache);
  absl::StatusOr<std::shared_ptr<const GameState>> Load(absl::string_view game_id, bool use_cache);
  // The original result of `command_id`, which appended up to `version`.
  absl::StatusOr<CommandResult> Replayed(absl::string_view game_id, std::int64_t version,
                                         absl::string_view command_id);
  // One append of `events` on `before` (null: a create), giving `after`. The expected tip is
  // `before`'s when it is the cached state (StateCache::TipOf): after a failover the new master
  // can be at its version by other appends.
  absl::StatusOr<store::AppendResult> Append(absl::string_view game_id, const GameState* before,
                                             const GameState& after,
                                             const std::vector<v1::ArbitrationEvent>& events,
                                             const std::string& command_id,
                                             const std::string& fingerprint, std::int64_t now_ms);
  // The store request of one append of `events` on `before` (null: a create), giving `after`.
  store::AppendRequest AppendRequestFor(absl::string_view game_id, const GameState* before,
                                        const GameState& after,
                                        const std::vector<v1::ArbitrationEvent>& events,
                                        const std::string& command_id,
                                        const std::string& fingerprint, std::int64_t now_ms);
  // A command ExecuteAsync sent to the store, until the store answers.
  struct PendingCommand {
    std::string game_id;
    Command command;
    CommandOptions options;  // as given (a conflict's retry derives the stored id again)
    std::shared_ptr<const GameState> after;
    std::vector<v1::ArbitrationEvent> events;
    std::int64_t now_ms = 0;
    v1::ClaimRuling claim_ruling = v1::CLAIM_RULING_UNSPECIFIED;
    Offload offload;
    CommandCallback done;
    std::string stored_id = {};  // the command id the append was sent with
  };
  // The store's answer to ExecuteAsync's append.
  void Appended(PendingCommand pending, absl::StatusOr<store::AppendResult> result);
  // Execute on the offload, then `done`.
  void ExecuteLater(const Offload& offload, std::string game_id, Command command,
                    CommandOptions options, CommandCallback done);
  // An append that landed (not a replay): the observers told, the state cached.
  // `tip`: the append's (AppendResult.tip), cached with the state.
  void Landed(absl::string_view game_id, std::shared_ptr<const GameState> after,
              const std::vector<v1::ArbitrationEvent>& events, std::string tip);
  // The sealed move in clear for `game`'s default (A10), when DefaultOpensEnvelope and an opener
  // is set; nullopt otherwise, or when the server has no seal key or its key does not open the
  // box (the envelope then stays closed: both lose, 6.7).
  absl::StatusOr<std::optional<std::string>> OpenedForDefault(absl::string_view game_id,
                                                              const GameState& game) const;
  void NotifyCommand(absl::string_view kind, const absl::Status& status);
  void NotifyConflict();

  store::GameStore* const store_;
  const Clock now_ms_;
  Analyst& analyst_;
  const AuthorityOptions options_;
  std::vector<AuthorityObserver*> observers_;
  EnvelopeOpener open_envelope_;

  store::CommandIds command_ids_;
  store::StateCache<GameState> cache_;
};

// The command id every replica uses for what fell on the state at `version` (flags, defaults).
std::string SettleCommandId(absl::string_view game_id, std::int64_t version);

// The store's forms of the log: an event as a store GameEvent (body: ArbitrationEvent, schema
// kEventSchemaVersion), and back (INTERNAL ERR_CORRUPT_LOG on a foreign type or schema).
arbiter::v1::GameEvent ToStoreEvent(const v1::ArbitrationEvent& event, std::int64_t recorded_at_ms);
absl::StatusOr<v1::ArbitrationEvent> FromStoreEvent(const arbiter::v1::GameEvent& event);
// The state's summary (GameLogSnapshot schema 2): a fixed size whatever the game's length.
v1::GameLogSnapshot Summary(const GameState& game);
// The snapshot an append writes: the summary, packed (kSnapshotSchemaVersion).
arbiter::v1::GameSnapshot ToStoreSnapshot(const GameState& game);
// The state a store snapshot stands for: a schema 1 snapshot holds the log itself; a schema 2 one
// is rebuilt from `events` (the log's first snapshot.version() events) and checked against its
// summary. INTERNAL ERR_CORRUPT_LOG when they disagree or a type or schema is foreign.
absl::StatusOr<GameState> FromStore(const arbiter::v1::GameSnapshot& snapshot,
                                    absl::Span<const arbiter::v1::GameEvent> events);

}  // namespace arbitration

#endif  // ARBITER_LIBS_ARBITRATION_AUTHORITY_H_
