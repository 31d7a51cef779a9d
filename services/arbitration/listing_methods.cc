// Listing games and acting on an event's games (proto/arbiter/v1/arbitration.proto: ListGames,
// PauseEvent, ResumeEvent): thin handlers over the store's games index (store::EventLog::ListIndex)
// and libs/arbitration/event_games.h.
#include <array>
#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "libs/arbitration/event_games.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/base/status_macros.h"
#include "libs/laws/proto_convert.h"
#include "libs/service/errors.h"
#include "libs/service/policy.h"
#include "libs/store/game_store.h"
#include "services/arbitration/arbitration_service.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;
using service::CallContext;
using service::Principal;
using service::Role;

constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 500;
constexpr size_t kMaxFilterLength = 256;

// The index's status labels (libs/arbitration/authority.h, IndexLabelsOf) by ListedStatus.
constexpr std::array<absl::string_view, 8> kStatusNames = {
    "",          "created",           "ongoing", "awaiting_ruling",
    "adjourned", "flag_under_review", "ended",   "archived"};

v1::ListedStatus StatusOf(absl::string_view name) {
  for (size_t i = 1; i < kStatusNames.size(); ++i) {
    if (kStatusNames[i] == name) return static_cast<v1::ListedStatus>(i);
  }
  return v1::LISTED_STATUS_UNSPECIFIED;
}

absl::Status Bad(absl::string_view message) { return base::Error(base::kErrBadArgument, message); }

// The page token: the last game id looked at, opaque to the caller.
std::string TokenOf(absl::string_view after) {
  return after.empty() ? std::string() : absl::WebSafeBase64Escape(absl::StrCat("g1:", after));
}

absl::StatusOr<std::string> AfterOf(absl::string_view token) {
  if (token.empty()) return std::string();
  std::string raw;
  if (!absl::WebSafeBase64Unescape(token, &raw) || !absl::StartsWith(raw, "g1:") ||
      !store::ValidateGameId(raw.substr(3)).ok()) {
    return Bad("page_token: not a token ListGames gave");
  }
  return raw.substr(3);
}

void FillSummary(const store::IndexedGame& g, v1::GameSummary* out) {
  out->set_game_id(g.game_id);
  out->set_status(StatusOf(g.labels.status));
  out->set_event(g.labels.event);
  out->set_round(g.labels.round);
  out->set_white_id(g.labels.white_id);
  out->set_black_id(g.labels.black_id);
  out->set_result(g.labels.result);
}

void FillOutcomes(const std::vector<arbitration::EventGameOutcome>& outcomes,
                  v1::EventGamesReply* resp) {
  for (const arbitration::EventGameOutcome& o : outcomes) {
    v1::EventGameOutcome* g = resp->add_games();
    g->set_game_id(o.game_id);
    g->set_ok(o.status.ok());
    if (!o.status.ok()) {
      g->set_code(std::string(base::ErrorCode(o.status)));
      g->set_message(std::string(o.status.message()));
    }
    g->set_replayed(o.replayed);
    g->set_version(o.version);
    g->set_time_given_back_ms(o.given_back_ms);
    if (o.given_back_to.has_value()) g->set_time_given_back_to(laws::ToProto(*o.given_back_to));
  }
}

}  // namespace

void ArbitrationService::AddListingPolicy() {
  // Who lists sees the games it may act on or read in full; observers read games one by one
  // through the broadcast delay, which a listed status (an end) would outrun.
  env_->policy().Add({FullMethod("ListGames"),
                      {Role::kPlatform, Role::kArbiter, Role::kService, Role::kPlayer},
                      false});
  // 6.13a: the arbiter interrupts the games (an event-scoped token: its event's).
  for (const char* m : {"PauseEvent", "ResumeEvent"}) {
    env_->policy().Add({FullMethod(m), {Role::kArbiter, Role::kService}, false});
  }
}

grpc::Status ArbitrationService::ListGames(grpc::ServerContext* ctx,
                                           const v1::ListGamesRequest* req,
                                           v1::ListGamesReply* resp) {
  return env_->Serve(
      ctx, FullMethod("ListGames"), *req,
      [&](const CallContext&, const Principal& who) -> absl::Status {
        for (const auto& [field, value] :
             {std::pair<absl::string_view, const std::string*>{"event", &req->event()},
              {"round", &req->round()},
              {"player_id", &req->player_id()}}) {
          if (value->size() > kMaxFilterLength) {
            return Bad(absl::StrCat(field, " is longer than ", kMaxFilterLength, " bytes"));
          }
        }
        if (!v1::ListedStatus_IsValid(req->status())) return Bad("status: unknown");
        if (req->page_size() < 0) return Bad("page_size must not be negative");
        store::IndexQuery q;
        q.status = std::string(kStatusNames[static_cast<size_t>(req->status())]);
        q.event = req->event();
        q.round = req->round();
        q.player = req->player_id();
        q.limit =
            req->page_size() == 0 ? kDefaultPageSize : std::min(req->page_size(), kMaxPageSize);
        ASSIGN_OR_RETURN(q.after, AfterOf(req->page_token()));
        if (!env_->insecure()) {
          if (who.role == Role::kPlayer && !who.person()) {
            // A game's token: that game alone, if it answers the filters.
            ASSIGN_OR_RETURN(arbitration::CommandResult r, authority_->Get(who.game_id));
            store::IndexedGame g{who.game_id, arbitration::IndexLabelsOf(*r.game)};
            if (q.after.empty() && store::IndexMatches(g.labels, q)) {
              FillSummary(g, resp->add_games());
            }
            return absl::OkStatus();
          }
          // An event-scoped token (an arbiter's, a person's) lists its event's games only.
          if (!who.event.empty()) {
            if (!q.event.empty() && q.event != who.event) {
              return base::Error(service::kErrOtherEvent,
                                 absl::StrCat("this token serves the event \"", who.event,
                                              "\", not \"", q.event, "\""));
            }
            q.event = who.event;
          }
          // A person's token: the games that name him.
          if (who.person()) {
            if (!q.player.empty() && q.player != who.subject) {
              return base::Error(service::kErrNotYourGame,
                                 "a player token lists only its subject's games");
            }
            q.player = who.subject;
          }
        }
        ASSIGN_OR_RETURN(store::IndexPage page, authority_->store()->ListIndex(q));
        for (const store::IndexedGame& g : page.games) FillSummary(g, resp->add_games());
        resp->set_next_page_token(TokenOf(page.next_after));
        return absl::OkStatus();
      });
}

grpc::Status ArbitrationService::PauseEvent(grpc::ServerContext* ctx,
                                            const v1::PauseEventRequest* req,
                                            v1::EventGamesReply* resp) {
  return env_->Serve(ctx, FullMethod("PauseEvent"), *req,
                     [&](const CallContext&, const Principal& who) -> absl::Status {
                       RETURN_IF_ERROR(service::CheckEvent(who, req->event()));
                       ASSIGN_OR_RETURN(
                           std::vector<arbitration::EventGameOutcome> out,
                           arbitration::PauseEvent(*authority_, {.event = req->event(),
                                                                 .command_id = req->command_id(),
                                                                 .reason = req->reason(),
                                                                 .actor = env_->ActorOf(who)}));
                       FillOutcomes(out, resp);
                       return absl::OkStatus();
                     });
}

grpc::Status ArbitrationService::ResumeEvent(grpc::ServerContext* ctx,
                                             const v1::ResumeEventRequest* req,
                                             v1::EventGamesReply* resp) {
  return env_->Serve(
      ctx, FullMethod("ResumeEvent"), *req,
      [&](const CallContext&, const Principal& who) -> absl::Status {
        RETURN_IF_ERROR(service::CheckEvent(who, req->event()));
        if (req->outage_started_ms() < 0) {
          return Bad("outage_started_ms must not be negative");
        }
        ASSIGN_OR_RETURN(
            std::vector<arbitration::EventGameOutcome> out,
            arbitration::ResumeEvent(*authority_, {.event = req->event(),
                                                   .command_id = req->command_id(),
                                                   .reason = req->reason(),
                                                   .actor = env_->ActorOf(who),
                                                   .outage_started_ms = req->outage_started_ms()}));
        FillOutcomes(out, resp);
        return absl::OkStatus();
      });
}

}  // namespace arbitration_service
