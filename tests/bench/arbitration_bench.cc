// Moves through the arbitration service's whole path, measured end to end on this machine: a
// redis-server started here (libs/store/redis.conf: AOF on, appendfsync as asked), an arbiterd
// child process hosting the arbitration service on it, and this process as the gRPC client (its
// cost is included). The goals: >= 16,000 moves/s, and at 8,000 moves/s offered,
// p99 < 5 ms (services/arbitration/README.md).
//
// Every game plays the same real game (Kasparov - Topalov, Wijk aan Zee 1999, 87 plies in SAN:
// captures, checks, castling, pawn moves, so the dead-position checks of 5.2b / 9.6 run as they
// would) and never ends by rule; after its last ply the game's slot moves on to a new game
// (CreateGame + StartGame on the same queue, not counted as moves), so the logs the server works
// on are as long as real games' (44 events on average, not a log that grows all run long).
//
//   --rate=0      max throughput: `--concurrency` moves in flight (one per game at a time), each
//                 finished move starts the next on the game that waited longest.
//   --rate=8000   a fixed offered rate (open loop): a move is due every 1/rate s whatever the
//                 server does, and its latency runs from when it was due (a move that finds no
//                 free game waits for one, and that wait counts), so a slow server cannot hide
//                 its tail by slowing the client down (coordinated omission).
//
//   bazel run //tests/bench:arbitration_bench -- --rate=0 --duration=10s
//   bazel run //tests/bench:arbitration_bench -- --rate=8000 --duration=10s
//   tests/bench/arbitration_bench.sh      (both, as reported in services/arbitration/README.md)
//   --validate_calls=20000: then as many ValidateMove calls on the same server, and a move's CPU
//                 over a validation's (`a move's CPU / a ValidateMove's: N`), in one window.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "proto/arbiter/v1/arbitration.grpc.pb.h"
#include "proto/arbiter/v1/rules.grpc.pb.h"
#include "tests/bench/bench_util.h"
#include "tests/integration/clock_process.h"

ABSL_FLAG(std::string, server, "",
          "the arbiterd binary (default: services/arbiterd/arbiterd in the runfiles); to compare "
          "builds, alternate --server=/path/to/old and /path/to/new");
ABSL_FLAG(std::string, appendfsync, "always", "the redis-server's appendfsync: always | everysec");
ABSL_FLAG(std::string, dir, "",
          "redis data directory, kept (default: a fresh one under /tmp, deleted at the end; "
          "for runs one after another give each its own and delete them after the last: a "
          "deletion's discards stall the next run's fsyncs on a disk mounted with discard)");
ABSL_FLAG(int, games, 1024, "games played at once (one move in flight per game)");
ABSL_FLAG(int, concurrency, 256, "max throughput: moves in flight");
ABSL_FLAG(double, rate, 0, "moves/s offered (open loop); 0: max throughput");
ABSL_FLAG(int, streams, 0,
          "send the moves over this many SubmitMoves streams, each game always on the same one "
          "(0: one SubmitMove call per move); games are created and started by unary calls");
ABSL_FLAG(
    bool, archive, true,
    "end each played-out game as it ended (Black resigned) and archive it (ArchiveGame), as a "
    "platform does once it holds the record: Redis then keeps the games in play only");
ABSL_FLAG(bool, command_ids, true, "send a command id with every move, as a platform that retries");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(10), "measured time");
ABSL_FLAG(bool, firehose, false,
          "follow every game on one WatchGames stream while the moves flow, and report the p99 "
          "from a move's append (its recorded instant) to its delivery on the stream");
ABSL_FLAG(absl::Duration, warmup, absl::Seconds(2), "unmeasured time first");
ABSL_FLAG(std::string, server_flags, "", "extra flags for arbiterd, comma-separated");
ABSL_FLAG(std::string, redis_config, "",
          "redis settings to change before the run, as CONFIG SET takes them, comma-separated "
          "(e.g. \"rdbcompression no,auto-aof-rewrite-percentage 200\")");
ABSL_FLAG(std::string, server_log_dir, "/dev/shm",
          "where the server's log file goes (\"\": TEST_TMPDIR or /tmp); Redis's data stays in "
          "--dir");
ABSL_FLAG(int, validate_calls, 0,
          "after the moves, this many ValidateMove calls (the rules service, hosted by the same "
          "arbiterd; up to 32 in flight), and their CPU per call beside a move's: a move "
          "measured against a bare validation in the same window");
ABSL_FLAG(int, redis_latency_ms, 2,
          "report Redis's fsyncs, AOF writes and forks slower than this in the measured time "
          "(its latency monitor; 0: off)");
ABSL_FLAG(
    bool, tail_report, false,
    "also print where the slowest moves were: their ply, and the 100 ms windows they fell in");

namespace {

namespace v1 = arbiter::v1;

// Redis's slow fsyncs, AOF writes and forks in the measured time (its LATENCY HISTORY: per second,
// the slowest over --redis_latency_ms), as "+<second of the run>:<ms>".
void PrintRedisStalls(const store::testing::RedisServer& redis, absl::Time from,
                      absl::Duration duration) {
  const std::int64_t first = absl::ToUnixSeconds(from);
  const std::int64_t last = absl::ToUnixSeconds(from + duration);
  std::printf("  redis stalls over %d ms (second of the run:slowest ms):",
              absl::GetFlag(FLAGS_redis_latency_ms));
  for (const char* event : {"aof-fsync-always", "aof-write", "fork"}) {
    absl::StatusOr<std::string> history = redis.Command({"LATENCY", "HISTORY", event});
    if (!history.ok()) continue;
    std::vector<std::string> words = absl::StrSplit(*history, '\n', absl::SkipEmpty());
    int seconds = 0;
    std::int64_t worst = 0;
    std::string list;
    for (size_t i = 0; i + 1 < words.size(); i += 2) {
      std::int64_t at = 0, ms = 0;
      if (!absl::SimpleAtoi(words[i], &at) || !absl::SimpleAtoi(words[i + 1], &ms)) continue;
      if (at < first || at > last) continue;
      ++seconds;
      worst = std::max(worst, ms);
      absl::StrAppend(&list, " +", at - first, ":", ms);
    }
    std::printf(" %s in %d s (max %lld ms)%s;", event, seconds, static_cast<long long>(worst),
                list.c_str());
  }
  std::printf("\n");
}

// The live game with the most versions among the first few thousand logs (SCAN), and what its
// keys hold (MEMORY USAGE): its log, its state's hash and, for games written before the store kept
// command ids in the log, its command records.
void PrintLongestGame(const store::testing::RedisServer& redis) {
  std::string cursor = "0", longest;
  std::int64_t most = 0;
  int scanned = 0;
  do {
    absl::StatusOr<std::string> page =
        redis.Command({"SCAN", cursor, "MATCH", "*:log:*", "COUNT", "1000"});
    if (!page.ok()) return;
    std::vector<std::string> words = absl::StrSplit(*page, '\n', absl::SkipEmpty());
    if (words.empty()) return;
    cursor = words[0];
    for (size_t i = 1; i < words.size() && scanned < 5000; ++i, ++scanned) {
      absl::StatusOr<std::string> info = redis.Command({"XINFO", "STREAM", words[i]});
      if (!info.ok()) continue;
      // The stream's last ID is "<version>-..."; it comes before the entries' (binary) values.
      std::vector<std::string> fields = absl::StrSplit(*info, '\n');
      for (size_t f = 0; f + 1 < fields.size(); ++f) {
        std::int64_t version = 0;
        if (fields[f] == "last-generated-id" &&
            absl::SimpleAtoi(fields[f + 1].substr(0, fields[f + 1].find('-')), &version) &&
            version > most) {
          most = version;
          longest = words[i];
        }
      }
    }
  } while (cursor != "0" && scanned < 5000);
  if (longest.empty()) return;
  auto usage = [&](const std::string& key) -> long long {
    absl::StatusOr<std::string> bytes = redis.Command({"MEMORY", "USAGE", key, "SAMPLES", "0"});
    long long n = 0;
    return bytes.ok() && absl::SimpleAtoi(*bytes, &n) ? n : 0;
  };
  auto kind = [&](const char* to) {
    std::string key = longest;
    key.replace(key.rfind(":log:"), 5, to);
    return key;
  };
  const long long log = usage(longest), game = usage(kind(":game:")), cmd = usage(kind(":cmd:"));
  std::printf(
      "  memory of the longest live game: %lld bytes at version %lld (MEMORY USAGE: log %lld, "
      "state %lld, command records %lld)\n",
      log + game + cmd, static_cast<long long>(most), log, game, cmd);
}

// Kasparov - Topalov, Wijk aan Zee 1999 (as libs/arbitration/rulings_benchmark.cc), in SAN: 87
// plies, Black resigned; no position repeats, nothing ends it by rule.
const std::vector<std::string> kGame = absl::StrSplit(
    "e4 d6 d4 Nf6 Nc3 g6 Be3 Bg7 Qd2 c6 f3 b5 Nge2 Nbd7 Bh6 Bxh6 Qxh6 Bb7 a3 e5 O-O-O Qe7 Kb1 a6 "
    "Nc1 O-O-O Nb3 exd4 Rxd4 c5 Rd1 Nb6 g3 Kb8 Na5 Ba8 Bh3 d5 Qf4+ Ka7 Rhe1 d4 Nd5 Nbxd5 exd5 Qd6 "
    "Rxd4 cxd4 Re7+ Kb6 Qxd4+ Kxa5 b4+ Ka4 Qc3 Qxd5 Ra7 Bb7 Rxb7 Qc4 Qxf6 Kxa3 Qxa6+ Kxb4 c3+ Kxc3 "
    "Qa1+ Kd2 Qb2+ Kd1 Bf1 Rd2 Rd7 Rxd7 Bxc4 bxc4 Qxh8 Rd3 Qa8 c3 Qa4+ Ke1 f4 f5 Kc1 Rd2 Qa7",
    ' ');

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "arbitration_bench: %s\n", what.c_str());
  std::exit(1);
}

using Clock = std::chrono::steady_clock;

// CPU seconds the processes took together between two readings.
double CpuTotal(const std::vector<double>& before, const std::vector<double>& after) {
  double total = 0;
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) total += after[i] - before[i];
  return total;
}

// The load: games in slots, one call in flight per slot, all on one completion queue polled by
// one thread (the cheapest gRPC client on a machine it shares with the server and Redis).
class MoveLoad {
 public:
  MoveLoad(std::shared_ptr<grpc::Channel> channel, int games)
      : stub_(v1::Arbitration::NewStub(channel)), slots_(games) {}

  // Creates and starts every slot's first game (synchronously, before the clock runs).
  void Prepare() {
    std::thread poller([this] { Poll(); });
    // In waves: creations are synchronous on the server, one of gRPC's threads each, and a
    // thousand at once exhaust its pool (RESOURCE_EXHAUSTED, --grpc_max_threads).
    constexpr size_t kWave = 128;
    std::unique_lock<std::mutex> lock(mu_);
    for (size_t begun = 0; begun < slots_.size();) {
      const size_t end = std::min(slots_.size(), begun + kWave);
      lock.unlock();
      for (; begun < end; ++begun) NewGame(static_cast<int>(begun));
      lock.lock();
      idle_.wait(lock, [&] { return free_.size() == end || !first_error_.empty(); });
      if (!first_error_.empty()) break;
    }
    if (!first_error_.empty()) Die(absl::StrCat("creating the games: ", first_error_));
    // Then game i is played to ply i * 87 / games, so that from the first measured move the logs
    // are spread over a whole game's length, as in the steady state (not all at its beginning).
    // At most --concurrency games at a time: with a move in flight for every one of 100,000
    // games the server's queues and the client's completion queue held them all at once, and
    // the moves at their end waited for minutes.
    prefill_ = true;
    std::deque<int> ready;
    ready.swap(free_);
    for (int slot : ready) {
      slots_[slot].target = static_cast<int>(slot * kGame.size() / slots_.size());
      if (slots_[slot].target == 0) {
        free_.push_back(slot);
      } else {
        prefill_waiting_.push_back(slot);
      }
    }
    prefill_cap_ = std::max(1, absl::GetFlag(FLAGS_concurrency));
    IssuePrefillLocked(Clock::now());
    idle_.wait(lock, [&] { return free_.size() == slots_.size() || !first_error_.empty(); });
    if (!first_error_.empty())
      Die(absl::StrCat("playing the games to their start: ", first_error_));
    prefill_ = false;
    // The games take their moves in turn, longest waiting first, and keep that order. Readied as
    // they were, the ~12 games at each ply would stand together in it and end together, and
    // their 12 next games would be created and started in one burst every ~130 ms (24
    // synchronous calls in ~1.5 ms) and play their first moves together: a burst no platform
    // makes outside a round's start. Shuffled (the same order every run), a game ends and one
    // begins every ~11 ms at 8,000 moves/s.
    std::shuffle(free_.begin(), free_.end(), std::mt19937(87));
    lock.unlock();
    cq_.Shutdown();
    poller.join();
  }

  void Run(double rate, int concurrency, absl::Duration warmup, absl::Duration duration,
           const std::vector<pid_t>& pids, bench::AofMeter& aof) {
    grpc::CompletionQueue* fresh = new grpc::CompletionQueue;
    cq_holder_.reset(fresh);
    cq_ptr_ = fresh;
    if (absl::GetFlag(FLAGS_streams) > 0) OpenStreams(absl::GetFlag(FLAGS_streams));
    rate_ = rate;
    if (rate > 0) {
      period_ =
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / rate));
    }
    // At a fixed rate the one thread that polls the queue also issues the moves as they fall due
    // (it waits on the queue until the next is due): a pacing thread of its own cost a wake-up
    // and a lock handover per move, a third of the client's CPU at 8,000 moves/s.
    std::thread poller([this] { Poll(); });
    if (rate <= 0) {
      std::lock_guard<std::mutex> lock(mu_);
      concurrency_ = concurrency;
      for (int i = 0; i < concurrency && !free_.empty(); ++i) IssueLocked(Clock::now());
    }
    absl::SleepFor(warmup);
    const std::vector<double> cpu0 = bench::CpuSeconds(pids);
    const std::uint64_t ok0 = moves_ok_.load();
    const std::uint64_t games0 = games_created_.load();
    const auto start = Clock::now();
    measure_from_ = start;
    measure_from_unix_ = absl::Now();
    measuring_ = true;
    aof.Start();
    absl::SleepFor(duration);
    aof.Stop();
    measuring_ = false;
    const std::uint64_t ok1 = moves_ok_.load();
    const std::uint64_t games1 = games_created_.load();
    const std::vector<double> cpu1 = bench::CpuSeconds(pids);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    stopping_ = true;
    {
      std::unique_lock<std::mutex> lock(mu_);
      idle_.wait(lock, [&] { return in_flight_ == 0; });
    }
    CloseStreams();
    cq_ptr_->Shutdown();
    poller.join();

    std::lock_guard<std::mutex> lock(mu_);
    const bench::Percentiles p = bench::Of(latencies_);
    const double moves = static_cast<double>(ok1 - ok0);
    if (rate > 0) {
      std::printf("offered %.0f moves/s", rate);
      if (!streams_.empty()) std::printf(" on %zu SubmitMoves streams", streams_.size());
      std::printf(": ");
    } else {
      std::printf("max throughput, %d in flight", concurrency);
      if (!streams_.empty()) std::printf(" on %zu SubmitMoves streams", streams_.size());
      std::printf(": ");
    }
    std::printf(
        "%.0f moves/s through gRPC + arbitration + Redis (client included), %.0f ok in %.1f s, "
        "%llu errors, %.0f games begun/s; latency p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, "
        "max %.1f ms\n",
        moves / seconds, moves, seconds, static_cast<unsigned long long>(errors_.load()),
        static_cast<double>(games1 - games0) / seconds, p.p50, p.p99, p.p999, p.max);
    if (!first_error_.empty()) std::printf("  first error: %s\n", first_error_.c_str());
    if (rate > 0 && late_max_ > 0) {
      std::printf("  moves that found no free game: %llu (the longest wait %.1f ms)\n",
                  static_cast<unsigned long long>(late_), late_max_);
      // The latency above counts a move from when it fell due, its wait for a free game
      // included; from its sending, it is the server's queue and work alone.
      const bench::Percentiles q = bench::Of(sent_latencies_);
      std::printf("  latency from sending: p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.1f ms\n",
                  q.p50, q.p99, q.p999, q.max);
    }
    if (tail_report_) PrintTail(p.p99);
    // Game creations (1 per 87 moves) are included.
    bench::PrintCpuPer("move", "moves", moves, cpu0, cpu1, " + ");
    cpu_per_move_us_ = moves > 0 ? CpuTotal(cpu0, cpu1) * 1e6 / moves : 0;
    std::printf(
        "  AOF per move: %.0f bytes (%lld bytes appended in the measured time, %lld rewrites)\n",
        moves > 0 ? static_cast<double>(aof.bytes()) / moves : 0.0,
        static_cast<long long>(aof.bytes()), static_cast<long long>(aof.rewrites()));
  }

  // The mean ply of the games in play (each slot holds one, live in the store).
  // The CPU of a measured move, all processes: client, Redis and server (Run).
  double cpu_per_move_us() const { return cpu_per_move_us_; }

  double MeanPly() {
    std::lock_guard<std::mutex> lock(mu_);
    double plies = 0;
    for (const Slot& s : slots_) plies += s.ply;
    return slots_.empty() ? 0 : plies / static_cast<double>(slots_.size());
  }

 private:
  // The moves slower than the p99: by ply (is one position slow?) and by 100 ms window (are the
  // slow moves bunched in time, as after a stall?).
  void PrintTail(double p99) {
    std::vector<int> by_ply(kGame.size() + 1, 0);
    std::vector<int> total_by_ply(kGame.size() + 1, 0);
    std::vector<int> by_window(1000, 0);
    int slow = 0;
    for (const Sample& s : samples_) {
      ++total_by_ply[s.ply];
      if (s.ms < p99) continue;
      ++slow;
      ++by_ply[s.ply];
      const int w = static_cast<int>(s.at_ms / 100);
      if (w >= 0 && w < static_cast<int>(by_window.size())) ++by_window[w];
    }
    std::printf(
        "  tail: %d moves at or above p99 %.2f ms (the measured time began at %.3f s on the "
        "monotonic clock)\n  by ply (slow/all):",
        slow, p99, std::chrono::duration<double>(measure_from_.time_since_epoch()).count());
    for (size_t i = 0; i < by_ply.size(); ++i) {
      if (by_ply[i] * 50 > slow) std::printf(" %zu:%d/%d", i, by_ply[i], total_by_ply[i]);
    }
    std::printf("\n  by 100 ms window (index:slow):");
    for (size_t i = 0; i < by_window.size(); ++i) {
      if (by_window[i] * 50 > slow) std::printf(" %zu:%d", i, by_window[i]);
    }
    // A game's first plies against the rest: is a new game slower throughout, or only sometimes?
    std::vector<std::vector<double>> first(kFirstPlies + 1);
    for (const Sample& s : samples_) first[std::min(s.ply, kFirstPlies)].push_back(s.ms);
    std::printf("\n  latency p50/p99 by ply (ms):");
    for (int i = 0; i <= kFirstPlies; ++i) {
      const bench::Percentiles q = bench::Of(first[i]);
      std::printf(" %s%d:%.2f/%.2f", i == kFirstPlies ? ">=" : "", i, q.p50, q.p99);
    }
    std::printf("\n");
  }
  static constexpr int kFirstPlies = 8;

  enum class Kind { kCreate, kStart, kMove, kResign, kArchive };
  struct Slot {
    std::string game_id;
    int ply = 0;
    int serial = 0;
    int target = 0;  // Prepare plays the first game to this ply
  };
  // What the completion queue hands back: a unary call's end, or a step of a stream.
  struct Tag {
    enum What { kCall, kStreamStarted, kStreamRead, kStreamWrite, kStreamClosed } what;
    void* owner;
  };
  struct Call {
    Call(Kind k, int s, Clock::time_point d) : kind(k), slot(s), due(d), sent(Clock::now()) {}
    Kind kind;
    int slot;
    Clock::time_point due;   // latency runs from here
    Clock::time_point sent;  // and the server's share of it from here
    Tag tag{Tag::kCall, this};
    grpc::Status status;
    // A unary call's; a move sent on a stream has none (no call of its own to set up).
    std::optional<bench::AsyncCall<v1::GameReply>> rpc;
    std::optional<bench::AsyncCall<v1::ArchiveGameReply>> archive_rpc;  // kArchive's
  };
  // A SubmitMoves stream: one write and one read in flight at a time; the moves it carries wait
  // for their replies by sequence number.
  struct MoveStream {
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::ClientAsyncReaderWriter<v1::SubmitMoveRequest, v1::SubmitMovesReply>> rw;
    Tag started{Tag::kStreamStarted, this};
    Tag read{Tag::kStreamRead, this};
    Tag write{Tag::kStreamWrite, this};
    Tag closed{Tag::kStreamClosed, this};
    std::deque<v1::SubmitMoveRequest> outbox;  // the front is being written while `writing`
    bool writing = false;     // also until the call has started (its headers use the write slot)
    std::int64_t queued = 0;  // the sequence number of the last request queued
    std::unordered_map<std::int64_t, Call*> waiting;
    v1::SubmitMovesReply incoming;
    grpc::Status status;
  };

  grpc::CompletionQueue& cq() { return *cq_ptr_; }

  Call* NewCall(Kind kind, int slot, Clock::time_point due) {
    Call* call = new Call(kind, slot, due);
    if (kind == Kind::kArchive) {
      call->archive_rpc.emplace(std::chrono::seconds(30));
    } else if (kind != Kind::kMove || streams_.empty()) {
      call->rpc.emplace(std::chrono::seconds(30));
    }
    return call;
  }

  void OpenStreams(int n) {
    for (int i = 0; i < n; ++i) {
      auto s = std::make_unique<MoveStream>();
      s->rw = stub_->PrepareAsyncSubmitMoves(&s->ctx, &cq());
      s->writing = true;
      s->rw->StartCall(&s->started);
      s->rw->Read(&s->incoming, &s->read);
      streams_.push_back(std::move(s));
    }
  }

  void CloseStreams() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : streams_) {
      s->ctx.TryCancel();
      s->rw->Finish(&s->status, &s->closed);
    }
  }

  // A stream's step; returns the move a reply finished (its status set), if any.
  Call* StreamStep(Tag* tag, bool ok) {
    auto* s = static_cast<MoveStream*>(tag->owner);
    std::lock_guard<std::mutex> lock(mu_);
    switch (tag->what) {
      case Tag::kStreamWrite:
        s->outbox.pop_front();
        [[fallthrough]];
      case Tag::kStreamStarted:
        s->writing = false;
        if (ok && !s->outbox.empty()) {
          s->writing = true;
          s->rw->Write(s->outbox.front(), &s->write);
        }
        return nullptr;
      case Tag::kStreamRead: {
        if (!ok) {
          if (!stopping_ && first_error_.empty()) first_error_ = "a SubmitMoves stream broke";
          return nullptr;
        }
        auto it = s->waiting.find(s->incoming.sequence());
        if (it == s->waiting.end()) Die("a reply to no request on a SubmitMoves stream");
        Call* call = it->second;
        s->waiting.erase(it);
        call->status = s->incoming.code() == 0
                           ? grpc::Status::OK
                           : grpc::Status(static_cast<grpc::StatusCode>(s->incoming.code()),
                                          s->incoming.error().message());
        s->rw->Read(&s->incoming, &s->read);
        return call;
      }
      default:
        return nullptr;
    }
  }

  // The slot's next game: created, then started (then its moves).
  void NewGame(int slot) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++in_flight_;
      Slot& s = slots_[slot];
      s.game_id = absl::StrCat("bench-", slot, "-", s.serial++);
      s.ply = 0;
    }
    v1::CreateGameRequest req;
    req.set_command_id("create");
    req.set_white_id(absl::StrCat("white-", slot));
    req.set_black_id(absl::StrCat("black-", slot));
    req.mutable_ruleset()->set_edition(v1::EDITION_FIDE_2023);
    req.set_time_control("5400+30");  // 90 minutes: no flag falls during a run
    SendForGame(Kind::kCreate, slot, req, &v1::Arbitration::Stub::PrepareAsyncCreateGame);
  }

  // `req` for the game in `slot`, as the call of `kind` (its reply a GameReply), from now.
  template <typename Request>
  void SendForGame(Kind kind, int slot, Request req, auto prepare) {
    Call* call = NewCall(kind, slot, Clock::now());
    req.set_game_id(slots_[slot].game_id);
    call->rpc->Start(*stub_, prepare, req, &cq(), &call->tag);
  }

  // The record played out: Black resigns (5.1b), as in the game.
  void ResignGame(int slot) {
    v1::ResignRequest req;
    req.set_command_id("resign");
    req.set_side(v1::COLOR_BLACK);
    SendForGame(Kind::kResign, slot, req, &v1::Arbitration::Stub::PrepareAsyncResign);
  }

  // The platform holds the record: the game leaves the live store.
  void ArchiveGame(int slot) {
    Call* call = NewCall(Kind::kArchive, slot, Clock::now());
    v1::ArchiveGameRequest req;
    req.set_game_id(slots_[slot].game_id);
    call->archive_rpc->Start(*stub_, &v1::Arbitration::Stub::PrepareAsyncArchiveGame, req, &cq(),
                             &call->tag);
  }

  void StartGame(int slot) {
    v1::StartGameRequest req;
    req.set_command_id("start");
    SendForGame(Kind::kStart, slot, req, &v1::Arbitration::Stub::PrepareAsyncStartGame);
  }

  // The next move of the game that waited longest; `due` is when the move was due.
  void IssueLocked(Clock::time_point due) {
    const int slot = free_.front();
    free_.pop_front();
    IssueSlotLocked(slot, due);
  }

  // Prepare: the next games waiting to be played to their start, up to prefill_cap_ moves in
  // flight.
  void IssuePrefillLocked(Clock::time_point now) {
    while (!prefill_waiting_.empty() && moves_in_flight_ < prefill_cap_) {
      const int slot = prefill_waiting_.front();
      prefill_waiting_.pop_front();
      IssueSlotLocked(slot, now);
    }
  }

  void IssueSlotLocked(int slot, Clock::time_point due) {
    ++in_flight_;
    ++moves_in_flight_;
    Slot& s = slots_[slot];
    Call* call = NewCall(Kind::kMove, slot, due);
    v1::SubmitMoveRequest req;
    req.set_game_id(s.game_id);
    if (command_ids_) req.set_command_id(absl::StrCat("m", s.ply));
    req.set_side(s.ply % 2 == 0 ? v1::COLOR_WHITE : v1::COLOR_BLACK);
    req.set_move(kGame[s.ply]);
    if (!call->rpc.has_value()) {  // on the game's stream
      MoveStream& stream = *streams_[slot % streams_.size()];
      stream.outbox.push_back(std::move(req));
      stream.waiting[++stream.queued] = call;
      if (!stream.writing) {
        stream.writing = true;
        stream.rw->Write(stream.outbox.front(), &stream.write);
      }
      return;
    }
    call->rpc->Start(*stub_, &v1::Arbitration::Stub::PrepareAsyncSubmitMove, req, &cq(),
                     &call->tag);
  }

  // Open loop: moves fall due every 1/rate s; each takes a free game, or waits for one. Issues the
  // moves due by `now`; returns when the next falls due.
  Clock::time_point IssueDue(Clock::time_point now) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      backlog_.clear();
      return now + std::chrono::milliseconds(10);
    }
    if (next_due_ == Clock::time_point()) next_due_ = now;
    while (next_due_ <= now) {
      if (!free_.empty() && backlog_.empty()) {
        IssueLocked(next_due_);
      } else {
        backlog_.push_back(next_due_);
      }
      next_due_ += period_;
    }
    return next_due_;
  }

  void Poll() {
    void* tag = nullptr;
    bool ok = false;
    const bool paced = rate_ > 0;
    Clock::time_point due = Clock::now();
    for (;;) {
      if (paced) {
        due = IssueDue(Clock::now());
        const std::int64_t wait_us =
            std::chrono::duration_cast<std::chrono::microseconds>(due - Clock::now()).count();
        const gpr_timespec deadline =
            gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                         gpr_time_from_micros(std::max<std::int64_t>(wait_us, 0), GPR_TIMESPAN));
        const grpc::CompletionQueue::NextStatus next = cq().AsyncNext(&tag, &ok, deadline);
        if (next == grpc::CompletionQueue::SHUTDOWN) break;
        if (next == grpc::CompletionQueue::TIMEOUT) continue;
      } else if (!cq().Next(&tag, &ok)) {
        break;
      }
      auto* t = static_cast<Tag*>(tag);
      Call* call = nullptr;
      if (t->what == Tag::kCall) {
        call = static_cast<Call*>(t->owner);
        call->status = call->archive_rpc ? call->archive_rpc->status : call->rpc->status;
      } else if ((call = StreamStep(t, ok)) == nullptr) {
        continue;
      }
      const auto now = Clock::now();
      const grpc::Status& st = call->status;
      const int slot = call->slot;
      bool next_game = false;
      bool start = false;
      bool resign = false;
      bool archive = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        --in_flight_;
        if (!st.ok()) {
          if (first_error_.empty()) {
            first_error_ = absl::StrCat(slots_[slot].game_id, ": ", st.error_message());
          }
          errors_.fetch_add(1);
        }
        switch (call->kind) {
          case Kind::kCreate:
            start = true;
            ++in_flight_;
            break;
          case Kind::kStart:
            games_created_.fetch_add(1);
            free_.push_back(slot);
            break;
          case Kind::kResign:  // then archived
            archive = st.ok();
            next_game = !st.ok();
            break;
          case Kind::kArchive:
            next_game = true;
            break;
          case Kind::kMove:
            --moves_in_flight_;
            if (st.ok()) {
              moves_ok_.fetch_add(1);
              if (measuring_ && call->due >= measure_from_) {
                const double ms =
                    std::chrono::duration<double, std::milli>(now - call->due).count();
                latencies_.push_back(ms);
                sent_latencies_.push_back(
                    std::chrono::duration<double, std::milli>(now - call->sent).count());
                if (tail_report_) {
                  samples_.push_back(
                      {ms, slots_[slot].ply,
                       std::chrono::duration<double, std::milli>(call->due - measure_from_)
                           .count()});
                }
              }
            }
            if (++slots_[slot].ply == static_cast<int>(kGame.size()) && st.ok() && archive_) {
              resign = true;  // the record is played out: it ends, then is archived
            } else if (slots_[slot].ply == static_cast<int>(kGame.size()) || !st.ok()) {
              next_game = true;  // the record is played out (or broke): the slot's next game
            } else if (prefill_ && slots_[slot].ply < slots_[slot].target) {
              IssueSlotLocked(slot, now);
            } else {
              free_.push_back(slot);
            }
            if (prefill_) IssuePrefillLocked(now);
            break;
        }
        if (resign || archive) ++in_flight_;
        if (!stopping_ && call->kind != Kind::kCreate) {
          if (rate_ > 0) {
            // Moves that fell due while no game was free go first, timed from when they were due.
            while (!backlog_.empty() && !free_.empty()) {
              const double waited =
                  std::chrono::duration<double, std::milli>(now - backlog_.front()).count();
              ++late_;
              late_max_ = std::max(late_max_, waited);
              IssueLocked(backlog_.front());
              backlog_.pop_front();
            }
          } else if (running_) {
            // Max throughput: `concurrency` moves in flight, whatever games are being begun.
            while (!free_.empty() && moves_in_flight_ < concurrency_) IssueLocked(now);
          }
        }
        if (in_flight_ == 0) idle_.notify_all();
        if (!running_) idle_.notify_all();  // Prepare waits for each wave
      }
      delete call;
      if (start) StartGame(slot);
      if (resign) ResignGame(slot);
      if (archive) ArchiveGame(slot);
      if (next_game && !stopping_) NewGame(slot);
    }
  }

 public:
  void SetRunning() { running_ = true; }

 private:
  std::unique_ptr<v1::Arbitration::Stub> stub_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::CompletionQueue> cq_holder_;
  grpc::CompletionQueue* cq_ptr_ = &cq_;
  const bool command_ids_ = absl::GetFlag(FLAGS_command_ids);
  const bool archive_ = absl::GetFlag(FLAGS_archive);
  std::mutex mu_;
  std::condition_variable idle_;
  std::vector<Slot> slots_;
  std::deque<int> free_;  // games waiting for their next move, longest first
  double cpu_per_move_us_ = 0;
  std::deque<int> prefill_waiting_;        // Prepare: games not yet being played to their start
  int prefill_cap_ = 1;                    // Prepare: moves in flight at most
  std::deque<Clock::time_point> backlog_;  // rate: moves due that found no free game
  int in_flight_ = 0;                      // calls of any kind
  int moves_in_flight_ = 0;                // SubmitMove calls
  int concurrency_ = 0;                    // max throughput: moves kept in flight
  double rate_ = 0;
  Clock::duration period_{};      // rate: between two moves falling due
  Clock::time_point next_due_{};  // rate: when the next move falls due
  bool running_ = false;
  bool prefill_ = false;  // max throughput: a finished call starts the next move
  std::uint64_t late_ = 0;
  double late_max_ = 0;
  std::vector<double> latencies_;
  std::vector<double> sent_latencies_;  // the same moves' latencies from their sending
  struct Sample {
    double ms;
    int ply;
    double at_ms;  // when the move was due, from the start of the measured time
  };
  const bool tail_report_ = absl::GetFlag(FLAGS_tail_report);
  std::vector<Sample> samples_;
  std::vector<std::unique_ptr<MoveStream>> streams_;  // --streams, during Run
  std::string first_error_;
  Clock::time_point measure_from_;

 public:
  absl::Time measure_from_unix() const { return measure_from_unix_; }

 private:
  absl::Time measure_from_unix_;
  std::atomic<bool> measuring_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> moves_ok_{0};
  std::atomic<std::uint64_t> games_created_{0};
  std::atomic<std::uint64_t> errors_{0};
};

// `calls` ValidateMove calls of a middlegame move, `concurrency` threads each calling in turn; the
// CPU each took beside a move's (the same processes, the same window).
void MeasureValidation(std::shared_ptr<grpc::Channel> channel, int calls, int concurrency,
                       const std::vector<pid_t>& pids, double cpu_per_move_us) {
  auto stub = v1::RulesValidation::NewStub(channel);
  v1::ValidateMoveRequest req;
  // After 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6: White's fourth move.
  req.mutable_position()->set_fen(
      "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4");
  req.set_move("Ba4");
  std::atomic<int> next{0};
  std::atomic<int> failed{0};
  const std::vector<double> cpu0 = bench::CpuSeconds(pids);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, concurrency); ++t) {
    threads.emplace_back([&] {
      while (next.fetch_add(1) < calls) {
        grpc::ClientContext ctx;
        v1::ValidateMoveResponse resp;
        if (!stub->ValidateMove(&ctx, req, &resp).ok() || !resp.legal()) failed.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const std::vector<double> cpu1 = bench::CpuSeconds(pids);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("ValidateMove, %d in flight: %.0f calls/s, %d calls, %d failed\n",
              std::max(1, concurrency), calls / seconds, calls, failed.load());
  bench::PrintCpuPer("ValidateMove", "calls", calls, cpu0, cpu1, " + ");
  const double per_call_us = CpuTotal(cpu0, cpu1) * 1e6 / calls;
  std::printf("  a move's CPU / a ValidateMove's: %.1f (%.0f us / %.0f us)\n",
              per_call_us > 0 ? cpu_per_move_us / per_call_us : 0.0, cpu_per_move_us, per_call_us);
}

// --firehose: one WatchGames stream following every game, as a platform does; each move's delay
// from its recorded instant (the server's clock, on this machine) to its arrival here.
class FirehoseFollower {
 public:
  explicit FirehoseFollower(std::shared_ptr<grpc::Channel> channel)
      : stub_(v1::Arbitration::NewStub(channel)) {
    reader_ = stub_->WatchGames(&call_, v1::WatchGamesRequest());
    v1::GamesUpdate first;  // the starting position: the stream is open
    if (!reader_->Read(&first)) Die("WatchGames: " + reader_->Finish().error_message());
    thread_ = std::thread([this] { Read(); });
  }

  // Moves recorded in [from, until) count.
  void Measure(absl::Time from, absl::Time until) {
    from_ms_ = absl::ToUnixMillis(from);
    until_ms_ = absl::ToUnixMillis(until);
  }

  void Stop() {
    call_.TryCancel();
    thread_.join();
  }

  void Report() {
    std::lock_guard<std::mutex> lock(mu_);
    const bench::Percentiles p = bench::Of(delays_);
    std::printf(
        "  firehose p99 %.0f ms (p50 %.0f ms, max %.0f ms; %zu moves delivered on one WatchGames "
        "stream in %llu updates, %llu events in all%s)\n",
        p.p99, p.p50, p.max, delays_.size(), static_cast<unsigned long long>(updates_),
        static_cast<unsigned long long>(events_), ended_.empty() ? "" : (", " + ended_).c_str());
  }

 private:
  void Read() {
    v1::GamesUpdate update;
    while (reader_->Read(&update)) {
      const std::int64_t now = absl::ToUnixMillis(absl::Now());
      std::lock_guard<std::mutex> lock(mu_);
      ++updates_;
      for (const v1::GameUpdate& e : update.events()) {
        ++events_;
        if (!e.event().has_move()) continue;
        const std::int64_t at = e.event().at_ms();
        if (at >= from_ms_.load() && at < until_ms_.load()) {
          delays_.push_back(static_cast<double>(now - at));
        }
      }
    }
    const grpc::Status st = reader_->Finish();
    std::lock_guard<std::mutex> lock(mu_);
    if (st.error_code() != grpc::StatusCode::CANCELLED) {
      ended_ = absl::StrCat("the stream ended: ", st.error_message());
    }
  }

  std::unique_ptr<v1::Arbitration::Stub> stub_;
  grpc::ClientContext call_;
  std::unique_ptr<grpc::ClientReader<v1::GamesUpdate>> reader_;
  std::thread thread_;
  std::atomic<std::int64_t> from_ms_{std::numeric_limits<std::int64_t>::max()};
  std::atomic<std::int64_t> until_ms_{0};
  std::mutex mu_;
  std::vector<double> delays_;
  std::uint64_t updates_ = 0;
  std::uint64_t events_ = 0;
  std::string ended_;
};

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // As in the servers (libs/service/server.cc): the client does not pay for deadlock detection.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);

  absl::StatusOr<bench::Redis> redis =
      bench::StartRedis(absl::GetFlag(FLAGS_appendfsync), absl::GetFlag(FLAGS_dir));
  if (!redis.ok()) Die(redis.status().ToString());
  for (absl::string_view setting :
       absl::StrSplit(absl::GetFlag(FLAGS_redis_config), ',', absl::SkipEmpty())) {
    std::vector<std::string> command = {"CONFIG", "SET"};
    for (absl::string_view word : absl::StrSplit(setting, ' ', absl::SkipEmpty())) {
      command.emplace_back(word);
    }
    absl::StatusOr<std::string> set = redis->server->Command(command);
    if (!set.ok()) Die(absl::StrCat("CONFIG SET ", setting, ": ", set.status().ToString()));
  }
  std::string binary = absl::GetFlag(FLAGS_server);
  if (binary.empty()) binary = testing_util::FindRunfile("services/arbiterd/arbiterd");
  const std::vector<std::string> flags = bench::WithExtraFlags(
      {absl::GetFlag(FLAGS_validate_calls) > 0 ? "--services=arbitration,rules_validation"
                                               : "--services=arbitration",
       absl::StrCat("--store=redis://127.0.0.1:", redis->server->port()), "--insecure_dev",
       "--metrics_address=127.0.0.1:0", "--arbitration_replica_id=bench", "--log_level=info"},
      absl::GetFlag(FLAGS_server_flags));
  // The server's log (its access log: a line per move) goes where --server_log_dir says, by
  // default not on the disk of Redis's AOF: about 2.5 MB/s of lines at 8,000 moves/s, whose
  // writeback delayed Redis's fsyncs by 15-40 ms once or twice in 10 s when they shared /tmp. In
  // the deployment the container's log and Redis's volume are not one disk either.
  auto server = testing_util::ServerProcess::Start(binary, flags, absl::Seconds(30),
                                                   absl::GetFlag(FLAGS_server_log_dir));
  if (!server.ok()) Die(server.status().ToString());
  auto channel = bench::Channel((*server)->grpc_port());

  const int games = absl::GetFlag(FLAGS_games);
  const int concurrency = std::min(absl::GetFlag(FLAGS_concurrency), games);
  const double rate = absl::GetFlag(FLAGS_rate);
  std::printf(
      "# %u cores, load average %s, redis appendfsync %s, server %s\n# %d games of %zu plies "
      "(Kasparov - Topalov 1999, FIDE 2023, 5400+30), command ids %s, %s\n",
      std::thread::hardware_concurrency(), bench::LoadAverage().c_str(),
      absl::GetFlag(FLAGS_appendfsync).c_str(), binary.c_str(), games, kGame.size(),
      absl::GetFlag(FLAGS_command_ids) ? "on" : "off",
      absl::GetFlag(FLAGS_archive) ? "each resigned and archived when played out"
                                   : "each left in the store when played out");
  if (!absl::GetFlag(FLAGS_redis_config).empty()) {
    std::printf("# redis CONFIG SET %s\n", absl::GetFlag(FLAGS_redis_config).c_str());
  }
  std::fflush(stdout);
  // Redis's memory before the first game: what the games add is theirs.
  absl::StatusOr<bench::RedisInfo> empty = bench::ReadRedisInfo(*redis->server);
  if (!empty.ok()) Die(empty.status().ToString());
  const std::int64_t server_empty = bench::ResidentBytes((*server)->pid());
  MoveLoad load(channel, games);
  load.Prepare();
  load.SetRunning();
  // Redis's latency monitor: every fsync, AOF write and fork slower than this is noted (the
  // second it happened in and the slowest), to tell the run's stalls that were the disk's.
  if (absl::GetFlag(FLAGS_redis_latency_ms) > 0) {
    absl::StatusOr<std::string> set =
        redis->server->Command({"CONFIG", "SET", "latency-monitor-threshold",
                                absl::StrCat(absl::GetFlag(FLAGS_redis_latency_ms))});
    if (!set.ok()) Die(set.status().ToString());
  }
  bench::AofMeter aof(*redis->server);
  std::unique_ptr<FirehoseFollower> firehose;
  if (absl::GetFlag(FLAGS_firehose)) {
    firehose = std::make_unique<FirehoseFollower>(channel);
    const absl::Time from = absl::Now() + absl::GetFlag(FLAGS_warmup);
    firehose->Measure(from, from + absl::GetFlag(FLAGS_duration));
  }
  load.Run(rate, concurrency, absl::GetFlag(FLAGS_warmup), absl::GetFlag(FLAGS_duration),
           {0, redis->pid, (*server)->pid()}, aof);
  if (firehose != nullptr) {
    absl::SleepFor(absl::Seconds(1));  // what the measured time appended reaches the stream
    firehose->Stop();
    firehose->Report();
  }
  // Every slot's game is live (played out ones were archived): Redis's growth over them. It
  // includes what ended games leave behind (their archive tombstones and command records' keys).
  absl::StatusOr<bench::RedisInfo> full = bench::ReadRedisInfo(*redis->server);
  if (!full.ok()) Die(full.status().ToString());
  std::printf(
      "  memory per live game: %.0f bytes (used_memory grew %lld bytes for %d live games at mean "
      "ply %.1f)\n",
      static_cast<double>(full->used_memory - empty->used_memory) / games,
      static_cast<long long>(full->used_memory - empty->used_memory), games, load.MeanPly());
  PrintLongestGame(*redis->server);
  // And the server's: mostly its state cache (--arbitration_state_cache_games), a state for
  // every live game it keeps.
  const std::int64_t server_full = bench::ResidentBytes((*server)->pid());
  std::printf(
      "  server memory per live game: %.0f bytes (its resident memory grew %lld bytes, to %lld)\n",
      static_cast<double>(server_full - server_empty) / games,
      static_cast<long long>(server_full - server_empty), static_cast<long long>(server_full));
  if (absl::GetFlag(FLAGS_redis_latency_ms) > 0) {
    PrintRedisStalls(*redis->server, load.measure_from_unix(), absl::GetFlag(FLAGS_duration));
  }
  if (absl::GetFlag(FLAGS_validate_calls) > 0) {
    // Blocking calls from at most 32 threads: a validation needs no more to keep the server busy.
    MeasureValidation(channel, absl::GetFlag(FLAGS_validate_calls), std::min(concurrency, 32),
                      {0, redis->pid, (*server)->pid()}, load.cpu_per_move_us());
  }
  (*server)->Kill(SIGTERM);
  std::remove((*server)->log_path().c_str());  // in memory by default (--server_log_dir)
  return 0;
}
