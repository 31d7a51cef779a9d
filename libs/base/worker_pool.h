// A fixed pool of threads for work that must not run on the thread that received the call: long
// analyses (services/search_analysis) and blocking store calls (the clock service, whose calls
// arrive on a completion queue's thread: libs/service/async_unary.h).
// With a bounded queue, Submit refuses at once when every worker is busy and the queue is full,
// so the caller can answer RESOURCE_EXHAUSTED instead of letting work pile up; max_queue < 0
// means unbounded.
//
//   WorkerPool pool(/*threads=*/2, /*max_queue=*/64);
//   if (!pool.Submit([job] { job->Run(); })) return Busy();
#ifndef ARBITER_LIBS_BASE_WORKER_POOL_H_
#define ARBITER_LIBS_BASE_WORKER_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace base {

class WorkerPool {
 public:
  // `threads` >= 1; up to `max_queue` jobs may wait beyond those running (< 0: no limit).
  WorkerPool(int threads, int max_queue = -1);
  // Stop().
  ~WorkerPool();

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `job`; false (and `job` dropped) when the queue is full or the pool is stopping.
  bool Submit(std::function<void()> job);
  // Refuses new jobs (Submit is false from now on, also for the jobs still running), runs every
  // job already queued, then joins the threads. The pool stays a valid object until destroyed,
  // so a job that submits more while it stops is refused rather than calling into freed memory.
  // Idempotent; not from one of the pool's own jobs.
  void Stop();

  int threads() const { return static_cast<int>(threads_.size()); }
  int queued();  // waiting for a thread
  int busy();    // running

 private:
  void Loop();

  const int max_queue_;
  absl::Mutex mu_;
  absl::CondVar ready_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  int busy_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
  absl::Mutex join_mu_;  // one Stop joins
};

}  // namespace base

#endif  // ARBITER_LIBS_BASE_WORKER_POOL_H_
