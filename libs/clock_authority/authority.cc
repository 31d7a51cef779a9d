#include "libs/clock_authority/authority.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/clock_authority/clock_codec.h"

namespace clock_authority {
namespace {

bool IsConflict(const absl::Status& st) {
  return base::ErrorCode(st) == store::kErrVersionConflict;
}

absl::Status MapNotFound(const absl::Status& st, absl::string_view game_id) {
  if (base::ErrorCode(st) == store::kErrGameNotFound) return ClockNotFound(game_id);
  return st;
}

std::uint64_t Fnv1a64(absl::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The one command id every replica uses for the flags found on the state at `version`.
std::string FlagCommandId(absl::string_view game_id, std::int64_t version) {
  std::string id = absl::StrCat("flag:", game_id, ":", version);
  if (id.size() > static_cast<size_t>(store::kMaxIdLength)) {
    id = absl::StrCat("flag:h", absl::Hex(Fnv1a64(game_id), absl::kZeroPad16), ":", version);
  }
  return id;
}

// The flags' id when FlagCommandId is taken (ERR_COMMAND_ID_REUSED): only in a log written
// before issue 15, when a client's id could be "flag:...". Every replica derives the same one.
std::string FlagFallbackId(absl::string_view game_id, std::int64_t version) {
  return absl::StrCat("sys:", absl::Hex(Fnv1a64(game_id), absl::kZeroPad16), ":flag:", version);
}

bool IsReused(const absl::StatusOr<store::AppendResult>& result) {
  return !result.ok() && base::ErrorCode(result.status()) == store::kErrCommandIdReused;
}

}  // namespace

absl::Status ClockNotFound(absl::string_view game_id) {
  return base::NotFound(kErrClockNotFound, absl::StrCat("no clock for game \"", game_id, "\""));
}

ClockAuthority::ClockAuthority(store::GameStore* store, TimeSource* time, AuthorityOptions options)
    : store_(store),
      time_(time),
      options_(std::move(options)),
      command_ids_(options_.owner),
      cache_(options_.cache_size) {}

absl::string_view ClockAuthority::KindOf(const v1::ClockEvent& command) {
  switch (command.event_case()) {
    case v1::ClockEvent::kCreated:
      return "create";
    case v1::ClockEvent::kStarted:
      return "start";
    case v1::ClockEvent::kPressed:
      return "press";
    case v1::ClockEvent::kArrived:
      return "arrive";
    case v1::ClockEvent::kPaused:
      return "pause";
    case v1::ClockEvent::kResumed:
      return "resume";
    case v1::ClockEvent::kAdjusted:
      return "adjust";
    case v1::ClockEvent::kSet:
      return "set";
    case v1::ClockEvent::kReplaced:
      return "replace";
    case v1::ClockEvent::kFlagFell:
      return "flag";
    case v1::ClockEvent::kFlagClaimed:
      return "claim";
    case v1::ClockEvent::kDefaulted:
      return "default";
    case v1::ClockEvent::EVENT_NOT_SET:
      break;
  }
  return "unknown";
}

void ClockAuthority::NotifyCommand(absl::string_view kind, const absl::Status& status) {
  for (AuthorityObserver* o : observers_) o->OnCommand(kind, status);
}

void ClockAuthority::NotifyRecorded(absl::string_view game_id,
                                    const std::vector<v1::ClockEvent>& events) {
  for (const v1::ClockEvent& e : events) {
    for (AuthorityObserver* o : observers_) {
      if (e.has_flag_fell()) o->OnFlagRecorded(game_id, e.flag_fell());
      if (e.has_defaulted()) o->OnDefaultRecorded(game_id, e.defaulted());
    }
  }
}

absl::StatusOr<std::string> ClockAuthority::StoredCommandId(const CommandOptions& options) {
  if (options.command_id.empty()) return command_ids_.Next();
  RETURN_IF_ERROR(store::CheckClientCommandId(options.command_id));
  return store::ScopedCommandId(options.caller, options.command_id);
}

absl::StatusOr<std::shared_ptr<const ClockGame>> ClockAuthority::Load(absl::string_view game_id,
                                                                      bool use_cache) {
  cache_.ObserveMasterEpoch(store_->MasterEpoch());
  if (use_cache) {
    if (std::shared_ptr<const ClockGame> cached = cache_.Get(game_id)) return cached;
  }
  absl::StatusOr<v1::GameSnapshot> snapshot = store_->ReadSnapshot(game_id);
  if (!snapshot.ok()) return MapNotFound(snapshot.status(), game_id);
  ASSIGN_OR_RETURN(ClockGame game, FromSnapshot(*snapshot));
  auto shared = std::make_shared<const ClockGame>(std::move(game));
  for (AuthorityObserver* o : observers_) o->OnLoaded(game_id, *shared);
  cache_.Remember(game_id, shared, snapshot->tip());
  return shared;
}

store::AppendRequest ClockAuthority::AppendRequestFor(
    absl::string_view game_id, const ClockGame& before, const ClockGame& after,
    const std::vector<v1::ClockEvent>& events, const std::string& command_id,
    const std::string& fingerprint, std::int64_t recorded_at_ms) {
  store::AppendRequest request;
  request.game_id = std::string(game_id);
  request.expected_version = before.version();
  // The append that made `before`, when it is the cached state: after a failover the new master
  // can be at this version by other appends.
  request.expected_tip = cache_.TipOf(game_id, &before);
  request.command_id = command_id;
  request.fingerprint = fingerprint.empty() ? command_id : fingerprint;
  for (const v1::ClockEvent& e : events) request.events.push_back(ToGameEvent(e, recorded_at_ms));
  request.snapshot = ToSnapshot(after);
  const std::optional<std::int64_t> deadline = NextDeadline(after);
  request.deadline =
      deadline.has_value() ? store::DeadlineUpdate::Set(*deadline) : store::DeadlineUpdate::Clear();
  return request;
}

absl::StatusOr<store::AppendResult> ClockAuthority::Append(
    absl::string_view game_id, const ClockGame& before, const ClockGame& after,
    const std::vector<v1::ClockEvent>& events, const std::string& command_id,
    const std::string& fingerprint, std::int64_t recorded_at_ms) {
  absl::StatusOr<store::AppendResult> result = store_->Append(
      AppendRequestFor(game_id, before, after, events, command_id, fingerprint, recorded_at_ms));
  if (!result.ok()) return MapNotFound(result.status(), game_id);
  return result;
}

void ClockAuthority::Landed(absl::string_view game_id, std::shared_ptr<const ClockGame> after,
                            const std::vector<v1::ClockEvent>& events, std::string tip) {
  for (AuthorityObserver* o : observers_) o->OnAppended(game_id, *after, NextDeadline(*after));
  // Flags (and a default) recorded before the command (B6: play goes on) or after it (a setting
  // to zero), or by a check.
  NotifyRecorded(game_id, events);
  cache_.Remember(game_id, std::move(after), std::move(tip));
}

absl::StatusOr<std::shared_ptr<const ClockGame>> ClockAuthority::StateAt(absl::string_view game_id,
                                                                         std::int64_t version) {
  absl::StatusOr<std::vector<v1::GameEvent>> log = store_->ReadEvents(game_id, 1, version);
  if (!log.ok()) return MapNotFound(log.status(), game_id);
  std::vector<v1::ClockEvent> events;
  events.reserve(log->size());
  for (const v1::GameEvent& e : *log) {
    ASSIGN_OR_RETURN(v1::ClockEvent event, FromGameEvent(e));
    events.push_back(std::move(event));
  }
  ASSIGN_OR_RETURN(ClockGame game, ClockGame::Replay(events));
  return std::make_shared<const ClockGame>(std::move(game));
}

absl::StatusOr<CommandResult> ClockAuthority::Replayed(absl::string_view game_id,
                                                       std::int64_t version) {
  ASSIGN_OR_RETURN(std::shared_ptr<const ClockGame> game, StateAt(game_id, version));
  CommandResult r;
  r.now_ms = game->last_event_ms();
  r.version = version;
  r.replayed = true;
  r.game = std::move(game);
  return r;
}

absl::StatusOr<std::optional<CommandResult>> ClockAuthority::Recorded(
    absl::string_view game_id, const ClockGame& latest, const v1::ClockEvent& command,
    const std::string& command_id, const CommandOptions& options) {
  if (options.command_id.empty()) return std::nullopt;  // a made id is never a retry
  ASSIGN_OR_RETURN(std::optional<store::AppendResult> done,
                   store_->LookupCommand(game_id, command_id));
  if (!done.has_value()) return std::nullopt;
  // The record was read on the master, which may not have passed it to any replica yet (its
  // first append was answered UNAVAILABLE): acknowledging it now would lose it with a failover.
  // An append under the id is answered from the record (REPLAY) and waits for the replicas like
  // any append, which covers the original; and it is the store that says whether this is the
  // same command (its fingerprint) or a reuse of the id (ERR_COMMAND_ID_REUSED).
  absl::StatusOr<store::AppendResult> same =
      Append(game_id, latest, latest, {command}, command_id, options.fingerprint, time_->NowMs());
  if (!same.ok()) return same.status();
  if (!same->replayed) {
    return base::Error(absl::StatusCode::kInternal, kErrCorruptLog,
                       "the store appended under a command id it had recorded");
  }
  ASSIGN_OR_RETURN(CommandResult r, Replayed(game_id, done->version));
  return r;
}

absl::StatusOr<CommandResult> ClockAuthority::Create(absl::string_view game_id,
                                                     const v1::CreateClockRequest& request,
                                                     const CommandOptions& options) {
  auto run = [&]() -> absl::StatusOr<CommandResult> {
    RETURN_IF_ERROR(store::ValidateGameId(game_id));
    const std::int64_t now = time_->NowMs();
    ASSIGN_OR_RETURN(v1::ClockCreated created, NewClock(request, now));
    ASSIGN_OR_RETURN(ClockGame game, ClockGame::Create(created));
    v1::ClockEvent event;
    *event.mutable_created() = created;
    *event.mutable_actor() = options.actor;
    store::AppendRequest req;
    req.game_id = std::string(game_id);
    req.expected_version = 0;
    ASSIGN_OR_RETURN(req.command_id, StoredCommandId(options));
    req.fingerprint = options.fingerprint.empty() ? req.command_id : options.fingerprint;
    req.events.push_back(ToGameEvent(event, now));
    req.snapshot = ToSnapshot(game);
    ASSIGN_OR_RETURN(store::AppendResult result, store_->Append(req));
    if (result.replayed) return Replayed(game_id, result.version);
    CommandResult r;
    r.version = result.version;
    r.now_ms = now;
    r.game = std::make_shared<const ClockGame>(std::move(game));
    Landed(game_id, r.game, {}, result.tip);
    return r;
  };
  absl::StatusOr<CommandResult> r = run();
  NotifyCommand("create", r.status());
  return r;
}

absl::StatusOr<CommandResult> ClockAuthority::Execute(absl::string_view game_id,
                                                      const v1::ClockEvent& command,
                                                      const CommandOptions& options) {
  const absl::string_view kind = KindOf(command);
  auto run = [&]() -> absl::StatusOr<CommandResult> {
    RETURN_IF_ERROR(store::ValidateGameId(game_id));
    ASSIGN_OR_RETURN(const std::string command_id, StoredCommandId(options));
    bool use_cache = true;
    for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
      ASSIGN_OR_RETURN(std::shared_ptr<const ClockGame> before, Load(game_id, use_cache));
      const bool from_cache = use_cache;
      use_cache = false;  // after any surprise, decide again on the store's state
      if (options.expected_version != 0 && before->version() != options.expected_version) {
        if (from_cache) continue;
        ASSIGN_OR_RETURN(std::optional<CommandResult> done,
                         Recorded(game_id, *before, command, command_id, options));
        if (done.has_value()) return *std::move(done);
        return base::Aborted(store::kErrVersionConflict,
                             absl::StrCat("the clock is at version ", before->version(), ", not ",
                                          options.expected_version));
      }
      const std::int64_t now = time_->NowMs();
      absl::StatusOr<Decision> decision = Decide(*before, command, now);
      if (!decision.ok()) {
        if (from_cache) continue;  // refuse only on the store's latest state
        // A retry of a command that was applied finds the game moved on: answer it from the
        // record rather than refuse it.
        ASSIGN_OR_RETURN(std::optional<CommandResult> done,
                         Recorded(game_id, *before, command, command_id, options));
        if (done.has_value()) return *std::move(done);
        return decision.status();
      }
      ClockGame after = std::move(*decision->after);
      // A refused command appends only the flags found before it, as the scheduler would.
      const bool refused = !decision->refused.ok();
      const std::string id = refused ? FlagCommandId(game_id, before->version()) : command_id;
      const std::string fingerprint = refused ? id : options.fingerprint;
      absl::StatusOr<store::AppendResult> result =
          Append(game_id, *before, after, decision->events, id, fingerprint, now);
      if (refused && IsReused(result)) {
        const std::string fallback = FlagFallbackId(game_id, before->version());
        result = Append(game_id, *before, after, decision->events, fallback, fallback, now);
      }
      if (!result.ok()) {
        // A cached state's conflict (another append at its version: the tip) is decided again
        // on the store's state, which then answers the client's expected version.
        if (IsConflict(result.status()) && (options.expected_version == 0 || from_cache)) {
          for (AuthorityObserver* o : observers_) o->OnConflict();
          cache_.Forget(game_id);
          continue;
        }
        return result.status();
      }
      if (result->replayed) {
        if (refused) {
          cache_.Forget(game_id);
          continue;  // another replica recorded these flags: decide again on its state
        }
        return Replayed(game_id, result->version);
      }
      auto shared = std::make_shared<const ClockGame>(std::move(after));
      Landed(game_id, shared, decision->events, result->tip);
      if (refused) return decision->refused;
      CommandResult r;
      r.version = result->version;
      r.now_ms = now;
      r.game = std::move(shared);
      return r;
    }
    return base::Aborted(store::kErrVersionConflict,
                         absl::StrCat("gave up after ", options_.max_attempts,
                                      " version conflicts on game \"", game_id, "\""));
  };
  absl::StatusOr<CommandResult> r = run();
  NotifyCommand(kind, r.status());
  return r;
}

void ClockAuthority::ExecuteLater(const Offload& offload, std::string game_id,
                                  v1::ClockEvent command, CommandOptions options,
                                  CommandCallback done) {
  offload([this, game_id = std::move(game_id), command = std::move(command),
           options = std::move(options),
           done = std::move(done)] { done(Execute(game_id, command, options)); });
}

void ClockAuthority::ExecuteAsync(absl::string_view game_id, const v1::ClockEvent& command,
                                  const CommandOptions& options, const Offload& offload,
                                  CommandCallback done) {
  // Whatever the fast path cannot finish is Execute's, from the start, on a thread that may wait.
  std::shared_ptr<const ClockGame> before;
  // A client id in the server's namespace is refused by Execute, before anything is read.
  if (store::ValidateGameId(game_id).ok() && store::CheckClientCommandId(options.command_id).ok()) {
    cache_.ObserveMasterEpoch(store_->MasterEpoch());
    before = cache_.Get(game_id);
  }
  if (before == nullptr ||
      (options.expected_version != 0 && before->version() != options.expected_version)) {
    return ExecuteLater(offload, std::string(game_id), command, options, std::move(done));
  }
  const std::int64_t now = time_->NowMs();
  absl::StatusOr<Decision> decision = Decide(*before, command, now);
  // A refusal is given only on the store's latest state; a command that first records a fallen
  // flag (or a default) and is then refused is Execute's too (rare).
  if (!decision.ok() || !decision->refused.ok()) {
    return ExecuteLater(offload, std::string(game_id), command, options, std::move(done));
  }
  PendingCommand pending{std::string(game_id), command, options, nullptr, {}, now, offload,
                         std::move(done)};
  // The id as stored (scoped, or made here). A conflict's retry (ExecuteLater) derives it again
  // from the options: the same scoped id, or a new made one (the lost append wrote nothing).
  const std::string stored_id = *StoredCommandId(options);  // checked above
  store::AppendRequest request =
      AppendRequestFor(game_id, *before, *decision->after, decision->events, stored_id,
                       pending.options.fingerprint, now);
  pending.after = std::make_shared<const ClockGame>(std::move(*decision->after));
  pending.events = std::move(decision->events);
  store_->AppendAsync(std::move(request), [this, pending = std::move(pending)](
                                              absl::StatusOr<store::AppendResult> result) mutable {
    Appended(std::move(pending), std::move(result));
  });
}

void ClockAuthority::Appended(PendingCommand pending, absl::StatusOr<store::AppendResult> result) {
  const absl::string_view kind = KindOf(pending.command);
  if (result.ok() && !result->replayed) {
    Landed(pending.game_id, pending.after, pending.events, result->tip);
    CommandResult r;
    r.version = result->version;
    r.now_ms = pending.now_ms;
    r.game = std::move(pending.after);
    NotifyCommand(kind, absl::OkStatus());
    return pending.done(std::move(r));
  }
  if (result.ok()) {
    // A retry of a command already applied (the link to Redis broke after it ran): the state as
    // of then, read from the log.
    return pending.offload([this, game_id = std::move(pending.game_id), version = result->version,
                            kind, done = std::move(pending.done)] {
      absl::StatusOr<CommandResult> r = Replayed(game_id, version);
      NotifyCommand(kind, r.status());
      done(std::move(r));
    });
  }
  if (IsConflict(result.status())) {
    // Another writer got there first, or the cached state was another master's (the tip): decide
    // again on the store's state, as Execute does (which answers the expected version).
    for (AuthorityObserver* o : observers_) o->OnConflict();
    cache_.Forget(pending.game_id);
    return ExecuteLater(pending.offload, std::move(pending.game_id), std::move(pending.command),
                        std::move(pending.options), std::move(pending.done));
  }
  absl::Status status = MapNotFound(result.status(), pending.game_id);
  NotifyCommand(kind, status);
  pending.done(std::move(status));
}

absl::StatusOr<CommandResult> ClockAuthority::Get(absl::string_view game_id) {
  RETURN_IF_ERROR(store::ValidateGameId(game_id));
  ASSIGN_OR_RETURN(std::shared_ptr<const ClockGame> game, Load(game_id, /*use_cache=*/false));
  CommandResult r;
  r.version = game->version();
  r.now_ms = time_->NowMs();
  r.game = std::move(game);
  return r;
}

absl::StatusOr<FlagCheckResult> ClockAuthority::CheckFlags(absl::string_view game_id,
                                                           std::int64_t known_version) {
  bool use_cache = known_version > 0;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    std::shared_ptr<const ClockGame> before;
    if (use_cache) {
      cache_.ObserveMasterEpoch(store_->MasterEpoch());
      before = cache_.Get(game_id);
      if (before != nullptr && before->version() != known_version) before = nullptr;
    }
    use_cache = false;
    if (before == nullptr) {
      ASSIGN_OR_RETURN(before, Load(game_id, /*use_cache=*/false));
    }
    const std::int64_t now = time_->NowMs();
    std::vector<v1::ClockEvent> flags = SettleFlags(*before, now);
    FlagCheckResult out;
    if (flags.empty()) {
      out.next_deadline = NextDeadline(*before);
      out.version = before->version();
      return out;
    }
    ClockGame after = *before;
    for (const v1::ClockEvent& e : flags) {
      if (absl::Status st = after.Apply(e); !st.ok()) {
        return base::Error(absl::StatusCode::kInternal, kErrCorruptLog, st.message());
      }
    }
    const std::string id = FlagCommandId(game_id, before->version());
    absl::StatusOr<store::AppendResult> result =
        Append(game_id, *before, after, flags, id, id, now);
    if (IsReused(result)) {
      const std::string fallback = FlagFallbackId(game_id, before->version());
      result = Append(game_id, *before, after, flags, fallback, fallback, now);
    }
    if (!result.ok()) {
      if (IsConflict(result.status())) {
        for (AuthorityObserver* o : observers_) o->OnConflict();
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
    out.recorded = static_cast<int>(flags.size());
    out.next_deadline = NextDeadline(after);
    out.version = result->version;
    Landed(game_id, std::make_shared<const ClockGame>(std::move(after)), flags, result->tip);
    return out;
  }
  return base::Aborted(store::kErrVersionConflict,
                       absl::StrCat("flag check gave up after ", options_.max_attempts,
                                    " version conflicts on game \"", game_id, "\""));
}

}  // namespace clock_authority
