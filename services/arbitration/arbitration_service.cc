#include "services/arbitration/arbitration_service.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "libs/arbitration/arbiter_calls.h"
#include "libs/arbitration/archive.h"
#include "libs/arbitration/event_games.h"
#include "libs/arbitration/event_rounds.h"
#include "libs/arbitration/observer_view.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/arbitration/rulings.h"
#include "libs/arbitration/touch_move.h"
#include "libs/base/bounds.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "libs/chess/fen.h"
#include "libs/laws/outcome.h"
#include "libs/laws/proto_convert.h"
#include "libs/service/errors.h"
#include "libs/service/fingerprint.h"
#include "libs/service/log.h"
#include "libs/store/command_ids.h"
#include "libs/store/errors.h"
#include "libs/store/game_store.h"
#include "services/arbitration/move_stream.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;
using arbitration::CommandKind;
using arbitration::CommandOptions;
using arbitration::CommandResult;
using arbitration::FillView;
using arbitration::GameState;
using arbitration::Seen;
using arbitration::SeenBy;
using arbitration::Viewer;
using arbitration::VisibleEvents;
using service::CallContext;
using service::Principal;
using service::Role;

// Bounds on what a caller may send (every input from outside is hostile): longer is refused
// before it reaches the rulings or the store.
constexpr size_t kMaxMoveLength = 32;     // "exd8=Q+", "e7e8q", German letters
constexpr size_t kMaxTextLength = 1024;   // a reason
constexpr size_t kMaxArticleLength = 64;  // "10.2a", "Appendix D1b"
constexpr size_t kMaxConsoleGames = 500;  // ListArbiterCalls: the games of one event it reads
constexpr size_t kMaxNameLength = 256;    // ids, names, event, site, round
constexpr int kMaxDelayPlies = 1000;
// A WatchGames position: a varint per shard, base64 (at most 10 bytes each of 1,024 shards).
constexpr size_t kMaxPositionLength = 16 * 1024;
constexpr std::int64_t kMaxDelayMs = 24LL * 3600 * 1000;

absl::Status BadArgument(absl::string_view message) {
  return base::Error(base::kErrBadArgument, message);
}

template <typename Request>
CommandOptions OptionsOf(absl::string_view method, const Request& req) {
  CommandOptions o;
  o.command_id = req.command_id();
  if (!o.command_id.empty()) o.fingerprint = service::RequestFingerprint(method, req);
  o.expected_version = req.expected_version();
  return o;
}

// How a caller sees a game by his role (observer_view.h): observers through the broadcast delay,
// advice for arbiters (12.2), the actors for arbiters and the platform.
Viewer ViewerOf(const service::ServiceEnv& env, const Principal& who) {
  if (env.insecure()) return {.delayed = false, .advice = true};
  return {.delayed = who.role == Role::kObserver,
          .advice = who.role == Role::kArbiter || who.role == Role::kService,
          .all_actors = who.role != Role::kObserver && who.role != Role::kPlayer,
          .subject = who.subject};
}

// The colour a player's token names (the token's claim, as the proto names it).
std::optional<chess::Color> TokenColor(const Principal& who) {
  return who.color.has_value() ? laws::ColorOf(*who.color) : std::nullopt;
}

// Who acts in the game created by `created`: a person's token (an event's player token) bound to
// the colour the game names its subject for; any other token as it is, if it may act in the game's
// event (service::BindPlayer).
absl::StatusOr<Principal> ActingIn(const Principal& who, absl::string_view game_id,
                                   const v1::GameCreated& created) {
  return service::BindPlayer(who, game_id, created.event(), created.white_id(), created.black_id());
}

// The side a player command is for. A player's token acts only for its own colour (the side may
// be left out: it is the token's); everyone else must name it.
absl::StatusOr<chess::Color> SideFor(v1::Color side, const service::ServiceEnv& env,
                                     const Principal& who, absl::string_view field = "side") {
  if (!v1::Color_IsValid(side)) return BadArgument(absl::StrCat(field, ": unknown colour"));
  std::optional<chess::Color> named = laws::ColorOf(side);
  std::optional<chess::Color> own = TokenColor(who);
  if (!env.insecure() && who.role == Role::kPlayer && own.has_value()) {
    if (named.has_value() && *named != *own) {
      return base::Error(service::kErrPermissionDenied,
                         "a player token acts only for its own colour");
    }
    return *own;
  }
  if (!named.has_value()) {
    return BadArgument(absl::StrCat(field, " is required: COLOR_WHITE or COLOR_BLACK"));
  }
  return *named;
}

absl::Status CheckLength(absl::string_view field, absl::string_view value, size_t max) {
  if (value.size() > max) {
    return BadArgument(absl::StrCat(field, " is longer than ", max, " bytes"));
  }
  return absl::OkStatus();
}

absl::Status FillReply(absl::string_view game_id, const CommandResult& r, const Viewer& viewer,
                       v1::GameReply* resp) {
  ASSIGN_OR_RETURN(Seen seen, SeenBy(viewer, r.game, r.now_ms));
  FillView(game_id, seen, viewer, resp->mutable_game());
  resp->set_replayed(r.replayed);
  resp->set_claim_ruling(r.claim_ruling);
  if (r.draw_offer_refused) *resp->mutable_draw_offer_refused() = *r.draw_offer_refused;
  return absl::OkStatus();
}

// The ply and clock settings of a report or ruling (7.4a, 7.5, 6.14) within libs/base/bounds.h.
template <typename Request>
absl::Status CheckIrregularityBounds(const Request& req) {
  if (req.has_ply()) RETURN_IF_ERROR(base::CheckCount("ply", req.ply()));
  if (req.has_white_ms()) RETURN_IF_ERROR(base::CheckDurationMs("white_ms", req.white_ms()));
  if (req.has_black_ms()) RETURN_IF_ERROR(base::CheckDurationMs("black_ms", req.black_ms()));
  return absl::OkStatus();
}

// A player command on `side`.
arbitration::Command PlayerCommand(CommandKind kind, chess::Color side) {
  arbitration::Command c;
  c.kind = kind;
  c.side = side;
  return c;
}

absl::Status CheckCreate(const v1::CreateGameRequest& req) {
  for (const auto& [field, value] : std::vector<std::pair<absl::string_view, const std::string*>>{
           {"white_id", &req.white_id()},
           {"black_id", &req.black_id()},
           {"time_control", &req.time_control()},
           {"start_fen", &req.start_fen()},
           {"event", &req.event()},
           {"site", &req.site()},
           {"round", &req.round()},
           {"white_name", &req.white_name()},
           {"black_name", &req.black_name()}}) {
    RETURN_IF_ERROR(CheckLength(field, *value, kMaxNameLength));
  }
  if (req.broadcast_delay_plies() < 0 || req.broadcast_delay_plies() > kMaxDelayPlies) {
    return BadArgument(absl::StrCat("broadcast_delay_plies must be in [0, ", kMaxDelayPlies, "]"));
  }
  if (req.broadcast_delay_ms() < 0 || req.broadcast_delay_ms() > kMaxDelayMs) {
    return BadArgument(absl::StrCat("broadcast_delay_ms must be in [0, ", kMaxDelayMs, "]"));
  }
  if (req.scheduled_start_ms() < 0) return BadArgument("scheduled_start_ms must not be negative");
  return absl::OkStatus();
}

}  // namespace

std::string ArbitrationService::FullMethod(absl::string_view name) {
  return absl::StrCat("/", kName, "/", name);
}

ArbitrationService::ArbitrationService(service::ServiceEnv* env,
                                       arbitration::GameAuthority* authority,
                                       ServiceOptions options)
    : env_(env),
      authority_(authority),
      options_(options),
      sealed_moves_(options.seal_key),
      pool_(std::make_unique<base::WorkerPool>(std::max(1, options.workers))),
      hub_(authority->store(), std::max(1, options.max_watched_games)),
      watch_pool_(std::make_unique<base::WorkerPool>(std::max(1, options.watch_workers))) {
  const std::vector<Role> create = {Role::kPlatform, Role::kService};
  const std::vector<Role> start = {Role::kPlatform, Role::kArbiter, Role::kService};
  const std::vector<Role> arrive = {Role::kPlatform, Role::kArbiter, Role::kService, Role::kPlayer};
  const std::vector<Role> play = {Role::kPlatform, Role::kService, Role::kPlayer};
  const std::vector<Role> arbiter = {Role::kArbiter, Role::kService};
  env_->policy().Add({FullMethod("CreateGame"), create, false});
  env_->policy().Add({FullMethod("StartGame"), start, false});
  // A player acts only in his own game (game-bound) and for his own colour (SideFor).
  // A person's token for an event is bound to the game it acts in (ActingIn).
  env_->policy().Add({FullMethod("Arrive"), arrive, true, true});
  for (const char* m :
       {"SubmitMove", "Resign", "OfferDraw", "RespondDraw", "Claim", "ConfirmResult"}) {
    env_->policy().Add({FullMethod(m), play, true, true});
  }
  for (const char* m :
       {"Rule", "SetResult", "PauseGame", "ResumeGame", "AdjustTime", "SetClocks"}) {
    env_->policy().Add({FullMethod(m), arbiter, false});
  }
  // Article 7: the offender's C3 move and a player's stop (6.13b) are the players'; the rest the
  // arbiter's.
  for (const char* m : {"CompleteIllegalMove", "StopClocks"}) {
    env_->policy().Add({FullMethod(m), play, true, true});
  }
  // 7.4a: the arbiter finds an illegal move; a player's report (his own colour's token; the
  // platform's names the offender) is a claim the arbiter rules on (ReportIllegalMove decides).
  env_->policy().Add({FullMethod("ReportIllegalMove"),
                      {Role::kPlatform, Role::kArbiter, Role::kService, Role::kPlayer},
                      true,
                      true});
  for (const char* m : {"RuleIrregularity", "RuleStop", "UsePower"}) {
    env_->policy().Add({FullMethod(m), arbiter, false});
  }
  // Electronic boards: the electronic board's relay (a service) or the arbiter.
  env_->policy().Add({FullMethod("SubmitBoardFeed"), arbiter, false});
  // Appendix A: the player on move seals; the arbiter adjourns, resumes, and rules on a lost
  // envelope.
  env_->policy().Add({FullMethod("SealMove"), play, true, true});
  for (const char* m : {"AdjournGame", "ResumeAdjournedGame", "ReportEnvelopeLost"}) {
    env_->policy().Add({FullMethod(m), arbiter, false});
  }
  // The platform (or a service) archives a game that is over once it holds the record.
  env_->policy().Add({FullMethod("ArchiveGame"), create, false});
  AddRecordPolicy();
  // The arbiter's queue (the console): the arbiters of the event.
  env_->policy().Add({FullMethod("ListArbiterCalls"), arbiter, false});
  AddListingPolicy();
  AddEventPolicy();
  // Everyone reads; a player only his own game; observers through the broadcast delay.
  for (const char* m : {"GetGame", "WatchGame", "ExportPgn"}) {
    env_->policy().Add({FullMethod(m), service::kAllRoles, true, true});
  }
  // The firehose: every role, each sees the games it may (firehose.h).
  env_->policy().Add({FullMethod("WatchGames"), service::kAllRoles, false, false});
  // The game commands, from the completion queues (CommandAsync): none holds a thread of the
  // synchronous server while the store appends. Each is marked async in ArbitrationBase.
  using S = ArbitrationService;
  auto queued = [this](auto request, auto handle) {
    async_.push_back(service::ServedFromQueueAsync(this, request, handle));
  };
  queued(&S::RequestSubmitMove, &S::SubmitMove);
  queued(&S::RequestStartGame, &S::StartGame);
  queued(&S::RequestArrive, &S::Arrive);
  queued(&S::RequestResign, &S::Resign);
  queued(&S::RequestOfferDraw, &S::OfferDraw);
  queued(&S::RequestRespondDraw, &S::RespondDraw);
  queued(&S::RequestClaim, &S::Claim);
  queued(&S::RequestRule, &S::Rule);
  queued(&S::RequestConfirmResult, &S::ConfirmResult);
  queued(&S::RequestSetResult, &S::SetResult);
  queued(&S::RequestPauseGame, &S::PauseGame);
  queued(&S::RequestResumeGame, &S::ResumeGame);
  queued(&S::RequestAdjustTime, &S::AdjustTime);
  queued(&S::RequestSetClocks, &S::SetClocks);
  queued(&S::RequestSubmitBoardFeed, &S::SubmitBoardFeed);
  queued(&S::RequestReportIllegalMove, &S::ReportIllegalMove);
  queued(&S::RequestCompleteIllegalMove, &S::CompleteIllegalMove);
  queued(&S::RequestRuleIrregularity, &S::RuleIrregularity);
  queued(&S::RequestStopClocks, &S::StopClocks);
  queued(&S::RequestRuleStop, &S::RuleStop);
  queued(&S::RequestUsePower, &S::UsePower);
  queued(&S::RequestAdjournGame, &S::AdjournGame);
  queued(&S::RequestResumeAdjournedGame, &S::ResumeAdjournedGame);
  queued(&S::RequestReportEnvelopeLost, &S::ReportEnvelopeLost);
  // The stream: opened by whoever may move; each of its moves is admitted as a SubmitMove.
  env_->policy().Add({FullMethod("SubmitMoves"), play, false});
  async_.push_back(std::make_unique<MoveStreamMethod>(this, env_));
  // WatchGame: no thread per stream (libs/service/async_stream.h); a watcher that lets
  // max_watch_backlog updates pile up unread is cut off (it resumes from its last version).
  async_.push_back(
      std::make_unique<
          service::AsyncServerStream<ArbitrationService, v1::WatchGameRequest, v1::GameUpdate>>(
          this, &ArbitrationService::RequestWatchGame,
          [this](grpc::ServerContext* ctx, const v1::WatchGameRequest& req,
                 std::shared_ptr<service::StreamWriter<v1::GameUpdate>> out) {
            StartWatch(ctx, req, std::move(out));
          },
          static_cast<size_t>(std::max(1, options_.max_watch_backlog))));
  // WatchGames: a slow reader is cut off as a WatchGame watcher is (firehose.h).
  firehose_ = std::make_unique<Firehose>(
      authority_->store(), watch_pool_.get(),
      [authority = authority_] { return authority->NowMs(); },
      FirehoseOptions{.max_backlog = std::max(1, options_.max_watch_backlog)});
  async_.push_back(
      std::make_unique<
          service::AsyncServerStream<ArbitrationService, v1::WatchGamesRequest, v1::GamesUpdate>>(
          this, &ArbitrationService::RequestWatchGames,
          [this](grpc::ServerContext* ctx, const v1::WatchGamesRequest& req,
                 std::shared_ptr<service::StreamWriter<v1::GamesUpdate>> out) {
            StartWatchGames(ctx, req, std::move(out));
          },
          static_cast<size_t>(std::max(1, options_.max_watch_backlog))));
  delay_ticker_.Start(std::min(options_.watch_poll, absl::Milliseconds(50)),
                      [this] { ReleaseDelayed(); });
}

ArbitrationService::~ArbitrationService() {
  delay_ticker_.Stop();
  firehose_.reset();
  watch_pool_.reset();
  pool_.reset();
}

std::vector<service::AsyncUnaryMethod*> ArbitrationService::async_methods() const {
  std::vector<service::AsyncUnaryMethod*> out;
  for (const auto& m : async_) out.push_back(m.get());
  return out;
}

template <typename Request, typename Make>
void ArbitrationService::CommandAsync(grpc::ServerContext* ctx, const char* method,
                                      const Request* req, v1::GameReply* resp, Make make,
                                      Reply reply, Serving how) {
  auto serve = [&](auto&& fn) {
    if (how == Serving::kStreamed) {
      env_->ServeStreamMessage(ctx, FullMethod(method), *req, fn, std::move(reply));
    } else {
      env_->ServeQueuedAsync(ctx, FullMethod(method), *req, fn, std::move(reply));
    }
  };
  serve([&](const CallContext&, const Principal& who,
            std::function<void(const absl::Status&)> finish) {
    if (how == Serving::kOnPool || !who.event.empty()) {
      // The synchronous way, on the pool (`make` is copied there: it captures nothing of the
      // caller's frame by reference). A token that serves one event acts only on its games, and a
      // person's token for an event acts for the colour the game names him for: both read the
      // game first (one more read, for such tokens only).
      auto blocking = [this, req, resp, who, method, make, finish] {
        finish([&]() -> absl::Status {
          Principal acting = who;
          if (!who.event.empty()) {
            ASSIGN_OR_RETURN(CommandResult game, authority_->Get(req->game_id()));
            ASSIGN_OR_RETURN(acting, ActingIn(who, req->game_id(), game.game->created()));
          }
          ASSIGN_OR_RETURN(arbitration::Command command, make(acting));
          command.actor = env_->ActorOf(acting);
          ASSIGN_OR_RETURN(CommandResult r,
                           authority_->Execute(req->game_id(), command, OptionsOf(method, *req)));
          return FillReply(req->game_id(), r, ViewerOf(*env_, acting), resp);
        }());
      };
      if (!pool_->Submit(blocking)) blocking();  // the pool is stopping: here
      return;
    }
    absl::StatusOr<arbitration::Command> command = make(who);
    if (!command.ok()) return finish(command.status());
    command->actor = env_->ActorOf(who);
    authority_->ExecuteAsync(
        req->game_id(), *command, OptionsOf(method, *req),
        [this](std::function<void()> work) {
          if (!pool_->Submit(work)) work();  // the pool is stopping: here
        },
        // The request and the response live in the call until `finish` has replied.
        [req, resp, viewer = ViewerOf(*env_, who),
         finish = std::move(finish)](absl::StatusOr<CommandResult> r) {
          if (!r.ok()) return finish(r.status());
          finish(FillReply(req->game_id(), *r, viewer, resp));
        });
  });
}

template <typename Request>
void ArbitrationService::SideCommand(grpc::ServerContext* ctx, const char* method,
                                     const Request* req, v1::GameReply* resp, CommandKind kind,
                                     Reply reply, Serving how) {
  CommandAsync(
      ctx, method, req, resp,
      [this, req, kind](const Principal& who) -> absl::StatusOr<arbitration::Command> {
        ASSIGN_OR_RETURN(chess::Color side, SideFor(req->side(), *env_, who));
        return PlayerCommand(kind, side);
      },
      std::move(reply), how);
}

absl::Status ArbitrationService::ReplyOf(const Principal& who, absl::string_view game_id,
                                         const CommandResult& r, v1::GameReply* resp) const {
  return FillReply(game_id, r, ViewerOf(*env_, who), resp);
}

grpc::Status ArbitrationService::CreateGame(grpc::ServerContext* ctx,
                                            const v1::CreateGameRequest* req, v1::GameReply* resp) {
  return env_->Serve(
      ctx, FullMethod("CreateGame"), *req,
      [&](const CallContext&, const Principal& who) -> absl::Status {
        RETURN_IF_ERROR(CheckCreate(*req));
        RETURN_IF_ERROR(service::CheckEvent(who, req->event()));  // an event-scoped token
        // A game of an event created with CreateEvent is played under its rules.
        v1::CreateGameRequest joined = *req;
        RETURN_IF_ERROR(arbitration::JoinEvent(*authority_->store(), joined));
        CommandOptions o;
        o.command_id = req->command_id();
        if (!o.command_id.empty()) o.fingerprint = service::RequestFingerprint("CreateGame", *req);
        ASSIGN_OR_RETURN(CommandResult r,
                         authority_->Create(req->game_id(), joined, env_->ActorOf(who), o));
        return FillReply(req->game_id(), r, ViewerOf(*env_, who), resp);
      });
}

void ArbitrationService::StartGame(grpc::ServerContext* ctx, const v1::StartGameRequest* req,
                                   v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "StartGame", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        arbitration::Command c;
        c.kind = CommandKind::kStart;
        if (req->absent_size() > 2) return BadArgument("absent: at most two players");
        for (int side : req->absent()) {  // 6.6
          std::optional<chess::Color> color =
              v1::Color_IsValid(side) ? laws::ColorOf(static_cast<v1::Color>(side)) : std::nullopt;
          if (!color.has_value()) {
            return BadArgument("absent: COLOR_WHITE or COLOR_BLACK");
          }
          c.absent.push_back(*color);
        }
        return c;
      },
      std::move(reply));
}

void ArbitrationService::Arrive(grpc::ServerContext* ctx, const v1::ArriveRequest* req,
                                v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "Arrive", req, resp,
      [this, req](const Principal& who) -> absl::StatusOr<arbitration::Command> {
        ASSIGN_OR_RETURN(chess::Color side, SideFor(req->side(), *env_, who));
        arbitration::Command c = PlayerCommand(CommandKind::kArrive, side);
        // Appendix A9b, A9c: an arrival may open the envelope that waits for him.
        RETURN_IF_ERROR(OpenEnvelopeFor(req->game_id(), &c));
        return c;
      },
      std::move(reply), Serving::kOnPool);
}

void ArbitrationService::SubmitMove(grpc::ServerContext* ctx, const v1::SubmitMoveRequest* req,
                                    v1::GameReply* resp, Reply reply) {
  Move(ctx, req, resp, std::move(reply), Serving::kOnQueue);
}

void ArbitrationService::SubmitStreamedMove(grpc::ServerContext* ctx,
                                            const v1::SubmitMoveRequest* req, v1::GameReply* resp,
                                            Reply reply) {
  Move(ctx, req, resp, std::move(reply), Serving::kStreamed);
}

void ArbitrationService::Move(grpc::ServerContext* ctx, const v1::SubmitMoveRequest* req,
                              v1::GameReply* resp, Reply reply, Serving how) {
  CommandAsync(
      ctx, "SubmitMove", req, resp,
      [this, req](const Principal& who) -> absl::StatusOr<arbitration::Command> {
        ASSIGN_OR_RETURN(chess::Color side, SideFor(req->side(), *env_, who));
        if (req->move().empty()) return BadArgument("move is required");
        RETURN_IF_ERROR(CheckLength("move", req->move(), kMaxMoveLength));
        if (req->lag_ms() < 0 || req->lag_ms() > 60'000) {
          return BadArgument("lag_ms must be in [0, 60000]");
        }
        arbitration::Command c = PlayerCommand(CommandKind::kMove, side);
        c.move = req->move();
        c.offer_draw = req->offer_draw();
        c.lag_ms = req->lag_ms();
        return c;
      },
      std::move(reply), how);
}

void ArbitrationService::Resign(grpc::ServerContext* ctx, const v1::ResignRequest* req,
                                v1::GameReply* resp, Reply reply) {
  SideCommand(ctx, "Resign", req, resp, CommandKind::kResign, std::move(reply));  // 5.1b
}

void ArbitrationService::OfferDraw(grpc::ServerContext* ctx, const v1::OfferDrawRequest* req,
                                   v1::GameReply* resp, Reply reply) {
  SideCommand(ctx, "OfferDraw", req, resp, CommandKind::kOfferDraw, std::move(reply));  // 9.1
}

void ArbitrationService::RespondDraw(grpc::ServerContext* ctx, const v1::RespondDrawRequest* req,
                                     v1::GameReply* resp, Reply reply) {
  SideCommand(ctx, "RespondDraw", req, resp,
              req->accept() ? CommandKind::kAcceptDraw : CommandKind::kDeclineDraw,
              std::move(reply));
}

void ArbitrationService::Claim(grpc::ServerContext* ctx, const v1::ClaimRequest* req,
                               v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "Claim", req, resp,
      [this, req](const Principal& who) -> absl::StatusOr<arbitration::Command> {
        ASSIGN_OR_RETURN(chess::Color side, SideFor(req->side(), *env_, who));
        if (!v1::ClaimKind_IsValid(req->kind()) || req->kind() == v1::CLAIM_KIND_UNSPECIFIED) {
          return BadArgument("kind: THREEFOLD, FIFTY, QUICKPLAY, TIME or ILLEGAL_MOVE");
        }
        if (!v1::QuickplayGround_IsValid(req->ground())) {
          return BadArgument("ground: unknown value");
        }
        RETURN_IF_ERROR(CheckLength("intended_move", req->intended_move(), kMaxMoveLength));
        arbitration::Command c = PlayerCommand(CommandKind::kClaim, side);
        c.claim = req->kind();
        c.move = req->intended_move();  // 9.2a / 9.3a
        c.ground = req->ground();       // D1
        return c;
      },
      std::move(reply), Serving::kOnPool);
}

void ArbitrationService::Rule(grpc::ServerContext* ctx, const v1::RuleRequest* req,
                              v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "Rule", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        if (!v1::RulingDecision_IsValid(req->decision()) ||
            req->decision() == v1::RULING_DECISION_UNSPECIFIED) {
          return BadArgument("decision: DRAW, POSTPONE, REJECT or UPHOLD");
        }
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        arbitration::Command c;
        c.kind = CommandKind::kRule;  // 10.2a-c, D1; 7.4a on a claimed illegal move
        c.decision = req->decision();
        c.add_time = req->add_time();
        c.reason = req->reason();
        return c;
      },
      std::move(reply), Serving::kOnPool);
}

void ArbitrationService::ConfirmResult(grpc::ServerContext* ctx,
                                       const v1::ConfirmResultRequest* req, v1::GameReply* resp,
                                       Reply reply) {
  // On the pool: signing the record after the confirmation that completes it reads the game, and
  // that runs where the command finished, before the reply.
  auto signed_then_reply = [this, req, resp, reply = std::move(reply)](grpc::Status status) {
    if (status.ok()) SignConfirmed(req->game_id(), resp);
    reply(std::move(status));
  };
  SideCommand(ctx, "ConfirmResult", req, resp, CommandKind::kConfirm,  // 8.7
              std::move(signed_then_reply), Serving::kOnPool);
}

void ArbitrationService::SignConfirmed(const std::string& game_id, v1::GameReply* resp) {
  if (options_.record_signer == nullptr || !resp->game().white_confirmed() ||
      !resp->game().black_confirmed()) {
    return;
  }
  // 8.7: both players signed the scoresheet: Arbiter signs the record at that moment, and the
  // confirmation that completes it carries the signed record. The caller's right to the game was
  // checked by the command; a record that cannot be made does not undo the confirmation.
  absl::StatusOr<arbitration::RecordAnswer> answer =
      arbitration::SignedRecordOf(*authority_, game_id, options_.record_signer.get(),
                                  [](absl::string_view) { return absl::OkStatus(); });
  if (answer.ok()) {
    resp->set_signed_record(std::move(answer->record));
  } else {
    service::Log(service::LogLevel::kWarning, "the confirmed result's record was not signed",
                 {{"game_id", game_id}, {"error", answer.status().ToString()}});
  }
}

void ArbitrationService::SetResult(grpc::ServerContext* ctx, const v1::SetResultRequest* req,
                                   v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "SetResult", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        if (!v1::Result_IsValid(req->result())) return BadArgument("result: unknown");
        ASSIGN_OR_RETURN(laws::Result result, laws::ResultOf(req->result()));
        RETURN_IF_ERROR(CheckLength("article", req->article(), kMaxArticleLength));
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        if (req->article().empty()) return BadArgument("article is required");
        if (req->reason().empty()) return BadArgument("reason is required");
        arbitration::Command c;
        c.kind = CommandKind::kSetResult;
        c.outcome.result = result;
        c.outcome.termination = laws::Termination::kArbiterDecision;
        c.outcome.article = req->article();
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::PauseGame(grpc::ServerContext* ctx, const v1::PauseGameRequest* req,
                                   v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "PauseGame", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        if (req->reason().empty()) return BadArgument("reason is required (6.13a)");
        arbitration::Command c;
        c.kind = CommandKind::kPause;  // 6.13a
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::ResumeGame(grpc::ServerContext* ctx, const v1::ResumeGameRequest* req,
                                    v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "ResumeGame", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        arbitration::Command c;
        c.kind = CommandKind::kResume;  // 6.13
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::AdjustTime(grpc::ServerContext* ctx, const v1::AdjustTimeRequest* req,
                                    v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "AdjustTime", req, resp,
      [this, req](const Principal& who) -> absl::StatusOr<arbitration::Command> {
        ASSIGN_OR_RETURN(chess::Color side, SideFor(req->side(), *env_, who));
        RETURN_IF_ERROR(CheckLength("article", req->article(), kMaxArticleLength));
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        if (req->reason().empty()) return BadArgument("reason is required");
        arbitration::Command c;
        c.kind = CommandKind::kAdjustTime;  // 6.8d, 7.4b, 8.1, 13.4b-c, 13.5, 6.13
        c.side = side;
        RETURN_IF_ERROR(base::CheckDeltaMs("delta_ms", req->delta_ms()));
        c.delta_ms = req->delta_ms();
        c.article = req->article();
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::SetClocks(grpc::ServerContext* ctx, const v1::SetClocksRequest* req,
                                   v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "SetClocks", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("article", req->article(), kMaxArticleLength));
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        if (req->reason().empty()) return BadArgument("reason is required");
        arbitration::Command c;
        c.kind = CommandKind::kSetClocks;  // 6.14, 6.11
        RETURN_IF_ERROR(base::CheckDurationMs("white_ms", req->white_ms()));
        RETURN_IF_ERROR(base::CheckDurationMs("black_ms", req->black_ms()));
        if (req->has_white_moves()) {
          RETURN_IF_ERROR(base::CheckCount("white_moves", req->white_moves()));
        }
        if (req->has_black_moves()) {
          RETURN_IF_ERROR(base::CheckCount("black_moves", req->black_moves()));
        }
        c.clocks.set_white_ms(req->white_ms());
        c.clocks.set_black_ms(req->black_ms());
        if (req->has_white_moves()) c.clocks.set_white_moves(req->white_moves());
        if (req->has_black_moves()) c.clocks.set_black_moves(req->black_moves());
        c.article = req->article();
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

// --- Electronic boards (libs/arbitration/board_feed.h, touch_move.h) ---

void ArbitrationService::SubmitBoardFeed(grpc::ServerContext* ctx,
                                         const v1::SubmitBoardFeedRequest* req, v1::GameReply* resp,
                                         Reply reply) {
  CommandAsync(
      ctx, "SubmitBoardFeed", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        arbitration::Command c;
        c.kind = CommandKind::kBoardFeed;  // 4.3-4.7, 7.4a; validated by the rulings
        c.feed.assign(req->placements().begin(), req->placements().end());
        return c;
      },
      std::move(reply));
}

// --- Article 7, 6.13b/d, 12, 13.4 (libs/arbitration/irregularities.h) ---

void ArbitrationService::ReportIllegalMove(grpc::ServerContext* ctx,
                                           const v1::ReportIllegalMoveRequest* req,
                                           v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "ReportIllegalMove", req, resp,
      [this, req](const Principal& who) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        if (!v1::Color_IsValid(req->side())) return BadArgument("side: unknown colour");
        RETURN_IF_ERROR(CheckIrregularityBounds(*req));
        const std::optional<chess::Color> offender = laws::ColorOf(req->side());
        arbitration::Command c;
        c.kind = CommandKind::kReportIllegalMove;  // 7.4a: the arbiter finds
        c.side = offender;
        // Only an arbiter (or a service acting for him) finds; a player's report, or
        // the platform's for a player, is a claim the arbiter rules on (7.4a, B5).
        const bool finds =
            env_->insecure() || who.role == Role::kArbiter || who.role == Role::kService;
        if (!finds) {
          std::optional<chess::Color> claimant =
              offender ? std::optional<chess::Color>(~*offender) : std::nullopt;
          std::optional<chess::Color> own = TokenColor(who);
          if (who.role == Role::kPlayer && own.has_value()) {
            if (offender.has_value() && *offender != ~*own) {
              return base::Error(service::kErrPermissionDenied,
                                 "a player claims the opponent's illegal move: side "
                                 "must name the opponent");
            }
            claimant = *own;
          }
          if (!claimant) {
            return BadArgument(
                "side is required: the offender (COLOR_WHITE or "
                "COLOR_BLACK)");
          }
          if (req->has_white_ms() || req->has_black_ms()) {
            return BadArgument("white_ms, black_ms: the arbiter sets the clocks (6.14)");
          }
          c.kind = CommandKind::kClaimIllegalMove;  // 7.4a, B5
          c.side = claimant;
        }
        if (req->has_ply()) c.irregular.ply = req->ply();
        c.irregular.from = req->from();
        c.irregular.to = req->to();
        c.irregular.promotion = req->promotion();
        if (req->has_white_ms()) c.irregular.white_ms = req->white_ms();
        if (req->has_black_ms()) c.irregular.black_ms = req->black_ms();
        c.irregular.position_unknown = req->position_unknown();
        c.reason = req->reason();
        return c;
      },
      std::move(reply), Serving::kOnPool);
}

void ArbitrationService::CompleteIllegalMove(grpc::ServerContext* ctx,
                                             const v1::CompleteIllegalMoveRequest* req,
                                             v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "CompleteIllegalMove", req, resp,
      [this, req](const Principal& who) -> absl::StatusOr<arbitration::Command> {
        ASSIGN_OR_RETURN(chess::Color side, SideFor(req->side(), *env_, who));
        arbitration::Command c = PlayerCommand(CommandKind::kCompleteIllegalMove, side);
        c.irregular.from = req->from();  // C3
        c.irregular.to = req->to();
        c.irregular.promotion = req->promotion();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::RuleIrregularity(grpc::ServerContext* ctx,
                                          const v1::RuleIrregularityRequest* req,
                                          v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "RuleIrregularity", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("article", req->article(), kMaxArticleLength));
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        arbitration::Command c;
        c.kind = CommandKind::kRuleIrregularity;  // 7.1a, 7.1b, 7.2, 7.3, 7.5
        c.article = req->article();
        c.irregular.replay = req->replay();
        RETURN_IF_ERROR(CheckIrregularityBounds(*req));
        if (req->has_ply()) c.irregular.ply = req->ply();
        if (req->has_white_ms()) c.irregular.white_ms = req->white_ms();
        if (req->has_black_ms()) c.irregular.black_ms = req->black_ms();
        c.irregular.position_unknown = req->position_unknown();
        if (req->side() != v1::COLOR_UNSPECIFIED) {
          std::optional<chess::Color> side = laws::ColorOf(req->side());
          if (!side) {
            return base::Error(base::kErrBadArgument, "side: white or black (7.3)");
          }
          c.irregular.displaced_by = side;
        }
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::StopClocks(grpc::ServerContext* ctx, const v1::StopClocksRequest* req,
                                    v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "StopClocks", req, resp,
      [this, req](const Principal& who) -> absl::StatusOr<arbitration::Command> {
        ASSIGN_OR_RETURN(chess::Color side, SideFor(req->side(), *env_, who));
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        arbitration::Command c = PlayerCommand(CommandKind::kStopClocks, side);  // 6.13b
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::RuleStop(grpc::ServerContext* ctx, const v1::RuleStopRequest* req,
                                  v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "RuleStop", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("penalty", req->penalty(), kMaxArticleLength));
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        arbitration::Command c;
        c.kind = CommandKind::kRuleStop;  // 6.13d, 13.4
        c.irregular.valid = req->valid();
        c.irregular.penalty = req->penalty();
        RETURN_IF_ERROR(base::CheckDurationMs("penalty_ms", req->penalty_ms()));
        c.delta_ms = req->penalty_ms();
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::UsePower(grpc::ServerContext* ctx, const v1::UsePowerRequest* req,
                                  v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "UsePower", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        if (!v1::Color_IsValid(req->side())) return BadArgument("side: unknown colour");
        if (!v1::ArbiterPower_IsValid(req->power())) {
          return BadArgument("power: unknown value");
        }
        arbitration::Command c;
        c.kind = CommandKind::kUsePower;  // 12.4, 12.7, 12.8, 13.4a/d/e/f/g
        c.side = laws::ColorOf(req->side());
        c.irregular.power = req->power();
        if (req->has_points()) c.irregular.points = req->points();
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

// --- Appendix A: adjourned games (libs/arbitration/adjournment.h) ---

absl::Status ArbitrationService::OpenEnvelopeFor(absl::string_view game_id,
                                                 arbitration::Command* command) {
  ASSIGN_OR_RETURN(CommandResult current, authority_->Get(game_id));
  // Only a closed envelope is opened (A7, A9); its text goes to the rulings alone.
  if (!current.game->adjournment().envelope) return absl::OkStatus();
  ASSIGN_OR_RETURN(command->opened_move, sealed_moves_.Open(game_id, *current.game));
  return absl::OkStatus();
}

grpc::Status ArbitrationService::SealMove(grpc::ServerContext* ctx, const v1::SealMoveRequest* req,
                                          v1::GameReply* resp) {
  return env_->Serve(
      ctx, FullMethod("SealMove"), *req,
      [&](const CallContext&, const Principal& caller) -> absl::Status {
        if (req->move().empty()) return BadArgument("move is required");
        RETURN_IF_ERROR(CheckLength("move", req->move(), kMaxMoveLength));
        // A retry's fingerprint leaves the move out: the hash of a move is no secret (a few
        // thousand candidates), and the store keeps fingerprints.
        v1::SealMoveRequest blind = *req;
        blind.clear_move();
        const CommandOptions options = OptionsOf("SealMove", blind);
        absl::Status refused;
        // The box is bound to the version it was sealed on: sealed again when the game moved on
        // between the read and the append (a flag, an offer).
        for (int attempt = 0; attempt < 4; ++attempt) {
          ASSIGN_OR_RETURN(CommandResult current, authority_->Get(req->game_id()));
          ASSIGN_OR_RETURN(Principal who,
                           ActingIn(caller, req->game_id(), current.game->created()));
          ASSIGN_OR_RETURN(chess::Color side, SideFor(req->side(), *env_, who));
          arbitration::Command c = PlayerCommand(CommandKind::kSealMove, side);
          c.actor = env_->ActorOf(who);
          c.stop_clock = req->stop_clock();
          ASSIGN_OR_RETURN(c.seal, sealed_moves_.Seal(req->game_id(), *current.game, req->move()));
          absl::StatusOr<CommandResult> r = authority_->Execute(req->game_id(), c, options);
          if (r.ok()) return FillReply(req->game_id(), *r, ViewerOf(*env_, who), resp);
          refused = r.status();
          // ABORTED: ERR_VERSION_CONFLICT (a race lost), sealed again on the new version.
          if (refused.code() != absl::StatusCode::kAborted || req->expected_version() != 0) break;
        }
        return refused;
      });
}

void ArbitrationService::AdjournGame(grpc::ServerContext* ctx, const v1::AdjournGameRequest* req,
                                     v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "AdjournGame", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        arbitration::Command c;
        c.kind = CommandKind::kAdjourn;  // A1: the call to seal, or the envelope closed
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

void ArbitrationService::ResumeAdjournedGame(grpc::ServerContext* ctx,
                                             const v1::ResumeAdjournedGameRequest* req,
                                             v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "ResumeAdjournedGame", req, resp,
      [this, req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        arbitration::Command c;
        c.kind = CommandKind::kResumeAdjourned;  // A5, A9, A13
        if (req->absent_size() > 2) return BadArgument("absent: at most two players");
        for (int side : req->absent()) {
          std::optional<chess::Color> color =
              v1::Color_IsValid(side) ? laws::ColorOf(static_cast<v1::Color>(side)) : std::nullopt;
          if (!color) return BadArgument("absent: COLOR_WHITE or COLOR_BLACK");
          c.absent.push_back(*color);
        }
        RETURN_IF_ERROR(OpenEnvelopeFor(req->game_id(), &c));
        return c;
      },
      std::move(reply), Serving::kOnPool);
}

void ArbitrationService::ReportEnvelopeLost(grpc::ServerContext* ctx,
                                            const v1::ReportEnvelopeLostRequest* req,
                                            v1::GameReply* resp, Reply reply) {
  CommandAsync(
      ctx, "ReportEnvelopeLost", req, resp,
      [req](const Principal&) -> absl::StatusOr<arbitration::Command> {
        RETURN_IF_ERROR(CheckLength("reason", req->reason(), kMaxTextLength));
        if (req->reason().empty()) return BadArgument("reason is required");
        arbitration::Command c;
        c.kind = CommandKind::kReportEnvelopeLost;  // A11
        c.position_unknown = req->position_unknown();
        c.reason = req->reason();
        return c;
      },
      std::move(reply));
}

grpc::Status ArbitrationService::GetGame(grpc::ServerContext* ctx, const v1::GetGameRequest* req,
                                         v1::GameReply* resp) {
  return env_->Serve(ctx, FullMethod("GetGame"), *req,
                     [&](const CallContext&, const Principal& who) -> absl::Status {
                       ASSIGN_OR_RETURN(CommandResult r, authority_->Get(req->game_id()));
                       RETURN_IF_ERROR(ActingIn(who, req->game_id(), r.game->created()).status());
                       return FillReply(req->game_id(), r, ViewerOf(*env_, who), resp);
                     });
}

grpc::Status ArbitrationService::ExportPgn(grpc::ServerContext* ctx,
                                           const v1::ExportPgnRequest* req,
                                           v1::ExportPgnReply* resp) {
  return env_->Serve(ctx, FullMethod("ExportPgn"), *req,
                     [&](const CallContext&, const Principal& who) -> absl::Status {
                       ASSIGN_OR_RETURN(CommandResult r, authority_->Get(req->game_id()));
                       RETURN_IF_ERROR(ActingIn(who, req->game_id(), r.game->created()).status());
                       const Viewer viewer = ViewerOf(*env_, who);
                       ASSIGN_OR_RETURN(Seen seen, SeenBy(viewer, r.game, r.now_ms));
                       arbitration::PgnExportOptions options;
                       options.include_advice = viewer.advice;  // 12.2
                       resp->set_pgn(arbitration::ExportPgn(*seen.game, options));
                       return absl::OkStatus();
                     });
}

grpc::Status ArbitrationService::ArchiveGame(grpc::ServerContext* ctx,
                                             const v1::ArchiveGameRequest* req,
                                             v1::ArchiveGameReply* resp) {
  return env_->Serve(ctx, FullMethod("ArchiveGame"), *req,
                     [&](const CallContext&, const Principal& who) -> absl::Status {
                       RETURN_IF_ERROR(store::ValidateGameId(req->game_id()));
                       ASSIGN_OR_RETURN(arbitration::ArchiveOutcome out,
                                        arbitration::Archive(
                                            *authority_, req->game_id(), env_->ActorOf(who),
                                            [&](absl::string_view event) {
                                              return service::CheckEvent(who, event);
                                            },
                                            options_.record_signer.get()));
                       *resp->mutable_archived() = std::move(out.archived);
                       resp->set_replayed(out.replayed);
                       resp->set_signed_record(std::move(out.signed_record));
                       return absl::OkStatus();
                     });
}

// --- The arbiter's queue (the console)
// ------------------------------------------------------------

grpc::Status ArbitrationService::ListArbiterCalls(grpc::ServerContext* ctx,
                                                  const v1::ListArbiterCallsRequest* req,
                                                  v1::ListArbiterCallsReply* resp) {
  return env_->Serve(
      ctx, FullMethod("ListArbiterCalls"), *req,
      [&](const CallContext&, const Principal& who) -> absl::Status {
        if (req->event().empty()) return BadArgument("event is required");
        RETURN_IF_ERROR(CheckLength("event", req->event(), kMaxNameLength));
        RETURN_IF_ERROR(service::CheckEvent(who, req->event()));  // an event-scoped token
        // The event's games from the games index the store writes with each append (no scan).
        store::IndexQuery query;
        query.event = req->event();
        ASSIGN_OR_RETURN(std::vector<store::IndexedGame> listed,
                         arbitration::ListAllIndexed(*authority_->store(), query));
        const Viewer viewer = ViewerOf(*env_, who);
        std::vector<v1::GameView> games;
        std::int64_t now_ms = 0;
        for (const store::IndexedGame& game : listed) {
          if (game.labels.status == arbitration::kListedArchived) continue;
          if (games.size() >= kMaxConsoleGames) break;
          const std::string& id = game.game_id;
          absl::StatusOr<CommandResult> r = authority_->Get(id);
          if (!r.ok()) continue;  // archived: no longer the arbiter's
          ASSIGN_OR_RETURN(Seen seen, SeenBy(viewer, r->game, r->now_ms));
          FillView(id, seen, viewer, &games.emplace_back());
          now_ms = std::max(now_ms, r->now_ms);
        }
        for (v1::ArbiterCall& c : arbitration::ArbiterCalls(games, now_ms)) {
          *resp->add_calls() = std::move(c);
        }
        for (v1::GameView& g : games) *resp->add_games() = std::move(g);
        resp->set_now_ms(now_ms);
        return absl::OkStatus();
      });
}

// --- WatchGame -----------------------------------------------------------------------------------

// One WatchGame stream, shared with the hub (which may deliver after the stream is over): the
// game's log as this viewer may see it, queued on the stream (async_stream.h) as it is recorded.
// The whole log is kept: an observer's visibility depends on every move after a point.
class GameWatch final : public service::WatchHub::Listener {
 public:
  GameWatch(std::string game_id, Viewer viewer, store::GameStore* store,
            std::shared_ptr<service::StreamWriter<v1::GameUpdate>> out, std::int64_t sent)
      : game_id_(std::move(game_id)),
        viewer_(viewer),
        store_(store),
        out_(std::move(out)),
        sent_(sent) {}

  // The log so far (admission's last check, the event, needs its first event). Returns the head.
  // An observer's answers, errors included, come from the delayed view as at `now_ms`.
  absl::StatusOr<std::int64_t> Begin(const Principal& who, std::int64_t after_version,
                                     std::int64_t now_ms) {
    if (after_version < 0) {
      return base::Error(service::kErrBadVersion, "after_version must not be negative");
    }
    ASSIGN_OR_RETURN(std::vector<v1::GameEvent> log, store_->ReadEvents(game_id_, 1, store::kHead));
    const std::int64_t head = static_cast<std::int64_t>(log.size());
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(TakeLocked(log));
    if (!events_.empty()) {  // a token that serves one event watches only its games
      RETURN_IF_ERROR(ActingIn(who, game_id_, events_[0].created()).status());
    }
    // The version a resumed watch may name: an observer's is the delayed view's, so that neither
    // the answer nor its message tells how far the game really is.
    const std::int64_t seen = static_cast<std::int64_t>(
        viewer_.delayed ? VisibleEvents(events_, now_ms) : events_.size());
    if (after_version > seen) {
      return base::Error(service::kErrBadVersion,
                         absl::StrCat("after_version ", after_version, " is not in [0, ", seen,
                                      "] (the game's version)"));
    }
    return head;
  }

  // After the hub has the listener: what was appended between Begin and then.
  void CatchUp(std::int64_t now_ms) {
    std::int64_t from;
    {
      absl::MutexLock lock(&mu_);
      from = static_cast<std::int64_t>(events_.size()) + 1;
    }
    absl::StatusOr<std::vector<v1::GameEvent>> more =
        store_->ReadEvents(game_id_, from, store::kHead);
    absl::MutexLock lock(&mu_);
    if (!more.ok()) return FailLocked(more.status());
    if (absl::Status st = TakeLocked(*more); !st.ok()) return FailLocked(st);
    FlushLocked(now_ms);
  }

  void OnEvents(const std::vector<v1::GameEvent>& events) override {
    absl::MutexLock lock(&mu_);
    if (absl::Status st = TakeLocked(events); !st.ok()) return FailLocked(st);
    FlushLocked(now_ms_ ? now_ms_() : 0);
  }

  void OnError(const absl::Status& status) override {
    absl::MutexLock lock(&mu_);
    FailLocked(status);
  }

  // An observer's moves held back by time: sends what the delay released by `now_ms`.
  void Release(std::int64_t now_ms) {
    absl::MutexLock lock(&mu_);
    if (release_at_ms_ > 0 && release_at_ms_ <= now_ms) FlushLocked(now_ms);
  }

  void SetClock(std::function<std::int64_t()> now_ms) { now_ms_ = std::move(now_ms); }

 private:
  absl::Status TakeLocked(const std::vector<v1::GameEvent>& more)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const v1::GameEvent& e : more) {
      const std::int64_t next = static_cast<std::int64_t>(events_.size()) + 1;
      if (e.version() < next) continue;  // seen
      if (e.version() > next) {
        // The hub's delivery ran ahead of this watcher (it joined while the hub waited): the gap
        // from the store, once.
        ASSIGN_OR_RETURN(std::vector<v1::GameEvent> gap,
                         store_->ReadEvents(game_id_, next, e.version() - 1));
        for (const v1::GameEvent& g : gap) RETURN_IF_ERROR(TakeOneLocked(g));
        if (static_cast<std::int64_t>(events_.size()) + 1 != e.version()) {
          return base::Error(store::kErrStoreInternal, "the log has a hole");
        }
      }
      RETURN_IF_ERROR(TakeOneLocked(e));
    }
    return absl::OkStatus();
  }

  absl::Status TakeOneLocked(const v1::GameEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ASSIGN_OR_RETURN(v1::ArbitrationEvent event, arbitration::FromStoreEvent(e));
    events_.push_back(std::move(event));
    command_ids_.push_back(std::string(store::ClientCommandId(e.command_id())));  // as sent
    return absl::OkStatus();
  }

  // Queues every update the viewer may see by `now_ms` and has not been sent.
  void FlushLocked(std::int64_t now_ms) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (failed_) return;
    const std::int64_t visible = static_cast<std::int64_t>(
        viewer_.delayed ? VisibleEvents(events_, now_ms) : events_.size());
    for (std::int64_t v = sent_ + 1; v <= visible; ++v) {
      if (!out_->Write(ViewedUpdate(viewer_, v, events_[v - 1], command_ids_[v - 1]))) {
        return FailLocked(
            base::Error(service::kErrWatchTooSlow,
                        absl::StrCat("the watcher fell behind; resume from version ",
                                     sent_ - static_cast<std::int64_t>(out_->backlog()))));
      }
      sent_ = v;
    }
    release_at_ms_ = 0;
    if (visible < static_cast<std::int64_t>(events_.size())) {
      // Held back by time: released when the next move's delay has passed (Release).
      const std::int64_t release =
          events_[visible].at_ms() + events_[0].created().broadcast_delay_ms();
      if (release > now_ms) release_at_ms_ = release;
    }
  }

  void FailLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (failed_) return;
    failed_ = true;
    // What is queued is still sent: the client resumes from the last version it received.
    out_->Finish(service::ToGrpcStatus(status));
  }

  const std::string game_id_;
  const Viewer viewer_;
  store::GameStore* const store_;
  const std::shared_ptr<service::StreamWriter<v1::GameUpdate>> out_;
  std::function<std::int64_t()> now_ms_;

  absl::Mutex mu_;
  std::vector<v1::ArbitrationEvent> events_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> command_ids_ ABSL_GUARDED_BY(mu_);
  std::int64_t sent_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t release_at_ms_ ABSL_GUARDED_BY(mu_) = 0;  // 0: nothing held back by time
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
};

void ArbitrationService::StartWatch(grpc::ServerContext* ctx, const v1::WatchGameRequest& req,
                                    std::shared_ptr<service::StreamWriter<v1::GameUpdate>> out) {
  // Admission reads no store; the log does: on the watch workers, never on the queue's thread.
  absl::StatusOr<Principal> who = env_->Admit(*ctx, FullMethod("WatchGame"), &req);
  absl::Status admitted = who.status();
  if (admitted.ok()) admitted = store::ValidateGameId(req.game_id());
  if (!admitted.ok()) return out->Finish(service::ToGrpcStatus(admitted));
  auto open = [this, who = *std::move(who), req, out] { OpenWatch(who, req, out); };
  if (!watch_pool_->Submit(std::move(open))) {
    out->Finish(
        service::ToGrpcStatus(base::Error(service::kErrShuttingDown, "the server is stopping")));
  }
}

void ArbitrationService::OpenWatch(const Principal& who, const v1::WatchGameRequest& req,
                                   std::shared_ptr<service::StreamWriter<v1::GameUpdate>> out) {
  const std::string& game_id = req.game_id();
  // An event's record (libs/arbitration/event_rounds.h) is no game to watch.
  if (absl::Status reserved = arbitration::CheckNotReserved(game_id); !reserved.ok()) {
    return out->Finish(service::ToGrpcStatus(reserved));
  }
  auto watch = std::make_shared<GameWatch>(game_id, ViewerOf(*env_, who), authority_->store(), out,
                                           req.after_version());
  watch->SetClock([authority = authority_] { return authority->NowMs(); });
  absl::StatusOr<std::int64_t> head = watch->Begin(who, req.after_version(), authority_->NowMs());
  if (!head.ok()) return out->Finish(service::ToGrpcStatus(head.status()));
  if (absl::Status added = hub_.Add(game_id, *head, watch); !added.ok()) {
    return out->Finish(service::ToGrpcStatus(added));
  }
  if (ViewerOf(*env_, who).delayed) {  // its moves may be released by time alone
    absl::MutexLock lock(&watches_mu_);
    delayed_.emplace(watch.get(), watch);
  }
  // The client's leaving (or the stream's end) takes the watcher off the hub.
  out->OnDone([this, game_id, key = watch.get()] {
    hub_.Remove(game_id, key);
    absl::MutexLock lock(&watches_mu_);
    delayed_.erase(key);
  });
  watch->CatchUp(authority_->NowMs());
}

void ArbitrationService::StartWatchGames(
    grpc::ServerContext* ctx, const v1::WatchGamesRequest& req,
    std::shared_ptr<service::StreamWriter<v1::GamesUpdate>> out) {
  absl::StatusOr<Principal> who = env_->Admit(*ctx, FullMethod("WatchGames"), &req);
  if (!who.ok()) return out->Finish(service::ToGrpcStatus(who.status()));
  if (req.position().size() > kMaxPositionLength) {
    return out->Finish(service::ToGrpcStatus(
        base::Error(store::kErrBadFeedPosition,
                    absl::StrCat("position: at most ", kMaxPositionLength, " characters"))));
  }
  auto open = [this, who = *std::move(who), position = req.position(), out] {
    absl::Status subscribed =
        firehose_->Subscribe(who, ViewerOf(*env_, who), env_->insecure(), position, out);
    if (!subscribed.ok()) out->Finish(service::ToGrpcStatus(subscribed));
  };
  if (!watch_pool_->Submit(std::move(open))) {
    out->Finish(
        service::ToGrpcStatus(base::Error(service::kErrShuttingDown, "the server is stopping")));
  }
}

void ArbitrationService::ReleaseDelayed() {
  std::vector<std::shared_ptr<GameWatch>> watches;
  {
    absl::MutexLock lock(&watches_mu_);
    watches.reserve(delayed_.size());
    for (const auto& [key, w] : delayed_) watches.push_back(w);
  }
  const std::int64_t now = authority_->NowMs();
  for (const std::shared_ptr<GameWatch>& w : watches) w->Release(now);
  if (firehose_ != nullptr) firehose_->Release(now);
}

}  // namespace arbitration_service
