// Unary methods served from completion queues, for the short, hot calls (ValidateMove and its
// kind). Why not the callback API like every other method: with the callback API each call hops
// between gRPC's threads (a poller, a "nexting" thread, the handler), and on a small machine
// shared with its clients those hand-offs, not the work, set the throughput and the tail. A
// completion queue polled by one thread runs the whole call, read to reply, on that thread:
// measured on the 2-core development VM with tools/loadgen, ValidateMove went from ~21k calls/s
// (server ~45 µs CPU per call, p99 ~1.3 ms) to ~40k (~22 µs, p99 ~0.4 ms). The handler must not
// block: it runs on the queue's thread, and every call queued behind it waits.
//
//   // The service marks the method async in its base (WithAsyncMethod_ValidateMove<...>),
//   // implements its synchronous signature, then:
//   async_.push_back(service::ServedFromQueue(this, &MyService::RequestValidateMove,
//                                             &MyService::ValidateMove));
//   // and hands the methods to Server::Start in HostedService::async_methods.
//
// Server::Start polls `--grpc_cq_threads` queues (one thread each) and arms every async method on
// each; a call re-arms its method as it arrives, so a request is always waiting.
//
// A handler that blocks (a store round trip) is given a WorkerPool: the queue's thread hands the
// call to a worker, which runs the handler and sends the reply; the queue's thread only sees the
// call arrive and the reply leave.
//
// An AsyncHandler does its work without blocking and replies later from wherever it finishes
// (a store's I/O thread), through the `reply` it is given: no thread waits for the store at all.
// That is the clock press's path (ClockAuthority::ExecuteAsync): with a worker per call, each
// press cost two sleeps and two wake-ups (the worker's, and its wait for Redis's reply), which on
// a small machine weighed as much as the press.
#ifndef ARBITER_LIBS_SERVICE_ASYNC_UNARY_H_
#define ARBITER_LIBS_SERVICE_ASYNC_UNARY_H_

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/arena.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/async_unary_call.h"
#include "grpcpp/support/status.h"
#include "libs/base/worker_pool.h"

namespace service {

// What a completion queue hands back: one step of one call.
class CompletionTag {
 public:
  virtual ~CompletionTag() = default;
  // `ok` false: the step did not happen (the server is shutting down, or the client left).
  virtual void Proceed(bool ok) = 0;
};

// One step of a call object that takes several (read, write, finish): the tag that runs
// `(call->*step)(ok)` when the queue hands it back.
template <typename Call>
struct CallStep final : CompletionTag {
  CallStep(Call* c, void (Call::*fn)(bool)) : call(c), step(fn) {}
  void Proceed(bool ok) override { (call->*step)(ok); }
  Call* const call;
  void (Call::*const step)(bool);
};

class AsyncUnaryMethod {
 public:
  virtual ~AsyncUnaryMethod() = default;
  // Asks gRPC for the next call of this method, to be delivered on `cq`.
  virtual void Arm(grpc::ServerCompletionQueue* cq) = 0;
  // After this returns no operation of this method's calls starts: the server closes every
  // method before it shuts its queues down. gRPC aborts the process when an operation starts on a
  // queue that was shut down, and operations start from other threads than the queue's: a
  // stream's producers write, a store's callback answers a unary call.
  void Close() {
    absl::MutexLock lock(&gate_);
    closed_ = true;
  }

 protected:
  // Runs `start`, which starts one operation on a call of this method, unless the method is
  // closed; false (nothing started) when it is. Never nested: the gate is not reentrant.
  template <typename Fn>
  bool StartIfOpen(Fn&& start) {
    absl::ReaderMutexLock lock(&gate_);
    if (closed_) return false;
    start();
    return true;
  }

 private:
  absl::Mutex gate_;
  bool closed_ ABSL_GUARDED_BY(gate_) = false;
};

// A generated service's RequestX: asks for the next call of method X.
template <typename Service, typename Request, typename Response>
using RequestMethod = void (Service::*)(grpc::ServerContext*, Request*,
                                        grpc::ServerAsyncResponseWriter<Response>*,
                                        grpc::CompletionQueue*, grpc::ServerCompletionQueue*,
                                        void*);

template <typename Service, typename Request, typename Response>
class AsyncUnary final : public AsyncUnaryMethod {
 public:
  using RequestFn = RequestMethod<Service, Request, Response>;
  using Handler = std::function<grpc::Status(grpc::ServerContext*, const Request&, Response*)>;
  // Runs on the queue's thread and must not block; calls `reply` exactly once, from any thread,
  // after filling the response.
  using Reply = std::function<void(grpc::Status)>;
  using AsyncHandler =
      std::function<void(grpc::ServerContext*, const Request&, Response*, Reply reply)>;

  // `pool` (may be null: run on the queue's thread) runs the handler when it may block.
  AsyncUnary(Service* service, RequestFn request, Handler handler, base::WorkerPool* pool = nullptr)
      : service_(service), request_(request), handler_(std::move(handler)), pool_(pool) {}
  AsyncUnary(Service* service, RequestFn request, AsyncHandler handler)
      : service_(service), request_(request), async_handler_(std::move(handler)), pool_(nullptr) {}

  void Arm(grpc::ServerCompletionQueue* cq) override {
    StartIfOpen([&] { (new Call(this, cq))->Ask(); });
  }

 private:
  // One call: requested, then (when it arrives) handled and answered, then deleted.
  class Call final : public CompletionTag {
   public:
    Call(AsyncUnary* method, grpc::ServerCompletionQueue* cq)
        : method_(method),
          cq_(cq),
          arena_(ArenaOn(arena_block_)),
          request_(google::protobuf::Arena::CreateMessage<Request>(&arena_)),
          response_(google::protobuf::Arena::CreateMessage<Response>(&arena_)),
          writer_(&ctx_) {}

    void Ask() {
      (method_->service_->*method_->request_)(&ctx_, request_, &writer_, cq_, cq_, this);
    }

    void Proceed(bool ok) override {
      if (!ok || answered_) {
        delete this;  // shutting down, or the reply is sent (or the client is gone)
        return;
      }
      method_->Arm(cq_);  // the next call of this method may arrive while this one runs
      answered_ = true;   // the next event of this call is its reply having left
      if (method_->async_handler_) {
        method_->async_handler_(&ctx_, *request_, response_,
                                [this](const grpc::Status& status) { Send(status); });
        return;
      }
      if (method_->pool_ == nullptr || !method_->pool_->Submit([this] { Answer(); })) {
        Answer();  // no pool (or it is stopping): here
      }
    }

   private:
    void Answer() { Send(method_->handler_(&ctx_, *request_, response_)); }

    // A reply after the server closed the method is not sent, and the call is left to the
    // stopping process: gRPC may still hold its context.
    void Send(const grpc::Status& status) {
      method_->StartIfOpen([&] {
        if (status.ok()) {
          writer_.Finish(*response_, status, this);
        } else {
          writer_.FinishWithError(status, this);
        }
      });
    }

    AsyncUnary* const method_;
    grpc::ServerCompletionQueue* const cq_;
    grpc::ServerContext ctx_;
    // The request and the response live on an arena whose first block is inside the call: their
    // fields (a game's moves, its FEN) cost no allocation and nothing to free one by one.
    static google::protobuf::ArenaOptions ArenaOn(char* block) {
      google::protobuf::ArenaOptions options;
      options.initial_block = block;
      options.initial_block_size = kArenaBlockBytes;
      return options;
    }
    static constexpr size_t kArenaBlockBytes = 4096;
    alignas(16) char arena_block_[kArenaBlockBytes];
    google::protobuf::Arena arena_;
    Request* const request_;
    Response* const response_;
    grpc::ServerAsyncResponseWriter<Response> writer_;
    bool answered_ = false;
  };

  Service* const service_;
  const RequestFn request_;
  const Handler handler_;
  const AsyncHandler async_handler_;
  base::WorkerPool* const pool_;
};

// `handle` (the method's synchronous signature, which gRPC never calls for an async method) served
// from the completion queues: `request` is the RequestX of the service's WithAsyncMethod_X base;
// `pool` as for AsyncUnary.
template <typename Service, typename Request, typename Response>
std::unique_ptr<AsyncUnaryMethod> ServedFromQueue(
    Service* service, typename AsyncUnary<Service, Request, Response>::RequestFn request,
    grpc::Status (Service::*handle)(grpc::ServerContext*, const Request*, Response*),
    base::WorkerPool* pool = nullptr) {
  return std::make_unique<AsyncUnary<Service, Request, Response>>(
      service, request,
      [service, handle](grpc::ServerContext* ctx, const Request& req, Response* resp) {
        return (service->*handle)(ctx, &req, resp);
      },
      pool);
}

// `handle` (the method's signature with a reply to call later) served from the completion
// queues, as above; it runs on the queue's thread and must not block.
template <typename Service, typename Request, typename Response>
std::unique_ptr<AsyncUnaryMethod> ServedFromQueueAsync(
    Service* service, typename AsyncUnary<Service, Request, Response>::RequestFn request,
    void (Service::*handle)(grpc::ServerContext*, const Request*, Response*,
                            typename AsyncUnary<Service, Request, Response>::Reply)) {
  return std::make_unique<AsyncUnary<Service, Request, Response>>(
      service, request,
      typename AsyncUnary<Service, Request, Response>::AsyncHandler(
          [service, handle](grpc::ServerContext* ctx, const Request& req, Response* resp,
                            typename AsyncUnary<Service, Request, Response>::Reply reply) {
            (service->*handle)(ctx, &req, resp, std::move(reply));
          }));
}

// The completion-queue methods of one service, owned here, for HostedService::async_methods:
//   async_.Add(&MyService::RequestValidateMove, &MyService::ValidateMove);
// `request` is the RequestX of the service's WithAsyncMethod_X base.
template <typename Service>
class AsyncMethods {
 public:
  explicit AsyncMethods(Service* service) : service_(service) {}

  // As ServedFromQueue.
  template <typename Base, typename Request, typename Response>
  void Add(RequestMethod<Base, Request, Response> request,
           grpc::Status (Service::*handle)(grpc::ServerContext*, const Request*, Response*),
           base::WorkerPool* pool = nullptr) {
    methods_.push_back(
        ServedFromQueue<Service, Request, Response>(service_, request, handle, pool));
  }
  // A handler that replies later (AsyncUnary's AsyncHandler).
  template <typename Base, typename Request, typename Response>
  void AddAsync(RequestMethod<Base, Request, Response> request,
                typename AsyncUnary<Service, Request, Response>::AsyncHandler handler) {
    methods_.push_back(std::make_unique<AsyncUnary<Service, Request, Response>>(
        service_, request, std::move(handler)));
  }

  // Any other completion-queue method (a stream: async_stream.h).
  void Own(std::unique_ptr<AsyncUnaryMethod> method) { methods_.push_back(std::move(method)); }

  std::vector<AsyncUnaryMethod*> get() const {
    std::vector<AsyncUnaryMethod*> out;
    for (const std::unique_ptr<AsyncUnaryMethod>& m : methods_) out.push_back(m.get());
    return out;
  }

 private:
  Service* const service_;
  std::vector<std::unique_ptr<AsyncUnaryMethod>> methods_;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_ASYNC_UNARY_H_
