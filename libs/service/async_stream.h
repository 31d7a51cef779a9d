// Server-streaming methods served from completion queues: a stream holds no thread while it is
// open, only its call and what it has queued to send. With gRPC's synchronous API every open
// stream held one of the server's threads for its whole life, so a thousand idle watchers (a
// health Watch needs no token) took every thread and the server answered nothing else.
//
// The method's `start` runs on the queue's thread when a call arrives (it must not block: work
// that waits for the store goes to a WorkerPool) and gets the call as a StreamWriter, which any
// thread may write to, later, in order; the stream ends when the producer calls Finish or the
// client leaves (then OnDone's function runs, once, so that the producer lets go).
//
//   auto watch = std::make_unique<AsyncServerStream<Svc, Req, Resp>>(
//       &svc, &Svc::RequestWatch,
//       [](grpc::ServerContext* ctx, const Req& req, std::shared_ptr<StreamWriter<Resp>> out) {
//         out->OnDone([hub, out] { hub->Remove(out.get()); });
//         hub->Add(out);  // the hub's thread calls out->Write(update) as updates come
//       });
//   // and hands watch.get() to Server::Start in HostedService::async_methods.
//
// A writer queues at most `max_backlog` messages that the client has not taken yet (0: no cap);
// beyond that Write refuses (false) and the producer ends the stream: a watcher that reads too
// slowly must not make the server keep everything it did not read.
#ifndef ARBITER_LIBS_SERVICE_ASYNC_STREAM_H_
#define ARBITER_LIBS_SERVICE_ASYNC_STREAM_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/async_stream.h"
#include "grpcpp/support/status.h"
#include "libs/service/async_unary.h"

namespace service {

// One server stream as its producer sees it. Thread-safe.
template <typename Response>
class StreamWriter {
 public:
  virtual ~StreamWriter() = default;
  // Queues `message` to be sent after those queued before it; false (nothing queued) once the
  // stream is ending or over, or when max_backlog messages wait already.
  virtual bool Write(Response message) = 0;
  // Ends the stream with `status` once what is queued has been sent; later calls do nothing.
  virtual void Finish(grpc::Status status) = 0;
  // Messages queued and not yet taken by the client.
  virtual size_t backlog() = 0;
  // `fn` runs once, on whatever thread sees it, when the call is over (finished, cancelled, the
  // client gone, the server stopping); at once if it is over already.
  virtual void OnDone(std::function<void()> fn) = 0;
  // The call (its metadata, its peer); valid until the call is over.
  virtual grpc::ServerContext* context() = 0;
  // Keeps `resource` (a StreamGate slot, a subscription) alive as long as the stream.
  virtual void Keep(std::shared_ptr<void> resource) = 0;
};

template <typename Service, typename Request, typename Response>
class AsyncServerStream final : public AsyncUnaryMethod {
 public:
  // A generated service's RequestX for a server-streaming method X.
  using RequestFn = void (Service::*)(grpc::ServerContext*, Request*,
                                      grpc::ServerAsyncWriter<Response>*, grpc::CompletionQueue*,
                                      grpc::ServerCompletionQueue*, void*);
  using Start = std::function<void(grpc::ServerContext*, const Request&,
                                   std::shared_ptr<StreamWriter<Response>>)>;

  AsyncServerStream(Service* service, RequestFn request, Start start, size_t max_backlog = 0)
      : service_(service), request_(request), start_(std::move(start)), max_backlog_(max_backlog) {}

  void Arm(grpc::ServerCompletionQueue* cq) override {
    StartIfOpen([&] {
      auto call = std::make_shared<Call>(this, cq);
      call->Ask(call);
    });
  }

 private:
  // One call, alive while gRPC holds one of its tags (self_) or a producer holds it.
  class Call final : public StreamWriter<Response> {
   public:
    Call(AsyncServerStream* method, grpc::ServerCompletionQueue* cq)
        : method_(method), cq_(cq), writer_(&ctx_) {}

    void Ask(const std::shared_ptr<Call>& self) {
      self_ = self;
      // Before the request: the one notice of a client that leaves while nothing is being sent.
      ctx_.AsyncNotifyWhenDone(&done_);
      (method_->service_->*method_->request_)(&ctx_, &request_, &writer_, cq_, cq_, &arrived_);
    }

    bool Write(Response message) override {
      absl::MutexLock lock(&mu_);
      if (finish_asked_ || over_) return false;
      if (method_->max_backlog_ > 0 && outbox_.size() >= method_->max_backlog_) return false;
      outbox_.push_back(std::move(message));
      if (!writing_) WriteLocked();
      return true;
    }

    void Finish(grpc::Status status) override {
      absl::MutexLock lock(&mu_);
      if (finish_asked_ || over_) return;
      finish_asked_ = true;
      status_ = std::move(status);
      if (!writing_) FinishLocked();
    }

    size_t backlog() override {
      absl::MutexLock lock(&mu_);
      return outbox_.size();
    }

    void OnDone(std::function<void()> fn) override {
      {
        absl::MutexLock lock(&mu_);
        if (!over_) {
          on_done_ = std::move(fn);
          return;
        }
      }
      fn();
    }

    grpc::ServerContext* context() override { return &ctx_; }

    void Keep(std::shared_ptr<void> resource) override {
      absl::MutexLock lock(&mu_);
      kept_.push_back(std::move(resource));
    }

   private:
    using Step = CallStep<Call>;

    void Arrived(bool ok) {
      if (!ok) {  // the server is stopping: no call came, and no done notice will
        std::shared_ptr<Call> self = std::move(self_);
        return;
      }
      method_->Arm(cq_);  // the next stream may open while this one runs
      {
        absl::MutexLock lock(&mu_);
        started_ = true;
      }
      std::shared_ptr<Call> self = self_;
      method_->start_(&ctx_, request_, self);
    }

    // Once the server closed the method nothing more leaves (AsyncUnaryMethod::Close); the
    // done notice still comes as the queue drains.
    // With more queued behind it, a message is written with the buffer hint: gRPC may hold it to
    // send with those that follow (one flush and one wake-up of the client for many, where a
    // stream of thousands of small updates a second otherwise costs a system call and a wake-up
    // on both sides for each); the last one queued goes without the hint and flushes them all.
    void WriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      grpc::WriteOptions options;
      if (outbox_.size() > 1) options.set_buffer_hint();
      if (!method_->StartIfOpen([&] { writer_.Write(outbox_.front(), options, &written_); })) {
        over_ = true;
        outbox_.clear();
        return;
      }
      writing_ = true;
    }

    void FinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      if (!method_->StartIfOpen([&] { writer_.Finish(status_, &finished_); })) {
        over_ = true;
        return;
      }
      finishing_ = true;
    }

    void Written(bool ok) {
      Released last;
      {
        absl::MutexLock lock(&mu_);
        writing_ = false;
        if (!outbox_.empty()) outbox_.pop_front();
        if (!ok) {  // the client is gone: nothing more leaves
          over_ = true;
          outbox_.clear();
        } else if (!outbox_.empty()) {
          WriteLocked();
        } else if (finish_asked_ && !finishing_) {
          FinishLocked();
        }
        last = ReleaseLocked();
      }
    }

    void Finished(bool) {
      Released last;
      {
        absl::MutexLock lock(&mu_);
        finished_done_ = true;
        last = ReleaseLocked();
      }
    }

    void Done(bool) {
      std::function<void()> on_done;
      Released last;
      {
        absl::MutexLock lock(&mu_);
        over_ = true;
        done_seen_ = true;
        // What waits will not be sent; the message being written stays until its tag returns.
        outbox_.erase(outbox_.begin() + (writing_ ? 1 : 0), outbox_.end());
        on_done = std::move(on_done_);
        last = ReleaseLocked();
      }
      if (on_done) on_done();
    }

    // gRPC's hold on the call (and what the call keeps) ends once the done notice came and no
    // operation is outstanding; the caller lets go of them after unlocking.
    struct Released {
      std::shared_ptr<Call> self;
      std::vector<std::shared_ptr<void>> kept;
    };
    Released ReleaseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      if (!done_seen_ || writing_ || (finishing_ && !finished_done_)) return {};
      return {std::move(self_), std::move(kept_)};
    }

    AsyncServerStream* const method_;
    grpc::ServerCompletionQueue* const cq_;
    grpc::ServerContext ctx_;
    Request request_;
    grpc::ServerAsyncWriter<Response> writer_;
    Step arrived_{this, &Call::Arrived};
    Step written_{this, &Call::Written};
    Step finished_{this, &Call::Finished};
    Step done_{this, &Call::Done};
    std::shared_ptr<Call> self_;

    absl::Mutex mu_;
    std::deque<Response> outbox_ ABSL_GUARDED_BY(mu_);
    std::vector<std::shared_ptr<void>> kept_ ABSL_GUARDED_BY(mu_);
    std::function<void()> on_done_ ABSL_GUARDED_BY(mu_);
    grpc::Status status_ ABSL_GUARDED_BY(mu_);
    bool started_ ABSL_GUARDED_BY(mu_) = false;
    bool writing_ ABSL_GUARDED_BY(mu_) = false;
    bool finish_asked_ ABSL_GUARDED_BY(mu_) = false;
    bool finishing_ ABSL_GUARDED_BY(mu_) = false;
    bool finished_done_ ABSL_GUARDED_BY(mu_) = false;
    bool over_ ABSL_GUARDED_BY(mu_) = false;
    bool done_seen_ ABSL_GUARDED_BY(mu_) = false;
  };

  Service* const service_;
  const RequestFn request_;
  const Start start_;
  const size_t max_backlog_;
};

// A bidirectional stream that answers each message with one reply, in order, from a completion
// queue: read, answer (on the queue's thread: short work only), write, read the next. One
// operation at a time, so the client's pace sets the stream's and nothing piles up. `admit` runs
// once when the stream opens (a non-OK status ends it at once); `answer` for every message.
template <typename Service, typename Request, typename Response>
class AsyncMessageStream final : public AsyncUnaryMethod {
 public:
  using RequestFn = void (Service::*)(grpc::ServerContext*,
                                      grpc::ServerAsyncReaderWriter<Response, Request>*,
                                      grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*);
  // `admit` leaves in `admitted` what every message needs of the stream's admission (its caller).
  using AdmitFn = std::function<grpc::Status(grpc::ServerContext*, std::shared_ptr<void>*)>;
  // `admitted` is what `admit` left; false ends the stream with `*status`.
  using AnswerFn = std::function<bool(grpc::ServerContext*, const std::shared_ptr<void>& admitted,
                                      const Request&, Response*, grpc::Status* status)>;

  AsyncMessageStream(Service* service, RequestFn request, AdmitFn admit, AnswerFn answer)
      : service_(service),
        request_(request),
        admit_(std::move(admit)),
        answer_(std::move(answer)) {}

  void Arm(grpc::ServerCompletionQueue* cq) override {
    StartIfOpen([&] { (new Call(this, cq))->Ask(); });
  }

 private:
  // Its steps run on the queue's thread, which goes on draining after the server closed the
  // method: a step that may not start its next operation leaves the call to the stopping process.
  class Call {
   public:
    Call(AsyncMessageStream* method, grpc::ServerCompletionQueue* cq)
        : method_(method), cq_(cq), stream_(&ctx_) {}

    void Ask() { (method_->service_->*method_->request_)(&ctx_, &stream_, cq_, cq_, &arrived_); }

   private:
    using Step = CallStep<Call>;

    void Arrived(bool ok) {
      if (!ok) {  // the server is stopping: no stream came
        delete this;
        return;
      }
      method_->Arm(cq_);
      grpc::Status admitted = method_->admit_(&ctx_, &admitted_);
      if (!admitted.ok()) return Finish(admitted);
      method_->StartIfOpen([&] { stream_.Read(&request_, &read_); });
    }

    void Read(bool ok) {
      if (!ok) return Finish(grpc::Status::OK);  // the client closed its side, or left
      response_.Clear();
      grpc::Status status;
      if (!method_->answer_(&ctx_, admitted_, request_, &response_, &status)) {
        return Finish(status);
      }
      method_->StartIfOpen([&] { stream_.Write(response_, &written_); });
    }

    void Written(bool ok) {
      if (!ok) return Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      method_->StartIfOpen([&] { stream_.Read(&request_, &read_); });
    }

    void Finish(const grpc::Status& status) {
      method_->StartIfOpen([&] { stream_.Finish(status, &finished_); });
    }
    void Finished(bool) { delete this; }

    AsyncMessageStream* const method_;
    grpc::ServerCompletionQueue* const cq_;
    grpc::ServerContext ctx_;
    grpc::ServerAsyncReaderWriter<Response, Request> stream_;
    std::shared_ptr<void> admitted_;
    Request request_;
    Response response_;
    Step arrived_{this, &Call::Arrived};
    Step read_{this, &Call::Read};
    Step written_{this, &Call::Written};
    Step finished_{this, &Call::Finished};
  };

  Service* const service_;
  const RequestFn request_;
  const AdmitFn admit_;
  const AnswerFn answer_;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_ASYNC_STREAM_H_
