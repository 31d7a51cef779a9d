// A small synchronous Redis client over hiredis for the Redis game store: a bounded pool of
// connections with connect and read/write timeouts, reconnection, and one error vocabulary.
// - A connection that failed is closed, never reused; the next command opens a new one, so the
//   client reconnects by itself when Redis comes back.
// - A command that fails on a connection taken from the pool (it may have died with a Redis
//   restart) is retried once on a fresh connection; every other failure is returned. Callers only
//   send commands that are safe to repeat: reads, appends (idempotent by command id), releases,
//   and claims (a claim whose reply was lost leaves leases that simply run out).
// - Every failure to reach Redis, a timeout, or a transient error reply (LOADING, BUSY, READONLY,
//   MISCONF, OOM, ...) is UNAVAILABLE with ERR_STORE_UNAVAILABLE and a message naming the address;
//   a refusal of the credentials or of a command for the ACL user (WRONGPASS, NOAUTH, NOPERM) is
//   UNAVAILABLE with ERR_STORE_AUTH; any other error reply is INTERNAL with ERR_STORE_INTERNAL.
// - Pipelining (pipeline_lanes > 0): commands from concurrent callers are queued and sent in
//   batches, each written at once on one pooled connection, the replies read in order. Redis then
//   reads, runs and answers (and, with appendfsync always, fsyncs) a batch per event-loop turn
//   instead of a command per turn and per connection: fewer system calls on both sides, which on a
//   small machine is throughput (see services/clock_authority/README.md, "Measured"). Each
//   command is still answered alone; a batch is not a transaction.
// - CommandAsync: the same batches, sent by `pipeline_lanes` threads of the client's own, and the
//   reply handed to a callback on that thread; the caller never waits. For the hot path of a
//   server (a clock press), where a thread per command waiting for its reply costs more than the
//   command: each wait is a sleep and a wake-up, twice per command.
#ifndef ARBITER_LIBS_STORE_REDIS_CLIENT_H_
#define ARBITER_LIBS_STORE_REDIS_CLIENT_H_

#include <hiredis/hiredis.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace store {

struct RedisConnectionOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  // Authentication, sent on every new connection before its first command: `AUTH user password`
  // (Redis 6+ ACL) when both are set, `AUTH password` (the `default` user, requirepass) when only
  // the password is. A refusal is UNAVAILABLE with ERR_STORE_AUTH naming the user, never the
  // password.
  std::string user;
  std::string password;
  absl::Duration connect_timeout = absl::Milliseconds(500);
  // The read/write timeout of a command, and the longest wait for a free pooled connection.
  absl::Duration command_timeout = absl::Seconds(2);
  int pool_size = 16;  // connections open at most
  // 0: each command on a pooled connection of its own. N > 0: batches of up to `max_batch`
  // commands, at most N in flight (blocking commands, with an extra timeout, go alone).
  int pipeline_lanes = 0;
  int max_batch = 64;
};

// The store's address as --store names it: redis://[user@]host[:port][?password_file=PATH]
// (port 6379 by default; an IPv6 host in brackets). The password is never part of the URL:
// `user:password@` is refused. `password_file` (what --store_password_file adds) is read now,
// at start: its content, trimmed of surrounding whitespace, is the password; a file that is
// missing, empty or more than one line is an error. A user without a password file is refused
// too (the store would only meet NOAUTH later). INVALID_ARGUMENT ERR_BAD_ARGUMENT otherwise.
// Only connection's address and credentials are set; the rest keeps its defaults.
absl::StatusOr<RedisConnectionOptions> ParseRedisUrl(absl::string_view url);

// The content of a password file, trimmed (see ParseRedisUrl).
absl::StatusOr<std::string> ReadRedisPasswordFile(const std::string& path);

struct RedisReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using RedisReplyPtr = std::unique_ptr<redisReply, RedisReplyDeleter>;

// AUTH [user] password on `c` (the ACL form when a user is named, Redis 6+): the reply, or null
// when the connection failed (c->errstr says why).
RedisReplyPtr SendAuth(redisContext* c, absl::string_view user, absl::string_view password);

class RedisClient {
 public:
  explicit RedisClient(RedisConnectionOptions options);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Sends one command and returns its reply, which may be an error reply (see ReplyStatus).
  // `extra_timeout` lengthens the read timeout for a blocking command (XREAD BLOCK).
  absl::StatusOr<RedisReplyPtr> Command(const std::vector<std::string>& args,
                                        absl::Duration extra_timeout = absl::ZeroDuration());

  using ReplyCallback = std::function<void(absl::StatusOr<RedisReplyPtr>)>;
  // Sends one command without waiting for it: `done` runs once with what Command would return,
  // on one of the client's lane threads (on the caller's, after a plain Command, when the client
  // has no lanes). `done` must not block for long: the lane's next batch waits for it.
  void CommandAsync(std::vector<std::string> args, ReplyCallback done);

  // OK for a reply that is not an error; the mapped status of an error reply.
  absl::Status ReplyStatus(const redisReply& reply) const;

  // UNAVAILABLE / ERR_STORE_UNAVAILABLE naming this client's address.
  absl::Status Unavailable(absl::string_view what) const;

  const std::string& address() const { return address_; }

 private:
  struct Lease {
    redisContext* context;
    bool reused;
  };
  // One caller's command while it waits in the pipeline's queue.
  struct Pending {
    const std::vector<std::string>* args;
    absl::StatusOr<RedisReplyPtr> result;
    bool answered = false;  // result set by a batch (under batch_mu_ once published)
    bool done = false;      // the batch that carried it is over
    absl::CondVar cv;       // signalled when done, or when this caller may lead a batch
  };
  struct AsyncCommand {
    std::vector<std::string> args;
    ReplyCallback done;
  };
  // A lane thread: sends what CommandAsync queued, a batch at a time, and runs the callbacks.
  void LaneLoop();
  absl::StatusOr<RedisReplyPtr> CommandAlone(const std::vector<std::string>& args,
                                             absl::Duration extra_timeout);
  absl::StatusOr<RedisReplyPtr> CommandPipelined(const std::vector<std::string>& args);
  // Sends the batch on one pooled connection and fills every result. A command alone is a batch
  // of one; `extra_timeout` lengthens the read timeout (blocking commands).
  void RunBatch(const std::vector<Pending*>& batch,
                absl::Duration extra_timeout = absl::ZeroDuration());
  absl::StatusOr<Lease> Acquire();
  void Release(redisContext* context, bool healthy);
  void DiscardIdle();
  absl::StatusOr<redisContext*> Connect();

  const RedisConnectionOptions options_;
  const std::string address_;
  absl::Mutex mu_;
  std::vector<redisContext*> idle_ ABSL_GUARDED_BY(mu_);
  int open_ ABSL_GUARDED_BY(mu_) = 0;

  absl::Mutex batch_mu_;
  std::deque<Pending*> queue_ ABSL_GUARDED_BY(batch_mu_);
  int leaders_ ABSL_GUARDED_BY(batch_mu_) = 0;  // batches in flight

  absl::Mutex async_mu_;
  absl::CondVar async_cv_;  // a lane: commands queued, or stop
  std::deque<AsyncCommand> async_queue_ ABSL_GUARDED_BY(async_mu_);
  int idle_lanes_ ABSL_GUARDED_BY(async_mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(async_mu_) = false;
  std::vector<std::thread> lanes_ ABSL_GUARDED_BY(async_mu_);  // started by the first CommandAsync
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_REDIS_CLIENT_H_
