// What the end-to-end benches share (arbitration_bench, clock_bench): the redis-server they start,
// the client's channel and async calls, and how they report latency and the CPU each operation
// took.
#ifndef ARBITER_TESTS_BENCH_BENCH_UTIL_H_
#define ARBITER_TESTS_BENCH_BENCH_UTIL_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/support/async_unary_call.h"
#include "libs/store/testing/redis_server.h"

namespace bench {

// Latencies (ms) as the benches report them.
struct Percentiles {
  double p50, p99, p999, max;
};
Percentiles Of(std::vector<double> latencies);

// CPU seconds (user + system) a process has used so far (0: this one).
double CpuSeconds(pid_t pid);
// The same for each of `pids`.
std::vector<double> CpuSeconds(const std::vector<pid_t>& pids);

// A process's resident memory in bytes (VmRSS of /proc/<pid>/status), 0 if unknown.
std::int64_t ResidentBytes(pid_t pid);

// The load averages of the last 1, 5 and 15 minutes: "0.52 0.58 0.59".
std::string LoadAverage();

// A redis-server (libs/store/redis.conf, with `appendfsync`, in `dir` or a fresh directory) and
// its pid (0 if unknown), whose CPU a bench counts.
struct Redis {
  std::unique_ptr<store::testing::RedisServer> server;
  pid_t pid = 0;
};
absl::StatusOr<Redis> StartRedis(const std::string& appendfsync, const std::string& dir);

// What a redis-server holds and has written, from INFO: `used_memory`, `aof_current_size` (the
// AOF's base and increments) and `aof_rewrites` (rewrites made since it started).
struct RedisInfo {
  std::int64_t used_memory = 0;
  std::int64_t aof_bytes = 0;
  std::int64_t aof_rewrites = 0;
};
absl::StatusOr<RedisInfo> ReadRedisInfo(const store::testing::RedisServer& redis);

// The bytes Redis appends to its AOF over a measured time. A rewrite replaces the AOF (its size
// falls), so the size is sampled every 50 ms and only its growth between samples is summed: the
// growth within a sample that a rewrite ended is lost (at most 50 ms of appends per rewrite).
class AofMeter {
 public:
  explicit AofMeter(const store::testing::RedisServer& redis) : redis_(redis) {}
  ~AofMeter() { Stop(); }
  void Start();
  void Stop();
  std::int64_t bytes() const { return bytes_.load(); }
  std::int64_t rewrites() const { return rewrites_.load(); }

 private:
  const store::testing::RedisServer& redis_;
  std::atomic<bool> running_{false};
  std::atomic<std::int64_t> bytes_{0};
  std::atomic<std::int64_t> rewrites_{0};
  std::thread sampler_;
};

// `flags`, then the comma-separated `extra` ones (a bench's --server_flags).
std::vector<std::string> WithExtraFlags(std::vector<std::string> flags, absl::string_view extra);

// The client's channel to a server on loopback `port`. The bench client retries nothing: no retry
// filter, less client CPU on a machine it shares with the server and Redis. Channels of distinct
// `index` have distinct connections.
std::shared_ptr<grpc::Channel> Channel(int port, std::optional<int> index = std::nullopt);

// An async unary call on a completion queue: Start sends it, and the queue returns `tag` once
// `status` and `resp` are in.
template <typename Response>
struct AsyncCall {
  explicit AsyncCall(std::chrono::seconds deadline) {
    ctx.set_deadline(std::chrono::system_clock::now() + deadline);
  }
  // Sends `req` by `prepare`, the stub's PrepareAsync<Method>.
  template <typename Stub, typename Request>
  void Start(Stub& stub,
             std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> (Stub::*prepare)(
                 grpc::ClientContext*, const Request&, grpc::CompletionQueue*),
             const Request& req, grpc::CompletionQueue* cq, void* tag) {
    rpc = (stub.*prepare)(&ctx, req, cq);
    rpc->StartCall();
    rpc->Finish(&resp, &status, tag);
  }

  grpc::ClientContext ctx;
  Response resp;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<Response>> rpc;
};

// The machine's CPU each of `operations` took, whatever else runs on it: client, Redis, server(s),
// from the CPU seconds of each (CpuSeconds of this process, the redis-server, the servers) before
// and after. One line, `separator` between the parts:
//   "  CPU per move: 95 us (client 30 + redis 20 + server 45); 8 cores at 100% for this alone:
//   84211 moves/s"
void PrintCpuPer(const char* unit, const char* units, double operations,
                 const std::vector<double>& before, const std::vector<double>& after,
                 const char* separator);

}  // namespace bench

#endif  // ARBITER_TESTS_BENCH_BENCH_UTIL_H_
