#include "services/arbitration/move_stream.h"

#include <deque>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/async_stream.h"
#include "libs/service/grpc_status.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "services/arbitration/arbitration_service.h"

namespace arbitration_service {

namespace v1 = arbiter::v1;

// One stream: asked for, admitted, then read and answered until the client closes its side (or
// goes away), then finished and deleted once nothing of it is pending: no gRPC operation
// outstanding and no move still being decided or appended (their replies run on the store's
// threads and refer to the stream).
class MoveStreamMethod::Stream {
 public:
  Stream(MoveStreamMethod* method, grpc::ServerCompletionQueue* cq)
      : method_(method), cq_(cq), stream_(&ctx_) {}

  void Ask() { method_->service_->RequestSubmitMoves(&ctx_, &stream_, cq_, cq_, &arrived_); }

 private:
  // A completion-queue tag that runs one of the stream's steps.
  using Step = service::CallStep<Stream>;

  // A move read from the stream, until its reply is queued.
  struct Move {
    std::int64_t sequence = 0;
    v1::SubmitMoveRequest request;
    v1::GameReply reply;
  };

  void Arrived(bool ok) {
    if (!ok) {  // the server is shutting down: no stream came
      delete this;
      return;
    }
    method_->Arm(cq_);  // the next stream may open while this one runs
    absl::StatusOr<service::Principal> who =
        method_->env_->Admit(ctx_, ArbitrationService::FullMethod("SubmitMoves"), nullptr);
    absl::MutexLock lock(&mu_);
    if (!who.ok()) {
      reads_done_ = true;
      FinishLocked(service::ToGrpcStatus(who.status()));
      return;
    }
    ReadLocked();
  }

  void ReadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    reading_ = true;
    stream_.Read(&incoming_, &read_);
  }

  void Read(bool ok) {
    std::unique_ptr<Move> move;
    {
      absl::MutexLock lock(&mu_);
      reading_ = false;
      if (!ok) {  // the client closed its side, or left
        reads_done_ = true;
        MaybeFinishLocked();
        return;
      }
      move = std::make_unique<Move>();
      move->sequence = ++last_sequence_;
      move->request.Swap(&incoming_);
      ++moves_in_flight_;
      // The next request is read while this one is decided, unless too many wait already.
      if (moves_in_flight_ < kMaxMovesInFlight && !broken_) ReadLocked();
      // A game with a move being decided: this one waits for its answer.
      auto [queue, idle] = games_.try_emplace(move->request.game_id());
      if (!idle) {
        queue->second.push_back(move.release());
        return;
      }
    }
    Serve(move.release());
  }

  // Serves `m` as a SubmitMove call of this stream (its metadata, its deadline), then each move of
  // its game that waited for it. A reply may come at once (a refusal, on this thread) or from the
  // store's thread, never under mu_; one that comes at once hands the game's next move back here
  // (Answered) rather than serving it inside the call, so a game's queue is a loop, not a
  // recursion as deep as the queue.
  void Serve(Move* m) {
    while (m != nullptr) {
      Move* next = nullptr;
      Handoff handoff{m, &next, handoff_};
      handoff_ = &handoff;
      method_->service_->SubmitStreamedMove(
          &ctx_, &m->request, &m->reply,
          [this, m](const grpc::Status& status) { Answered(m, status); });
      handoff_ = handoff.outer;
      m = next;
    }
  }

  void Answered(Move* m, const grpc::Status& status) {
    // Answered inside Serve's call for it (at once, on this thread): Serve goes on with the next.
    Move** serve_next = handoff_ != nullptr && handoff_->serving == m ? handoff_->next : nullptr;
    Move* next = NextOfGame(m->request.game_id());
    std::unique_ptr<Move> move(m);
    auto reply = std::make_unique<v1::SubmitMovesReply>();
    reply->set_sequence(move->sequence);
    reply->set_game_id(move->request.game_id());
    reply->set_command_id(move->request.command_id());
    reply->set_code(status.error_code());
    if (status.ok()) {
      reply->mutable_game()->Swap(&move->reply);
    } else {
      *reply->mutable_error() = service::ErrorInfoOf(status);
      if (reply->error().message().empty()) {
        reply->mutable_error()->set_message(status.error_message());
      }
    }
    bool done = false;
    {
      absl::MutexLock lock(&mu_);
      --moves_in_flight_;
      if (!broken_) {
        outbox_.push_back(std::move(reply));
        if (!writing_) WriteLocked();
        if (!reading_ && !reads_done_ && moves_in_flight_ < kMaxMovesInFlight) ReadLocked();
      }
      MaybeFinishLocked();
      done = DoneLocked();
    }
    // A waiting move is in flight: the stream is not done while there is one.
    if (done) {
      delete this;
    } else if (next != nullptr) {
      if (serve_next != nullptr) {
        *serve_next = next;
      } else {
        Serve(next);
      }
    }
  }

  void WriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    writing_ = true;
    stream_.Write(*outbox_.front(), &written_);
  }

  void Written(bool ok) {
    bool done = false;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      outbox_.pop_front();
      if (!ok) {  // the client is gone: what is still being decided is recorded, not answered
        broken_ = true;
        outbox_.clear();
      } else if (!outbox_.empty()) {
        WriteLocked();
      }
      MaybeFinishLocked();
      done = DoneLocked();
    }
    if (done) delete this;
  }

  // Finishes once the client closed its side (or left) and every move read is answered.
  void MaybeFinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finishing_ || reading_ || writing_ || moves_in_flight_ > 0 || !outbox_.empty()) return;
    if (!reads_done_ && !broken_) return;
    FinishLocked(grpc::Status::OK);
  }

  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    finishing_ = true;
    stream_.Finish(status, &finished_);
  }

  void Finished(bool) {
    bool done = false;
    {
      absl::MutexLock lock(&mu_);
      finished_done_ = true;
      done = DoneLocked();
    }
    if (done) delete this;
  }

  // The game's next waiting move (now being served), or null: the game has none waiting.
  Move* NextOfGame(const std::string& game_id) {
    absl::MutexLock lock(&mu_);
    auto it = games_.find(game_id);
    if (it == games_.end()) return nullptr;
    if (it->second.empty()) {
      games_.erase(it);
      return nullptr;
    }
    Move* next = it->second.front();
    it->second.pop_front();
    return next;
  }

  bool DoneLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return finished_done_ && !reading_ && !writing_ && moves_in_flight_ == 0;
  }

  MoveStreamMethod* const method_;
  grpc::ServerCompletionQueue* const cq_;
  grpc::ServerContext ctx_;
  grpc::ServerAsyncReaderWriter<v1::SubmitMovesReply, v1::SubmitMoveRequest> stream_;
  Step arrived_{this, &Stream::Arrived};
  Step read_{this, &Stream::Read};
  Step written_{this, &Stream::Written};
  Step finished_{this, &Stream::Finished};
  v1::SubmitMoveRequest incoming_;  // the Read in flight fills it

  // Serve's call on this thread: the move it serves and where an answer given at once puts the
  // game's next move (the innermost of nested Serves of different streams).
  struct Handoff {
    Move* serving;
    Move** next;
    Handoff* outer;
  };
  static thread_local Handoff* handoff_;

  absl::Mutex mu_;
  // The games with a move being decided, each with its moves read since, in order.
  absl::flat_hash_map<std::string, std::deque<Move*>> games_ ABSL_GUARDED_BY(mu_);
  std::deque<std::unique_ptr<v1::SubmitMovesReply>> outbox_ ABSL_GUARDED_BY(mu_);
  std::int64_t last_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  int moves_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  bool reading_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
  bool broken_ ABSL_GUARDED_BY(mu_) = false;
  bool finishing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_done_ ABSL_GUARDED_BY(mu_) = false;
};

thread_local MoveStreamMethod::Stream::Handoff* MoveStreamMethod::Stream::handoff_ = nullptr;

void MoveStreamMethod::Arm(grpc::ServerCompletionQueue* cq) { (new Stream(this, cq))->Ask(); }

}  // namespace arbitration_service
