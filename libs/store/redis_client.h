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
// - The flow (CommandAsync, `async_flow`, on by default with lanes): one connection on which the
//   caller's thread writes each command at once, never waiting, and one reader thread that reads
//   the replies as Redis sends them (a whole event-loop turn's at a time) and runs the callbacks
//   in order. Nothing waits for a batch's replies before the next command leaves, and no thread
//   is woken to send: per command, one wake-up fewer on the caller's side than a lane's hand-off,
//   and Redis reads one socket instead of one per lane. The lanes stay for what the flow does not
//   do: a command while the flow has no connection (at start, after a failure, while it
//   reconnects), a replicated write when min_replica_acks > 0 (its WAIT), and the commands in
//   flight when the connection broke or the server said READONLY/MASTERDOWN, which are handed to
//   the lanes to be sent again (every async command is safe to repeat; see above).
// - Sentinel (`sentinels` set): the master's address is asked of the Sentinels in turn
//   (SENTINEL get-master-addr-by-name), and checked with ROLE before use (a demoted master says
//   "slave"). A broken or timed-out connection, READONLY or MASTERDOWN forgets the master: the
//   next command asks the Sentinels again (at most every `rediscover_backoff`, doubling up to
//   `rediscover_backoff_max` while no master is found), so the client follows a failover without
//   a restart. A command refused with READONLY/MASTERDOWN did not run and is sent once more to
//   the new master.
// - Durable commands (Durability::kReplicated, the store's appends) with min_replica_acks > 0:
//   `WAIT min_replica_acks replica_ack_timeout` is written right after them on the same
//   connection, in the same round trip (one WAIT covers a whole pipelined batch: it waits for
//   everything the connection wrote). Fewer acknowledgements than asked: the command's reply is
//   replaced by UNAVAILABLE (it may or may not have landed, and may be lost by a failover; the
//   caller retries, appends being idempotent by command id), and the master is checked again.
// - Redis Cluster (`cluster_nodes` set, redis+cluster:// URL; redis_cluster.cc): the client learns
//   the slot map (CLUSTER SLOTS, asking the masters it knows, then the seed nodes) and keeps one
//   RedisClient per master, each with its own pool, lanes, flow and WAIT: every command goes to
//   the master of its key's slot (the key is found by the command's form: FCALL's first key,
//   XREAD's first stream, else the first argument; the store keeps every multi-key command in one
//   slot). MOVED updates that slot and re-learns the map (at most every `rediscover_backoff`),
//   then sends the command there; ASK sends ASKING and the command to the node named, once,
//   without touching the map (a slot being migrated); TRYAGAIN (a multi-key command while its
//   keys are split by a migration) and CLUSTERDOWN are sent again after a backoff (10 ms
//   doubling to 200 ms), and a node that does not answer or says READONLY (a master demoted by a
//   failover) makes the client re-learn the map and send the command again, all within
//   `command_timeout` from the first try; past it the last failure is returned. Every command is
//   safe to repeat (see above). Commands without a key (TIME, PING, FCALL with no key) go to the
//   master of slot 0. master_switches() counts changes of the set of masters (a failover, a
//   master added or removed), not slots moving between them (a reshard moves the keys with
//   their data).
#ifndef ARBITER_LIBS_STORE_REDIS_CLIENT_H_
#define ARBITER_LIBS_STORE_REDIS_CLIENT_H_

#include <hiredis/hiredis.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace store {

struct RedisAddress {
  std::string host;
  int port = 0;
};

// What the client reports about failovers (libs/service/redis_store_metrics.h makes the
// Prometheus one). Called from the client's threads; must not block.
class RedisFailoverObserver {
 public:
  virtual ~RedisFailoverObserver() = default;
  // The client moved to a master at another address than the one it used before.
  virtual void OnMasterSwitch() {}
  // true: no writable master is known right now (forgotten after an error, not found again yet);
  // false: one is.
  virtual void OnFailoverInProgress(bool in_progress) {}
  // A durable command was not acknowledged by min_replica_acks replicas in time.
  virtual void OnReplicaAckFailure() {}
};

// Whether a command's reply waits for replicas (see min_replica_acks).
enum class Durability { kNone, kReplicated };

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
  // With lanes: CommandAsync writes on the flow's connection (see above); false: lanes only.
  bool async_flow = true;
  // The flow's commands awaiting replies at most; beyond, CommandAsync uses the lanes.
  int max_flow_in_flight = 4096;

  // Sentinel: when not empty, host/port are ignored and the master of `master_name` is found
  // through these Sentinels (redis+sentinel:// URL). `sentinel_password`: AUTH <password> sent to
  // each Sentinel (their `requirepass`); "" sends none.
  std::vector<RedisAddress> sentinels;
  std::string master_name;
  std::string sentinel_password;
  // Redis Cluster: when not empty, host/port are ignored and these nodes (any of the cluster's,
  // the seed) are asked for the slot map (redis+cluster:// URL); see above.
  std::vector<RedisAddress> cluster_nodes;
  absl::Duration rediscover_backoff = absl::Milliseconds(50);
  absl::Duration rediscover_backoff_max = absl::Milliseconds(500);

  // Durability::kReplicated commands wait for this many replicas (0 = off: the reply is the
  // master's alone) for at most replica_ack_timeout.
  int min_replica_acks = 0;
  absl::Duration replica_ack_timeout = absl::Milliseconds(100);

  // Told about master switches, failovers and missed acknowledgements; may be null.
  std::shared_ptr<RedisFailoverObserver> observer;
};

// The store's address as --store names it: redis://[user@]host[:port][?password_file=PATH]
// (port 6379 by default; an IPv6 host in brackets), or, through Sentinel,
// redis+sentinel://[user@]host1[:port1],host2[:port2],.../MASTER_NAME[?password_file=PATH]
// (Sentinel port 26379 by default; the user and password are the master's), or on Redis Cluster
// redis+cluster://[user@]host1[:port1],host2[:port2],...[?password_file=PATH] (seed nodes, port
// 6379 by default; the user and password are every node's). Further parameters,
// `&`-separated, for both forms: min_replica_acks=N, replica_ack_timeout=DURATION (e.g. 100ms),
// and for Sentinel sentinel_password_file=PATH (read like password_file). The password is never
// part of the URL: `user:password@` is refused. `password_file` (what --store_password_file adds)
// is read now, at start: its content, trimmed of surrounding whitespace, is the password; a file
// that is missing, empty or more than one line is an error. A user without a password file is
// refused too (the store would only meet NOAUTH later). INVALID_ARGUMENT ERR_BAD_ARGUMENT
// otherwise. Only connection's address and credentials are set; the rest keeps its defaults.
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
  // kReplicated: the reply only once min_replica_acks replicas have the write (see above).
  absl::StatusOr<RedisReplyPtr> Command(const std::vector<std::string>& args,
                                        absl::Duration extra_timeout = absl::ZeroDuration(),
                                        Durability durability = Durability::kNone);

  using ReplyCallback = std::function<void(absl::StatusOr<RedisReplyPtr>)>;
  // Sends one command without waiting for it: `done` runs once with what Command would return,
  // on one of the client's lane threads (on the caller's, after a plain Command, when the client
  // has no lanes). `done` must not block for long: the lane's next batch waits for it.
  void CommandAsync(std::vector<std::string> args, ReplyCallback done,
                    Durability durability = Durability::kNone);

  // Sends `commands` at once on one connection (one write, the replies read in order) and returns
  // each one's reply as Command would, in their order: many cheap reads in one round trip. On a
  // cluster, one such batch per master of the commands' slots; a reply that asks for more (MOVED,
  // ASK, TRYAGAIN, CLUSTERDOWN, a node that did not answer) is followed for that command alone,
  // as Command follows it. Not for durable commands: nothing waits for replicas.
  std::vector<absl::StatusOr<RedisReplyPtr>> CommandBatch(
      const std::vector<std::vector<std::string>>& commands);

  // Whether CommandAsync writes on the flow right now (its connection is open and usable; false
  // on a cluster, where each master's client has a flow of its own).
  bool flow_ready() ABSL_LOCKS_EXCLUDED(flow_mu_);

  // Cluster: sends `args` to every master of the map (learning it first) and returns the first
  // failure or error reply's status, OK when every master answered without error. Without a
  // cluster, Command's status.
  absl::Status CommandOnEveryMaster(const std::vector<std::string>& args);

  // OK for a reply that is not an error; the mapped status of an error reply.
  absl::Status ReplyStatus(const redisReply& reply) const;

  // UNAVAILABLE / ERR_STORE_UNAVAILABLE naming this client's address.
  absl::Status Unavailable(absl::string_view what) const;

  // The address commands go to: host:port, or with Sentinel the master in use
  // ("MASTER_NAME@sentinel" while none is known).
  std::string address() const;
  bool uses_sentinel() const { return !options_.sentinels.empty(); }
  bool uses_cluster() const { return !options_.cluster_nodes.empty(); }
  // With Sentinel or a cluster: the master may change under the client.
  bool follows_master() const { return uses_sentinel() || uses_cluster(); }
  // How many times the client moved to a master at another address than the one it used before
  // (what OnMasterSwitch reports); 0 without Sentinel.
  std::uint64_t master_switches() const { return master_switches_.load(); }

 private:
  struct Lease {
    redisContext* context;
    bool reused;
    std::uint64_t epoch;  // the master it was opened to (see master_epoch_)
  };
  struct Idle {
    redisContext* context;
    std::uint64_t epoch;
  };
  // One caller's command while it waits in the pipeline's queue.
  struct Pending {
    const std::vector<std::string>* args;
    Durability durability = Durability::kNone;
    absl::StatusOr<RedisReplyPtr> result;
    bool asking = false;    // cluster: ASKING first, on the same connection (an ASK redirection)
    bool answered = false;  // result set by a batch (under batch_mu_ once published)
    bool done = false;      // the batch that carried it is over
    absl::CondVar cv;       // signalled when done, or when this caller may lead a batch
  };
  struct AsyncCommand {
    std::vector<std::string> args;
    ReplyCallback done;
    Durability durability;
  };
  // A command written on the flow's connection, awaiting its reply.
  struct FlowCommand {
    std::vector<std::string> args;  // kept to hand it to the lanes if the connection breaks
    ReplyCallback done;
    Durability durability;
    absl::Time sent;
  };
  // A lane thread: sends what CommandAsync queued, a batch at a time, and runs the callbacks.
  void LaneLoop();
  // Queues the command for the lanes (starting them, and the flow's reader, the first time).
  void LaneAsync(std::vector<std::string> args, ReplyCallback done, Durability durability);
  // Writes the command on the flow's connection; false (args and done untouched) when the flow
  // cannot take it now.
  bool FlowAsync(std::vector<std::string>& args, ReplyCallback& done, Durability durability);
  // The flow's reader thread: connects, reads the replies, answers the commands in order.
  void FlowLoop();
  // Closes the flow's connection; what awaited a reply goes to the lanes, or fails with `failure`
  // when that is not OK.
  void BreakFlow(const absl::Status& failure, bool forget_master);
  absl::StatusOr<RedisReplyPtr> CommandAlone(const std::vector<std::string>& args,
                                             absl::Duration extra_timeout, Durability durability);
  absl::StatusOr<RedisReplyPtr> CommandPipelined(const std::vector<std::string>& args,
                                                 Durability durability);
  // Sends the batch on one pooled connection and fills every result. A command alone is a batch
  // of one; `extra_timeout` lengthens the read timeout (blocking commands).
  void RunBatch(const std::vector<Pending*>& batch,
                absl::Duration extra_timeout = absl::ZeroDuration());
  absl::StatusOr<Lease> Acquire();
  void Release(const Lease& lease, bool healthy);
  void DiscardIdle();
  absl::StatusOr<Lease> Connect();
  // A new connection to `at`, authenticated with the store's credentials.
  absl::StatusOr<redisContext*> ConnectTo(const RedisAddress& at, absl::string_view user,
                                          absl::string_view password);
  // The master to connect to (asking the Sentinels when none is known) and its epoch.
  absl::StatusOr<std::pair<RedisAddress, std::uint64_t>> Master();
  // Asks the Sentinels in turn for the master and checks its ROLE.
  absl::StatusOr<RedisAddress> DiscoverMaster();
  // Forgets the master of `epoch` (a failover may be under way): the next command looks again.
  void ForgetMaster(std::uint64_t epoch);

  // Cluster (redis_cluster.cc).
  absl::StatusOr<RedisReplyPtr> ClusterCommand(const std::vector<std::string>& args,
                                               absl::Duration extra_timeout, Durability durability);
  void ClusterCommandAsync(std::vector<std::string> args, ReplyCallback done,
                           Durability durability);
  std::vector<absl::StatusOr<RedisReplyPtr>> ClusterCommandBatch(
      const std::vector<std::vector<std::string>>& commands);
  // The master of `slot` (learning the map when it has none), or null with the reason.
  absl::StatusOr<RedisClient*> NodeForSlot(int slot);
  // The client of the node at host:port, made on first use.
  RedisClient* Node(const RedisAddress& at) ABSL_EXCLUSIVE_LOCKS_REQUIRED(cluster_mu_);
  // Asks the known masters, then the seeds, for CLUSTER SLOTS and replaces the map. At most one
  // at a time, and at most every rediscover_backoff unless `force`.
  absl::Status RefreshSlots(bool force);
  // An async command on a cluster, between its tries.
  struct ClusterRetry {
    std::vector<std::string> args;
    ReplyCallback done;
    Durability durability;
    int slot;
    absl::Time give_up;  // command_timeout after the first try
    absl::Duration backoff;
    std::optional<RedisAddress> ask;  // next try: ASKING + the command on this node
    bool relearn = false;             // next try: re-learn the map first
  };
  // Sends `retry` to the master of its slot without waiting; what the reply needs (a
  // redirection, a backoff) is scheduled on the retry thread.
  void ClusterDispatch(std::shared_ptr<ClusterRetry> retry);
  // What to do with an async command's reply: answer it, or schedule its next try.
  void ClusterAnswer(std::shared_ptr<ClusterRetry> retry, absl::StatusOr<RedisReplyPtr> reply);
  // Queues `retry` for the retry thread at now + delay (answered UNAVAILABLE when stopping).
  void ScheduleRetry(std::shared_ptr<ClusterRetry> retry, absl::Duration delay);
  // The retry thread: runs each scheduled try when due (a map refresh and an ASK may block; a
  // lane or the flow's reader must not).
  void ClusterRetryLoop();
  // A MOVED: `slot` is served by `to` from now on.
  void NoteMoved(int slot, const RedisAddress& to);
  // `args` on this (node) client with ASKING before it on the same connection.
  absl::StatusOr<RedisReplyPtr> CommandAsking(const std::vector<std::string>& args,
                                              Durability durability);

  const RedisConnectionOptions options_;
  const std::string fixed_address_;  // host:port without Sentinel
  const std::string wait_acks_;      // WAIT's arguments, made once
  const std::string wait_ms_;
  absl::Mutex mu_;
  std::vector<Idle> idle_ ABSL_GUARDED_BY(mu_);
  int open_ ABSL_GUARDED_BY(mu_) = 0;

  // Sentinel: the master in use. Discovery runs under discover_mu_ (one at a time; others wait
  // for its outcome rather than ask the Sentinels too).
  mutable absl::Mutex master_mu_;
  RedisAddress master_ ABSL_GUARDED_BY(master_mu_);
  bool master_known_ ABSL_GUARDED_BY(master_mu_) = false;
  std::string last_master_ ABSL_GUARDED_BY(master_mu_);  // host:port last used, "" never
  std::uint64_t master_epoch_ ABSL_GUARDED_BY(master_mu_) = 1;
  std::atomic<std::uint64_t> master_switches_{0};
  absl::Mutex discover_mu_;
  absl::Time next_discovery_ ABSL_GUARDED_BY(discover_mu_) = absl::InfinitePast();
  absl::Duration backoff_ ABSL_GUARDED_BY(discover_mu_) = absl::ZeroDuration();
  absl::Status last_discovery_error_ ABSL_GUARDED_BY(discover_mu_);

  absl::Mutex batch_mu_;
  std::deque<Pending*> queue_ ABSL_GUARDED_BY(batch_mu_);
  int leaders_ ABSL_GUARDED_BY(batch_mu_) = 0;  // batches in flight

  absl::Mutex async_mu_;
  absl::CondVar async_cv_;  // a lane: commands queued, or stop
  std::deque<AsyncCommand> async_queue_ ABSL_GUARDED_BY(async_mu_);
  int idle_lanes_ ABSL_GUARDED_BY(async_mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(async_mu_) = false;
  std::vector<std::thread> lanes_ ABSL_GUARDED_BY(async_mu_);  // started by the first CommandAsync

  // The flow. Writers hold flow_mu_ while they write on flow_ (so that commands and their places
  // in flow_in_flight_ keep one order); the reader reads without it, and only the reader opens
  // and frees the connection.
  absl::Mutex flow_mu_;
  redisContext* flow_ ABSL_GUARDED_BY(flow_mu_) = nullptr;
  std::uint64_t flow_epoch_ ABSL_GUARDED_BY(flow_mu_) = 0;  // the master it was opened to
  bool flow_broken_ ABSL_GUARDED_BY(flow_mu_) = false;      // a write failed: the reader closes it
  bool flow_stopping_ ABSL_GUARDED_BY(flow_mu_) = false;
  std::deque<FlowCommand> flow_in_flight_ ABSL_GUARDED_BY(flow_mu_);
  std::thread flow_reader_ ABSL_GUARDED_BY(async_mu_);  // started with the lanes

  // Cluster: the map (the master of each slot, an index into masters_, -1 none known), a client
  // per node ever named (never removed while this client lives: their pointers stay valid).
  mutable absl::Mutex cluster_mu_;
  std::vector<int> slot_master_ ABSL_GUARDED_BY(cluster_mu_);
  std::vector<RedisClient*> masters_ ABSL_GUARDED_BY(cluster_mu_);
  std::vector<RedisAddress> master_addresses_ ABSL_GUARDED_BY(cluster_mu_);
  std::vector<std::pair<std::string, std::unique_ptr<RedisClient>>> nodes_
      ABSL_GUARDED_BY(cluster_mu_);
  absl::Mutex refresh_mu_;  // one refresh at a time
  absl::Time last_refresh_ ABSL_GUARDED_BY(refresh_mu_) = absl::InfinitePast();
  absl::Mutex retry_mu_;
  absl::CondVar retry_cv_;  // the retry thread: a try queued, or stop
  std::multimap<absl::Time, std::shared_ptr<ClusterRetry>> retry_queue_ ABSL_GUARDED_BY(retry_mu_);
  bool retry_stopping_ ABSL_GUARDED_BY(retry_mu_) = false;
  std::thread retry_thread_ ABSL_GUARDED_BY(retry_mu_);  // started with the first retry
};

}  // namespace store

#endif  // ARBITER_LIBS_STORE_REDIS_CLIENT_H_
