// The audit trail of calls: one JSON line at info level for every call that changes
// state (IsMutating: the method table below), with the request id, the caller's subject and role,
// the method, the game id (the request's "game_id"), the gRPC code and the milliseconds from the
// call's admission to its end ("ms"); and a warning, at most
// kAuthFailuresPerSecond a second, for every failed authentication (the lines in between are
// counted and the count is written with the next line).
//
// The move path pays for a line only what it cannot avoid: a record of a few short strings handed
// to a bounded queue; a thread of the log's own formats and writes the lines (every 20 ms). A full
// queue drops the line and counts it (arbiter_log_lines_dropped_total): the log never makes a
// call wait for stderr.
//
//   {"ts":"...","level":"info","msg":"call","request_id":"5f3a...-42","subject":"platform-1",
//    "role":"platform","method":"/arbiter.v1.Arbitration/SubmitMove","game_id":"g1","code":"OK",
//    "ms":1.234}
//
// The request id is the caller's "x-request-id" metadata when it sent a usable one (at most 128
// printable ASCII characters), else one made here; either way it is returned to the caller in
// the response's initial metadata ("x-request-id").
#ifndef ARBITER_LIBS_SERVICE_ACCESS_LOG_H_
#define ARBITER_LIBS_SERVICE_ACCESS_LOG_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "grpcpp/server_context.h"

namespace prometheus {
class Counter;
class Registry;
}  // namespace prometheus

namespace service {

// The methods that change state: every command of the games and the clocks. Reads (Get*, Watch*,
// ExportPgn) and the stateless services (rules, analysis) do not.
bool IsMutating(absl::string_view full_method);

// At most `per_second` lines in each whole second (a fixed window: simple and enough for a log).
class LogRateLimiter {
 public:
  explicit LogRateLimiter(int per_second) : per_second_(per_second) {}
  // Whether a line may be written at `now`. When it may, *suppressed is the number of lines
  // refused since the last one allowed (then reset to 0).
  bool Allow(absl::Time now, std::int64_t* suppressed);

 private:
  const int per_second_;
  absl::Mutex mu_;
  std::int64_t window_ ABSL_GUARDED_BY(mu_) = INT64_MIN;  // the whole second counted
  int used_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t suppressed_ ABSL_GUARDED_BY(mu_) = 0;
};

// One mutating call, for its line.
struct CallRecord {
  absl::Time time;
  std::string request_id;
  std::string subject;  // "" when the caller was not authenticated
  std::string role;
  std::string method;
  std::string game_id;  // "" when the request has none
  int code = 0;         // grpc::StatusCode
  // When the call was admitted (Begin); the line says how long it took to its end ("ms"), which
  // for a move is the rulings, the append and its fsync. InfinitePast: no "ms".
  absl::Time begun = absl::InfinitePast();
};

// The line of `record`: one JSON object and a newline.
std::string FormatCallLine(const CallRecord& record);

// Lines written by a thread of their own from a bounded queue.
class AsyncLineWriter {
 public:
  using Sink = std::function<void(const std::string& lines)>;
  // `sink` gets batches of whole lines (default: stderr); `capacity` records wait at most.
  explicit AsyncLineWriter(size_t capacity = 8192, Sink sink = nullptr,
                           absl::Duration period = absl::Milliseconds(20));
  // Writes what waits, then stops.
  ~AsyncLineWriter();

  // Queues the record's line; false when the queue is full (the line is dropped and counted).
  bool Push(CallRecord record);
  // Writes everything queued now, on the calling thread (tests; shutdown).
  void Flush();
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  // Called with the number of newly dropped lines after each batch (the metric).
  void OnDropped(std::function<void(std::uint64_t)> on_dropped) {
    on_dropped_ = std::move(on_dropped);
  }

 private:
  const size_t capacity_;
  Sink sink_;
  std::function<void(std::uint64_t)> on_dropped_;
  absl::Mutex mu_;
  std::vector<CallRecord> queue_ ABSL_GUARDED_BY(mu_);
  absl::Mutex write_mu_;  // one batch written at a time
  std::atomic<std::uint64_t> dropped_{0};
  std::uint64_t dropped_reported_ ABSL_GUARDED_BY(write_mu_) = 0;
  absl::Notification stop_;
  std::thread thread_;
};

class AccessLog {
 public:
  static constexpr int kAuthFailuresPerSecond = 10;
  // Registers arbiter_log_lines_dropped_total and arbiter_log_auth_failures_suppressed_total on
  // `registry` (null: no metrics).
  AccessLog(prometheus::Registry* registry, AsyncLineWriter::Sink sink = nullptr);

  // A record for a call of `full_method`, or null when it changes nothing. Sets the request id
  // (and, with `reply_header`, returns it in the response's initial metadata: not for the
  // messages of a stream, whose headers have left).
  std::shared_ptr<CallRecord> Begin(grpc::ServerContextBase* ctx, absl::string_view full_method,
                                    const google::protobuf::Message& request,
                                    bool reply_header = true);
  // The call's end: its line is queued.
  void End(std::shared_ptr<CallRecord> record, int code);
  // A failed authentication: a warning, rate-limited.
  void AuthFailure(const grpc::ServerContextBase& ctx, absl::string_view full_method,
                   const absl::Status& status);

  AsyncLineWriter& writer() { return writer_; }

 private:
  std::string NewRequestId();

  AsyncLineWriter writer_;
  LogRateLimiter auth_limiter_{kAuthFailuresPerSecond};
  prometheus::Counter* dropped_ = nullptr;
  prometheus::Counter* suppressed_ = nullptr;
  const std::uint32_t id_prefix_;
  std::atomic<std::uint64_t> next_id_{1};
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_ACCESS_LOG_H_
