// loadgen: drives an Arbiter server with many concurrent callers and reports throughput and
// latency percentiles. Asynchronous gRPC: --threads completion-queue threads, each keeping
// --concurrency calls in flight; a warm-up whose calls are not counted; a fixed duration or count.
//
//   loadgen --server=127.0.0.1:7070 --method=ValidateMove --threads=2 --concurrency=32 \
//           --warmup=2s --duration=10s [--token=JWT]
//   methods: ValidateMove, ApplyMoves (a 40-move game), LegalMoves, GetStatus
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "libs/service/channel_args.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"

ABSL_FLAG(std::string, server, "127.0.0.1:7070", "host:port of the server");
ABSL_FLAG(std::string, token, "", "bearer token (omit for --insecure_dev servers)");
ABSL_FLAG(std::string, method, "ValidateMove", "ValidateMove, ApplyMoves, LegalMoves or GetStatus");
ABSL_FLAG(int, threads, 2, "client threads, each with its own completion queue and channel");
ABSL_FLAG(int, concurrency, 32, "calls in flight per thread");
ABSL_FLAG(absl::Duration, warmup, absl::Seconds(2), "calls in this first period are not counted");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(10), "measured period");
ABSL_FLAG(bool, minimal_stack, false,
          "client channels without optional filters (grpc.minimal_stack): less client CPU");
ABSL_FLAG(std::string, grpc_args, "",
          "extra integer client channel arguments, name=value,... (e.g. grpc.http2.bdp_probe=0)");
ABSL_FLAG(int64_t, count, 0, "stop after this many measured calls instead (0: use --duration)");

namespace {

namespace v1 = arbiter::v1;
using Clock = std::chrono::steady_clock;

// A 40-move game (Ruy Lopez, Breyer), for ApplyMoves.
const char* kGame[] = {"e4",   "e5",  "Nf3", "Nc6", "Bb5", "a6",  "Ba4", "Nf6", "O-O", "Be7",
                       "Re1",  "b5",  "Bb3", "d6",  "c3",  "O-O", "h3",  "Nb8", "d4",  "Nbd7",
                       "Nbd2", "Bb7", "Bc2", "Re8", "Nf1", "Bf8", "Ng3", "g6",  "a4",  "c5",
                       "d5",   "c4",  "Bg5", "h6",  "Be3", "Nc5", "Qd2", "h5",  "Bg5", "Be7"};

struct Call {
  grpc::ClientContext ctx;
  grpc::Status status;
  Clock::time_point start;
  v1::ValidateMoveResponse validate;
  v1::ApplyMovesResponse apply;
  v1::LegalMovesResponse legal;
  v1::GetStatusResponse get_status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::ValidateMoveResponse>> r1;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::ApplyMovesResponse>> r2;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::LegalMovesResponse>> r3;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::GetStatusResponse>> r4;
};

struct Requests {
  v1::ValidateMoveRequest validate;
  v1::ApplyMovesRequest apply;
  v1::LegalMovesRequest legal;
  v1::GetStatusRequest status;
};

struct Result {
  std::vector<double> latencies_us;
  int64_t errors = 0;
};

void Issue(v1::RulesValidation::Stub* stub, grpc::CompletionQueue* cq, const Requests& rq,
           const std::string& method, const std::string& token) {
  auto* call = new Call();
  if (!token.empty()) call->ctx.AddMetadata("authorization", "Bearer " + token);
  call->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  call->start = Clock::now();
  if (method == "ApplyMoves") {
    call->r2 = stub->AsyncApplyMoves(&call->ctx, rq.apply, cq);
    call->r2->Finish(&call->apply, &call->status, call);
  } else if (method == "LegalMoves") {
    call->r3 = stub->AsyncLegalMoves(&call->ctx, rq.legal, cq);
    call->r3->Finish(&call->legal, &call->status, call);
  } else if (method == "GetStatus") {
    call->r4 = stub->AsyncGetStatus(&call->ctx, rq.status, cq);
    call->r4->Finish(&call->get_status, &call->status, call);
  } else {
    call->r1 = stub->AsyncValidateMove(&call->ctx, rq.validate, cq);
    call->r1->Finish(&call->validate, &call->status, call);
  }
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // As in the servers (libs/service/server.cc): the client should not pay for deadlock detection.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const std::string method = absl::GetFlag(FLAGS_method);
  if (method != "ValidateMove" && method != "ApplyMoves" && method != "LegalMoves" &&
      method != "GetStatus") {
    std::fprintf(stderr, "loadgen: unknown --method %s\n", method.c_str());
    return 2;
  }
  Requests rq;
  rq.validate.mutable_position()->set_fen(
      "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
  rq.validate.set_move("Bb5");
  rq.apply.mutable_position()->set_fen("startpos");
  for (const char* m : kGame) rq.apply.add_moves(m);
  rq.legal.mutable_position()->set_fen(
      "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
  rq.status.mutable_position()->set_fen("startpos");
  for (const char* m : kGame) rq.status.add_moves(m);

  absl::StatusOr<std::vector<std::pair<std::string, int>>> channel_args =
      service::ParseIntChannelArgs(absl::GetFlag(FLAGS_grpc_args), "--grpc_args");
  if (!channel_args.ok()) {
    std::fprintf(stderr, "%s\n", channel_args.status().ToString().c_str());
    return 2;
  }
  const int threads = std::max(1, absl::GetFlag(FLAGS_threads));
  const int concurrency = std::max(1, absl::GetFlag(FLAGS_concurrency));
  const std::string token = absl::GetFlag(FLAGS_token);
  const auto warmup = absl::ToChronoNanoseconds(absl::GetFlag(FLAGS_warmup));
  const auto duration = absl::ToChronoNanoseconds(absl::GetFlag(FLAGS_duration));
  const int64_t count = absl::GetFlag(FLAGS_count);
  const Clock::time_point begin = Clock::now();
  const Clock::time_point measure_from = begin + warmup;
  std::atomic<int64_t> measured{0};
  std::atomic<bool> stop{false};
  std::vector<Result> results(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      grpc::ChannelArguments args;
      args.SetInt("arbiter.loadgen.channel", t);  // a distinct channel (connection) per thread
      // A load tool retries nothing: without the retry filter a call costs the client less CPU,
      // which on a machine it shares with the server is capacity left to the server.
      args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
      if (absl::GetFlag(FLAGS_minimal_stack)) args.SetInt(GRPC_ARG_MINIMAL_STACK, 1);
      for (const auto& [name, value] : *channel_args) args.SetInt(name, value);
      auto channel = grpc::CreateCustomChannel(absl::GetFlag(FLAGS_server),
                                               grpc::InsecureChannelCredentials(), args);
      auto stub = v1::RulesValidation::NewStub(channel);
      grpc::CompletionQueue cq;
      Result& result = results[t];
      for (int i = 0; i < concurrency; ++i) Issue(stub.get(), &cq, rq, method, token);
      int in_flight = concurrency;
      void* tag;
      bool ok;
      while (in_flight > 0 && cq.Next(&tag, &ok)) {
        auto* call = static_cast<Call*>(tag);
        const Clock::time_point now = Clock::now();
        --in_flight;
        if (call->start >= measure_from && !stop.load(std::memory_order_relaxed)) {
          if (!ok || !call->status.ok()) {
            ++result.errors;
          } else {
            result.latencies_us.push_back(
                std::chrono::duration<double, std::micro>(now - call->start).count());
          }
          int64_t done = measured.fetch_add(1) + 1;
          if ((count > 0 && done >= count) || (count == 0 && now - measure_from >= duration))
            stop = true;
        }
        delete call;
        if (!stop.load(std::memory_order_relaxed)) {
          Issue(stub.get(), &cq, rq, method, token);
          ++in_flight;
        }
      }
      cq.Shutdown();
      while (cq.Next(&tag, &ok)) delete static_cast<Call*>(tag);
    });
  }
  for (std::thread& w : workers) w.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - measure_from).count();
  std::vector<double> all;
  int64_t errors = 0;
  for (Result& r : results) {
    all.insert(all.end(), r.latencies_us.begin(), r.latencies_us.end());
    errors += r.errors;
  }
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    return all.empty() ? 0.0 : all[std::min(all.size() - 1, static_cast<size_t>(p * all.size()))];
  };
  std::printf("method=%s threads=%d concurrency=%d calls=%zu errors=%lld seconds=%.2f\n",
              method.c_str(), threads, concurrency, all.size(), static_cast<long long>(errors),
              seconds);
  std::printf("throughput=%.0f calls/s  p50=%.0f us  p99=%.0f us  p99.9=%.0f us  max=%.0f us\n",
              all.size() / seconds, pct(0.50), pct(0.99), pct(0.999),
              all.empty() ? 0.0 : all.back());
  return errors == 0 ? 0 : 1;
}
