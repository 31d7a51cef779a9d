// The rules-validation service (proto/arbiter/v1/rules.proto): a stateless gRPC face of libs/chess.
// Each handler enters through ServiceEnv::Serve (authentication, the policy table, deadlines,
// status conversion) and translates between protos and the library.
#ifndef ARBITER_SERVICES_RULES_VALIDATION_RULES_SERVICE_H_
#define ARBITER_SERVICES_RULES_VALIDATION_RULES_SERVICE_H_

#include <vector>

#include "libs/service/async_stream.h"
#include "libs/service/async_unary.h"
#include "libs/service/server.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"

namespace rules_validation {

struct RulesLimits {
  int max_perft_depth = 6;
  int max_moves = 10000;  // per ApplyMoves / GetStatus history
  int max_batch = 10000;  // per ValidateMoveBatch
  int max_pgn_games = 10000;
};

// The short, bounded methods (ValidateMove, LegalMoves, ConvertMove) are served from completion
// queues (libs/service/async_unary.h: one thread runs a call from read to reply, no hand-offs);
// the others, which may run long (batches, streams, PGN, perft, game histories), are synchronous,
// on gRPC's thread pool. Not the callback API: a server with any callback method polls from extra
// threads that take the queues' events away (libs/service/health.h has the figures).
// ValidateMoveStream too (libs/service/async_stream.h): a stream holds no thread while it is open,
// and every message counts against the caller's rate limit as a ValidateMove call would.
using RulesValidationBase = arbiter::v1::RulesValidation::WithAsyncMethod_ValidateMove<
    arbiter::v1::RulesValidation::WithAsyncMethod_LegalMoves<
        arbiter::v1::RulesValidation::WithAsyncMethod_ConvertMove<
            arbiter::v1::RulesValidation::WithAsyncMethod_ValidateMoveStream<
                arbiter::v1::RulesValidation::Service>>>>;

class RulesValidationService final : public RulesValidationBase {
 public:
  // Adds this service's rows to env->policy().
  RulesValidationService(service::ServiceEnv* env, RulesLimits limits = {});

  static constexpr char kName[] = "arbiter.v1.RulesValidation";

  // Async (see above): called on a completion queue's thread, must not block.
  grpc::Status ValidateMove(grpc::ServerContext* ctx, const arbiter::v1::ValidateMoveRequest* req,
                            arbiter::v1::ValidateMoveResponse* resp) override;
  grpc::Status ValidateMoveBatch(grpc::ServerContext* ctx,
                                 const arbiter::v1::ValidateMoveBatchRequest* req,
                                 arbiter::v1::ValidateMoveBatchResponse* resp) override;
  grpc::Status ApplyMoves(grpc::ServerContext* ctx, const arbiter::v1::ApplyMovesRequest* req,
                          arbiter::v1::ApplyMovesResponse* resp) override;
  // Async (see above): called on a completion queue's thread, must not block.
  grpc::Status LegalMoves(grpc::ServerContext* ctx, const arbiter::v1::LegalMovesRequest* req,
                          arbiter::v1::LegalMovesResponse* resp) override;
  grpc::Status GetStatus(grpc::ServerContext* ctx, const arbiter::v1::GetStatusRequest* req,
                         arbiter::v1::GetStatusResponse* resp) override;
  // Async (see above): called on a completion queue's thread, must not block.
  grpc::Status ConvertMove(grpc::ServerContext* ctx, const arbiter::v1::ConvertMoveRequest* req,
                           arbiter::v1::ConvertMoveResponse* resp) override;
  grpc::Status ValidateSetup(grpc::ServerContext* ctx, const arbiter::v1::ValidateSetupRequest* req,
                             arbiter::v1::ValidateSetupResponse* resp) override;
  grpc::Status ValidatePgn(grpc::ServerContext* ctx, const arbiter::v1::ValidatePgnRequest* req,
                           arbiter::v1::ValidatePgnResponse* resp) override;
  grpc::Status Perft(grpc::ServerContext* ctx, const arbiter::v1::PerftRequest* req,
                     arbiter::v1::PerftResponse* resp) override;

  // For Server::Start (HostedService::async_methods).
  std::vector<service::AsyncUnaryMethod*> async_methods() const { return async_.get(); }
  // What Server::Start takes: the service with its completion-queue methods.
  service::HostedService hosted() { return {kName, this, async_methods()}; }

 private:
  // Method `name` through ServiceEnv::Serve (ServeQueued for the completion-queue methods):
  // admission and deadlines, then `fn(call)`, returning absl::Status.
  template <typename Fn>
  grpc::Status Serve(grpc::ServerContext* ctx, const char* name,
                     const google::protobuf::Message& req, Fn fn);
  template <typename Fn>
  grpc::Status ServeQueued(grpc::ServerContext* ctx, const char* name,
                           const google::protobuf::Message& req, Fn fn);

  service::ServiceEnv* env_;
  RulesLimits limits_;
  service::AsyncMethods<RulesValidationService> async_;
};

}  // namespace rules_validation

#endif  // ARBITER_SERVICES_RULES_VALIDATION_RULES_SERVICE_H_
