// The search-analysis service (proto/arbiter/v1/analysis.proto): a gRPC face of libs/analysis.
// Unwinnability for a side (6.10, C3) and dead positions (5.2b, 9.6) with proof lines, mating
// potential (1997 C4), engine evaluation, perft, and engine advice on quickplay-finish claims
// (10.2, Appendix D) labelled as advice for a human ruling.
//
// Each handler enters through ServiceEnv::Serve on the call's (synchronous) thread, which
// authenticates, authorises by the policy table and validates every field (every position by
// libs/chess); the search itself runs on a small bounded worker pool while the call's thread
// waits, so searches beyond the pool's size are refused (RESOURCE_EXHAUSTED), not piled up. The
// call's deadline and a cancel flag (set when the call is cancelled: the caller went away, its
// deadline passed, the server is stopping) are passed into analysis::SearchLimits /
// EnginePool::Analyze, so the work stops with the call.
//
//   auto svc = SearchAnalysisService::Create(env, options);  // starts the engine pool
//   service::Server::Start(config, env, {(*svc)->hosted()});
//   // destroy the server before the service: the service's destructor joins its workers.
#ifndef ARBITER_SERVICES_SEARCH_ANALYSIS_ANALYSIS_SERVICE_H_
#define ARBITER_SERVICES_SEARCH_ANALYSIS_ANALYSIS_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "libs/analysis/engine_pool.h"
#include "libs/base/worker_pool.h"
#include "libs/chess/game.h"
#include "libs/service/server.h"
#include "libs/service/ticker.h"
#include "proto/arbiter/v1/analysis.grpc.pb.h"
#include "services/search_analysis/analysis_metrics.h"

namespace search_analysis {

// What a search keeps per position it generates, at most (the bound --analysis_memory_mb uses).
inline constexpr std::int64_t kBytesPerPosition = 50;

// Server-side configuration: defaults for what a request leaves at zero, and maximums above
// which a request is INVALID_ARGUMENT ERR_BAD_LIMITS.
struct AnalysisOptions {
  int workers = 2;     // --analysis_workers: threads running analyses
  int max_queue = 64;  // --analysis_max_queue: admitted requests that may wait for a worker
  std::int64_t default_nodes = 1'000'000;  // per search (SearchLimits::max_nodes)
  // --analysis_max_nodes. A search keeps about 50 bytes per position it generates: 20 million
  // positions is about 1 GB at worst.
  std::int64_t max_nodes = 20'000'000;
  // --analysis_memory_mb: what the searches of all workers may hold together (below the
  // pod's memory limit); it bounds max_nodes to memory_mb MiB / (workers x kBytesPerPosition).
  // 0: no bound beyond max_nodes.
  std::int64_t memory_mb = 0;
  absl::Duration default_time = absl::Seconds(10);
  absl::Duration max_time = absl::Minutes(2);  // --analysis_max_time
  int max_moves = 10000;                       // per request's `moves`
  int max_perft_depth = 7;                     // --analysis_max_perft_depth
  // The engine.
  std::string engine_path = analysis::kDefaultEnginePath;  // --engine_path
  int engine_pool_size = 1;                                // --engine_pool_size
  int default_engine_depth = 14;
  int max_engine_depth = 64;
  std::int64_t max_engine_nodes = 1'000'000'000;
  int max_multipv = 8;
  absl::Duration metrics_refresh = absl::Milliseconds(250);  // engine and worker gauges
};

// Synchronous gRPC methods (each call's thread waits for its worker): a server with any callback
// method polls from extra threads that slow the completion-queue methods of the rules service
// hosted beside it (libs/service/health.h).
class SearchAnalysisService final : public arbiter::v1::SearchAnalysis::Service {
 public:
  // Starts the engine pool (options.engine_path, engine_pool_size); when no engine starts, the
  // service still serves the search RPCs and the engine RPCs answer UNAVAILABLE
  // ERR_ENGINE_UNAVAILABLE (logged once). INVALID_ARGUMENT ERR_BAD_FLAG for bad options.
  static absl::StatusOr<std::unique_ptr<SearchAnalysisService>> Create(service::ServiceEnv* env,
                                                                       AnalysisOptions options);
  // `engines` may be null; `engine_error` then says why. Adds this service's policy rows.
  SearchAnalysisService(service::ServiceEnv* env, std::unique_ptr<analysis::EnginePool> engines,
                        AnalysisOptions options, std::string engine_error = "no engine");
  // Joins the workers (finishing the calls they hold): destroy the gRPC server first.
  ~SearchAnalysisService() override;

  static constexpr char kName[] = "arbiter.v1.SearchAnalysis";

  grpc::Status Unwinnable(grpc::ServerContext* ctx, const arbiter::v1::UnwinnableRequest* req,
                          arbiter::v1::UnwinnableResponse* resp) override;
  grpc::Status DeadPosition(grpc::ServerContext* ctx, const arbiter::v1::DeadPositionRequest* req,
                            arbiter::v1::DeadPositionResponse* resp) override;
  grpc::Status MatingPotential(grpc::ServerContext* ctx,
                               const arbiter::v1::MatingPotentialRequest* req,
                               arbiter::v1::MatingPotentialResponse* resp) override;
  grpc::Status Evaluate(grpc::ServerContext* ctx, const arbiter::v1::EvaluateRequest* req,
                        arbiter::v1::EvaluateResponse* resp) override;
  grpc::Status AdviseClaim(grpc::ServerContext* ctx, const arbiter::v1::AdviseClaimRequest* req,
                           arbiter::v1::AdviseClaimResponse* resp) override;
  grpc::Status Perft(grpc::ServerContext* ctx, const arbiter::v1::AnalysisPerftRequest* req,
                     arbiter::v1::AnalysisPerftResponse* resp) override;

  // What Server::Start takes (no completion-queue methods).
  service::HostedService hosted() { return {kName, this}; }

  const AnalysisOptions& options() const { return options_; }
  bool engine_available() const { return engines_ != nullptr; }

  // What a worker's job sees of its call.
  struct Job {
    absl::Time call_deadline;  // the caller's deadline (InfiniteFuture when none)
    const std::atomic<bool>* cancel;
    // The call is over: its deadline passed or it was cancelled.
    bool CallOver() const;
    // DEADLINE_EXCEEDED ERR_DEADLINE_EXCEEDED or CANCELLED ERR_CANCELLED, as the case is.
    absl::Status CallOverStatus() const;
  };
  using Work = std::function<absl::Status(const Job&)>;

 private:
  // A method's call: admitted, its game built (the request's position and moves), the rest of the
  // request checked and the work made by `prepare`, then run on a worker while this thread waits.
  template <typename Request>
  grpc::Status Dispatch(grpc::ServerContext* ctx, absl::string_view method, Kind kind,
                        const Request& request,
                        const std::function<absl::StatusOr<Work>(chess::Game game)>& prepare);
  grpc::Status Run(grpc::ServerContext* ctx, absl::string_view method, Kind kind,
                   const google::protobuf::Message& request,
                   const std::function<absl::StatusOr<Work>()>& prepare);
  void RefreshGauges();

  service::ServiceEnv* env_;
  std::unique_ptr<analysis::EnginePool> engines_;
  const AnalysisOptions options_;
  const std::string engine_error_;
  AnalysisMetrics metrics_;
  service::Ticker refresher_;  // the engine and worker gauges
  base::WorkerPool workers_;   // last: joined first, while everything it uses is alive
};

}  // namespace search_analysis

#endif  // ARBITER_SERVICES_SEARCH_ANALYSIS_ANALYSIS_SERVICE_H_
