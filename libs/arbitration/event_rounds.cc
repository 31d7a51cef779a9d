#include "libs/arbitration/event_rounds.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/message_differencer.h"
#include "libs/arbitration/errors.h"
#include "libs/arbitration/event_games.h"
#include "libs/arbitration/game_state.h"
#include "libs/arbitration/rulings.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/sha256.h"
#include "libs/base/status_macros.h"
#include "libs/laws/outcome.h"
#include "libs/store/command_ids.h"
#include "libs/store/errors.h"

namespace arbitration {
namespace {

using google::protobuf::util::MessageDifferencer;

constexpr int kMaxRound = 10'000;
constexpr int kMaxPairings = 1'000;
constexpr int kMaxNameLength = 256;
// An event's record and a round's are this schema (EventView, RoundView).
constexpr std::uint32_t kEventSchemaVersion = 1;
// Rounds appended at once by several callers: each loses the compare-and-set at most this often.
constexpr int kAppendTries = 8;

absl::Status Bad(absl::string_view message) { return base::Error(base::kErrBadArgument, message); }

// The same status with its code, its message prefixed (which pairing it is about).
absl::Status About(const absl::Status& status, absl::string_view what) {
  return base::Error(status.code(), base::ErrorCode(status), absl::StrCat(what, status.message()));
}

absl::Status CheckEventId(absl::string_view event) {
  if (event.empty() || event.size() > static_cast<size_t>(kMaxEventIdLength)) {
    return Bad(absl::StrCat("event must have 1 to ", kMaxEventIdLength, " characters"));
  }
  if (!store::ValidateGameId(event).ok()) {
    return Bad("event may only contain A-Z a-z 0-9 . _ ~ : -");
  }
  return absl::OkStatus();
}

std::string Digest(const google::protobuf::Message& m) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return base::Sha256Hex(bytes);
}

// What CreateEvent compares: the event as recorded, without what the store gives it.
v1::EventView Content(v1::EventView view) {
  view.clear_rounds();
  view.clear_version();
  view.clear_created_ms();
  return view;
}

arbiter::v1::GameEvent Entry(const google::protobuf::Message& body, std::int64_t now_ms) {
  arbiter::v1::GameEvent e;
  e.set_recorded_at_ms(now_ms);
  e.set_schema_version(kEventSchemaVersion);
  e.mutable_body()->PackFrom(body);
  return e;
}

arbiter::v1::GameSnapshot SnapshotOf(const v1::EventView& view) {
  arbiter::v1::GameSnapshot s;
  s.set_schema_version(kEventSchemaVersion);
  v1::EventView state = view;
  state.clear_version();
  s.mutable_state()->PackFrom(state);
  return s;
}

// The event's ruleset and time control as a game records them, checked as a game's are.
absl::StatusOr<v1::EventView> Recorded(const v1::CreateEventRequest& req, std::int64_t now_ms,
                                       const v1::Actor& actor) {
  RETURN_IF_ERROR(CheckEventId(req.event()));
  if (req.name().size() > kMaxNameLength || req.site().size() > kMaxNameLength) {
    return Bad(absl::StrCat("name and site: at most ", kMaxNameLength, " bytes"));
  }
  v1::CreateGameRequest probe;
  probe.set_white_id("white");
  probe.set_black_id("black");
  *probe.mutable_ruleset() = req.ruleset();
  probe.set_time_control(req.time_control());
  probe.set_time_control_human(req.time_control_human());
  ASSIGN_OR_RETURN(v1::ArbitrationEvent created, NewGame(probe, now_ms, actor));
  v1::EventView view;
  view.set_event(req.event());
  view.set_name(req.name());
  *view.mutable_ruleset() = created.created().ruleset();
  view.set_time_control(created.created().time_control());
  view.set_site(req.site());
  view.set_created_ms(now_ms);
  return view;
}

// The round appended to the event's log at `expected` (the event's version), its snapshot the
// event with the round.
store::AppendRequest RoundAppend(const v1::EventView& event, const v1::RoundView& round,
                                 std::string command_id, std::string fingerprint,
                                 std::int64_t now_ms) {
  store::AppendRequest a;
  a.game_id = EventLogId(event.event());
  a.expected_version = event.version();
  a.command_id = std::move(command_id);
  a.fingerprint = std::move(fingerprint);
  a.events.push_back(Entry(round, now_ms));
  v1::EventView after = event;
  *after.add_rounds() = round;
  a.snapshot = SnapshotOf(after);
  return a;
}

// A pairing checked, and the game CreateGame would create for it.
struct PlannedGame {
  v1::RoundPairing pairing;
  v1::CreateGameRequest request;
};

// Every pairing checked as the round's (pure: nothing read), in board order.
absl::StatusOr<std::vector<PlannedGame>> Plan(const v1::EventView& event,
                                              const v1::CreateRoundRequest& req,
                                              std::int64_t now_ms, const v1::Actor& actor) {
  std::vector<PlannedGame> out;
  std::set<int> boards;
  std::set<std::string> game_ids;
  std::set<std::string> players;
  for (int i = 0; i < req.pairings_size(); ++i) {
    const v1::RoundPairing& p = req.pairings(i);
    const int board = p.board() == 0 ? i + 1 : p.board();
    const std::string what = absl::StrCat("pairing ", i + 1, " (board ", board, "): ");
    auto bad = [&](absl::string_view why) {
      return base::Error(kErrBadPairing, absl::StrCat(what, why));
    };
    if (board < 1 || board > kMaxPairings) {
      return bad(absl::StrCat("board must be in [1, ", kMaxPairings, "]"));
    }
    if (!boards.insert(board).second) return bad("a board twice in the round");
    PlannedGame g;
    g.pairing = p;
    g.pairing.set_board(board);
    if (p.game_id().empty()) {
      g.pairing.set_game_id(absl::StrCat(event.event(), ".r", req.round(), ".b", board));
    }
    const std::string& game_id = g.pairing.game_id();
    if (absl::Status st = store::ValidateGameId(game_id); !st.ok()) return About(st, what);
    if (absl::Status st = CheckNotReserved(game_id); !st.ok()) return About(st, what);
    if (!game_ids.insert(game_id).second) return bad("a game id twice in the round");
    if (p.white_id().empty() || p.black_id().empty()) return bad("white_id and black_id required");
    if (p.white_id() == p.black_id()) return bad("a player against himself");
    for (const std::string* id : {&p.white_id(), &p.black_id()}) {
      if (!players.insert(*id).second) {
        return bad(absl::StrCat("player \"", *id, "\" in two games of the round"));
      }
    }
    v1::CreateGameRequest& r = g.request;
    r.set_game_id(game_id);
    r.set_white_id(p.white_id());
    r.set_white_name(p.white_name());
    r.set_black_id(p.black_id());
    r.set_black_name(p.black_name());
    r.set_event(event.event());
    r.set_round(absl::StrCat(req.round()));
    // 6.6, 6.7: late arrival and the default count from the round's scheduled start.
    r.set_scheduled_start_ms(req.scheduled_start_ms());
    RETURN_IF_ERROR(ApplyEvent(event, r));
    if (absl::Status st = NewGame(r, now_ms, actor).status(); !st.ok()) return About(st, what);
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const PlannedGame& a, const PlannedGame& b) {
    return a.pairing.board() < b.pairing.board();
  });
  return out;
}

v1::RoundView RoundOf(const v1::CreateRoundRequest& req, const std::vector<PlannedGame>& games) {
  v1::RoundView round;
  round.set_round(req.round());
  round.set_scheduled_start_ms(req.scheduled_start_ms());
  for (const PlannedGame& g : games) *round.add_pairings() = g.pairing;
  return round;
}

const v1::RoundView* FindRound(const v1::EventView& event, int number) {
  for (const v1::RoundView& r : event.rounds()) {
    if (r.round() == number) return &r;
  }
  return nullptr;
}

// The rounds asked for (0: every one), by number.
std::vector<const v1::RoundView*> RoundsOf(const v1::EventView& event, int round) {
  std::vector<const v1::RoundView*> out;
  for (const v1::RoundView& r : event.rounds()) {
    if (round == 0 || r.round() == round) out.push_back(&r);
  }
  std::sort(out.begin(), out.end(),
            [](const v1::RoundView* a, const v1::RoundView* b) { return a->round() < b->round(); });
  return out;
}

absl::StatusOr<std::vector<const v1::RoundView*>> Asked(const v1::EventView& event, int round) {
  if (round < 0) return Bad("round must not be negative");
  std::vector<const v1::RoundView*> rounds = RoundsOf(event, round);
  if (round != 0 && rounds.empty()) {
    return base::Error(base::kErrBadArgument, absl::StrCat("the event has no round ", round));
  }
  return rounds;
}

// 11.1 for a result as text (an archived game's tombstone keeps no more).
std::pair<double, double> PointsOfResult(absl::string_view result, const v1::Regulations& regs) {
  const bool set = regs.points_win() != 0 || regs.points_draw() != 0 || regs.points_loss() != 0;
  const double win = set ? regs.points_win() : 1.0;
  const double draw = set ? regs.points_draw() : 0.5;
  const double loss = set ? regs.points_loss() : 0.0;
  if (result == "1-0") return {win, loss};
  if (result == "0-1") return {loss, win};
  if (result == "1/2-1/2") return {draw, draw};
  return {loss, loss};  // "0-0": both lose
}

}  // namespace

std::string EventLogId(absl::string_view event) { return absl::StrCat(kEventLogPrefix, event); }

absl::StatusOr<v1::EventView> GetEvent(store::EventLog& store, absl::string_view event) {
  RETURN_IF_ERROR(CheckEventId(event));
  absl::StatusOr<arbiter::v1::GameSnapshot> snapshot = store.ReadSnapshot(EventLogId(event));
  if (!snapshot.ok()) {
    if (base::ErrorCode(snapshot.status()) == store::kErrGameNotFound) {
      return base::Error(kErrEventNotFound, absl::StrCat("no event \"", event, "\""));
    }
    return snapshot.status();
  }
  v1::EventView view;
  if (!snapshot->state().UnpackTo(&view)) {
    return base::Error(store::kErrCorruptLog,
                       absl::StrCat("event \"", event, "\": its record is not an event's"));
  }
  view.set_version(snapshot->version());
  return view;
}

absl::StatusOr<EventRecord> CreateEvent(store::EventLog& store, const v1::CreateEventRequest& req,
                                        const v1::Actor& actor, std::int64_t now_ms) {
  if (!req.command_id().empty()) RETURN_IF_ERROR(store::CheckClientCommandId(req.command_id()));
  ASSIGN_OR_RETURN(v1::EventView view, Recorded(req, now_ms, actor));
  const std::string digest = Digest(Content(view));
  store::AppendRequest a;
  a.game_id = EventLogId(req.event());
  // Without the client's id, the content's: the same event created again is a retry.
  a.command_id = store::ScopedCommandId(actor.subject(),
                                        req.command_id().empty()
                                            ? absl::StrCat("event-create:", digest.substr(0, 32))
                                            : req.command_id());
  a.fingerprint = digest;
  a.events.push_back(Entry(view, now_ms));
  a.snapshot = SnapshotOf(view);
  absl::StatusOr<store::AppendResult> r = store.Append(a);
  if (r.ok()) {
    ASSIGN_OR_RETURN(v1::EventView stored, GetEvent(store, req.event()));
    return EventRecord{.event = std::move(stored), .replayed = r->replayed};
  }
  if (base::ErrorCode(r.status()) != store::kErrGameExists) return r.status();
  ASSIGN_OR_RETURN(v1::EventView stored, GetEvent(store, req.event()));
  if (Digest(Content(stored)) != digest) {
    return base::Error(kErrEventExists,
                       absl::StrCat("event \"", req.event(), "\" exists with another content"));
  }
  return EventRecord{.event = std::move(stored), .replayed = true};
}

absl::Status ApplyEvent(const v1::EventView& event, v1::CreateGameRequest& request) {
  auto conflict = [&](absl::string_view what) {
    return base::Error(kErrEventRulesConflict,
                       absl::StrCat("the game's ", what, " is not the event's (\"", event.event(),
                                    "\"): the event's regulations govern its games"));
  };
  v1::GameRuleset* rules = request.mutable_ruleset();
  rules->clear_game_type();  // derived from the time control
  if (rules->edition() == v1::EDITION_UNSPECIFIED) {
    rules->set_edition(event.ruleset().edition());
  } else if (rules->edition() != event.ruleset().edition()) {
    return conflict("edition");
  }
  if (!rules->has_regulations() ||
      MessageDifferencer::Equals(rules->regulations(), v1::Regulations())) {
    *rules->mutable_regulations() = event.ruleset().regulations();
  } else if (!MessageDifferencer::Equals(rules->regulations(), event.ruleset().regulations())) {
    return conflict("regulations");
  }
  if (request.time_control().empty() && request.time_control_human().empty()) {
    request.set_time_control(event.time_control());
  } else {
    // Compared in recorded form: "G/90" and "5400" are one time control.
    v1::CreateGameRequest probe;
    probe.set_white_id("white");
    probe.set_black_id("black");
    *probe.mutable_ruleset() = *rules;
    probe.set_time_control(request.time_control());
    probe.set_time_control_human(request.time_control_human());
    ASSIGN_OR_RETURN(v1::ArbitrationEvent created, NewGame(probe, 0, v1::Actor()));
    if (created.created().time_control() != event.time_control()) return conflict("time control");
  }
  if (request.site().empty()) request.set_site(event.site());
  return absl::OkStatus();
}

absl::Status JoinEvent(store::EventLog& store, v1::CreateGameRequest& request) {
  if (!CheckEventId(request.event()).ok()) return absl::OkStatus();  // a label only
  absl::StatusOr<v1::EventView> event = GetEvent(store, request.event());
  if (!event.ok()) {
    if (base::ErrorCode(event.status()) == kErrEventNotFound) return absl::OkStatus();
    return event.status();
  }
  return ApplyEvent(*event, request);
}

absl::StatusOr<RoundOutcome> CreateRound(GameAuthority& authority,
                                         const v1::CreateRoundRequest& req,
                                         const v1::Actor& actor) {
  if (req.command_id().empty()) {
    return Bad("command_id is required: it makes a retried round create nothing twice");
  }
  RETURN_IF_ERROR(store::CheckClientCommandId(req.command_id()));
  if (req.round() < 1 || req.round() > kMaxRound) {
    return Bad(absl::StrCat("round must be in [1, ", kMaxRound, "]"));
  }
  if (req.pairings_size() < 1 || req.pairings_size() > kMaxPairings) {
    return Bad(absl::StrCat("a round has 1 to ", kMaxPairings, " pairings"));
  }
  store::EventLog& store = *authority.store();
  const std::int64_t now_ms = authority.NowMs();
  ASSIGN_OR_RETURN(v1::EventView event, GetEvent(store, req.event()));
  ASSIGN_OR_RETURN(std::vector<PlannedGame> games, Plan(event, req, now_ms, actor));
  const v1::RoundView round = RoundOf(req, games);
  const std::string log_id = EventLogId(req.event());
  const std::string command_id = store::ScopedCommandId(actor.subject(), req.command_id());
  const std::string fingerprint = Digest(req);

  RoundOutcome out{.round = round};
  ASSIGN_OR_RETURN(std::optional<store::AppendResult> earlier,
                   store.LookupCommand(log_id, command_id));
  for (int attempt = 0; !earlier.has_value(); ++attempt) {
    if (FindRound(event, req.round()) != nullptr) {
      return base::Error(kErrRoundExists, absl::StrCat("the event \"", req.event(),
                                                       "\" has a round ", req.round(), " already"));
    }
    // No game of the round may exist yet: the round is all or nothing.
    for (const PlannedGame& g : games) {
      absl::StatusOr<arbiter::v1::GameSnapshot> there = store.ReadSnapshot(g.pairing.game_id());
      if (there.ok() || base::ErrorCode(there.status()) != store::kErrGameNotFound) {
        absl::Status why =
            there.ok() ? base::Error(store::kErrGameExists, "the game exists") : there.status();
        return About(why, absl::StrCat("board ", g.pairing.board(), " (game \"",
                                       g.pairing.game_id(), "\"): "));
      }
    }
    absl::StatusOr<store::AppendResult> appended =
        store.Append(RoundAppend(event, round, command_id, fingerprint, now_ms));
    if (appended.ok()) {
      out.replayed = appended->replayed;
      break;
    }
    if (base::ErrorCode(appended.status()) != store::kErrVersionConflict ||
        attempt + 1 >= kAppendTries) {
      return appended.status();
    }
    // Another round was recorded meanwhile: decide again on the event as it is now.
    ASSIGN_OR_RETURN(event, GetEvent(store, req.event()));
    ASSIGN_OR_RETURN(earlier, store.LookupCommand(log_id, command_id));
  }
  if (earlier.has_value()) {
    // A retry: the round as recorded by the earlier try, which must be this request's.
    const v1::RoundView* recorded = FindRound(event, req.round());
    if (recorded == nullptr || !MessageDifferencer::Equals(*recorded, round)) {
      return base::Error(store::kErrCommandIdReused,
                         absl::StrCat("command_id \"", req.command_id(),
                                      "\" recorded another round of the event"));
    }
    out.replayed = true;
  }
  // The games, each under a command id derived from the call's: a retry replays those created.
  for (const PlannedGame& g : games) {
    const std::string& game_id = g.pairing.game_id();
    CommandOptions create;
    create.command_id = EventCommandId(req.command_id(), "create", game_id);
    create.fingerprint = create.command_id;
    const std::string what = absl::StrCat("board ", g.pairing.board(), ": ");
    absl::StatusOr<CommandResult> created = authority.Create(game_id, g.request, actor, create);
    if (created.ok() && req.start()) {
      Command start;
      start.kind = CommandKind::kStart;  // 6.5
      start.actor = actor;
      CommandOptions o;
      o.command_id = EventCommandId(req.command_id(), "start", game_id);
      o.fingerprint = o.command_id;
      created = authority.Execute(game_id, start, o);
    }
    if (!created.ok()) return About(created.status(), what);
    out.games.push_back(*std::move(created));
  }
  return out;
}

absl::StatusOr<v1::EventResultsReply> EventResults(GameAuthority& authority,
                                                   absl::string_view event, int round) {
  ASSIGN_OR_RETURN(v1::EventView view, GetEvent(*authority.store(), event));
  ASSIGN_OR_RETURN(std::vector<const v1::RoundView*> rounds, Asked(view, round));
  v1::EventResultsReply out;
  out.set_event(view.event());
  for (const v1::RoundView* r : rounds) {
    v1::RoundResults* results = out.add_rounds();
    results->set_round(r->round());
    for (const v1::RoundPairing& p : r->pairings()) {
      v1::PairingResult* g = results->add_games();
      g->set_board(p.board());
      g->set_game_id(p.game_id());
      g->set_white_id(p.white_id());
      g->set_black_id(p.black_id());
      absl::StatusOr<CommandResult> now = authority.Get(p.game_id());
      if (now.ok()) {
        const store::IndexLabels labels = IndexLabelsOf(*now->game);
        // 6.10: a flag under review has no result yet.
        g->set_pending(labels.status != GameStatusName(GameStatus::kEnded));
        if (g->pending()) continue;
        g->set_result(labels.result);
        // 11.1 with the event's points, 13.4e/f, both lose (0-0).
        const auto [white, black] = now->game->Points();
        g->set_white_points(white);
        g->set_black_points(black);
        g->set_article(now->game->outcome().article);
        continue;
      }
      const std::string code = base::ErrorCode(now.status());
      if (code == store::kErrGameNotFound) {
        g->set_pending(true);  // the round's try that creates it has not finished
        continue;
      }
      if (code != store::kErrGameArchived) return now.status();
      ASSIGN_OR_RETURN(std::string tombstone, authority.store()->ReadTombstone(p.game_id()));
      v1::ArchivedGame archived;
      if (!archived.ParseFromString(tombstone)) {
        return base::Error(store::kErrCorruptLog, absl::StrCat("game \"", p.game_id(),
                                                               "\": its tombstone does not parse"));
      }
      g->set_result(archived.result());
      g->set_article(archived.article());
      const auto [white, black] = PointsOfResult(archived.result(), view.ruleset().regulations());
      g->set_white_points(white);
      g->set_black_points(black);
    }
  }
  return out;
}

absl::StatusOr<std::string> EventPgn(GameAuthority& authority, absl::string_view event, int round,
                                     const PgnExportOptions& options) {
  ASSIGN_OR_RETURN(v1::EventView view, GetEvent(*authority.store(), event));
  ASSIGN_OR_RETURN(std::vector<const v1::RoundView*> rounds, Asked(view, round));
  std::string out;
  for (const v1::RoundView* r : rounds) {
    for (const v1::RoundPairing& p : r->pairings()) {
      absl::StatusOr<CommandResult> now = authority.Get(p.game_id());
      if (!now.ok()) {
        const std::string code = base::ErrorCode(now.status());
        if (code == store::kErrGameArchived || code == store::kErrGameNotFound) continue;
        return now.status();
      }
      if (!out.empty()) absl::StrAppend(&out, "\n");
      absl::StrAppend(&out, ExportPgn(*now->game, options));
    }
  }
  return out;
}

}  // namespace arbitration
