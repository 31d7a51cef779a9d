// The rules-validation service (proto/arbiter/v1/rules.proto): a stateless gRPC face of libs/chess.
// Each handler enters through ServiceEnv::Serve (authentication, the policy table, deadlines,
// status conversion) and translates between protos and the library.
#ifndef ARBITER_SERVICES_RULES_VALIDATION_RULES_SERVICE_H_
#define ARBITER_SERVICES_RULES_VALIDATION_RULES_SERVICE_H_

#include "libs/service/server.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"

namespace rules_validation {

struct RulesLimits {
  int max_perft_depth = 6;
  int max_moves = 10000;  // per ApplyMoves / GetStatus history
  int max_batch = 10000;  // per ValidateMoveBatch
  int max_pgn_games = 10000;
};

class RulesValidationService final : public arbiter::v1::RulesValidation::CallbackService {
 public:
  // Adds this service's rows to env->policy().
  RulesValidationService(service::ServiceEnv* env, RulesLimits limits = {});

  static constexpr char kName[] = "arbiter.v1.RulesValidation";

  grpc::ServerUnaryReactor* ValidateMove(grpc::CallbackServerContext* ctx,
                                         const arbiter::v1::ValidateMoveRequest* req,
                                         arbiter::v1::ValidateMoveResponse* resp) override;
  grpc::ServerUnaryReactor* ValidateMoveBatch(
      grpc::CallbackServerContext* ctx, const arbiter::v1::ValidateMoveBatchRequest* req,
      arbiter::v1::ValidateMoveBatchResponse* resp) override;
  grpc::ServerBidiReactor<arbiter::v1::ValidateMoveRequest, arbiter::v1::ValidateMoveResponse>*
  ValidateMoveStream(grpc::CallbackServerContext* ctx) override;
  grpc::ServerUnaryReactor* ApplyMoves(grpc::CallbackServerContext* ctx,
                                       const arbiter::v1::ApplyMovesRequest* req,
                                       arbiter::v1::ApplyMovesResponse* resp) override;
  grpc::ServerUnaryReactor* LegalMoves(grpc::CallbackServerContext* ctx,
                                       const arbiter::v1::LegalMovesRequest* req,
                                       arbiter::v1::LegalMovesResponse* resp) override;
  grpc::ServerUnaryReactor* GetStatus(grpc::CallbackServerContext* ctx,
                                      const arbiter::v1::GetStatusRequest* req,
                                      arbiter::v1::GetStatusResponse* resp) override;
  grpc::ServerUnaryReactor* ConvertMove(grpc::CallbackServerContext* ctx,
                                        const arbiter::v1::ConvertMoveRequest* req,
                                        arbiter::v1::ConvertMoveResponse* resp) override;
  grpc::ServerUnaryReactor* ValidateSetup(grpc::CallbackServerContext* ctx,
                                          const arbiter::v1::ValidateSetupRequest* req,
                                          arbiter::v1::ValidateSetupResponse* resp) override;
  grpc::ServerUnaryReactor* ValidatePgn(grpc::CallbackServerContext* ctx,
                                        const arbiter::v1::ValidatePgnRequest* req,
                                        arbiter::v1::ValidatePgnResponse* resp) override;
  grpc::ServerUnaryReactor* Perft(grpc::CallbackServerContext* ctx,
                                  const arbiter::v1::PerftRequest* req,
                                  arbiter::v1::PerftResponse* resp) override;

 private:
  service::ServiceEnv* env_;
  RulesLimits limits_;
};

}  // namespace rules_validation

#endif  // ARBITER_SERVICES_RULES_VALIDATION_RULES_SERVICE_H_
