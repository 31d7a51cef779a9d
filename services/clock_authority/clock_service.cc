#include "services/clock_authority/clock_service.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "libs/clock_authority/clock_log.h"
#include "libs/laws/proto_convert.h"
#include "libs/service/errors.h"
#include "libs/service/fingerprint.h"
#include "libs/store/command_ids.h"
#include "libs/store/errors.h"
#include "services/clock_authority/errors.h"

namespace clock_authority_service {
namespace {

namespace v1 = arbiter::v1;
using clock_authority::ClockGame;
using clock_authority::CommandOptions;
using clock_authority::CommandResult;
using service::CallContext;
using service::Principal;

std::string Method(absl::string_view name) {
  return absl::StrCat("/", ClockAuthorityService::kName, "/", name);
}

// A command's identity for retries: its command_id, scoped to the caller (no caller's id
// pre-empts another's), and, with one, the request's fingerprint.
template <typename Request>
CommandOptions RetryOptions(absl::string_view method, const Request& req,
                            const service::ServiceEnv& env, const Principal& who) {
  CommandOptions o;
  o.command_id = req.command_id();
  o.caller = env.insecure() ? "" : who.subject;
  o.actor = env.ActorOf(who);
  if (!o.command_id.empty()) o.fingerprint = service::RequestFingerprint(method, req);
  return o;
}

// A command's options: its identity for retries and the version it expects.
template <typename Request>
CommandOptions OptionsOf(absl::string_view method, const Request& req,
                         const service::ServiceEnv& env, const Principal& who) {
  CommandOptions o = RetryOptions(method, req, env, who);
  o.expected_version = req.expected_version();
  return o;
}

void Fill(absl::string_view game_id, const CommandResult& r, v1::ClockResponse* resp) {
  resp->set_version(r.version);
  resp->set_replayed(r.replayed);
  *resp->mutable_clock() = clock_authority::Read(*r.game, game_id, r.now_ms);
}

absl::StatusOr<chess::Color> SideOf(v1::Color color, absl::string_view field) {
  std::optional<chess::Color> side = laws::ColorOf(color);
  if (!side.has_value()) {
    return base::Error(base::kErrBadArgument,
                       absl::StrCat(field, " is required: COLOR_WHITE or COLOR_BLACK"));
  }
  return *side;
}

// --- The commands' events ---------------------------------------------------------------------

absl::Status Started(const v1::StartClockRequest& req, v1::ClockEvent* e) {
  v1::ClockStarted* started = e->mutable_started();
  for (int side : req.absent()) {
    ASSIGN_OR_RETURN(chess::Color c, SideOf(static_cast<v1::Color>(side), "absent"));
    started->add_absent(laws::ToProto(c));
  }
  return absl::OkStatus();
}

absl::Status Pressed(const v1::PressClockRequest& req, v1::ClockEvent* e) {
  e->mutable_pressed()->set_side(req.color());
  e->mutable_pressed()->set_lag_ms(req.lag_ms());
  return absl::OkStatus();
}

absl::Status Arrived(const v1::RecordArrivalRequest& req, v1::ClockEvent* e) {
  ASSIGN_OR_RETURN(chess::Color side, SideOf(req.side(), "side"));
  e->mutable_arrived()->set_side(laws::ToProto(side));
  return absl::OkStatus();
}

absl::Status FlagClaimed(const v1::ClaimFlagRequest& req, v1::ClockEvent* e) {
  ASSIGN_OR_RETURN(chess::Color side, SideOf(req.color(), "color (the claimant)"));
  e->mutable_flag_claimed()->set_claimant(laws::ToProto(side));
  return absl::OkStatus();
}

absl::Status Paused(const v1::PauseClockRequest&, v1::ClockEvent* e) {
  e->mutable_paused();
  return absl::OkStatus();
}

absl::Status Resumed(const v1::ResumeClockRequest&, v1::ClockEvent* e) {
  e->mutable_resumed();
  return absl::OkStatus();
}

absl::Status Adjusted(const v1::AdjustClockRequest& req, v1::ClockEvent* e) {
  ASSIGN_OR_RETURN(chess::Color side, SideOf(req.side(), "side"));
  v1::ClockAdjusted* a = e->mutable_adjusted();
  a->set_side(laws::ToProto(side));
  a->set_delta_ms(req.delta_ms());
  a->set_reason(req.reason());
  return absl::OkStatus();
}

absl::Status Set(const v1::SetClockRequest& req, v1::ClockEvent* e) {
  v1::ClockSet* s = e->mutable_set();
  s->set_white_ms(req.white_ms());
  s->set_black_ms(req.black_ms());
  if (req.has_white_moves()) s->set_white_moves(req.white_moves());
  if (req.has_black_moves()) s->set_black_moves(req.black_moves());
  if (req.to_move() != v1::COLOR_UNSPECIFIED) {
    ASSIGN_OR_RETURN(chess::Color side, SideOf(req.to_move(), "to_move"));
    s->set_to_move(laws::ToProto(side));
  }
  return absl::OkStatus();
}

absl::Status Replaced(const v1::ReplaceClockRequest& req, v1::ClockEvent* e) {
  e->mutable_replaced()->set_white_ms(req.white_ms());
  e->mutable_replaced()->set_black_ms(req.black_ms());
  return absl::OkStatus();
}

// --- WatchClock ----------------------------------------------------------------------------------

// The state of one stream, shared with the hub (which may deliver after the stream is over). The
// hub's thread (or the opening worker) turns events into updates and queues them on the stream
// (async_stream.h), which sends them in order; a watcher that lets max_backlog of them pile up
// is cut off, and resumes from the last version it received.
class WatchState final : public service::WatchHub::Listener {
 public:
  WatchState(std::string game_id, store::GameStore* store,
             std::shared_ptr<service::StreamWriter<v1::ClockUpdate>> out)
      : game_id_(std::move(game_id)), store_(store), out_(std::move(out)) {}

  // Replays the log up to `after_version` and queues the updates after it. Returns the head.
  absl::StatusOr<std::int64_t> Begin(std::int64_t after_version) {
    absl::StatusOr<std::vector<v1::GameEvent>> log = store_->ReadEvents(game_id_, 1, store::kHead);
    if (!log.ok()) {
      if (base::ErrorCode(log.status()) == store::kErrGameNotFound) {
        return clock_authority::ClockNotFound(game_id_);
      }
      return log.status();
    }
    const std::int64_t head = log->empty() ? 0 : log->back().version();
    if (after_version < 0 || after_version > head) {
      return base::Error(service::kErrBadVersion,
                         absl::StrCat("after_version ", after_version, " is not in [0, ", head,
                                      "] (the clock's version)"));
    }
    absl::MutexLock lock(&mu_);
    return Consume(*log);
  }

  void OnEvents(const std::vector<v1::GameEvent>& events) override {
    absl::MutexLock lock(&mu_);
    if (absl::StatusOr<std::int64_t> st = Consume(events); !st.ok()) Fail(st.status());
  }

  void OnError(const absl::Status& status) override {
    absl::MutexLock lock(&mu_);
    Fail(status);
  }

  // After the hub has the listener: events appended between Begin and then.
  void CatchUp() {
    std::int64_t from;
    {
      absl::MutexLock lock(&mu_);
      from = cursor_ + 1;
    }
    absl::StatusOr<std::vector<v1::GameEvent>> more =
        store_->ReadEvents(game_id_, from, store::kHead);
    if (more.ok()) {
      OnEvents(*more);
    } else {
      OnError(more.status());
    }
  }

  void SetAfter(std::int64_t after_version) {
    absl::MutexLock lock(&mu_);
    after_version_ = after_version;
  }

 private:
  // Applies and queues events after the cursor (fetching any gap). Returns the cursor.
  absl::StatusOr<std::int64_t> Consume(const std::vector<v1::GameEvent>& events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const v1::GameEvent& e : events) {
      if (e.version() <= cursor_) continue;
      if (e.version() > cursor_ + 1) {
        absl::StatusOr<std::vector<v1::GameEvent>> gap =
            store_->ReadEvents(game_id_, cursor_ + 1, e.version() - 1);
        if (!gap.ok()) return gap.status();
        for (const v1::GameEvent& g : *gap) RETURN_IF_ERROR(ApplyOne(g));
        if (cursor_ + 1 != e.version()) {
          return base::Error(store::kErrStoreInternal, "the log has a hole");
        }
      }
      RETURN_IF_ERROR(ApplyOne(e));
    }
    return cursor_;
  }

  absl::Status ApplyOne(const v1::GameEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ASSIGN_OR_RETURN(v1::ClockEvent event, clock_authority::FromGameEvent(e));
    if (!game_.has_value()) {
      ASSIGN_OR_RETURN(ClockGame game, ClockGame::Replay(std::vector<v1::ClockEvent>{event}));
      game_ = std::move(game);
    } else {
      RETURN_IF_ERROR(game_->Apply(event));
    }
    cursor_ = e.version();
    if (cursor_ <= after_version_ || failed_) return absl::OkStatus();
    v1::ClockUpdate update;
    update.set_version(e.version());
    update.set_command_id(std::string(store::ClientCommandId(e.command_id())));  // as sent
    update.set_recorded_at_ms(e.recorded_at_ms());
    *update.mutable_clock() =
        clock_authority::Read(*game_, game_id_, clock_authority::EventTime(event));
    *update.mutable_event() = std::move(event);
    if (!out_->Write(std::move(update))) {
      // The stream is over, or the watcher let max_watch_backlog updates pile up.
      return base::Error(service::kErrWatchTooSlow,
                         absl::StrCat("the watcher fell behind; resume from version ",
                                      cursor_ - 1 - static_cast<std::int64_t>(out_->backlog())));
    }
    return absl::OkStatus();
  }

  void Fail(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (failed_) return;
    failed_ = true;
    // What is queued is still sent: the client resumes from the last version it received.
    out_->Finish(service::ToGrpcStatus(status));
  }

  const std::string game_id_;
  store::GameStore* const store_;
  const std::shared_ptr<service::StreamWriter<v1::ClockUpdate>> out_;

  absl::Mutex mu_;
  std::optional<ClockGame> game_ ABSL_GUARDED_BY(mu_);
  std::int64_t cursor_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t after_version_ ABSL_GUARDED_BY(mu_) = 0;
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

ClockAuthorityService::ClockAuthorityService(service::ServiceEnv* env,
                                             clock_authority::ClockAuthority* authority,
                                             ServiceOptions options)
    : env_(env),
      authority_(authority),
      options_(options),
      hub_(authority->store(), options.max_watched_games),
      pool_(std::make_unique<base::WorkerPool>(std::max(1, options.workers))),
      async_(this) {
  using service::Role;
  const std::vector<Role> setup = {Role::kPlatform, Role::kArbiter, Role::kService};
  const std::vector<Role> play = {Role::kPlatform, Role::kPlayer, Role::kArbiter, Role::kService};
  const std::vector<Role> arbiter = {Role::kArbiter, Role::kService};
  for (const char* m : {"CreateClock", "StartClock", "RecordArrival"}) {
    env_->policy().Add({Method(m), setup, false});
  }
  // A player presses and claims only in his own game and for his own colour.
  for (const char* m : {"PressClock", "ClaimFlag"}) env_->policy().Add({Method(m), play, true});
  // Everyone reads; a player only the clock of his own game (game-bound).
  for (const char* m : {"GetClock", "WatchClock"}) {
    env_->policy().Add({Method(m), service::kAllRoles, true});
  }
  for (const char* m : {"PauseClock", "ResumeClock", "AdjustClock", "SetClock", "ReplaceClock"}) {
    env_->policy().Add({Method(m), arbiter, false});
  }
  using Self = ClockAuthorityService;
  async_.Add(&Self::RequestCreateClock, &Self::CreateClock, pool_.get());
  AddCommand(&Self::RequestStartClock, "StartClock", &Started);
  AddCommand(&Self::RequestPressClock, "PressClock", &Pressed);
  AddCommand(&Self::RequestRecordArrival, "RecordArrival", &Arrived);
  AddCommand(&Self::RequestClaimFlag, "ClaimFlag", &FlagClaimed);
  AddCommand(&Self::RequestPauseClock, "PauseClock", &Paused);
  AddCommand(&Self::RequestResumeClock, "ResumeClock", &Resumed);
  AddCommand(&Self::RequestAdjustClock, "AdjustClock", &Adjusted);
  AddCommand(&Self::RequestSetClock, "SetClock", &Set);
  AddCommand(&Self::RequestReplaceClock, "ReplaceClock", &Replaced);
  async_.Add(&Self::RequestGetClock, &Self::GetClock, pool_.get());
  async_.Own(
      std::make_unique<service::AsyncServerStream<Self, v1::WatchClockRequest, v1::ClockUpdate>>(
          this, &Self::RequestWatchClock,
          [this](grpc::ServerContext* ctx, const v1::WatchClockRequest& req,
                 std::shared_ptr<service::StreamWriter<v1::ClockUpdate>> out) {
            Watch(ctx, req, std::move(out));
          },
          static_cast<size_t>(std::max(1, options_.max_watch_backlog))));
}

ClockAuthorityService::~ClockAuthorityService() { pool_.reset(); }

template <typename Base, typename Request>
void ClockAuthorityService::AddCommand(
    service::RequestMethod<Base, Request, v1::ClockResponse> request, const char* method,
    EventOf<Request> make) {
  async_.AddAsync(request, [this, method, make](grpc::ServerContext* ctx, const Request& req,
                                                v1::ClockResponse* resp,
                                                std::function<void(grpc::Status)> reply) {
    env_->ServeQueuedAsync(
        ctx, Method(method), req,
        [&](const CallContext&, const Principal& who,
            std::function<void(const absl::Status&)> finish) {
          v1::ClockEvent command;
          if (absl::Status made = make(req, &command); !made.ok()) return finish(made);
          const bool claim = command.has_flag_claimed();
          const CommandOptions options = OptionsOf(method, req, *env_, who);
          *command.mutable_actor() = options.actor;
          // The request and the response live in the call until `finish` has replied.
          auto execute = [this, req = &req, resp, claim, command,
                          options](std::function<void(const absl::Status&)> finish) {
            authority_->ExecuteAsync(
                req->game_id(), command, options,
                [this](std::function<void()> work) {
                  if (!pool_->Submit(work)) work();  // the pool is stopping: here
                },
                [req, resp, claim, finish = std::move(finish)](absl::StatusOr<CommandResult> r) {
                  if (!r.ok()) return finish(r.status());
                  Fill(req->game_id(), *r, resp);
                  if (claim && r->game->last_claim().has_value()) {
                    *resp->mutable_claim() = *r->game->last_claim();
                  }
                  finish(absl::OkStatus());
                });
          };
          if (who.event.empty()) return execute(std::move(finish));
          // A token that serves one event acts only on its clocks. The clock is read
          // first (a store round trip, for such tokens only), on the pool.
          std::function<void()> check = [this, req = &req, principal = who, execute,
                                         finish = std::move(finish)]() mutable {
            absl::StatusOr<CommandResult> clock = authority_->Get(req->game_id());
            absl::Status st = clock.ok()
                                  ? service::CheckEvent(principal, clock->game->created().event())
                                  : clock.status();
            if (!st.ok()) return finish(st);
            execute(std::move(finish));
          };
          if (!pool_->Submit(check)) check();
        },
        std::move(reply));
  });
}

grpc::Status ClockAuthorityService::CreateClock(grpc::ServerContext* ctx,
                                                const v1::CreateClockRequest* req,
                                                v1::ClockResponse* resp) {
  return env_->ServeQueued(ctx, Method("CreateClock"), *req,
                           [&](const CallContext&, const Principal& who) -> absl::Status {
                             RETURN_IF_ERROR(service::CheckEvent(who, req->event()));
                             ASSIGN_OR_RETURN(
                                 CommandResult r,
                                 authority_->Create(req->game_id(), *req,
                                                    RetryOptions("CreateClock", *req, *env_, who)));
                             Fill(req->game_id(), r, resp);
                             return absl::OkStatus();
                           });
}

grpc::Status ClockAuthorityService::GetClock(grpc::ServerContext* ctx,
                                             const v1::GetClockRequest* req,
                                             v1::ClockResponse* resp) {
  return env_->ServeQueued(ctx, Method("GetClock"), *req,
                           [&](const CallContext&, const Principal& who) -> absl::Status {
                             ASSIGN_OR_RETURN(CommandResult r, authority_->Get(req->game_id()));
                             RETURN_IF_ERROR(service::CheckEvent(who, r.game->created().event()));
                             Fill(req->game_id(), r, resp);
                             return absl::OkStatus();
                           });
}

void ClockAuthorityService::Watch(grpc::ServerContext* ctx, const v1::WatchClockRequest& req,
                                  std::shared_ptr<service::StreamWriter<v1::ClockUpdate>> out) {
  // Its opening reads the store: on the worker pool, never on the queue's thread.
  auto request = std::make_shared<v1::WatchClockRequest>(req);
  if (!pool_->Submit([this, ctx, request, out] { OpenWatch(ctx, *request, out); })) {
    out->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is stopping"));
  }
}

void ClockAuthorityService::OpenWatch(grpc::ServerContext* ctx, const v1::WatchClockRequest& req,
                                      std::shared_ptr<service::StreamWriter<v1::ClockUpdate>> out) {
  absl::StatusOr<Principal> who = env_->Admit(*ctx, Method("WatchClock"), &req);
  absl::Status admitted = who.status();
  if (admitted.ok()) admitted = store::ValidateGameId(req.game_id());
  if (admitted.ok() && !who->event.empty()) {
    // A token that serves one event watches only its clocks.
    absl::StatusOr<CommandResult> clock = authority_->Get(req.game_id());
    admitted =
        clock.ok() ? service::CheckEvent(*who, clock->game->created().event()) : clock.status();
  }
  if (!admitted.ok()) return out->Finish(service::ToGrpcStatus(admitted));
  const std::string& game = req.game_id();
  auto state = std::make_shared<WatchState>(game, authority_->store(), out);
  state->SetAfter(req.after_version());
  absl::StatusOr<std::int64_t> head = state->Begin(req.after_version());
  if (!head.ok()) return out->Finish(service::ToGrpcStatus(head.status()));
  if (absl::Status added = hub_.Add(game, *head, state); !added.ok()) {
    return out->Finish(service::ToGrpcStatus(added));
  }
  // The client's leaving (or the stream's end) takes the watcher off the hub.
  out->OnDone([this, game, state] { hub_.Remove(game, state.get()); });
  state->CatchUp();
}

}  // namespace clock_authority_service
