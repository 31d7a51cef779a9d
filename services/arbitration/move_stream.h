// SubmitMoves (arbitration.proto): SubmitMove over one bidirectional stream, served from the
// completion queues like SubmitMove itself (libs/service/async_unary.h).
//
// Why a stream: on a 2-core machine (tests/bench/arbitration_bench), a unary call's own cost
// (setting up the call, its headers and trailers, the interceptors, a ServerContext per move) was
// about a third of the server's CPU per move and a fifth of the client's. A platform's relay that
// carries many games' moves sends them as messages of one long-lived stream instead.
//
// Each message is served exactly as a SubmitMove call with the stream's metadata: the same
// admission (the token, the caller's rate limit, the policy row of SubmitMove with its game
// binding), the same rulings and append, the same access log line and metrics. The stream itself
// is admitted once as SubmitMoves (who may open one; the open-stream limit). A failed move is a
// reply with its code; the stream goes on. Replies leave in the order the appends finish, each
// naming its request's sequence number (1 for the first request read). Moves of different games
// are decided at once; the moves of one game in the order they were read, each once the one
// before it is answered (decided on the position the earlier one left: a relay may send a game's
// next move before the reply to its last, and it must not be refused as out of turn). At most
// kMaxMovesInFlight moves of one stream are read and not yet answered: beyond that the stream
// stops reading, and HTTP/2's flow control holds the client back.
#ifndef ARBITER_SERVICES_ARBITRATION_MOVE_STREAM_H_
#define ARBITER_SERVICES_ARBITRATION_MOVE_STREAM_H_

#include "grpcpp/completion_queue.h"
#include "libs/service/async_unary.h"
#include "libs/service/server.h"

namespace arbitration_service {

class ArbitrationService;

class MoveStreamMethod final : public service::AsyncUnaryMethod {
 public:
  static constexpr int kMaxMovesInFlight = 1024;

  MoveStreamMethod(ArbitrationService* service, service::ServiceEnv* env)
      : service_(service), env_(env) {}

  // Asks gRPC for the next SubmitMoves stream on `cq`.
  void Arm(grpc::ServerCompletionQueue* cq) override;

 private:
  class Stream;
  ArbitrationService* const service_;
  service::ServiceEnv* const env_;
};

}  // namespace arbitration_service

#endif  // ARBITER_SERVICES_ARBITRATION_MOVE_STREAM_H_
