// Two clock-authority processes on one redis-server, 1,000 running clocks on short deadlines, one
// process killed with SIGKILL mid-run: every flag is in the log exactly once, at the instant it
// fell, and none is noticed later than the goal (the surviving replica takes over the dead one's
// deadlines through the index sweep). Everything is started and stopped by the test itself.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "libs/clock_authority/clock_log.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/testing/redis_server.h"
#include "proto/arbiter/v1/clock.grpc.pb.h"
#include "tests/integration/clock_process.h"

namespace {

namespace v1 = arbiter::v1;

constexpr int kClocks = 1000;
constexpr int kShards = 64;
// The scheduler's settings in both replicas (the defaults of --flag_*).
constexpr int kSweepMs = 5;       // while sweeps find entries
constexpr int kIdleSweepMs = 40;  // while they find none
constexpr int kPeekAheadMs = 100;
constexpr int kGraceMs = 3;
constexpr int kLeaseMs = 50;
// The goals (services/clock_authority/README.md): detection p99 <= 10 ms, also for a killed
// replica's deadlines. The other replica has read them from the index ahead (kPeekAheadMs) and
// wakes up kGraceMs after each falls to take it over; one set too late for that is found by its
// next sweep (kIdleSweepMs + kGraceMs). An entry the killed replica had leased (a sweep of its own
// that found its timers late) comes back when the lease ends. Slack for a loaded CI machine (2
// cores shared with the build) is added to the bounds.
// The detection-delay goal itself (p99 <= 10 ms) is a benchmark's to show, on a quiet machine
// (tests/bench/clock_bench.sh); this test prints the figures but asserts only what timing noise
// cannot break: every flag once, at the instant it fell, and none later than these bounds.
constexpr int kSlackMs = 50;
constexpr int kTakeOverMs = kSweepMs + kGraceMs + kSlackMs;
constexpr int kMaxLateMs = std::max(kLeaseMs, kIdleSweepMs) + kSweepMs + kGraceMs + kSlackMs;

struct Flag {
  std::string game;
  std::int64_t fell_at = 0;
  std::int64_t noticed_at = 0;
  std::string deadline_set_by;  // the replica whose append set the deadline that fell
};

std::int64_t Percentile(std::vector<std::int64_t> v, int p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, v.size() * p / 100)];
}

TEST(ClockReplicas, EveryFlagOnceWhenAReplicaIsKilledMidRun) {
  absl::StatusOr<std::unique_ptr<store::testing::RedisServer>> redis =
      store::testing::RedisServer::Start();
  ASSERT_TRUE(redis.ok()) << redis.status();
  const std::string binary =
      testing_util::FindRunfile("services/clock_authority/clock_authority_server");
  auto flags = [&](const std::string& id) {
    return std::vector<std::string>{absl::StrCat("--store=redis://127.0.0.1:", (*redis)->port()),
                                    "--insecure_dev",
                                    "--metrics_address=none",
                                    absl::StrCat("--clock_replica_id=", id),
                                    absl::StrCat("--deadline_shards=", kShards),
                                    absl::StrCat("--flag_sweep_interval=", kSweepMs, "ms"),
                                    absl::StrCat("--flag_idle_sweep_interval=", kIdleSweepMs, "ms"),
                                    absl::StrCat("--flag_sweep_grace=", kGraceMs, "ms"),
                                    absl::StrCat("--flag_peek_ahead=", kPeekAheadMs, "ms"),
                                    absl::StrCat("--flag_lease=", kLeaseMs, "ms"),
                                    "--shutdown_grace=0s"};
  };
  auto a = testing_util::ServerProcess::Start(binary, flags("A"));
  ASSERT_TRUE(a.ok()) << a.status();
  auto b = testing_util::ServerProcess::Start(binary, flags("B"));
  ASSERT_TRUE(b.ok()) << b.status();
  auto stub_a = v1::ClockAuthority::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", (*a)->grpc_port()), grpc::InsecureChannelCredentials()));
  auto stub_b = v1::ClockAuthority::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", (*b)->grpc_port()), grpc::InsecureChannelCredentials()));
  auto stub = [&](int replica) { return replica == 0 ? stub_a.get() : stub_b.get(); };

  // 1,000 clocks of 3 s (standard: each flag counts, 6.9), half created and started on each
  // replica; every fourth gets a press through the other replica, which moves its deadline to
  // black's clock, set by that replica.
  std::atomic<int> failures{0};
  auto parallel = [&](const std::function<void(int)>& fn) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t) {
      threads.emplace_back([&, t] {
        for (int i = t; i < kClocks; i += 16) fn(i);
      });
    }
    for (std::thread& t : threads) t.join();
  };
  auto call = [&](auto&& rpc) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ClockResponse resp;
    grpc::Status st = rpc(&ctx, &resp);
    if (!st.ok()) {
      ++failures;
      std::fprintf(stderr, "rpc failed: %s\n", st.error_message().c_str());
    }
  };
  auto game = [](int i) { return absl::StrCat("kill-", i); };
  parallel([&](int i) {
    v1::CreateClockRequest create;
    create.set_game_id(game(i));
    create.set_time_control_human("G/0.05");
    create.set_edition(v1::EDITION_FIDE_2005);
    create.set_game_type(v1::GAME_TYPE_STANDARD);
    call([&](grpc::ClientContext* ctx, v1::ClockResponse* resp) {
      return stub(i % 2)->CreateClock(ctx, create, resp);
    });
    v1::StartClockRequest start;
    start.set_game_id(game(i));
    call([&](grpc::ClientContext* ctx, v1::ClockResponse* resp) {
      return stub(i % 2)->StartClock(ctx, start, resp);
    });
    // Pressed right after its start, not after all 1,000 are started: on a loaded machine
    // starting them all can take longer than a clock's 3 s, and the press would come after the
    // flag (6.9).
    if (i % 4 != 0) return;
    v1::PressClockRequest press;
    press.set_game_id(game(i));
    press.set_color(v1::COLOR_WHITE);
    call([&](grpc::ClientContext* ctx, v1::ClockResponse* resp) {
      return stub(1 - i % 2)->PressClock(ctx, press, resp);
    });
  });
  ASSERT_EQ(failures.load(), 0);

  // The store, read directly: the deadlines, the time, and afterwards the logs.
  store::RedisGameStoreOptions options;
  options.connection.port = (*redis)->port();
  options.num_deadline_shards = kShards;
  absl::StatusOr<std::unique_ptr<store::RedisGameStore>> store =
      store::RedisGameStore::Create(options);
  ASSERT_TRUE(store.ok()) << store.status();
  std::vector<std::int64_t> deadlines;
  for (int i = 0; i < kClocks; ++i) {
    absl::StatusOr<std::optional<store::Deadline>> d = (*store)->GetDeadline(game(i));
    ASSERT_TRUE(d.ok() && d->has_value()) << game(i);
    deadlines.push_back((*d)->deadline_ms);
  }
  std::sort(deadlines.begin(), deadlines.end());
  // Kill A when about a third of the flags have fallen.
  const std::int64_t kill_at = deadlines[kClocks / 3];
  while (*(*store)->NowMs() < kill_at) absl::SleepFor(absl::Milliseconds(1));
  const std::int64_t killed_at = *(*store)->NowMs();  // A notices nothing after this
  (*a)->Kill(SIGKILL);
  while (*(*store)->NowMs() < deadlines.back() + 1000) absl::SleepFor(absl::Milliseconds(20));

  std::vector<Flag> flags_seen;
  for (int i = 0; i < kClocks; ++i) {
    absl::StatusOr<std::vector<v1::GameEvent>> log = (*store)->ReadEvents(game(i), 1, store::kHead);
    ASSERT_TRUE(log.ok()) << log.status();
    std::vector<v1::ClockEvent> before_flag;
    int flag_count = 0;
    Flag flag;
    flag.game = game(i);
    for (const v1::GameEvent& e : *log) {
      absl::StatusOr<v1::ClockEvent> event = clock_authority::FromGameEvent(e);
      ASSERT_TRUE(event.ok()) << event.status();
      if (event->has_flag_fell()) {
        ++flag_count;
        flag.fell_at = event->flag_fell().fell_at_ms();
        flag.noticed_at = event->flag_fell().noticed_at_ms();
        // The instant it fell is the deadline of the state before it.
        absl::StatusOr<clock_authority::ClockGame> state =
            clock_authority::ClockGame::Replay(before_flag);
        ASSERT_TRUE(state.ok()) << state.status();
        EXPECT_EQ(clock_authority::NextDeadline(*state), flag.fell_at) << game(i);
        EXPECT_TRUE(event->flag_fell().counts());
      } else {
        // Auto command ids name the replica: "a:<replica>:...".
        flag.deadline_set_by = absl::StartsWith(e.command_id(), "a:A:") ? "A" : "B";
        before_flag.push_back(*event);
      }
    }
    EXPECT_EQ(flag_count, 1) << game(i) << ": every flag exactly once";
    if (flag_count == 1) flags_seen.push_back(flag);
    absl::StatusOr<std::optional<store::Deadline>> d = (*store)->GetDeadline(game(i));
    ASSERT_TRUE(d.ok());
    EXPECT_FALSE(d->has_value()) << game(i) << ": the flag's append clears the index";
  }
  ASSERT_EQ(flags_seen.size(), static_cast<size_t>(kClocks));

  // Taken over: set by A and noticed after A was killed (so by B, through the sweep). Live: the
  // rest, each noticed by the replica that set its deadline (or by B for its own).
  std::vector<std::int64_t> all, orphaned, live;
  int before_kill = 0;
  for (const Flag& f : flags_seen) {
    const std::int64_t late = f.noticed_at - f.fell_at;
    EXPECT_GE(late, 0);
    all.push_back(late);
    if (f.fell_at < killed_at) ++before_kill;
    (f.deadline_set_by == "A" && f.noticed_at >= killed_at ? orphaned : live).push_back(late);
  }
  auto line = [](const char* what, const std::vector<std::int64_t>& v) {
    std::printf("  %-34s %4zu flags: p50 %lld ms  p99 %lld ms  max %lld ms\n", what, v.size(),
                static_cast<long long>(Percentile(v, 50)),
                static_cast<long long>(Percentile(v, 99)),
                static_cast<long long>(Percentile(v, 100)));
  };
  std::printf("%d clocks, 2 replicas, A killed (SIGKILL) with %d flags fallen; noticed - fell:\n",
              kClocks, before_kill);
  line("all", all);
  line("set by a live replica", live);
  line("set by A, noticed after the kill", orphaned);
  EXPECT_GT(orphaned.size(), 100u) << "the kill must leave A's deadlines to B";
  EXPECT_LE(Percentile(orphaned, 50), kTakeOverMs);
  EXPECT_LE(Percentile(all, 100), kMaxLateMs) << "no flag later than the lease + a sweep";
  (*b)->Kill(SIGTERM);
}

}  // namespace
