#include "services/search_analysis/worker_pool.h"

#include <algorithm>
#include <utility>

namespace search_analysis {

WorkerPool::WorkerPool(int threads, int max_queue) : max_queue_(std::max(0, max_queue)) {
  threads = std::max(1, threads);
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

WorkerPool::~WorkerPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

bool WorkerPool::Submit(std::function<void()> job) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  // A job waits only when every thread is taken; the queue bounds how many may wait.
  const int free_threads = static_cast<int>(threads_.size()) - busy_;
  if (static_cast<int>(queue_.size()) >= max_queue_ + std::max(0, free_threads)) return false;
  queue_.push_back(std::move(job));
  return true;
}

int WorkerPool::queued() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(queue_.size());
}

int WorkerPool::busy() {
  absl::MutexLock lock(&mu_);
  return busy_;
}

void WorkerPool::Loop() {
  while (true) {
    std::function<void()> job;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &WorkerPool::HasWorkOrStopping));
      if (queue_.empty()) return;  // stopping, and nothing left to run
      job = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
    }
    job();
    absl::MutexLock lock(&mu_);
    --busy_;
  }
}

}  // namespace search_analysis
