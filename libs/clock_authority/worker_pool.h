// A fixed pool of threads running queued tasks in order of arrival. The clock authority's store
// calls block (a Redis round trip, an fsync), so they run here rather than on gRPC's threads or
// the flag scheduler's timer thread.
//
//   WorkerPool pool("clock", 16);
//   pool.Schedule([] { ... });
//   // the destructor runs what is queued, then joins
#ifndef ARBITER_LIBS_CLOCK_AUTHORITY_WORKER_POOL_H_
#define ARBITER_LIBS_CLOCK_AUTHORITY_WORKER_POOL_H_

#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace clockauth {

class WorkerPool {
 public:
  explicit WorkerPool(int threads) {
    for (int i = 0; i < (threads < 1 ? 1 : threads); ++i) threads_.emplace_back([this] { Run(); });
  }
  ~WorkerPool() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
      ready_.SignalAll();
    }
    for (std::thread& t : threads_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Schedule(std::function<void()> task) {
    absl::MutexLock lock(&mu_);
    queue_.push_back(std::move(task));
    ready_.Signal();
  }
  size_t queued() {
    absl::MutexLock lock(&mu_);
    return queue_.size();
  }

 private:
  void Run() {
    while (true) {
      std::function<void()> task;
      {
        absl::MutexLock lock(&mu_);
        // A condition variable, not Mutex::Await: with many idle threads, Await re-evaluates
        // every waiter's condition on each unlock.
        while (!stopping_ && queue_.empty()) ready_.Wait(&mu_);
        if (queue_.empty()) return;  // stopping, and nothing left
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  absl::Mutex mu_;
  absl::CondVar ready_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace clockauth

#endif  // ARBITER_LIBS_CLOCK_AUTHORITY_WORKER_POOL_H_
