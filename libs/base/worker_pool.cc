#include "libs/base/worker_pool.h"

#include <algorithm>
#include <utility>

namespace base {

WorkerPool::WorkerPool(int threads, int max_queue) : max_queue_(max_queue) {
  threads = std::max(1, threads);
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Stop() {
  absl::MutexLock join(&join_mu_);
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    ready_.SignalAll();
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

bool WorkerPool::Submit(std::function<void()> job) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  // A job waits only when every thread is taken; the queue bounds how many may wait.
  const int free_threads = static_cast<int>(threads_.size()) - busy_;
  if (max_queue_ >= 0 &&
      static_cast<int>(queue_.size()) >= max_queue_ + std::max(0, free_threads)) {
    return false;
  }
  queue_.push_back(std::move(job));
  ready_.Signal();
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
      // A condition variable, not Mutex::Await: with many idle threads, Await re-evaluates every
      // waiter's condition on each unlock.
      while (!stopping_ && queue_.empty()) ready_.Wait(&mu_);
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

}  // namespace base
