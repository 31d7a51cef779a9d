// Pipelining (redis_client.h): the callers' commands in batches, led by one caller at a time
// (Command) or sent by the lanes (CommandAsync), and the flow, one connection written without
// waiting and read by a thread of its own.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "libs/store/internal/redis_replies.h"
#include "libs/store/redis_client.h"

namespace store {

using internal::NotTheMaster;

void RedisClient::CommandAsync(std::vector<std::string> args, ReplyCallback done,
                               Durability durability) {
  if (uses_cluster()) {
    ClusterCommandAsync(std::move(args), std::move(done), durability);
    return;
  }
  if (options_.pipeline_lanes <= 0) {
    done(CommandAlone(args, absl::ZeroDuration(), durability));
    return;
  }
  if (FlowAsync(args, done, durability)) return;
  LaneAsync(std::move(args), std::move(done), durability);
}

void RedisClient::LaneAsync(std::vector<std::string> args, ReplyCallback done,
                            Durability durability) {
  {
    absl::MutexLock lock(&async_mu_);
    if (!stopping_) {
      if (lanes_.empty()) {
        for (int i = 0; i < options_.pipeline_lanes; ++i) {
          lanes_.emplace_back([this] { LaneLoop(); });
        }
        if (options_.async_flow) flow_reader_ = std::thread([this] { FlowLoop(); });
      }
      async_queue_.push_back({std::move(args), std::move(done), durability});
      // A busy lane looks at the queue before it sleeps: only an idle one needs waking.
      if (idle_lanes_ > 0) async_cv_.Signal();
      return;
    }
  }
  done(Unavailable("the client is shutting down"));
}

void RedisClient::LaneLoop() {
  std::vector<AsyncCommand> batch;
  while (true) {
    batch.clear();
    {
      absl::MutexLock lock(&async_mu_);
      while (async_queue_.empty() && !stopping_) {
        ++idle_lanes_;
        async_cv_.Wait(&async_mu_);
        --idle_lanes_;
      }
      if (async_queue_.empty()) return;  // stopping, and nothing left to send
      const size_t n = std::min<size_t>(async_queue_.size(), std::max(1, options_.max_batch));
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(async_queue_.front()));
        async_queue_.pop_front();
      }
    }
    std::vector<Pending> pending(batch.size());
    std::vector<Pending*> ptrs(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      pending[i].args = &batch[i].args;
      pending[i].durability = batch[i].durability;
      ptrs[i] = &pending[i];
    }
    RunBatch(ptrs);
    for (size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(pending[i].result));
  }
}

absl::StatusOr<RedisReplyPtr> RedisClient::CommandPipelined(const std::vector<std::string>& args,
                                                            Durability durability) {
  Pending mine;
  mine.args = &args;
  mine.durability = durability;
  absl::MutexLock lock(&batch_mu_);
  queue_.push_back(&mine);
  while (true) {
    while (!mine.done && (queue_.empty() || leaders_ >= options_.pipeline_lanes)) {
      mine.cv.Wait(&batch_mu_);
    }
    if (mine.done) return std::move(mine.result);
    // Lead a batch: the oldest queued commands (this caller's own among them, or in a later one).
    ++leaders_;
    std::vector<Pending*> batch;
    const size_t n = std::min<size_t>(queue_.size(), std::max(1, options_.max_batch));
    batch.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    batch_mu_.Unlock();
    RunBatch(batch);
    batch_mu_.Lock();
    --leaders_;
    for (Pending* p : batch) {
      p->done = true;
      if (p != &mine) p->cv.Signal();
    }
    // Hand the lead on rather than keep it: this caller's reply is ready now.
    if (!queue_.empty()) queue_.front()->cv.Signal();
  }
}

bool RedisClient::flow_ready() {
  absl::MutexLock lock(&flow_mu_);
  return flow_ != nullptr && !flow_broken_ && !flow_stopping_;
}

bool RedisClient::FlowAsync(std::vector<std::string>& args, ReplyCallback& done,
                            Durability durability) {
  if (!options_.async_flow) return false;
  // A replicated write waits for its WAIT, which the lanes send after a batch.
  if (durability == Durability::kReplicated && options_.min_replica_acks > 0) return false;
  absl::InlinedVector<const char*, 16> argv;
  absl::InlinedVector<size_t, 16> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  char* command = nullptr;
  const long long length =
      redisFormatCommandArgv(&command, static_cast<int>(argv.size()), argv.data(), lens.data());
  if (length < 0) return false;
  absl::MutexLock lock(&flow_mu_);
  if (flow_ == nullptr || flow_broken_ || flow_stopping_ ||
      flow_in_flight_.size() >= static_cast<size_t>(std::max(1, options_.max_flow_in_flight))) {
    redisFreeCommand(command);
    return false;
  }
  flow_in_flight_.push_back({std::move(args), std::move(done), durability, absl::Now()});
  // The socket is blocking, with the command timeout (redisSetTimeout): a write waits only when
  // Redis stopped reading for long. A failed or partial write leaves the stream unusable: the
  // reader closes it and hands this command and those before it to the lanes.
  for (long long sent = 0; sent < length;) {
    const ssize_t n =
        ::send(flow_->fd, command + sent, static_cast<size_t>(length - sent), MSG_NOSIGNAL);
    if (n > 0) {
      sent += n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      flow_broken_ = true;
      ::shutdown(flow_->fd, SHUT_RDWR);
      break;
    }
  }
  redisFreeCommand(command);
  return true;
}

void RedisClient::BreakFlow(const absl::Status& failure, bool forget_master) {
  redisContext* c = nullptr;
  std::uint64_t epoch = 0;
  std::deque<FlowCommand> pending;
  {
    absl::MutexLock lock(&flow_mu_);
    c = flow_;
    epoch = flow_epoch_;
    flow_ = nullptr;
    flow_broken_ = false;
    pending.swap(flow_in_flight_);
  }
  if (c != nullptr) redisFree(c);
  if (forget_master) ForgetMaster(epoch);
  // A command may have run without its reply reaching us: sending it again is safe (see the
  // header). A timeout is not retried, as on the lanes: the caller hears of it.
  for (FlowCommand& p : pending) {
    if (!failure.ok()) {
      p.done(failure);
    } else {
      LaneAsync(std::move(p.args), std::move(p.done), p.durability);
    }
  }
}

void RedisClient::FlowLoop() {
  char buffer[16 * 1024];
  absl::Duration backoff = options_.rediscover_backoff;
  while (true) {
    redisContext* c = nullptr;
    bool broken = false;
    {
      absl::MutexLock lock(&flow_mu_);
      if (flow_stopping_ && flow_in_flight_.empty()) break;
      c = flow_;
      broken = flow_broken_;
    }
    if (broken) {
      BreakFlow(absl::OkStatus(), /*forget_master=*/false);
      continue;
    }
    if (c == nullptr) {
      // Connect (with Sentinel, to the master it names now); meanwhile the lanes send everything.
      absl::StatusOr<Lease> lease = Connect();
      absl::MutexLock lock(&flow_mu_);
      if (flow_stopping_) {
        if (lease.ok()) redisFree(lease->context);
        break;
      }
      if (!lease.ok()) {
        flow_mu_.AwaitWithTimeout(absl::Condition(&flow_stopping_), backoff);
        backoff = std::min(backoff * 2, std::max(options_.rediscover_backoff, absl::Seconds(1)));
        continue;
      }
      backoff = options_.rediscover_backoff;
      flow_ = lease->context;
      flow_epoch_ = lease->epoch;
      flow_broken_ = false;
      continue;
    }
    const ssize_t n = ::recv(c->fd, buffer, sizeof(buffer), 0);
    if (n > 0) {
      bool out_of_step = redisReaderFeed(c->reader, buffer, static_cast<size_t>(n)) != REDIS_OK;
      bool not_master = false;
      while (!out_of_step && !not_master) {
        void* reply = nullptr;
        if (redisReaderGetReply(c->reader, &reply) != REDIS_OK) {
          out_of_step = true;  // not the protocol: nothing read from here on can be trusted
          break;
        }
        if (reply == nullptr) break;  // the rest of a reply is still on its way
        RedisReplyPtr r(static_cast<redisReply*>(reply));
        FlowCommand command;
        {
          absl::MutexLock lock(&flow_mu_);
          if (flow_in_flight_.empty()) {
            out_of_step = true;  // a reply to no command
            break;
          }
          command = std::move(flow_in_flight_.front());
          flow_in_flight_.pop_front();
        }
        if (NotTheMaster(*r)) {
          // It did not run: the lanes send it again, after asking the Sentinels (RunBatch).
          not_master = true;
          LaneAsync(std::move(command.args), std::move(command.done), command.durability);
          break;
        }
        command.done(std::move(r));
      }
      if (out_of_step || not_master) BreakFlow(absl::OkStatus(), /*forget_master=*/true);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // No byte for a command timeout (the socket's receive timeout): idle, or stuck.
      absl::Status stuck;
      {
        absl::MutexLock lock(&flow_mu_);
        if (!flow_in_flight_.empty() &&
            absl::Now() - flow_in_flight_.front().sent >= options_.command_timeout) {
          stuck =
              Unavailable(absl::StrCat(flow_in_flight_.front().args.front(), ": no reply within ",
                                       absl::FormatDuration(options_.command_timeout)));
        }
      }
      if (!stuck.ok()) BreakFlow(stuck, /*forget_master=*/true);
      continue;
    }
    {
      // Closed by us to stop, with nothing awaiting a reply: not a sign of a failover.
      absl::MutexLock lock(&flow_mu_);
      if (flow_stopping_ && flow_in_flight_.empty()) break;
    }
    // Closed by the server (a restart, a failover) or by us (a failed write).
    BreakFlow(absl::OkStatus(), /*forget_master=*/true);
  }
  redisContext* c = nullptr;
  {
    absl::MutexLock lock(&flow_mu_);
    c = flow_;
    flow_ = nullptr;
  }
  if (c != nullptr) redisFree(c);
}

}  // namespace store
