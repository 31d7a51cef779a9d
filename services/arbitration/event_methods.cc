// Events and rounds (proto/arbiter/v1/arbitration.proto: CreateEvent, GetEvent, CreateRound,
// GetEventResults, ExportEventPgn): thin handlers over libs/arbitration/event_rounds.h.
#include <string>
#include <utility>

#include "libs/arbitration/event_rounds.h"
#include "libs/arbitration/pgn_export.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "libs/service/policy.h"
#include "services/arbitration/arbitration_service.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;
using service::CallContext;
using service::Principal;
using service::Role;

}  // namespace

void ArbitrationService::AddEventPolicy() {
  // The platform sets up its events and rounds; so does the event's arbiter (an event-scoped
  // token: its event only), who publishes the pairings.
  const std::vector<Role> organisers = {Role::kPlatform, Role::kArbiter, Role::kService};
  for (const char* m : {"CreateEvent", "CreateRound", "GetEventResults", "ExportEventPgn"}) {
    env_->policy().Add({FullMethod(m), organisers, false});
  }
  // The event's rules and pairings are public.
  env_->policy().Add({FullMethod("GetEvent"), service::kAllRoles, false});
}

grpc::Status ArbitrationService::CreateEvent(grpc::ServerContext* ctx,
                                             const v1::CreateEventRequest* req,
                                             v1::EventReply* resp) {
  return env_->Serve(ctx, FullMethod("CreateEvent"), *req,
                     [&](const CallContext&, const Principal& who) -> absl::Status {
                       RETURN_IF_ERROR(service::CheckEvent(who, req->event()));
                       ASSIGN_OR_RETURN(
                           arbitration::EventRecord r,
                           arbitration::CreateEvent(*authority_->store(), *req, env_->ActorOf(who),
                                                    authority_->NowMs()));
                       *resp->mutable_event() = std::move(r.event);
                       resp->set_replayed(r.replayed);
                       return absl::OkStatus();
                     });
}

grpc::Status ArbitrationService::GetEvent(grpc::ServerContext* ctx, const v1::GetEventRequest* req,
                                          v1::EventReply* resp) {
  return env_->Serve(ctx, FullMethod("GetEvent"), *req,
                     [&](const CallContext&, const Principal& who) -> absl::Status {
                       RETURN_IF_ERROR(service::CheckEvent(who, req->event()));
                       ASSIGN_OR_RETURN(*resp->mutable_event(),
                                        arbitration::GetEvent(*authority_->store(), req->event()));
                       return absl::OkStatus();
                     });
}

grpc::Status ArbitrationService::CreateRound(grpc::ServerContext* ctx,
                                             const v1::CreateRoundRequest* req,
                                             v1::RoundReply* resp) {
  return env_->Serve(
      ctx, FullMethod("CreateRound"), *req,
      [&](const CallContext&, const Principal& who) -> absl::Status {
        RETURN_IF_ERROR(service::CheckEvent(who, req->event()));
        ASSIGN_OR_RETURN(arbitration::RoundOutcome r,
                         arbitration::CreateRound(*authority_, *req, env_->ActorOf(who)));
        *resp->mutable_round() = std::move(r.round);
        resp->set_replayed(r.replayed);
        for (size_t i = 0; i < r.games.size(); ++i) {
          RETURN_IF_ERROR(
              ReplyOf(who, resp->round().pairings(i).game_id(), r.games[i], resp->add_games()));
        }
        return absl::OkStatus();
      });
}

grpc::Status ArbitrationService::GetEventResults(grpc::ServerContext* ctx,
                                                 const v1::GetEventResultsRequest* req,
                                                 v1::EventResultsReply* resp) {
  return env_->Serve(
      ctx, FullMethod("GetEventResults"), *req,
      [&](const CallContext&, const Principal& who) -> absl::Status {
        RETURN_IF_ERROR(service::CheckEvent(who, req->event()));
        ASSIGN_OR_RETURN(*resp, arbitration::EventResults(*authority_, req->event(), req->round()));
        return absl::OkStatus();
      });
}

grpc::Status ArbitrationService::ExportEventPgn(grpc::ServerContext* ctx,
                                                const v1::ExportEventPgnRequest* req,
                                                v1::ExportPgnReply* resp) {
  return env_->Serve(
      ctx, FullMethod("ExportEventPgn"), *req,
      [&](const CallContext&, const Principal& who) -> absl::Status {
        RETURN_IF_ERROR(service::CheckEvent(who, req->event()));
        arbitration::PgnExportOptions options;
        // 12.2: the engine's advice on a claim is for arbiters.
        options.include_advice =
            env_->insecure() || who.role == Role::kArbiter || who.role == Role::kService;
        ASSIGN_OR_RETURN(*resp->mutable_pgn(),
                         arbitration::EventPgn(*authority_, req->event(), req->round(), options));
        return absl::OkStatus();
      });
}

}  // namespace arbitration_service
