// The analyst of an arbitration service deployed apart from search-analysis (--analysis_target):
// the questions the static proofs settle are answered here, without search; the rest go to the
// search-analysis service over gRPC (proto/arbiter/v1/analysis.proto), so that no search and no
// engine runs on the arbitration service's cores.
//
// A question never waits past its deadline: each call carries it, UNAVAILABLE is retried with
// jittered exponential backoff while the deadline allows, and anything else that is not an
// answer (the deadline passed, the analysis busy or refusing) is kUndetermined, with the reason as
// its proof. The rulings already treat kUndetermined soundly: a flag whose 6.10 question is
// undetermined counts for the opponent and puts the game in the arbiter's review (recorded in the
// game's log with the reason), a position not proved dead plays on (5.2b / 9.6).
//
// The client-side load balancing is gRPC's round_robin over every address the target resolves to
// (dns:///arbiter-analysis:7070: one per analysis pod behind a headless Service). The calls are
// counted in the standard client families (libs/service/metrics.h): grpc_client_handled_total
// and grpc_client_handling_seconds, one observation per attempt.
#ifndef ARBITER_SERVICES_ARBITRATION_REMOTE_ANALYST_H_
#define ARBITER_SERVICES_ARBITRATION_REMOTE_ANALYST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/security/credentials.h"
#include "libs/arbitration/analyst.h"
#include "libs/service/metrics.h"
#include "proto/arbiter/v1/analysis.grpc.pb.h"

namespace arbitration_service {

struct RemoteAnalystOptions {
  std::string target;  // a gRPC target: "dns:///arbiter-analysis:7070", "127.0.0.1:7071"
  // The most one question may take, its retries included (a flag's ruling waits this long at
  // worst before it is recorded for review).
  absl::Duration call_deadline = absl::Seconds(2);
  // The most a 10.2 / D1 claim's advice may take (the engine's evaluation among it).
  absl::Duration advice_deadline = absl::Seconds(10);
  std::int64_t max_nodes = 0;  // per question; 0 = the analysis server's default
  absl::Duration initial_backoff = absl::Milliseconds(25);
  absl::Duration max_backoff = absl::Milliseconds(400);
  // How fast a channel whose servers all went away tries them again (gRPC's own default grows to
  // two minutes, far longer than an analysis pod takes to come back).
  absl::Duration max_reconnect_backoff = absl::Seconds(2);
  // nullptr: plaintext (a loopback or a mesh that encrypts).
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // The "authorization" metadata of every call ("Bearer <service token>"); null: none (a
  // search-analysis server with --insecure_dev).
  std::function<absl::StatusOr<std::string>()> authorization;
};

class RemoteAnalyst final : public arbitration::Analyst {
 public:
  // `metrics` (the process's) receives the client families; it must outlive the analyst.
  RemoteAnalyst(RemoteAnalystOptions options, service::Metrics* metrics);

  arbitration::AnalystAnswer CanMate(const chess::Position& pos, chess::Color side) override;
  arbitration::AnalystAnswer MatingPotential(const chess::Position& pos,
                                             chess::Color side) override;
  arbitration::AnalystAnswer DeadPosition(const chess::Position& pos) override;
  // The static proofs only: nullopt when the question needs a call (asked off the move's path).
  std::optional<arbitration::AnalystAnswer> DeadPositionAtOnce(const chess::Position& pos) override;
  std::string QuickplayAdvice(const chess::Game& game, chess::Color claimant) override;

 private:
  using Stub = arbiter::v1::SearchAnalysis::Stub;
  template <typename Request, typename Response>
  using Rpc = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Response*);

  // One question: attempts until an answer, a status other than UNAVAILABLE, or the deadline.
  template <typename Request, typename Response>
  grpc::Status Ask(service::Metrics::ClientSeries* series, Rpc<Request, Response> rpc,
                   const Request& request, Response* response, absl::Duration budget);
  // CanMate asked of the service, the static proofs having settled nothing.
  arbitration::AnalystAnswer AskCanMate(const chess::Position& pos, chess::Color side);

  const RemoteAnalystOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<Stub> stub_;
  service::Metrics::ClientSeries* unwinnable_;
  service::Metrics::ClientSeries* mating_potential_;
  service::Metrics::ClientSeries* advise_claim_;
};

}  // namespace arbitration_service

#endif  // ARBITER_SERVICES_ARBITRATION_REMOTE_ANALYST_H_
