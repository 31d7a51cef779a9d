#include "services/arbitration/remote_analyst.h"

#include <algorithm>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/channel_arguments.h"
#include "libs/chess/fen.h"
#include "libs/chess/notation.h"
#include "libs/service/grpc_status.h"
#include "services/analysis_proto.h"

namespace arbitration_service {
namespace {

namespace v1 = arbiter::v1;
using arbitration::AnalystAnswer;

constexpr char kService[] = "/arbiter.v1.SearchAnalysis/";

std::shared_ptr<grpc::Channel> ChannelTo(const RemoteAnalystOptions& o) {
  grpc::ChannelArguments args;
  // Every analysis pod the name resolves to takes its share of the questions.
  args.SetLoadBalancingPolicyName("round_robin");
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
              static_cast<int>(absl::ToInt64Milliseconds(o.max_reconnect_backoff)));
  // The retries are this client's (bounded by the question's deadline), not the channel's.
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  return grpc::CreateCustomChannel(
      o.target, o.credentials != nullptr ? o.credentials : grpc::InsecureChannelCredentials(),
      args);
}

// Why there is no answer, as the proof of the undetermined one: the game's record says it.
AnalystAnswer Unanswered(const grpc::Status& status) {
  AnalystAnswer a;
  a.verdict = analysis::Verdict::kUndetermined;
  // A malformed or refused question gets the same refusal when asked again; anything else (down,
  // busy, past the deadline, a token to renew) may be answered later.
  a.unanswered = status.error_code() != grpc::StatusCode::INVALID_ARGUMENT &&
                 status.error_code() != grpc::StatusCode::FAILED_PRECONDITION &&
                 status.error_code() != grpc::StatusCode::UNIMPLEMENTED;
  a.proof =
      absl::StrCat("search-analysis did not answer (", service::GrpcCodeName(status.error_code()),
                   ": ", status.error_message(), ")");
  return a;
}

AnalystAnswer AnswerOf(const v1::UnwinnableResult& r) {
  std::string line;
  for (const v1::Move& m : r.line()) absl::StrAppend(&line, line.empty() ? "" : " ", m.uci());
  return arbitration::AnswerOf(services::VerdictOf(r.verdict()), services::MethodOf(r.method()),
                               line, r.reason());
}

v1::Color ColorProto(chess::Color c) {
  return c == chess::Color::kWhite ? v1::COLOR_WHITE : v1::COLOR_BLACK;
}

}  // namespace

RemoteAnalyst::RemoteAnalyst(RemoteAnalystOptions options, service::Metrics* metrics)
    : options_(std::move(options)),
      channel_(ChannelTo(options_)),
      stub_(v1::SearchAnalysis::NewStub(channel_)),
      unwinnable_(metrics->Client(absl::StrCat(kService, "Unwinnable"))),
      mating_potential_(metrics->Client(absl::StrCat(kService, "MatingPotential"))),
      advise_claim_(metrics->Client(absl::StrCat(kService, "AdviseClaim"))) {}

template <typename Request, typename Response>
grpc::Status RemoteAnalyst::Ask(service::Metrics::ClientSeries* series, Rpc<Request, Response> rpc,
                                const Request& request, Response* response, absl::Duration budget) {
  const absl::Time deadline = absl::Now() + budget;
  absl::Duration backoff = options_.initial_backoff;
  absl::BitGen jitter;
  for (;;) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(deadline));
    if (options_.authorization) {
      absl::StatusOr<std::string> authorization = options_.authorization();
      if (!authorization.ok()) {
        return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                            std::string(authorization.status().message()));
      }
      ctx.AddMetadata("authorization", *authorization);
    }
    const absl::Time start = absl::Now();
    grpc::Status status = (stub_.get()->*rpc)(&ctx, request, response);
    service::Metrics::ClientCallFinished(series, status.error_code(),
                                         absl::ToDoubleSeconds(absl::Now() - start));
    // UNAVAILABLE: no analysis pod reached (all down, one restarting, a connection reset): the
    // question was not worked on, so asking again is safe.
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return status;
    const absl::Duration wait = backoff * absl::Uniform(jitter, 0.5, 1.0);
    if (absl::Now() + wait >= deadline) return status;
    absl::SleepFor(wait);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

namespace {

// A question about `side` in `pos`, within the node limit.
template <typename Request>
Request AboutSide(const chess::Position& pos, chess::Color side, std::int64_t max_nodes) {
  Request request;
  request.mutable_position()->set_fen(chess::ToFen(pos));
  request.set_side(ColorProto(side));
  request.mutable_limits()->set_max_nodes(max_nodes);
  return request;
}

// The service's answer, or undetermined when the call failed.
template <typename Response>
AnalystAnswer Answered(const grpc::Status& status, const Response& response) {
  if (!status.ok()) return Unanswered(status);
  return AnswerOf(response.result());
}

}  // namespace

AnalystAnswer RemoteAnalyst::AskCanMate(const chess::Position& pos, chess::Color side) {
  const auto request = AboutSide<v1::UnwinnableRequest>(pos, side, options_.max_nodes);
  v1::UnwinnableResponse response;
  grpc::Status status =
      Ask(unwinnable_, &Stub::Unwinnable, request, &response, options_.call_deadline);
  return Answered(status, response);
}

AnalystAnswer RemoteAnalyst::CanMate(const chess::Position& pos, chess::Color side) {
  Count();
  // 6.10 / C3: a static proof settles it here, without a call.
  if (std::optional<AnalystAnswer> proved = arbitration::CanMateByProofs(pos, side)) return *proved;
  return AskCanMate(pos, side);
}

AnalystAnswer RemoteAnalyst::MatingPotential(const chess::Position& pos, chess::Color side) {
  Count();
  if (std::optional<AnalystAnswer> proved = arbitration::MatingPotentialByProofs(pos, side)) {
    return *proved;
  }
  const auto request = AboutSide<v1::MatingPotentialRequest>(pos, side, options_.max_nodes);
  v1::MatingPotentialResponse response;
  grpc::Status status =
      Ask(mating_potential_, &Stub::MatingPotential, request, &response, options_.call_deadline);
  return Answered(status, response);
}

AnalystAnswer RemoteAnalyst::DeadPosition(const chess::Position& pos) {
  Count();
  // 5.2b / 9.6 on the move path: a question is asked only when one side is proved unable to mate
  // and the other's chances need a search; neither proved: the game plays on, as in-process.
  std::optional<AnalystAnswer> proved = arbitration::DeadPositionByProofs(
      pos, [&](chess::Color other) { return AskCanMate(pos, other); });
  return proved ? *proved : AnalystAnswer{};
}

std::optional<AnalystAnswer> RemoteAnalyst::DeadPositionAtOnce(const chess::Position& pos) {
  Count();
  // A move is never held up by a call: the question that needs one is asked off its path.
  bool needs_call = false;
  std::optional<AnalystAnswer> proved = arbitration::DeadPositionByProofs(pos, [&](chess::Color) {
    needs_call = true;
    return AnalystAnswer{};
  });
  if (needs_call) return std::nullopt;
  return proved ? *proved : AnalystAnswer{};
}

std::string RemoteAnalyst::QuickplayAdvice(const chess::Game& game, chess::Color claimant) {
  v1::AdviseClaimRequest request;
  request.mutable_position()->set_fen(chess::ToFen(game.start()));
  for (const chess::Move& m : game.moves()) request.add_moves(chess::ToUci(m));
  request.set_claimant(ColorProto(claimant));
  request.mutable_limits()->set_max_nodes(options_.max_nodes);
  // The analysis stops its work a little before the call's deadline, so that its answer arrives.
  request.mutable_limits()->set_time_limit_ms(
      static_cast<int>(absl::ToInt64Milliseconds(options_.advice_deadline * 4 / 5)));
  v1::AdviseClaimResponse response;
  grpc::Status status =
      Ask(advise_claim_, &Stub::AdviseClaim, request, &response, options_.advice_deadline);
  if (!status.ok()) {
    return absl::StrCat("no advice: search-analysis did not answer (",
                        service::GrpcCodeName(status.error_code()), ")");
  }
  std::vector<std::string> notes(response.notes().begin(), response.notes().end());
  const chess::Color opponent =
      response.opponent() == v1::COLOR_WHITE ? chess::Color::kWhite : chess::Color::kBlack;
  return arbitration::AdviceText(response.label(), opponent,
                                 services::VerdictOf(response.opponent_can_mate().verdict()),
                                 notes);
}

}  // namespace arbitration_service
