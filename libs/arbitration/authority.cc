#include "libs/arbitration/authority.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/errors.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {
namespace {

bool IsConflict(const absl::Status& st) {
  return base::ErrorCode(st) == store::kErrVersionConflict;
}

std::uint64_t Fnv1a64(absl::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

store::DeadlineUpdate DeadlineOf(const GameState& game) {
  const std::optional<std::int64_t> deadline = NextDeadline(game);
  return deadline.has_value() ? store::DeadlineUpdate::Set(*deadline)
                              : store::DeadlineUpdate::Clear();
}

v1::GameStatus ToProto(GameStatus status) {
  switch (status) {
    case GameStatus::kCreated:
      return v1::GAME_STATUS_CREATED;
    case GameStatus::kOngoing:
      return v1::GAME_STATUS_ONGOING;
    case GameStatus::kAwaitingRuling:
      return v1::GAME_STATUS_AWAITING_RULING;
    case GameStatus::kEnded:
      return v1::GAME_STATUS_ENDED;
    case GameStatus::kAdjourned:  // Appendix A
      return v1::GAME_STATUS_ADJOURNED;
  }
  return v1::GAME_STATUS_UNSPECIFIED;
}

// The settled events' id when SettleCommandId is taken (ERR_COMMAND_ID_REUSED): only in a log
// written before issue 15, when a client's id could be "settle:...". Every replica derives it
// alike.
std::string SettleFallbackId(absl::string_view game_id, std::int64_t version) {
  return absl::StrCat("sys:", absl::Hex(Fnv1a64(game_id), absl::kZeroPad16), ":settle:", version);
}

bool IsReused(const absl::StatusOr<store::AppendResult>& result) {
  return !result.ok() && base::ErrorCode(result.status()) == store::kErrCommandIdReused;
}

// 9.1a: the draw offer a command's move carried and the regulations refused, if any.
std::optional<v1::DrawOfferRefused> DrawOfferRefusedIn(
    const std::vector<v1::ArbitrationEvent>& events) {
  for (const v1::ArbitrationEvent& e : events) {
    if (e.has_draw_offer_refused()) return e.draw_offer_refused();
  }
  return std::nullopt;
}

}  // namespace

std::string SettleCommandId(absl::string_view game_id, std::int64_t version) {
  std::string id = absl::StrCat("settle:", game_id, ":", version);
  if (id.size() > static_cast<size_t>(store::kMaxIdLength)) {
    id = absl::StrCat("settle:h", absl::Hex(Fnv1a64(game_id), absl::kZeroPad16), ":", version);
  }
  return id;
}

arbiter::v1::GameEvent ToStoreEvent(const v1::ArbitrationEvent& event,
                                    std::int64_t recorded_at_ms) {
  arbiter::v1::GameEvent out;
  out.set_recorded_at_ms(recorded_at_ms);
  out.set_schema_version(kEventSchemaVersion);
  out.mutable_body()->PackFrom(event);
  return out;
}

absl::StatusOr<v1::ArbitrationEvent> FromStoreEvent(const arbiter::v1::GameEvent& event) {
  v1::ArbitrationEvent out;
  if (event.schema_version() != kEventSchemaVersion || !event.body().UnpackTo(&out)) {
    return Error(kErrCorruptLog,
                 absl::StrCat("event ", event.version(), " is not an arbitration event (schema ",
                              event.schema_version(), ", ", event.body().type_url(), ")"));
  }
  return out;
}

v1::GameLogSnapshot Summary(const GameState& game) {
  v1::GameLogSnapshot out;
  out.set_version(game.version());
  out.set_status(ToProto(game.status()));
  if (game.outcome().over()) laws::ToProto(game.outcome(), out.mutable_outcome());
  out.set_fen(chess::ToFen(game.position()));
  out.set_plies(static_cast<std::int32_t>(game.plies()));
  out.set_white_ms(game.RemainingMs(chess::Color::kWhite, game.last_event_ms()));
  out.set_black_ms(game.RemainingMs(chess::Color::kBlack, game.last_event_ms()));
  if (game.status() == GameStatus::kOngoing) {
    out.set_clock_running(laws::ToProto(game.clock().running()));
  }
  out.set_draw_offer(laws::ToProto(game.draw_offer()));
  out.set_last_event_ms(game.last_event_ms());
  if (std::optional<std::int64_t> deadline = NextDeadline(game)) out.set_deadline_ms(*deadline);
  out.set_awaiting_ruling(game.status() == GameStatus::kAwaitingRuling);
  out.set_review(game.review());
  return out;
}

arbiter::v1::GameSnapshot ToStoreSnapshot(const GameState& game) {
  arbiter::v1::GameSnapshot out;
  out.set_schema_version(kSnapshotSchemaVersion);
  out.mutable_state()->PackFrom(Summary(game));
  return out;
}

absl::StatusOr<GameState> FromStore(const arbiter::v1::GameSnapshot& snapshot,
                                    absl::Span<const arbiter::v1::GameEvent> events) {
  v1::GameLogSnapshot stored;
  const std::uint32_t schema = snapshot.schema_version();
  if ((schema != kSnapshotSchemaVersion && schema != kLogSnapshotSchemaVersion) ||
      !snapshot.state().UnpackTo(&stored)) {
    return Error(kErrCorruptLog,
                 absl::StrCat("the snapshot is not a game's (schema ", snapshot.schema_version(),
                              ", ", snapshot.state().type_url(), ")"));
  }
  std::optional<GameState> game;
  if (schema == kLogSnapshotSchemaVersion) {
    ASSIGN_OR_RETURN(game, GameState::FromSnapshot(stored));
  } else {
    std::vector<v1::ArbitrationEvent> log;
    log.reserve(events.size());
    for (const arbiter::v1::GameEvent& e : events) {
      ASSIGN_OR_RETURN(v1::ArbitrationEvent event, FromStoreEvent(e));
      log.push_back(std::move(event));
    }
    ASSIGN_OR_RETURN(game, GameState::Replay(log));
    // The summary was written with the same append as the log's last event: they agree, or the
    // record is damaged.
    if (stored.version() != game->version() || stored.fen() != chess::ToFen(game->position())) {
      return Error(kErrCorruptLog,
                   absl::StrCat("the log's ", game->version(), " events do not give the snapshot (",
                                stored.version(), " events, ", stored.fen(), ")"));
    }
  }
  if (game->version() != snapshot.version()) {
    return Error(kErrCorruptLog, absl::StrCat("the snapshot holds ", game->version(),
                                              " events but is at version ", snapshot.version()));
  }
  return *std::move(game);
}

GameAuthority::GameAuthority(store::GameStore* store, Clock now_ms, Analyst& analyst,
                             AuthorityOptions options)
    : store_(store),
      now_ms_(std::move(now_ms)),
      analyst_(analyst),
      options_(std::move(options)),
      command_ids_(options_.owner),
      cache_(options_.cache_size) {}

absl::StatusOr<std::optional<std::string>> GameAuthority::OpenedForDefault(
    absl::string_view game_id, const GameState& game) const {
  if (!open_envelope_ || !DefaultOpensEnvelope(game)) return std::optional<std::string>();
  absl::StatusOr<std::optional<std::string>> opened = open_envelope_(game_id, game);
  // No seal key, or a box this server's key does not open: the envelope stays closed and the
  // default of 6.7 stands for both (A10's exceptions cannot be examined; the ruling's proof says
  // so, and the arbiter corrects the result with SetResult if the paper envelope shows a mate, a
  // stalemate or a dead position). Refusing instead would block every command on the game,
  // ReportEnvelopeLost and SetResult included, and retry the deadline forever.
  if (!opened.ok() && (base::ErrorCode(opened.status()) == kErrSealKeyMissing ||
                       base::ErrorCode(opened.status()) == kErrSealUnreadable)) {
    return std::optional<std::string>();
  }
  return opened;
}

void GameAuthority::NotifyCommand(absl::string_view kind, const absl::Status& status) {
  for (AuthorityObserver* o : observers_) o->OnCommand(kind, status);
}

void GameAuthority::NotifyConflict() {
  for (AuthorityObserver* o : observers_) o->OnConflict();
}

absl::StatusOr<std::string> GameAuthority::StoredCommandId(const CommandOptions& options,
                                                           const v1::Actor& actor) {
  if (options.command_id.empty()) return command_ids_.Next();
  RETURN_IF_ERROR(store::CheckClientCommandId(options.command_id));
  return store::ScopedCommandId(actor.subject(), options.command_id);
}

absl::StatusOr<std::shared_ptr<const GameState>> GameAuthority::Load(absl::string_view game_id,
                                                                     bool use_cache) {
  cache_.ObserveMasterEpoch(store_->MasterEpoch());
  if (use_cache) {
    if (std::shared_ptr<const GameState> cached = cache_.Get(game_id)) return cached;
  }
  ASSIGN_OR_RETURN(arbiter::v1::GameSnapshot snapshot, store_->ReadSnapshot(game_id));
  // Schema 2 summarises; the state is the log's (schema 1 snapshots hold the log themselves).
  std::vector<arbiter::v1::GameEvent> events;
  if (snapshot.schema_version() != kLogSnapshotSchemaVersion) {
    ASSIGN_OR_RETURN(events, store_->ReadEvents(game_id, 1, snapshot.version()));
  }
  ASSIGN_OR_RETURN(GameState game, FromStore(snapshot, events));
  auto shared = std::make_shared<const GameState>(std::move(game));
  cache_.Remember(game_id, shared, snapshot.tip());
  return shared;
}

absl::StatusOr<std::shared_ptr<const GameState>> GameAuthority::StateAt(absl::string_view game_id,
                                                                        std::int64_t version) {
  ASSIGN_OR_RETURN(std::vector<arbiter::v1::GameEvent> log,
                   store_->ReadEvents(game_id, 1, version));
  std::vector<v1::ArbitrationEvent> events;
  events.reserve(log.size());
  for (const arbiter::v1::GameEvent& e : log) {
    ASSIGN_OR_RETURN(v1::ArbitrationEvent event, FromStoreEvent(e));
    events.push_back(std::move(event));
  }
  ASSIGN_OR_RETURN(GameState game, GameState::Replay(events));
  return std::make_shared<const GameState>(std::move(game));
}

absl::StatusOr<CommandResult> GameAuthority::Replayed(absl::string_view game_id,
                                                      std::int64_t version,
                                                      absl::string_view command_id) {
  ASSIGN_OR_RETURN(std::shared_ptr<const GameState> game, StateAt(game_id, version));
  CommandResult r;
  r.now_ms = game->last_event_ms();
  r.version = version;
  r.replayed = true;
  // The claim's ruling as it was given: the command's own events are the last ones it appended.
  ASSIGN_OR_RETURN(std::vector<arbiter::v1::GameEvent> own,
                   store_->ReadEvents(game_id, std::max<std::int64_t>(1, version - 63), version));
  for (const arbiter::v1::GameEvent& e : own) {
    if (e.command_id() != command_id) continue;
    ASSIGN_OR_RETURN(v1::ArbitrationEvent event, FromStoreEvent(e));
    if (event.has_claim()) r.claim_ruling = event.claim().ruling();
    if (event.has_draw_offer_refused()) r.draw_offer_refused = event.draw_offer_refused();
  }
  r.game = std::move(game);
  return r;
}

absl::StatusOr<store::AppendResult> GameAuthority::Append(
    absl::string_view game_id, const GameState* before, const GameState& after,
    const std::vector<v1::ArbitrationEvent>& events, const std::string& command_id,
    const std::string& fingerprint, std::int64_t now_ms) {
  return store_->Append(
      AppendRequestFor(game_id, before, after, events, command_id, fingerprint, now_ms));
}

store::AppendRequest GameAuthority::AppendRequestFor(
    absl::string_view game_id, const GameState* before, const GameState& after,
    const std::vector<v1::ArbitrationEvent>& events, const std::string& command_id,
    const std::string& fingerprint, std::int64_t now_ms) {
  store::AppendRequest request;
  request.game_id = std::string(game_id);
  request.expected_version = before == nullptr ? 0 : before->version();
  if (before != nullptr) request.expected_tip = cache_.TipOf(game_id, before);
  request.command_id = command_id;
  request.fingerprint = fingerprint.empty() ? command_id : fingerprint;
  request.events.reserve(events.size());
  for (const v1::ArbitrationEvent& e : events) request.events.push_back(ToStoreEvent(e, now_ms));
  request.snapshot = ToStoreSnapshot(after);
  request.deadline = DeadlineOf(after);
  return request;
}

void GameAuthority::Landed(absl::string_view game_id, std::shared_ptr<const GameState> after,
                           const std::vector<v1::ArbitrationEvent>& events, std::string tip) {
  const std::optional<std::int64_t> deadline = NextDeadline(*after);
  for (AuthorityObserver* o : observers_) o->OnAppended(game_id, *after, events, deadline);
  cache_.Remember(game_id, std::move(after), std::move(tip));
}

absl::StatusOr<CommandResult> GameAuthority::Create(absl::string_view game_id,
                                                    const v1::CreateGameRequest& request,
                                                    const v1::Actor& actor,
                                                    const CommandOptions& options) {
  auto run = [&]() -> absl::StatusOr<CommandResult> {
    RETURN_IF_ERROR(store::ValidateGameId(game_id));
    const std::int64_t now = now_ms_();
    ASSIGN_OR_RETURN(v1::ArbitrationEvent created, NewGame(request, now, actor));
    ASSIGN_OR_RETURN(GameState game, GameState::Create(created));
    ASSIGN_OR_RETURN(const std::string id, StoredCommandId(options, actor));
    std::vector<v1::ArbitrationEvent> events = {created};
    ASSIGN_OR_RETURN(store::AppendResult result,
                     Append(game_id, nullptr, game, events, id, options.fingerprint, now));
    if (result.replayed) return Replayed(game_id, result.version, id);
    CommandResult r;
    r.version = result.version;
    r.now_ms = now;
    r.game = std::make_shared<const GameState>(std::move(game));
    Landed(game_id, r.game, events, result.tip);
    return r;
  };
  absl::StatusOr<CommandResult> r = run();
  NotifyCommand("create", r.status());
  return r;
}

absl::StatusOr<CommandResult> GameAuthority::Execute(absl::string_view game_id,
                                                     const Command& command,
                                                     const CommandOptions& options) {
  auto run = [&]() -> absl::StatusOr<CommandResult> {
    RETURN_IF_ERROR(store::ValidateGameId(game_id));
    ASSIGN_OR_RETURN(const std::string command_id, StoredCommandId(options, command.actor));
    // A retry of a command that was applied may find the game moved on: it is answered from the
    // record rather than refused (or applied a second time).
    auto recorded = [&](const GameState& latest) -> absl::StatusOr<std::optional<CommandResult>> {
      if (options.command_id.empty()) return std::nullopt;
      ASSIGN_OR_RETURN(std::optional<store::AppendResult> done,
                       store_->LookupCommand(game_id, command_id));
      if (!done.has_value()) return std::nullopt;
      // The id is recorded; whether this is the same request is the store's to say (it alone
      // keeps the identity): an append under the id is answered from the record (replayed) or
      // refused ERR_COMMAND_ID_REUSED, and writes nothing either way.
      std::vector<v1::ArbitrationEvent> probe = {latest.event(latest.version() - 1)};
      ASSIGN_OR_RETURN(store::AppendResult same, Append(game_id, &latest, latest, probe, command_id,
                                                        options.fingerprint, now_ms_()));
      if (!same.replayed) {
        return Error(kErrCorruptLog, "the store appended under a command id it had recorded");
      }
      ASSIGN_OR_RETURN(CommandResult r, Replayed(game_id, done->version, command_id));
      return r;
    };
    bool use_cache = true;
    for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
      ASSIGN_OR_RETURN(std::shared_ptr<const GameState> before, Load(game_id, use_cache));
      const bool from_cache = use_cache;
      use_cache = false;  // after any surprise, decide again on the store's state
      if (options.expected_version != 0 && before->version() != options.expected_version) {
        if (from_cache) continue;
        ASSIGN_OR_RETURN(std::optional<CommandResult> done, recorded(*before));
        if (done.has_value()) return *std::move(done);
        return base::Aborted(store::kErrVersionConflict,
                             absl::StrCat("the game is at version ", before->version(), ", not ",
                                          options.expected_version));
      }
      const std::int64_t now = now_ms_();
      // Appendix A10: a default that may fall with the envelope closed needs the sealed move.
      std::optional<Command> opened_command;  // constructed only then (Execute's every call)
      const Command* decided = &command;
      if (!command.opened_move && open_envelope_ && DefaultOpensEnvelope(*before)) {
        opened_command.emplace(command);
        ASSIGN_OR_RETURN(opened_command->opened_move, OpenedForDefault(game_id, *before));
        decided = &*opened_command;
      }
      // A malformed command is malformed on any state: no reload.
      ASSIGN_OR_RETURN(Decision decision, Decide(*before, *decided, now, analyst_));
      const bool refused = !decision.refused.ok();
      if (refused && decision.events.empty()) {
        if (from_cache) continue;  // refuse only on the store's latest state
        ASSIGN_OR_RETURN(std::optional<CommandResult> done, recorded(*before));
        if (done.has_value()) return *std::move(done);
        return decision.refused;
      }
      if (refused) {
        // What fell before the command (a flag, a default) is recorded as the server's timers
        // would record it, under the same id, so it is recorded once; then the refusal stands.
        ASSIGN_OR_RETURN(std::optional<CommandResult> done, recorded(*before));
        if (done.has_value()) return *std::move(done);
      }
      if (decision.events.empty() || !decision.after.has_value()) {
        // Nothing to record (a command that changes nothing): the state as it is.
        CommandResult r;
        r.version = before->version();
        r.now_ms = now;
        r.game = before;
        r.claim_ruling = decision.claim_ruling;
        return r;
      }
      const std::string id = refused ? SettleCommandId(game_id, before->version()) : command_id;
      const std::string fingerprint = refused ? id : options.fingerprint;
      auto after = std::make_shared<const GameState>(std::move(*decision.after));
      absl::StatusOr<store::AppendResult> result =
          Append(game_id, before.get(), *after, decision.events, id, fingerprint, now);
      if (refused && IsReused(result)) {
        const std::string fallback = SettleFallbackId(game_id, before->version());
        result = Append(game_id, before.get(), *after, decision.events, fallback, fallback, now);
      }
      if (!result.ok()) {
        if (IsConflict(result.status())) {
          NotifyConflict();
          cache_.Forget(game_id);
          // With an expected version the caller asked for exactly that state: it is gone, unless
          // the state was the cache's (another master's, by the tip): decide on the store's.
          if (options.expected_version == 0 || refused || from_cache) continue;
        }
        return result.status();
      }
      if (result->replayed) {
        if (refused) {
          cache_.Forget(game_id);
          continue;  // another replica recorded what fell: decide again on its state
        }
        return Replayed(game_id, result->version, command_id);
      }
      Landed(game_id, after, decision.events, result->tip);
      if (refused) return decision.refused;
      CommandResult r;
      r.version = result->version;
      r.now_ms = now;
      r.game = std::move(after);
      r.claim_ruling = decision.claim_ruling;
      r.draw_offer_refused = DrawOfferRefusedIn(decision.events);
      return r;
    }
    return base::Aborted(store::kErrVersionConflict,
                         absl::StrCat("gave up after ", options_.max_attempts,
                                      " version conflicts on game \"", game_id, "\""));
  };
  absl::StatusOr<CommandResult> r = run();
  NotifyCommand(CommandKindName(command.kind), r.status());
  return r;
}

void GameAuthority::ExecuteLater(const Offload& offload, std::string game_id, Command command,
                                 CommandOptions options, CommandCallback done) {
  offload([this, game_id = std::move(game_id), command = std::move(command),
           options = std::move(options),
           done = std::move(done)] { done(Execute(game_id, command, options)); });
}

void GameAuthority::ExecuteAsync(absl::string_view game_id, const Command& command,
                                 const CommandOptions& options, const Offload& offload,
                                 CommandCallback done) {
  // Whatever the fast path cannot finish is Execute's, from the start, on a thread that may wait.
  std::shared_ptr<const GameState> before;
  // A client id in the server's namespace is refused by Execute, before anything is read.
  if (store::ValidateGameId(game_id).ok() && store::CheckClientCommandId(options.command_id).ok()) {
    cache_.ObserveMasterEpoch(store_->MasterEpoch());
    before = cache_.Get(game_id);
  }
  // A game whose default may open the envelope (A10) is Execute's: it opens it first.
  if (before == nullptr ||
      (options.expected_version != 0 && before->version() != options.expected_version) ||
      (open_envelope_ && DefaultOpensEnvelope(*before))) {
    return ExecuteLater(offload, std::string(game_id), command, options, std::move(done));
  }
  const std::int64_t now = now_ms_();
  absl::StatusOr<Decision> decision = Decide(*before, command, now, analyst_);
  // A refusal is given only on the store's latest state (and a retry must be looked up first);
  // a command that records what fell before it and is then refused, a malformed one and one
  // that changes nothing are Execute's too (all rare on the move path).
  if (!decision.ok() || !decision->refused.ok() || decision->events.empty() ||
      !decision->after.has_value()) {
    return ExecuteLater(offload, std::string(game_id), command, options, std::move(done));
  }
  PendingCommand pending{std::string(game_id),   command, options,        nullptr, {}, now,
                         decision->claim_ruling, offload, std::move(done)};
  pending.stored_id = *StoredCommandId(options, command.actor);  // checked above
  store::AppendRequest request =
      AppendRequestFor(game_id, before.get(), *decision->after, decision->events, pending.stored_id,
                       pending.options.fingerprint, now);
  pending.after = std::make_shared<const GameState>(std::move(*decision->after));
  pending.events = std::move(decision->events);
  store_->AppendAsync(std::move(request), [this, pending = std::move(pending)](
                                              absl::StatusOr<store::AppendResult> result) mutable {
    Appended(std::move(pending), std::move(result));
  });
}

void GameAuthority::Appended(PendingCommand pending, absl::StatusOr<store::AppendResult> result) {
  const absl::string_view kind = CommandKindName(pending.command.kind);
  if (result.ok() && !result->replayed) {
    Landed(pending.game_id, pending.after, pending.events, result->tip);
    CommandResult r;
    r.version = result->version;
    r.now_ms = pending.now_ms;
    r.game = std::move(pending.after);
    r.claim_ruling = pending.claim_ruling;
    r.draw_offer_refused = DrawOfferRefusedIn(pending.events);
    NotifyCommand(kind, absl::OkStatus());
    return pending.done(std::move(r));
  }
  if (result.ok()) {
    // A retry of a command already applied (the game moved on since, or the link to Redis broke
    // after it ran): its original result, as of then, read from the log.
    return pending.offload([this, game_id = std::move(pending.game_id), version = result->version,
                            command_id = std::move(pending.stored_id), kind,
                            done = std::move(pending.done)] {
      absl::StatusOr<CommandResult> r = Replayed(game_id, version, command_id);
      NotifyCommand(kind, r.status());
      done(std::move(r));
    });
  }
  if (IsConflict(result.status())) {
    NotifyConflict();
    cache_.Forget(pending.game_id);
    // Another writer got there first, or the cached state was another master's (the tip):
    // decide again on the store's state, as Execute does (which answers the expected version).
    return ExecuteLater(pending.offload, std::move(pending.game_id), std::move(pending.command),
                        std::move(pending.options), std::move(pending.done));
  }
  NotifyCommand(kind, result.status());
  pending.done(result.status());
}

absl::StatusOr<CommandResult> GameAuthority::Get(absl::string_view game_id) {
  return Current(game_id, /*use_cache=*/false);
}

absl::StatusOr<CommandResult> GameAuthority::GetCached(absl::string_view game_id) {
  return Current(game_id, /*use_cache=*/true);
}

absl::StatusOr<CommandResult> GameAuthority::Current(absl::string_view game_id, bool use_cache) {
  RETURN_IF_ERROR(store::ValidateGameId(game_id));
  ASSIGN_OR_RETURN(std::shared_ptr<const GameState> game, Load(game_id, use_cache));
  CommandResult r;
  r.version = game->version();
  r.now_ms = now_ms_();
  r.game = std::move(game);
  return r;
}

absl::StatusOr<SettleResult> GameAuthority::CheckDeadline(absl::string_view game_id,
                                                          std::int64_t known_version) {
  RETURN_IF_ERROR(store::ValidateGameId(game_id));
  bool use_cache = known_version > 0;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    std::shared_ptr<const GameState> before;
    if (use_cache) {
      cache_.ObserveMasterEpoch(store_->MasterEpoch());
      before = cache_.Get(game_id);
      if (before != nullptr && before->version() != known_version) before = nullptr;
    }
    use_cache = false;
    if (before == nullptr) {
      ASSIGN_OR_RETURN(before, Load(game_id, /*use_cache=*/false));
    }
    const std::int64_t now = now_ms_();
    // Appendix A10: the default of two absent players opens the envelope (the service's key).
    ASSIGN_OR_RETURN(std::optional<std::string> opened, OpenedForDefault(game_id, *before));
    std::vector<v1::ArbitrationEvent> events = Settle(*before, now, analyst_, opened);
    SettleResult out;
    if (events.empty()) {
      out.next_deadline = NextDeadline(*before);
      out.version = before->version();
      return out;
    }
    GameState after = *before;
    for (const v1::ArbitrationEvent& e : events) {
      if (absl::Status st = after.Apply(e); !st.ok()) {
        return Error(kErrCorruptLog,
                     absl::StrCat("a settled event does not apply: ", st.message()));
      }
    }
    const std::string id = SettleCommandId(game_id, before->version());
    absl::StatusOr<store::AppendResult> result =
        Append(game_id, before.get(), after, events, id, id, now);
    if (IsReused(result)) {
      const std::string fallback = SettleFallbackId(game_id, before->version());
      result = Append(game_id, before.get(), after, events, fallback, fallback, now);
    }
    if (!result.ok()) {
      if (IsConflict(result.status())) {
        NotifyConflict();
        cache_.Forget(game_id);
        continue;
      }
      return result.status();
    }
    if (result->replayed) {
      cache_.Forget(game_id);
      out.already_recorded = true;
      out.version = result->version;
      return out;
    }
    out.recorded = static_cast<int>(events.size());
    out.next_deadline = NextDeadline(after);
    out.version = result->version;
    Landed(game_id, std::make_shared<const GameState>(std::move(after)), events, result->tip);
    return out;
  }
  return base::Aborted(store::kErrVersionConflict,
                       absl::StrCat("deadline check gave up after ", options_.max_attempts,
                                    " version conflicts on game \"", game_id, "\""));
}

}  // namespace arbitration
