// A small fixed pool of threads for long analyses, so that gRPC's callback threads only admit
// and validate a request and never wait for a search (services/search_analysis). A bounded
// queue in front: when every worker is busy and the queue is full, Submit refuses at once and
// the caller answers RESOURCE_EXHAUSTED instead of letting work pile up.
//
//   WorkerPool pool(/*threads=*/2, /*max_queue=*/64);
//   if (!pool.Submit([reactor] { reactor->Finish(Run()); })) reactor->Finish(Busy());
#ifndef ARBITER_SERVICES_SEARCH_ANALYSIS_WORKER_POOL_H_
#define ARBITER_SERVICES_SEARCH_ANALYSIS_WORKER_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace search_analysis {

class WorkerPool {
 public:
  // `threads` >= 1; `max_queue` >= 0 jobs may wait beyond those running.
  WorkerPool(int threads, int max_queue);
  // Runs every job already queued, then joins the threads.
  ~WorkerPool();

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `job`; false (and `job` dropped) when the queue is full or the pool is stopping.
  bool Submit(std::function<void()> job);

  int threads() const { return static_cast<int>(threads_.size()); }
  int queued();  // waiting for a thread
  int busy();    // running

 private:
  void Loop();
  bool HasWorkOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || !queue_.empty();
  }

  const int max_queue_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  int busy_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace search_analysis

#endif  // ARBITER_SERVICES_SEARCH_ANALYSIS_WORKER_POOL_H_
