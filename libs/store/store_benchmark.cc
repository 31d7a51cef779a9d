// Appends per second through a GameStore, each client appending to its own game in a loop (one
// event of ~100 bytes and a ~200-byte snapshot per append, like a move). Against Redis it starts
// its own redis-server with the shipped redis.conf and the --appendfsync given, so the cost of
// each fsync policy is measured with the store's real Lua write path (README.md, "Persistence"):
//
//   bazel run -c opt //libs/store:store_benchmark -- --appendfsync=always --clients=1,4,16
//   bazel run -c opt //libs/store:store_benchmark -- --store=memory
//
//   bazel run -c opt //libs/store:store_benchmark -- --replica --clients=1,16
//
// --replica starts a replica too (replicaof the master, same settings) and runs every client
// count twice, with min_replica_acks 0 (the master's reply alone) and 1 (WAIT 1 pipelined after
// each append): the cost of waiting for the replica (README.md, "Failover").
//
//   bazel run -c opt //libs/store:store_benchmark -- --cluster --clients=4,16
//
// --cluster starts one redis-server and a Redis Cluster of three masters (no replicas, the same
// settings; testing/redis_cluster.h) and runs each client count on both in one window, in the
// order one, cluster, cluster, one (ABBA: the machine's drift weighs on both alike), then prints
// the cluster's throughput and p99 as ratios of the single master's (the routing's cost, or on
// a machine with a core per master, the gain).
//
// Prints one line per client count: appends/s and latency percentiles.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "libs/store/game_store.h"
#include "libs/store/memory_game_store.h"
#include "libs/store/redis_game_store.h"
#include "libs/store/testing/redis_cluster.h"
#include "libs/store/testing/redis_server.h"
#include "proto/arbiter/v1/store.pb.h"

ABSL_FLAG(std::string, store, "redis", "redis or memory");
ABSL_FLAG(std::string, appendfsync, "", "always, everysec or no; empty: as in redis.conf");
ABSL_FLAG(std::string, clients, "1,16", "comma-separated numbers of concurrent clients");
ABSL_FLAG(double, seconds, 5.0, "duration of each run");
ABSL_FLAG(bool, replica, false,
          "start a replica too and measure each client count with WAIT off and on");
ABSL_FLAG(bool, cluster, false,
          "compare one master with a three-master Redis Cluster, ABBA, per client count");
ABSL_FLAG(int, pipeline_lanes, 0, "the store's pipeline_lanes (0: a connection per append)");
ABSL_FLAG(std::string, dir, "",
          "redis data directory (default: a fresh one under /tmp); put it "
          "on the disk you want to measure");

namespace store {
namespace {

AppendRequest MoveRequest(const std::string& game, std::int64_t version) {
  AppendRequest r;
  r.game_id = game;
  r.expected_version = version;
  r.command_id = absl::StrCat("cmd-", version);
  arbiter::v1::GameEvent& e = r.events.emplace_back();
  e.set_schema_version(1);
  e.set_recorded_at_ms(1'700'000'000'000 + version);
  e.mutable_body()->set_type_url("type.googleapis.com/arbiter.v1.MoveMade");
  e.mutable_body()->set_value(std::string(100, 'm'));
  r.snapshot.set_schema_version(1);
  r.snapshot.mutable_state()->set_type_url("type.googleapis.com/arbiter.v1.GameState");
  r.snapshot.mutable_state()->set_value(std::string(200, 's'));
  r.deadline = DeadlineUpdate::Set(1'700'000'000'000 + version * 1000);
  return r;
}

struct Measured {
  double per_second = 0;
  double p99_ms = 0;
  bool ok = true;
};

Measured Measure(GameStore& store, int clients, absl::Duration duration, const std::string& label);

int Run(GameStore& store, int clients, absl::Duration duration, const std::string& label) {
  return Measure(store, clients, duration, label).ok ? 0 : 1;
}

Measured Measure(GameStore& store, int clients, absl::Duration duration, const std::string& label) {
  static int run = 0;
  ++run;
  std::atomic<bool> stop = false;
  std::atomic<int> errors = 0;
  std::vector<std::vector<double>> latencies_ms(clients);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      const std::string game = absl::StrCat("bench-", run, "-", c);
      std::int64_t version = 0;
      while (!stop) {
        const absl::Time t0 = absl::Now();
        absl::StatusOr<AppendResult> r = store.Append(MoveRequest(game, version));
        latencies_ms[c].push_back(absl::ToDoubleMilliseconds(absl::Now() - t0));
        if (!r.ok()) {
          if (errors++ == 0) std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
          return;
        }
        version = r->version;
      }
    });
  }
  const absl::Time start = absl::Now();
  absl::SleepFor(duration);
  stop = true;
  for (std::thread& t : threads) t.join();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  std::vector<double> all;
  for (const auto& l : latencies_ms) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    return all.empty() ? 0.0 : all[static_cast<size_t>(p * (all.size() - 1))];
  };
  std::printf("%-46s clients=%-3d appends/s=%-8.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
              label.c_str(), clients, all.size() / seconds, pct(0.5), pct(0.99),
              all.empty() ? 0.0 : all.back());
  std::fflush(stdout);
  return {all.size() / seconds, pct(0.99), errors == 0};
}

// --cluster: one master and a three-master cluster, ABBA per client count.
int CompareWithCluster(const std::vector<int>& client_counts, absl::Duration duration) {
  const std::string appendfsync = absl::GetFlag(FLAGS_appendfsync);
  absl::StatusOr<std::unique_ptr<testing::RedisServer>> one =
      testing::RedisServer::Start({.appendfsync = appendfsync});
  absl::StatusOr<std::unique_ptr<testing::RedisCluster>> cluster =
      testing::RedisCluster::Start({.replicas_per_master = 0, .appendfsync = appendfsync});
  if (!one.ok() || !cluster.ok()) {
    std::fprintf(stderr, "%s %s\n", one.status().ToString().c_str(),
                 cluster.status().ToString().c_str());
    return 1;
  }
  RedisGameStoreOptions options;
  options.connection.port = (*one)->port();
  options.connection.pool_size = 64;
  options.connection.pipeline_lanes = absl::GetFlag(FLAGS_pipeline_lanes);
  RedisGameStoreOptions on_cluster = options;
  on_cluster.connection.cluster_nodes = (*cluster)->ConnectionOptions().cluster_nodes;
  absl::StatusOr<std::unique_ptr<RedisGameStore>> a = RedisGameStore::Create(options);
  absl::StatusOr<std::unique_ptr<RedisGameStore>> b = RedisGameStore::Create(on_cluster);
  if (!a.ok() || !b.ok()) return 1;
  int rc = 0;
  for (int clients : client_counts) {
    Measured m[4];
    m[0] = Measure(**a, clients, duration, "one master (A)");
    m[1] = Measure(**b, clients, duration, "cluster of 3 masters (B)");
    m[2] = Measure(**b, clients, duration, "cluster of 3 masters (B)");
    m[3] = Measure(**a, clients, duration, "one master (A)");
    for (const Measured& x : m) rc |= x.ok ? 0 : 1;
    std::printf("clients=%d cluster/one: appends/s x%.2f, p99 x%.2f\n", clients,
                (m[1].per_second + m[2].per_second) / (m[0].per_second + m[3].per_second),
                (m[1].p99_ms + m[2].p99_ms) / (m[0].p99_ms + m[3].p99_ms));
  }
  absl::StatusOr<std::vector<long long>> keys = (*cluster)->KeysPerNode();
  if (keys.ok()) {
    std::string spread;
    for (long long n : *keys) absl::StrAppend(&spread, " ", n);
    std::printf("keys per master:%s\n", spread.c_str());
  }
  return rc;
}

int Main() {
  std::vector<int> client_counts;
  for (absl::string_view s : absl::StrSplit(absl::GetFlag(FLAGS_clients), ',')) {
    int n = 0;
    if (!absl::SimpleAtoi(s, &n) || n < 1) {
      std::fprintf(stderr, "bad --clients\n");
      return 2;
    }
    client_counts.push_back(n);
  }
  const absl::Duration duration = absl::Seconds(absl::GetFlag(FLAGS_seconds));
  if (absl::GetFlag(FLAGS_cluster)) return CompareWithCluster(client_counts, duration);
  std::unique_ptr<testing::RedisServer> server;
  std::unique_ptr<testing::RedisServer> replica;
  std::unique_ptr<GameStore> store;
  std::unique_ptr<GameStore> durable_store;  // --replica: min_replica_acks = 1
  std::string label;
  if (absl::GetFlag(FLAGS_store) == "memory") {
    store = std::make_unique<MemoryGameStore>();
    label = "store=memory";
  } else {
    absl::StatusOr<std::unique_ptr<testing::RedisServer>> started = testing::RedisServer::Start(
        {.appendfsync = absl::GetFlag(FLAGS_appendfsync), .dir = absl::GetFlag(FLAGS_dir)});
    if (!started.ok()) {
      std::fprintf(stderr, "%s\n", started.status().ToString().c_str());
      return 1;
    }
    server = std::move(*started);
    absl::StatusOr<std::string> fsync = server->Command({"CONFIG", "GET", "appendfsync"});
    label =
        absl::StrCat("store=redis appendfsync=",
                     fsync.ok() ? std::string(absl::StripPrefix(*fsync, "appendfsync\n")) : "?");
    RedisGameStoreOptions options;
    options.connection.port = server->port();
    options.connection.pool_size = 64;
    options.connection.pipeline_lanes = absl::GetFlag(FLAGS_pipeline_lanes);
    absl::StatusOr<std::unique_ptr<RedisGameStore>> redis = RedisGameStore::Create(options);
    if (!redis.ok()) return 1;
    store = std::move(*redis);
    if (absl::GetFlag(FLAGS_replica)) {
      testing::RedisServerOptions r{.appendfsync = absl::GetFlag(FLAGS_appendfsync)};
      r.extra_args = {"--replicaof", "127.0.0.1", absl::StrCat(server->port())};
      absl::StatusOr<std::unique_ptr<testing::RedisServer>> started_replica =
          testing::RedisServer::Start(r);
      if (!started_replica.ok()) {
        std::fprintf(stderr, "%s\n", started_replica.status().ToString().c_str());
        return 1;
      }
      replica = std::move(*started_replica);
      // Until the first sync is done, WAIT would time out.
      for (int i = 0; i < 500; ++i) {
        absl::StatusOr<std::string> info = replica->Command({"INFO", "replication"});
        if (info.ok() && absl::StrContains(*info, "master_link_status:up")) break;
        absl::SleepFor(absl::Milliseconds(20));
      }
      options.connection.min_replica_acks = 1;
      absl::StatusOr<std::unique_ptr<RedisGameStore>> durable = RedisGameStore::Create(options);
      if (!durable.ok()) return 1;
      durable_store = std::move(*durable);
    }
  }
  int rc = 0;
  for (int clients : client_counts) {
    if (durable_store == nullptr) {
      rc |= Run(*store, clients, duration, label);
      continue;
    }
    rc |= Run(*store, clients, duration, absl::StrCat(label, " replica wait=off"));
    rc |= Run(*durable_store, clients, duration, absl::StrCat(label, " replica wait=1"));
  }
  return rc;
}

}  // namespace
}  // namespace store

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return store::Main();
}
