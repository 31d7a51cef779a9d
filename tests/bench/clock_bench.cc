// The clock authority's two figures, measured end to end on this machine: a redis-server started
// here (libs/store/redis.conf: AOF on, appendfsync as asked), clock_authority_server process(es)
// on it, and this process as the gRPC client (its cost is included).
//
//   --mode=press  presses per second through gRPC with Redis persistence: `--games` clocks, each
//                 with one press in flight at a time (`--concurrency` of them at once), for
//                 `--duration`; latency p50/p99 as the client sees it.
//   --mode=flags  flag detection delay with `--clocks` running clocks whose flags fall over a
//                 window of ~10 s: noticed - fell of every FlagFell in the logs, p50/p99/max.
//
//   bazel run -c opt //tests/bench:clock_bench -- --mode=press --appendfsync=always
//   tests/bench/clock_bench.sh     (both, as reported in services/clock_authority/README.md)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "libs/clock_authority/clock_log.h"
#include "libs/ledger/time_source.h"
#include "libs/store/redis_game_store.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "tests/bench/bench_util.h"
#include "tests/integration/clock_process.h"

ABSL_FLAG(std::string, mode, "press", "press | flags");
ABSL_FLAG(std::string, appendfsync, "always", "the redis-server's appendfsync: always | everysec");
ABSL_FLAG(std::string, dir, "", "redis data directory (default: a fresh one under /tmp)");
ABSL_FLAG(int, replicas, 1, "clock_authority_server processes on the one redis-server");
ABSL_FLAG(int, games, 1024, "press: clocks pressed");
ABSL_FLAG(int, concurrency, 256, "press: presses in flight");
ABSL_FLAG(int, channels, 1, "press: gRPC channels per replica");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(10), "press: measured time");
ABSL_FLAG(absl::Duration, warmup, absl::Seconds(2), "press: unmeasured time first");
ABSL_FLAG(int, clocks, 10000, "flags: running clocks");
ABSL_FLAG(int, window_ms, 10000, "flags: the flags fall over this window (8 s after the starts)");
ABSL_FLAG(int, watched, 200, "flags: clocks also watched (WatchClock) to time the flag's delivery");
ABSL_FLAG(std::string, server_flags, "", "extra flags for clock_authority_server, comma-separated");
ABSL_FLAG(
    std::string, server, "",
    "the clock_authority_server binary (default: the one in the runfiles); to compare builds, "
    "alternate --server=/path/to/old and /path/to/new");

namespace {

namespace v1 = arbiter::v1;

void Die(const std::string& what) {
  std::fprintf(stderr, "clock_bench: %s\n", what.c_str());
  std::exit(1);
}

struct Setup {
  bench::Redis redis;
  std::vector<std::unique_ptr<testing_util::ServerProcess>> replicas;
  std::vector<std::shared_ptr<grpc::Channel>> channels;
};

Setup Begin() {
  Setup s;
  absl::StatusOr<bench::Redis> redis =
      bench::StartRedis(absl::GetFlag(FLAGS_appendfsync), absl::GetFlag(FLAGS_dir));
  if (!redis.ok()) Die(redis.status().ToString());
  s.redis = *std::move(redis);
  const std::string binary =
      absl::GetFlag(FLAGS_server).empty()
          ? testing_util::FindRunfile("services/clock_authority/clock_authority_server")
          : absl::GetFlag(FLAGS_server);
  for (int i = 0; i < absl::GetFlag(FLAGS_replicas); ++i) {
    const std::vector<std::string> flags =
        bench::WithExtraFlags({absl::StrCat("--store=redis://127.0.0.1:", s.redis.server->port()),
                               "--insecure_dev", "--metrics_address=127.0.0.1:0",
                               absl::StrCat("--clock_replica_id=bench-", i), "--log_level=info"},
                              absl::GetFlag(FLAGS_server_flags));
    auto p = testing_util::ServerProcess::Start(binary, flags);
    if (!p.ok()) Die(p.status().ToString());
    for (int c = 0; c < absl::GetFlag(FLAGS_channels); ++c) {
      s.channels.push_back(bench::Channel((*p)->grpc_port(), /*index=*/c));
    }
    s.replicas.push_back(std::move(*p));
  }
  std::printf("# %u cores, load average %s, redis appendfsync %s, %d replica(s)\n",
              std::thread::hardware_concurrency(), bench::LoadAverage().c_str(),
              absl::GetFlag(FLAGS_appendfsync).c_str(), absl::GetFlag(FLAGS_replicas));
  return s;
}

// Runs `fn(i)` for i in [0, n) on `threads` threads.
void Parallel(int n, int threads, const std::function<void(int)>& fn) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = t; i < n; i += threads) fn(i);
    });
  }
  for (std::thread& t : pool) t.join();
}

void CreateAndStart(Setup& s, const std::string& prefix, int n,
                    const std::function<std::string(int)>& human_tc) {
  std::atomic<int> failed{0};
  Parallel(n, 32, [&](int i) {
    auto stub = v1::ClockAuthority::NewStub(s.channels[i % s.channels.size()]);
    v1::ClockResponse resp;
    {
      grpc::ClientContext ctx;
      v1::CreateClockRequest req;
      req.set_game_id(absl::StrCat(prefix, i));
      req.set_time_control_human(human_tc(i));
      req.set_edition(v1::EDITION_FIDE_2005);
      req.set_game_type(v1::GAME_TYPE_STANDARD);
      if (!stub->CreateClock(&ctx, req, &resp).ok()) ++failed;
    }
    grpc::ClientContext ctx;
    v1::StartClockRequest req;
    req.set_game_id(absl::StrCat(prefix, i));
    if (!stub->StartClock(&ctx, req, &resp).ok()) ++failed;
  });
  if (failed > 0) Die(absl::StrCat(failed.load(), " create/start calls failed"));
}

// --- press -----------------------------------------------------------------------------------

class PressLoad {
 public:
  PressLoad(Setup& s, int games, int concurrency) : s_(s), concurrency_(concurrency) {
    for (size_t c = 0; c < s.channels.size(); ++c) {
      stubs_.push_back(v1::ClockAuthority::NewStub(s.channels[c]));
    }
    for (int g = concurrency; g < games; ++g) waiting_.push_back(g);
  }

  // Keeps `concurrency` presses in flight until stopped; each finished press starts the next on
  // the next game in turn (one press per game at a time: the clock is a sequence). The client is
  // a completion queue polled by one thread (the cheapest gRPC client on a machine it shares with
  // the server and Redis).
  void Run(absl::Duration warmup, absl::Duration duration) {
    std::thread poller([this] { Poll(); });
    for (int g = 0; g < concurrency_; ++g) Issue(g);
    absl::SleepFor(warmup);
    std::vector<pid_t> pids = {0, s_.redis.pid};
    for (auto& r : s_.replicas) pids.push_back(r->pid());
    measuring_ = true;
    const std::vector<double> cpu0 = bench::CpuSeconds(pids);
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t ok0 = ok_.load();
    absl::SleepFor(duration);
    const std::uint64_t ok1 = ok_.load();
    const std::vector<double> cpu1 = bench::CpuSeconds(pids);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    measuring_ = false;
    stopping_ = true;
    {
      std::unique_lock<std::mutex> lock(mu_);
      done_.wait(lock, [&] { return in_flight_ == 0; });
    }
    cq_.Shutdown();
    poller.join();
    std::lock_guard<std::mutex> lock(mu_);
    bench::Percentiles p = bench::Of(latencies_);
    std::printf(
        "presses: %.0f/s through gRPC + Redis (client included): %llu ok in %.1f s, "
        "%llu errors; latency p50 %.2f ms, p99 %.2f ms, max %.1f ms\n",
        static_cast<double>(ok1 - ok0) / seconds, static_cast<unsigned long long>(ok1 - ok0),
        seconds, static_cast<unsigned long long>(errors_.load()), p.p50, p.p99, p.max);
    if (errors_ > 0) std::printf("  first error: %s\n", first_error_.c_str());
    bench::PrintCpuPer("press", "presses", static_cast<double>(ok1 - ok0), cpu0, cpu1, ", ");
  }

 private:
  struct Call {
    int game;
    std::chrono::steady_clock::time_point start;
    bench::AsyncCall<v1::ClockResponse> rpc{std::chrono::seconds(10)};
  };

  void Issue(int game) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++in_flight_;
    }
    v1::PressClockRequest req;
    req.set_game_id(absl::StrCat("press-", game));
    auto* call = new Call{game, std::chrono::steady_clock::now()};
    call->rpc.Start(*stubs_[game % stubs_.size()],
                    &v1::ClockAuthority::Stub::PrepareAsyncPressClock, req, &cq_, call);
  }

  void Poll() {
    void* tag = nullptr;
    bool ok = false;
    while (cq_.Next(&tag, &ok)) {
      auto* call = static_cast<Call*>(tag);
      const grpc::Status& st = call->rpc.status;
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - call->start)
              .count();
      int next;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (st.ok()) {
          if (measuring_) latencies_.push_back(ms);
        } else if (first_error_.empty()) {
          first_error_ = st.error_message();
        }
        // The game just pressed goes to the back of the line.
        waiting_.push_back(call->game);
        next = waiting_.front();
        waiting_.pop_front();
      }
      (st.ok() ? ok_ : errors_).fetch_add(1);
      delete call;
      if (!stopping_) Issue(next);
      std::lock_guard<std::mutex> lock(mu_);
      if (--in_flight_ == 0) done_.notify_all();
    }
  }

  Setup& s_;
  const int concurrency_;
  std::vector<std::unique_ptr<v1::ClockAuthority::Stub>> stubs_;
  grpc::CompletionQueue cq_;
  std::mutex mu_;
  std::condition_variable done_;
  int in_flight_ = 0;
  std::deque<int> waiting_;
  std::vector<double> latencies_;
  std::string first_error_;
  std::atomic<bool> measuring_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> ok_{0};
  std::atomic<std::uint64_t> errors_{0};
};

void PressBench(Setup& s) {
  const int games = absl::GetFlag(FLAGS_games);
  const int concurrency = std::min(absl::GetFlag(FLAGS_concurrency), games);
  // One-hour clocks: no flag falls during the run.
  CreateAndStart(s, "press-", games, [](int) { return "G/60"; });
  PressLoad load(s, games, concurrency);
  std::printf("press: %d clocks, %d presses in flight, %d channel(s)\n", games, concurrency,
              static_cast<int>(s.channels.size()));
  load.Run(absl::GetFlag(FLAGS_warmup), absl::GetFlag(FLAGS_duration));
}

// --- flags -----------------------------------------------------------------------------------

void FlagBench(Setup& s) {
  const int n = absl::GetFlag(FLAGS_clocks);
  // Deadlines 8 s + [0, window) after each start, in steps of 60 ms (G/0.001 = 60 ms): with the
  // default window the flags of 10,000 clocks fall over ~10 s, ~1,000 a second, while all the
  // others run.
  std::mt19937 rng(42);
  const int spread = std::max(1, absl::GetFlag(FLAGS_window_ms) / 60);
  std::vector<int> steps(n);
  for (int& k : steps) k = 134 + static_cast<int>(rng() % spread);
  store::RedisGameStoreOptions options;
  options.connection.port = s.redis.server->port();
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      store::RedisGameStore::Create(options);
  if (!store.ok()) Die(store.status().ToString());
  // This process's reading of the store's clock, to time deliveries on the same base.
  absl::StatusOr<std::unique_ptr<ledger::StoreTime>> time =
      ledger::StoreTime::Create(store->get(), 20);
  if (!time.ok()) Die(time.status().ToString());

  const auto t0 = std::chrono::steady_clock::now();
  CreateAndStart(s, "flag-", n, [&](int i) {
    return absl::StrCat("G/", steps[i] / 1000, ".", absl::Dec(steps[i] % 1000, absl::kZeroPad3));
  });
  std::printf(
      "flags: %d clocks created and started in %.1f s; flags fall over ~%d ms from 8 s "
      "after each start\n",
      n, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
      absl::GetFlag(FLAGS_window_ms));

  // Watchers: when each flag reaches a WatchClock client (store time, microseconds).
  const int watched = std::min(n, absl::GetFlag(FLAGS_watched));
  std::vector<double> delivered(watched, -1);
  std::vector<std::int64_t> fell(watched, 0);
  std::vector<std::thread> watchers;
  for (int i = 0; i < watched; ++i) {
    watchers.emplace_back([&, i] {
      auto stub = v1::ClockAuthority::NewStub(s.channels[i % s.channels.size()]);
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
      v1::WatchClockRequest req;
      req.set_game_id(absl::StrCat("flag-", i));
      req.set_after_version(2);
      auto reader = stub->WatchClock(&ctx, req);
      v1::ClockUpdate u;
      while (reader->Read(&u)) {
        if (u.event().has_flag_fell()) {
          delivered[i] = static_cast<double>((*time)->NowMicros()) / 1000.0;
          fell[i] = u.event().flag_fell().fell_at_ms();
          ctx.TryCancel();
          break;
        }
      }
      (void)reader->Finish();
    });
  }
  // Wait until the last deadline has passed by a second.
  std::int64_t last = 0;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<std::optional<store::Deadline>> d =
        (*store)->GetDeadline(absl::StrCat("flag-", i));
    if (d.ok() && d->has_value()) last = std::max(last, (*d)->deadline_ms);
  }
  while (*(*store)->NowMs() < last + 1000) absl::SleepFor(absl::Milliseconds(100));
  for (std::thread& t : watchers) t.join();

  std::vector<double> detection, delivery;
  int missing = 0, duplicated = 0;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<std::vector<v1::GameEvent>> log =
        (*store)->ReadEvents(absl::StrCat("flag-", i), 1, store::kHead);
    if (!log.ok()) Die(log.status().ToString());
    int flags = 0;
    for (const v1::GameEvent& e : *log) {
      absl::StatusOr<v1::ClockEvent> event = clock_authority::FromGameEvent(e);
      if (!event.ok() || !event->has_flag_fell()) continue;
      ++flags;
      detection.push_back(static_cast<double>(event->flag_fell().noticed_at_ms() -
                                              event->flag_fell().fell_at_ms()));
    }
    if (flags == 0) ++missing;
    if (flags > 1) ++duplicated;
  }
  for (int i = 0; i < watched; ++i) {
    if (delivered[i] >= 0) delivery.push_back(delivered[i] - static_cast<double>(fell[i]));
  }
  bench::Percentiles d = bench::Of(detection);
  bench::Percentiles w = bench::Of(delivery);
  std::printf(
      "flag detection delay (noticed - fell, ms resolution), %zu flags of %d running "
      "clocks: p50 %.0f ms, p99 %.0f ms, max %.0f ms; missing %d, duplicated %d\n",
      detection.size(), n, d.p50, d.p99, d.max, missing, duplicated);
  std::printf(
      "flag delivered to a WatchClock client (durable in Redis, streamed; received - "
      "fell), %zu watched clocks: p50 %.1f ms, p99 %.1f ms, max %.1f ms (+/- %.1f ms "
      "clock estimate)\n",
      delivery.size(), w.p50, w.p99, w.max,
      static_cast<double>((*time)->uncertainty_us()) / 1000.0);
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // As in the servers (libs/service/server.cc): the client does not pay for deadlock detection.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  Setup s = Begin();
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode == "press") {
    PressBench(s);
  } else if (mode == "flags") {
    FlagBench(s);
  } else {
    Die("--mode: press or flags");
  }
  for (auto& r : s.replicas) r->Kill(SIGTERM);
  return 0;
}
