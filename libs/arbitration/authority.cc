#include "libs/arbitration/authority.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "libs/arbitration/adjournment.h"
#include "libs/arbitration/errors.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"

namespace arbitration {
namespace {

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
  return ledger::SystemCommandId(GameDomain::kSystemPrefix, game_id, version);
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
  out.set_review_awaits_analysis(game.review_awaits_analysis());
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

absl::StatusOr<std::optional<std::string>> GameDomain::OpenedForDefault(
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

absl::StatusOr<Decision> GameDomain::Decide(absl::string_view game_id, const GameState& game,
                                            const Command& command, std::int64_t now_ms) {
  // Appendix A10: a default that may fall with the envelope closed needs the sealed move.
  if (command.opened_move || !open_envelope_ || !DefaultOpensEnvelope(game)) {
    return arbitration::Decide(game, command, now_ms, *analyst_);
  }
  Command opened = command;
  ASSIGN_OR_RETURN(opened.opened_move, OpenedForDefault(game_id, game));
  return arbitration::Decide(game, opened, now_ms, *analyst_);
}

bool GameDomain::DecidesInline(const GameState& game) const {
  return !(open_envelope_ && DefaultOpensEnvelope(game));
}

absl::StatusOr<std::vector<v1::ArbitrationEvent>> GameDomain::Settle(absl::string_view game_id,
                                                                     const GameState& game,
                                                                     std::int64_t now_ms) {
  // Appendix A10: the default of two absent players opens the envelope (the service's key).
  ASSIGN_OR_RETURN(std::optional<std::string> opened, OpenedForDefault(game_id, game));
  std::vector<v1::ArbitrationEvent> events = arbitration::Settle(game, now_ms, *analyst_, opened);
  // A review that waits for analysis is asked again here, on the deadline's thread, never on a
  // command's: the answer is recorded under the same "settle:<game>:<version>" id as a flag, so
  // it is recorded once however many replicas ask.
  // The moves' dead-position questions (5.2b / 9.6) the same way, the oldest first.
  if (events.empty()) {
    if (std::optional<v1::ArbitrationEvent> settled = ReviewSettledByAnalysis(game, *analyst_)) {
      events.push_back(*std::move(settled));
    } else {
      events = DeadPositionAnswers(game, *analyst_);
    }
    for (v1::ArbitrationEvent& e : events) {
      e.set_at_ms(std::max(now_ms, game.last_event_ms()));
      *e.mutable_actor() = ServerActor();
    }
  }
  return events;
}

std::optional<std::int64_t> GameDomain::NextDeadline(const GameState& game) const {
  return arbitration::NextDeadline(game);
}

std::optional<std::int64_t> GameDomain::NextDeadlineAfter(const GameState& game,
                                                          std::int64_t now_ms) const {
  return arbitration::NextDeadlineAfter(game, now_ms);
}

arbiter::v1::GameEvent GameDomain::ToStoreEvent(const Event& event,
                                                std::int64_t recorded_at_ms) const {
  return arbitration::ToStoreEvent(event, recorded_at_ms);
}

absl::StatusOr<v1::ArbitrationEvent> GameDomain::FromStoreEvent(
    const arbiter::v1::GameEvent& event) const {
  return arbitration::FromStoreEvent(event);
}

store::IndexLabels IndexLabelsOf(const GameState& game) {
  store::IndexLabels l;
  l.status = game.status() == GameStatus::kEnded && game.review()
                 ? std::string(kListedFlagUnderReview)
                 : std::string(GameStatusName(game.status()));
  const v1::GameCreated& created = game.created();
  l.event = created.event();
  l.round = created.round();
  l.white_id = created.white_id();
  l.black_id = created.black_id();
  if (game.outcome().over()) l.result = std::string(laws::ResultText(game.outcome().result));
  return l;
}

std::optional<store::IndexUpdate> IndexUpdateFor(const GameState* before, const GameState& after) {
  store::IndexUpdate update{.labels = IndexLabelsOf(after)};
  if (before != nullptr) {
    store::IndexLabels was = IndexLabelsOf(*before);
    if (was == update.labels) return std::nullopt;
    update.previous_status = std::move(was.status);
  }
  return update;
}

arbiter::v1::GameSnapshot GameDomain::ToStoreSnapshot(const GameState& game) const {
  return arbitration::ToStoreSnapshot(game);
}

absl::StatusOr<GameState> GameDomain::FromStore(store::EventLog& log, absl::string_view game_id,
                                                const arbiter::v1::GameSnapshot& snapshot) const {
  // An event's record is no game: a command or a read naming it is refused, not misread.
  RETURN_IF_ERROR(CheckNotReserved(game_id));
  // Schema 2 summarises; the state is the log's (schema 1 snapshots hold the log themselves).
  std::vector<arbiter::v1::GameEvent> events;
  if (snapshot.schema_version() != kLogSnapshotSchemaVersion) {
    ASSIGN_OR_RETURN(events, log.ReadEvents(game_id, 1, snapshot.version()));
  }
  return arbitration::FromStore(snapshot, events);
}

absl::StatusOr<GameState> GameDomain::Replay(std::vector<v1::ArbitrationEvent> events) const {
  return GameState::Replay(events);
}

void GameDomain::Decided(CommandResult& result, const Decision& decision) const {
  result.claim_ruling = decision.claim_ruling;
  result.draw_offer_refused = DrawOfferRefusedIn(decision.events);
}

absl::Status GameDomain::Replayed(store::EventLog& log, absl::string_view game_id,
                                  std::int64_t version, absl::string_view command_id,
                                  CommandResult& result) const {
  ASSIGN_OR_RETURN(std::vector<arbiter::v1::GameEvent> own,
                   log.ReadEvents(game_id, std::max<std::int64_t>(1, version - 63), version));
  for (const arbiter::v1::GameEvent& e : own) {
    if (e.command_id() != command_id) continue;
    ASSIGN_OR_RETURN(v1::ArbitrationEvent event, FromStoreEvent(e));
    if (event.has_claim()) result.claim_ruling = event.claim().ruling();
    if (event.has_draw_offer_refused()) result.draw_offer_refused = event.draw_offer_refused();
  }
  return absl::OkStatus();
}

absl::Status CheckNotReserved(absl::string_view game_id) {
  if (absl::StartsWith(game_id, kEventLogPrefix)) {
    return base::Error(kErrReservedGameId,
                       absl::StrCat("game id \"", game_id, "\": ids that start with \"",
                                    kEventLogPrefix, "\" hold the events' records"));
  }
  return absl::OkStatus();
}

absl::StatusOr<CommandResult> GameAuthority::Create(absl::string_view game_id,
                                                    const v1::CreateGameRequest& request,
                                                    const v1::Actor& actor,
                                                    const CommandOptions& options) {
  RETURN_IF_ERROR(CheckNotReserved(game_id));
  return Engine::Create(
      game_id, Identity(options, actor),
      [&](std::int64_t now) -> absl::StatusOr<std::pair<v1::ArbitrationEvent, GameState>> {
        ASSIGN_OR_RETURN(v1::ArbitrationEvent created, NewGame(request, now, actor));
        ASSIGN_OR_RETURN(GameState game, GameState::Create(created));
        return std::make_pair(std::move(created), std::move(game));
      });
}

}  // namespace arbitration
