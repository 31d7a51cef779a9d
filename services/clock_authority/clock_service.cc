#include "services/clock_authority/clock_service.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/clock_authority/clock_log.h"

namespace clock_authority {
namespace {

namespace v1 = arbiter::v1;
using clockauth::ClockGame;
using clockauth::CommandOptions;
using clockauth::CommandResult;
using service::CallContext;
using service::Principal;

std::string Method(absl::string_view name) {
  return absl::StrCat("/", ClockAuthorityService::kName, "/", name);
}

// A stable 128-bit digest of a request (two FNV-1a lanes), for the store's command identity:
// a retry must be the same request, byte for byte.
std::string Fingerprint(absl::string_view method, const google::protobuf::Message& request) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    request.SerializeToCodedStream(&out);
  }
  std::uint64_t a = 14695981039346656037ull;
  std::uint64_t b = 0x6c62272e07bb0142ull;
  for (unsigned char c : bytes) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  }
  return absl::StrCat(method, ":", absl::Hex(a, absl::kZeroPad16), absl::Hex(b, absl::kZeroPad16));
}

template <typename Request>
CommandOptions OptionsOf(absl::string_view method, const Request& req) {
  CommandOptions o;
  o.command_id = req.command_id();
  if (!o.command_id.empty()) o.fingerprint = Fingerprint(method, req);
  o.expected_version = req.expected_version();
  return o;
}

void Fill(absl::string_view game_id, const CommandResult& r, v1::ClockResponse* resp) {
  resp->set_version(r.version);
  resp->set_replayed(r.replayed);
  *resp->mutable_clock() = clockauth::Read(*r.game, game_id, r.now_ms);
}

absl::StatusOr<chess::Color> SideOf(v1::Color color, absl::string_view field) {
  std::optional<chess::Color> side = clockauth::ColorOf(color);
  if (!side.has_value()) {
    return base::InvalidArgument("ERR_BAD_ARGUMENT",
                                 absl::StrCat(field, " is required: COLOR_WHITE or COLOR_BLACK"));
  }
  return *side;
}

// --- WatchClock ----------------------------------------------------------------------------------

// The state of one stream, shared with the hub (which may deliver after the reactor is gone).
// Writes are strictly one at a time; StartWrite and Finish are called outside the lock.
class WatchState final : public WatchHub::Listener {
 public:
  WatchState(grpc::ServerWriteReactor<v1::ClockUpdate>* reactor, std::string game_id,
             store::GameStore* store, int max_backlog)
      : reactor_(reactor), game_id_(std::move(game_id)), store_(store), max_backlog_(max_backlog) {}

  // Replays the log up to `after_version` and queues the updates after it. Returns the head.
  absl::StatusOr<std::int64_t> Begin(std::int64_t after_version) {
    absl::StatusOr<std::vector<v1::GameEvent>> log = store_->ReadEvents(game_id_, 1, store::kHead);
    if (!log.ok()) {
      if (base::ErrorCode(log.status()) == store::kErrGameNotFound) {
        return clockauth::ClockNotFound(game_id_);
      }
      return log.status();
    }
    const std::int64_t head = log->empty() ? 0 : log->back().version();
    if (after_version < 0 || after_version > head) {
      return base::Error(absl::StatusCode::kOutOfRange, "ERR_BAD_VERSION",
                         absl::StrCat("after_version ", after_version, " is not in [0, ", head,
                                      "] (the clock's version)"));
    }
    absl::MutexLock lock(&mu_);
    return Consume(*log);
  }

  void OnEvents(const std::vector<v1::GameEvent>& events) override {
    {
      absl::MutexLock lock(&mu_);
      if (absl::StatusOr<std::int64_t> st = Consume(events); !st.ok()) Fail(st.status());
    }
    Pump();
  }

  void OnError(const absl::Status& status) override {
    {
      absl::MutexLock lock(&mu_);
      Fail(status);
    }
    Pump();
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

  bool finished() {
    absl::MutexLock lock(&mu_);
    return finished_;
  }

  void SetAfter(std::int64_t after_version) {
    absl::MutexLock lock(&mu_);
    after_version_ = after_version;
  }

  void Cancel() {
    {
      absl::MutexLock lock(&mu_);
      Fail(absl::CancelledError("the client cancelled the watch"));
    }
    Pump();
  }

  void FinishWith(const absl::Status& status) {
    {
      absl::MutexLock lock(&mu_);
      Fail(status);
    }
    Pump();
  }

  void WriteDone(bool ok) {
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      if (!queue_.empty()) queue_.pop_front();
      if (!ok) Fail(absl::CancelledError("the client went away"));
    }
    Pump();
  }

  // Starts the next write, or finishes once a failure is pending and nothing is being written.
  void Pump() {
    const v1::ClockUpdate* next = nullptr;
    std::optional<grpc::Status> finish;
    {
      absl::MutexLock lock(&mu_);
      if (finished_ || writing_) return;
      if (failure_.has_value()) {
        finished_ = true;
        finish = service::ToGrpcStatus(*failure_);
      } else if (!queue_.empty()) {
        writing_ = true;
        next = &queue_.front();  // stable: a deque keeps its elements in place on push_back
      } else {
        return;
      }
    }
    if (finish.has_value()) {
      reactor_->Finish(*finish);
    } else {
      reactor_->StartWrite(next);
    }
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
          return base::Error(absl::StatusCode::kInternal, "ERR_STORE_INTERNAL",
                             "the log has a hole");
        }
      }
      RETURN_IF_ERROR(ApplyOne(e));
    }
    return cursor_;
  }

  absl::Status ApplyOne(const v1::GameEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ASSIGN_OR_RETURN(v1::ClockEvent event, clockauth::FromGameEvent(e));
    if (!game_.has_value()) {
      ASSIGN_OR_RETURN(ClockGame game, ClockGame::Replay(std::vector<v1::ClockEvent>{event}));
      game_ = std::move(game);
    } else {
      RETURN_IF_ERROR(game_->Apply(event));
    }
    cursor_ = e.version();
    if (cursor_ <= after_version_) return absl::OkStatus();
    if (static_cast<int>(queue_.size()) >= max_backlog_) {
      return base::Error(absl::StatusCode::kResourceExhausted, "ERR_WATCH_TOO_SLOW",
                         absl::StrCat("the watcher fell ", max_backlog_,
                                      " updates behind; resume from version ", cursor_ - 1));
    }
    v1::ClockUpdate update;
    update.set_version(e.version());
    update.set_command_id(e.command_id());
    update.set_recorded_at_ms(e.recorded_at_ms());
    *update.mutable_clock() = clockauth::Read(*game_, game_id_, clockauth::EventTime(event));
    *update.mutable_event() = std::move(event);
    queue_.push_back(std::move(update));
    return absl::OkStatus();
  }

  void Fail(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (failure_.has_value()) return;
    failure_ = status;
    // Drop what is not being written: the client resumes from the last version it received.
    while (queue_.size() > (writing_ ? 1u : 0u)) queue_.pop_back();
  }

  grpc::ServerWriteReactor<v1::ClockUpdate>* const reactor_;
  const std::string game_id_;
  store::GameStore* const store_;
  const int max_backlog_;

  absl::Mutex mu_;
  std::optional<ClockGame> game_ ABSL_GUARDED_BY(mu_);
  std::int64_t cursor_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t after_version_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<v1::ClockUpdate> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<absl::Status> failure_ ABSL_GUARDED_BY(mu_);
};

class WatchStream final : public grpc::ServerWriteReactor<v1::ClockUpdate> {
 public:
  WatchStream(service::ServiceEnv* env, grpc::CallbackServerContext* ctx,
              const v1::WatchClockRequest* req, store::GameStore* store, WatchHub* hub,
              service::WorkerPool* pool, int max_backlog)
      : hub_(hub),
        game_id_(req->game_id()),
        state_(std::make_shared<WatchState>(this, req->game_id(), store, max_backlog)) {
    absl::Status admitted = env->Admit(*ctx, Method("WatchClock"), req).status();
    if (admitted.ok()) admitted = store::ValidateGameId(req->game_id());
    if (!admitted.ok()) {
      state_->FinishWith(admitted);
      return;
    }
    const std::int64_t after = req->after_version();
    std::shared_ptr<WatchState> state = state_;
    pool->Submit([state, hub, game = game_id_, after] {
      state->SetAfter(after);
      absl::StatusOr<std::int64_t> head = state->Begin(after);
      if (!head.ok()) {
        state->FinishWith(head.status());
        return;
      }
      if (absl::Status added = hub->Add(game, *head, state); !added.ok()) {
        state->FinishWith(added);
        return;
      }
      state->CatchUp();
      state->Pump();
      // Cancelled before it was added: OnDone may have come and gone.
      if (state->finished()) hub->Remove(game, state.get());
    });
  }

  void OnWriteDone(bool ok) override { state_->WriteDone(ok); }
  void OnCancel() override { state_->Cancel(); }
  void OnDone() override {
    hub_->Remove(game_id_, state_.get());
    delete this;
  }

 private:
  WatchHub* const hub_;
  const std::string game_id_;
  std::shared_ptr<WatchState> state_;
};

}  // namespace

ClockAuthorityService::ClockAuthorityService(service::ServiceEnv* env,
                                             clockauth::ClockAuthority* authority,
                                             ServiceOptions options)
    : env_(env),
      authority_(authority),
      options_(options),
      hub_(authority->store(), options.max_watched_games),
      pool_(std::make_unique<service::WorkerPool>(std::max(1, options.workers))) {
  using service::Role;
  const std::vector<Role> setup = {Role::kPlatform, Role::kArbiter, Role::kService};
  const std::vector<Role> play = {Role::kPlatform, Role::kPlayer, Role::kArbiter, Role::kService};
  const std::vector<Role> arbiter = {Role::kArbiter, Role::kService};
  for (const char* m : {"CreateClock", "StartClock", "RecordArrival"}) {
    env_->policy().Add({Method(m), setup, false});
  }
  // A player presses and claims only in his own game and for his own colour.
  for (const char* m : {"PressClock", "ClaimFlag"}) env_->policy().Add({Method(m), play, true});
  for (const char* m : {"GetClock", "WatchClock"}) {
    env_->policy().Add({Method(m), service::kAllRoles, false});
  }
  for (const char* m : {"PauseClock", "ResumeClock", "AdjustClock", "SetClock", "ReplaceClock"}) {
    env_->policy().Add({Method(m), arbiter, false});
  }
}

ClockAuthorityService::~ClockAuthorityService() { pool_.reset(); }

grpc::ServerUnaryReactor* ClockAuthorityService::Offload(grpc::CallbackServerContext* ctx,
                                                         std::function<grpc::Status()> fn) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  if (options_.workers <= 0) {  // inline, on gRPC's thread (for measurements)
    reactor->Finish(fn());
    return reactor;
  }
  pool_->Submit([reactor, fn = std::move(fn)] { reactor->Finish(fn()); });
  return reactor;
}

template <typename Request>
grpc::ServerUnaryReactor* ClockAuthorityService::Command(
    grpc::CallbackServerContext* ctx, const char* method, const Request* req,
    v1::ClockResponse* resp, std::function<absl::StatusOr<v1::ClockEvent>()> make) {
  return Offload(ctx, [this, ctx, method, req, resp, make = std::move(make)] {
    return env_->Serve(
        ctx, Method(method), *req, [&](const CallContext&, const Principal&) -> absl::Status {
          ASSIGN_OR_RETURN(v1::ClockEvent command, make());
          ASSIGN_OR_RETURN(CommandResult r,
                           authority_->Execute(req->game_id(), command, OptionsOf(method, *req)));
          Fill(req->game_id(), r, resp);
          if (command.has_flag_claimed() && r.game->last_claim().has_value()) {
            *resp->mutable_claim() = *r.game->last_claim();
          }
          return absl::OkStatus();
        });
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::CreateClock(grpc::CallbackServerContext* ctx,
                                                             const v1::CreateClockRequest* req,
                                                             v1::ClockResponse* resp) {
  return Offload(ctx, [this, ctx, req, resp] {
    return env_->Serve(ctx, Method("CreateClock"), *req,
                       [&](const CallContext&, const Principal&) -> absl::Status {
                         CommandOptions o;
                         o.command_id = req->command_id();
                         if (!o.command_id.empty())
                           o.fingerprint = Fingerprint("CreateClock", *req);
                         ASSIGN_OR_RETURN(CommandResult r,
                                          authority_->Create(req->game_id(), *req, o));
                         Fill(req->game_id(), r, resp);
                         return absl::OkStatus();
                       });
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::StartClock(grpc::CallbackServerContext* ctx,
                                                            const v1::StartClockRequest* req,
                                                            v1::ClockResponse* resp) {
  return Command(ctx, "StartClock", req, resp, [req]() -> absl::StatusOr<v1::ClockEvent> {
    v1::ClockEvent e;
    for (int side : req->absent()) {
      ASSIGN_OR_RETURN(chess::Color c, SideOf(static_cast<v1::Color>(side), "absent"));
      e.mutable_started()->add_absent(clockauth::ToProto(c));
    }
    e.mutable_started();
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::PressClock(grpc::CallbackServerContext* ctx,
                                                            const v1::PressClockRequest* req,
                                                            v1::ClockResponse* resp) {
  return Command(ctx, "PressClock", req, resp, [req]() -> absl::StatusOr<v1::ClockEvent> {
    v1::ClockEvent e;
    e.mutable_pressed()->set_side(req->color());
    e.mutable_pressed()->set_lag_ms(req->lag_ms());
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::RecordArrival(grpc::CallbackServerContext* ctx,
                                                               const v1::RecordArrivalRequest* req,
                                                               v1::ClockResponse* resp) {
  return Command(ctx, "RecordArrival", req, resp, [req]() -> absl::StatusOr<v1::ClockEvent> {
    ASSIGN_OR_RETURN(chess::Color side, SideOf(req->side(), "side"));
    v1::ClockEvent e;
    e.mutable_arrived()->set_side(clockauth::ToProto(side));
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::ClaimFlag(grpc::CallbackServerContext* ctx,
                                                           const v1::ClaimFlagRequest* req,
                                                           v1::ClockResponse* resp) {
  return Command(ctx, "ClaimFlag", req, resp, [req]() -> absl::StatusOr<v1::ClockEvent> {
    ASSIGN_OR_RETURN(chess::Color side, SideOf(req->color(), "color (the claimant)"));
    v1::ClockEvent e;
    e.mutable_flag_claimed()->set_claimant(clockauth::ToProto(side));
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::PauseClock(grpc::CallbackServerContext* ctx,
                                                            const v1::PauseClockRequest* req,
                                                            v1::ClockResponse* resp) {
  return Command(ctx, "PauseClock", req, resp, []() -> absl::StatusOr<v1::ClockEvent> {
    v1::ClockEvent e;
    e.mutable_paused();
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::ResumeClock(grpc::CallbackServerContext* ctx,
                                                             const v1::ResumeClockRequest* req,
                                                             v1::ClockResponse* resp) {
  return Command(ctx, "ResumeClock", req, resp, []() -> absl::StatusOr<v1::ClockEvent> {
    v1::ClockEvent e;
    e.mutable_resumed();
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::AdjustClock(grpc::CallbackServerContext* ctx,
                                                             const v1::AdjustClockRequest* req,
                                                             v1::ClockResponse* resp) {
  return Command(ctx, "AdjustClock", req, resp, [req]() -> absl::StatusOr<v1::ClockEvent> {
    ASSIGN_OR_RETURN(chess::Color side, SideOf(req->side(), "side"));
    v1::ClockEvent e;
    v1::ClockAdjusted* a = e.mutable_adjusted();
    a->set_side(clockauth::ToProto(side));
    a->set_delta_ms(req->delta_ms());
    a->set_reason(req->reason());
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::SetClock(grpc::CallbackServerContext* ctx,
                                                          const v1::SetClockRequest* req,
                                                          v1::ClockResponse* resp) {
  return Command(ctx, "SetClock", req, resp, [req]() -> absl::StatusOr<v1::ClockEvent> {
    v1::ClockEvent e;
    v1::ClockSet* s = e.mutable_set();
    s->set_white_ms(req->white_ms());
    s->set_black_ms(req->black_ms());
    if (req->has_white_moves()) s->set_white_moves(req->white_moves());
    if (req->has_black_moves()) s->set_black_moves(req->black_moves());
    if (req->to_move() != v1::COLOR_UNSPECIFIED) {
      ASSIGN_OR_RETURN(chess::Color side, SideOf(req->to_move(), "to_move"));
      s->set_to_move(clockauth::ToProto(side));
    }
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::ReplaceClock(grpc::CallbackServerContext* ctx,
                                                              const v1::ReplaceClockRequest* req,
                                                              v1::ClockResponse* resp) {
  return Command(ctx, "ReplaceClock", req, resp, [req]() -> absl::StatusOr<v1::ClockEvent> {
    v1::ClockEvent e;
    e.mutable_replaced()->set_white_ms(req->white_ms());
    e.mutable_replaced()->set_black_ms(req->black_ms());
    return e;
  });
}

grpc::ServerUnaryReactor* ClockAuthorityService::GetClock(grpc::CallbackServerContext* ctx,
                                                          const v1::GetClockRequest* req,
                                                          v1::ClockResponse* resp) {
  return Offload(ctx, [this, ctx, req, resp] {
    return env_->Serve(ctx, Method("GetClock"), *req,
                       [&](const CallContext&, const Principal&) -> absl::Status {
                         ASSIGN_OR_RETURN(CommandResult r, authority_->Get(req->game_id()));
                         Fill(req->game_id(), r, resp);
                         return absl::OkStatus();
                       });
  });
}

grpc::ServerWriteReactor<v1::ClockUpdate>* ClockAuthorityService::WatchClock(
    grpc::CallbackServerContext* ctx, const v1::WatchClockRequest* req) {
  return new WatchStream(env_, ctx, req, authority_->store(), &hub_, pool_.get(),
                         options_.max_watch_backlog);
}

}  // namespace clock_authority
