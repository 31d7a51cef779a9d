// The arbitration domain's authority: a game's commands run against the game store by the
// ledger's engine (libs/ledger/authority.h: one atomic append each, compare-and-set on the
// version, retries replayed, what time does by itself recorded once); this file is the game's
// part of it (GameDomain: the rulings, the store's forms of the log, the envelope opener) and the
// service's API over it (GameAuthority). The store, the time base and the analyst are injected:
// no gRPC, no Redis here.
//
//   GameAuthority authority(&store, &time, analyst, {.owner = "pod-a:1"});
//   ASSIGN_OR_RETURN(CommandResult r, authority.Create("g1", create_request, actor, {}));
//   Command move{.kind = CommandKind::kMove, .actor = actor, .side = chess::Color::kWhite,
//                .move = "e4"};
//   ASSIGN_OR_RETURN(r, authority.Execute("g1", move, {.command_id = "m1"}));
//
// - A command is decided (Decide, rulings.h) on the latest state and appended at that state's
//   version with the snapshot after it and the flag/default deadline (NextDeadline).
// - A client's command id is stored scoped to the actor's subject (Command::actor, Create's
//   actor); a retry by the same subject is replayed with its claim's ruling and refused draw
//   offer as first given.
// - What fell by now (a flag, 6.9; a default, 6.7; Settle) is recorded under
//   "settle:<game>:<version>" (SettleCommandId) by CheckDeadline, and before a command that finds
//   it and is refused.
#ifndef ARBITER_LIBS_ARBITRATION_AUTHORITY_H_
#define ARBITER_LIBS_ARBITRATION_AUTHORITY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"
#include "libs/ledger/authority.h"
#include "libs/ledger/time_source.h"
#include "libs/store/game_store.h"

namespace arbitration {

// The engine's options; a GameAuthority's owner is "arbitration" unless given.
using AuthorityOptions = ledger::AuthorityOptions;

// Hooks for metrics and the deadline timers (OnCommand, OnAppended with the events and the
// deadline the append set, OnConflict, OnLoaded). Called on the calling thread, after the fact.
using AuthorityObserver = ledger::AuthorityObserver<GameState, v1::ArbitrationEvent>;

// A command's identity: the client's command id (unique per command within the game; "" = the
// authority makes one, and a retry is then a new command), the request's fingerprint and the
// expected version. Its scope is always the actor's subject (Command::actor, Create's actor: the
// token's subject, store::ScopedCommandId), so no caller's id pre-empts another's and a retry by
// the same subject is replayed; an id in the server's namespace ("settle:...",
// store::IsReservedCommandId) is refused INVALID_ARGUMENT ERR_RESERVED_COMMAND_ID and changes
// nothing.
using CommandOptions = ledger::CommandOptions;

struct CommandResult {
  std::shared_ptr<const GameState> game;  // the state after the command (replay: as of then)
  std::int64_t version = 0;
  bool replayed = false;
  std::int64_t now_ms = 0;                                      // the instant to read the state at
  v1::ClaimRuling claim_ruling = v1::CLAIM_RULING_UNSPECIFIED;  // a claim's own ruling
  // 9.1a: the move's draw offer the regulations refused (the move was made).
  std::optional<v1::DrawOfferRefused> draw_offer_refused;
};

using SettleResult = ledger::SettleResult;

// The service's part of Appendix A's secret (sealed_move.h: SealedMoves::Open): the sealed move
// waiting in `game` in clear (nullopt: none waits). FAILED_PRECONDITION ERR_SEAL_KEY_MISSING when
// the server has no seal key.
using EnvelopeOpener = std::function<absl::StatusOr<std::optional<std::string>>(
    absl::string_view game_id, const GameState& game)>;

// The game's part of the engine (the Domain of libs/ledger/authority.h).
// The games index (store::IndexLabels): a game is listed under its status (GameStatusName's, but
// an ended game whose result waits for the arbiter's review of a flag, 6.10, is
// "flag_under_review"; an archived one kListedArchived), its event, round, players and result.
inline constexpr absl::string_view kListedArchived = "archived";
inline constexpr absl::string_view kListedFlagUnderReview = "flag_under_review";
store::IndexLabels IndexLabelsOf(const GameState& game);
// The index update an append from `before` (nullptr: the creation) to `after` carries: nullopt
// when no label changes, so an ordinary move writes nothing to the index.
std::optional<store::IndexUpdate> IndexUpdateFor(const GameState* before, const GameState& after);

class GameDomain {
 public:
  using State = GameState;
  using Event = v1::ArbitrationEvent;
  using Command = arbitration::Command;
  using Decision = arbitration::Decision;
  using Result = CommandResult;
  static constexpr absl::string_view kSystemPrefix = "settle";

  explicit GameDomain(Analyst& analyst) : analyst_(&analyst) {}

  absl::string_view KindOf(const Command& command) const { return CommandKindName(command.kind); }
  // Decide (rulings.h), with the sealed move in clear when a default may open the envelope.
  absl::StatusOr<Decision> Decide(absl::string_view game_id, const GameState& game,
                                  const Command& command, std::int64_t now_ms);
  // A game whose default may open the envelope (A10) is decided on a thread that may wait.
  bool DecidesInline(const GameState& game) const;
  absl::StatusOr<std::vector<Event>> Settle(absl::string_view game_id, const GameState& game,
                                            std::int64_t now_ms);
  std::optional<std::int64_t> NextDeadline(const GameState& game) const;
  // The deadline a check at `now_ms` that recorded nothing leaves: a question still waiting for
  // analysis (a review, a dead position) is due again at the backoff's next step, not at once.
  std::optional<std::int64_t> NextDeadlineAfter(const GameState& game, std::int64_t now_ms) const;
  // The index's bound (ledger/authority.h): the clocks' FlagBound.
  std::int64_t DeadlineBound(const GameState& game, std::int64_t now_ms) const {
    return game.clock().FlagBound(now_ms);
  }
  arbiter::v1::GameEvent ToStoreEvent(const Event& event, std::int64_t recorded_at_ms) const;
  absl::StatusOr<Event> FromStoreEvent(const arbiter::v1::GameEvent& event) const;
  arbiter::v1::GameSnapshot ToStoreSnapshot(const GameState& game) const;
  std::optional<store::IndexUpdate> IndexUpdate(const GameState* before,
                                                const GameState& after) const {
    return IndexUpdateFor(before, after);
  }
  absl::StatusOr<GameState> FromStore(store::EventLog& log, absl::string_view game_id,
                                      const arbiter::v1::GameSnapshot& snapshot) const;
  absl::StatusOr<GameState> Replay(std::vector<Event> events) const;
  // A claim's ruling and the move's refused draw offer (9.1a).
  void Decided(CommandResult& result, const Decision& decision) const;
  // The same as first given: the command's own events are the last ones it appended.
  absl::Status Replayed(store::EventLog& log, absl::string_view game_id, std::int64_t version,
                        absl::string_view command_id, CommandResult& result) const;
  absl::Status StoreError(absl::Status status, absl::string_view) const { return status; }

  void SetEnvelopeOpener(EnvelopeOpener opener) { open_envelope_ = std::move(opener); }
  Analyst& analyst() const { return *analyst_; }

 private:
  // The sealed move in clear for `game`'s default (A10), when DefaultOpensEnvelope and an opener
  // is set; nullopt otherwise, or when the server has no seal key or its key does not open the
  // box (the envelope then stays closed: both lose, 6.7).
  absl::StatusOr<std::optional<std::string>> OpenedForDefault(absl::string_view game_id,
                                                              const GameState& game) const;

  Analyst* analyst_;
  EnvelopeOpener open_envelope_;
};

// The engine over the game's domain, with arbitration's extras: the actor's subject as the scope
// of a command id, the envelope's opener (A10) and the analyst.
class GameAuthority : private ledger::Authority<GameDomain> {
 public:
  using Engine = ledger::Authority<GameDomain>;
  using CommandCallback = Engine::Callback;
  // Runs `work` on a thread that may wait on the store (a worker pool's).
  using Offload = Engine::Offload;

  // `time`: the time base of every replica (the store's clock, ms since the Unix epoch).
  GameAuthority(store::GameStore* store, ledger::TimeSource* time, Analyst& analyst,
                AuthorityOptions options = {.owner = "arbitration"})
      : Engine(store, time, GameDomain(analyst), std::move(options)) {}

  // Observers must outlive the authority; add them before use.
  using Engine::AddObserver;
  // Appendix A10: the opener of the envelope for a default that falls while it is still closed
  // and both players are absent (DefaultOpensEnvelope, adjournment.h). The rulings stay pure: the
  // authority hands them the sealed move in clear, as the service does for ResumeAdjournedGame,
  // both on the deadline path (CheckDeadline: Settle's opened_move) and before a command
  // (Command::opened_move). Unset, or without a seal key: the envelope stays closed and both lose
  // (6.7). Set it before use.
  void SetEnvelopeOpener(EnvelopeOpener opener) { domain().SetEnvelopeOpener(std::move(opener)); }

  // Creates the game (expected version 0): ALREADY_EXISTS ERR_GAME_EXISTS if it exists, unless
  // this is a retry of the same creation (replayed); a reserved id (CheckNotReserved) is refused.
  absl::StatusOr<CommandResult> Create(absl::string_view game_id,
                                       const v1::CreateGameRequest& request, const v1::Actor& actor,
                                       const CommandOptions& options);
  // A command (Decide in rulings.h) at the time base's now.
  absl::StatusOr<CommandResult> Execute(absl::string_view game_id, const Command& command,
                                        const CommandOptions& options) {
    return Engine::Execute(game_id, command, Identity(options, command.actor));
  }
  // Execute without waiting for the store where it can (ledger::Authority::ExecuteAsync); a game
  // whose default may open the envelope (A10) goes the way of Execute. `done` runs exactly once.
  void ExecuteAsync(absl::string_view game_id, const Command& command,
                    const CommandOptions& options, const Offload& offload, CommandCallback done) {
    Engine::ExecuteAsync(game_id, command, Identity(options, command.actor), offload,
                         std::move(done));
  }
  // The latest state, read from the store, and the time to read it at.
  using Engine::Get;
  // The latest state this replica knows: its cache's, else the store's. For a caller whose write
  // is a compare-and-set at the state's version anyway (a stale state only loses the race).
  using Engine::GetCached;
  // Records what fell by now (Settle). `known_version`: the version whose deadline triggered the
  // check (the cached state is used when it is at that version).
  using Engine::CheckDeadline;
  // The state as of `version` (replaying the log's first `version` events).
  using Engine::StateAt;
  // Drops the game from this replica's cache (an archived game, libs/arbitration/archive.h).
  using Engine::Forget;

  using Engine::NowMs;
  using Engine::owner;
  using Engine::store;
  Analyst& analyst() const { return domain().analyst(); }

 private:
  // The engine's options: the client's id is scoped to the actor's subject.
  static CommandOptions Identity(CommandOptions options, const v1::Actor& actor) {
    options.scope = actor.subject();
    return options;
  }
};

// Events' records (event_rounds.h) live in the game store under "event:<id>": a game id in that
// namespace is refused INVALID_ARGUMENT ERR_RESERVED_GAME_ID (Create, and every command and read
// of the engine: GameDomain::FromStore), so no game's log is ever read as an event's, nor an
// event's as a game's.
inline constexpr absl::string_view kEventLogPrefix = "event:";
absl::Status CheckNotReserved(absl::string_view game_id);

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
