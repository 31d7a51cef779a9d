// Everything a process needs to host the arbitration service, wired once (services/arbiterd): the
// game store named by --store (memory: its own in-memory store; redis://host:port: the same Redis
// under its own key prefix, "arbiter:games:", so the clock authority's scheduler never sees a
// game's deadline), the time base (the store's clock), the analyst, the domain authority, the
// deadline timers, the gRPC service and a ticker for gauges.
//
//   ASSIGN_OR_RETURN(auto host, ArbitrationHost::Create(config, env,
//   ArbitrationHostOptionsFromFlags())); hosted.push_back(host->hosted()); host->Start(); //
//   timers, sweeps, gauges
//   ... server->Wait(); host->Stop();
#ifndef ARBITER_SERVICES_ARBITRATION_HOST_H_
#define ARBITER_SERVICES_ARBITRATION_HOST_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "libs/analysis/engine_pool.h"
#include "libs/arbitration/analyst.h"
#include "libs/arbitration/authority.h"
#include "libs/arbitration/game_deadlines.h"
#include "libs/arbitration/sealed_move.h"
#include "libs/ledger/deadline_scheduler.h"
#include "libs/ledger/draining_store.h"
#include "libs/ledger/time_source.h"
#include "libs/service/server.h"
#include "libs/service/store_opening.h"
#include "libs/service/ticker.h"
#include "libs/store/game_store.h"
#include "services/arbitration/arbitration_metrics.h"
#include "services/arbitration/arbitration_service.h"

namespace arbitration_service {

// The games' deadline scheduler (libs/ledger/deadline_scheduler.h) as the arbitration flags set
// it: a game's deadlines are seconds apart, so the index is swept at one pace, and a check may
// search (6.10), so few run at once.
struct DeadlineTimerOptions {
  absl::Duration sweep_interval = absl::Milliseconds(500);  // every shard, this often
  // Another replica's deadline is taken once due for longer than this: the replica that set it
  // fires it first, from its timer.
  absl::Duration sweep_grace = absl::Milliseconds(500);
  int workers = 4;  // concurrent checks
};

// The scheduler's options for `timers`, leases held by `owner`.
ledger::DeadlineSchedulerOptions SchedulerOptions(const DeadlineTimerOptions& timers,
                                                  const std::string& owner);

struct ArbitrationHostOptions {
  std::string replica_id;  // "" = hostname:pid
  ServiceOptions service;
  DeadlineTimerOptions timers;
  bool run_timers = true;
  int deadline_shards = store::kDefaultDeadlineShards;  // fixed for a deployment
  int redis_pool_size = 32;
  int redis_pipeline_lanes = 4;
  bool redis_async_flow = true;  // RedisConnectionOptions::async_flow
  std::string redis_key_prefix = "arbiter:games:";
  // The entries each shard's feed keeps (libs/store/game_feed.h: WatchGames reads it); 0: the
  // appends write no feed (what it costs: libs/store/README.md) and WatchGames follows nothing.
  std::int64_t feed_retention = store::kFeedRetention;
  // A Redis store keeps moves in their compact form (libs/arbitration/move_codec.h); false: as
  // protobuf bytes, for a rolling upgrade from a release that cannot read the form (reads expand
  // it either way).
  bool compact_moves = true;
  // Games whose latest state the replica keeps (ledger::AuthorityOptions::cache_size): every
  // replica may be sent any game's command, so sized for every live game, not a share.
  std::int64_t state_cache_games = 100'000;
  std::int64_t analysis_max_nodes = 200'000;  // per search (LocalAnalyst)
  // The engine for 10.2 advice (started at the first claim); "" = none. Unused with an
  // analysis_target: the engine is search-analysis's.
  std::string engine_path = analysis::kDefaultEnginePath;
  // The search-analysis service that answers what needs search (remote_analyst.h), a gRPC target
  // such as "dns:///arbiter-analysis:7070"; "" = in this process (LocalAnalyst), no call made.
  std::string analysis_target;
  absl::Duration analysis_call_deadline = absl::Seconds(2);
  absl::Duration analysis_advice_deadline = absl::Seconds(10);
  // The key of --auth_keys that signs this service's own tokens to search-analysis
  // (libs/service/service_token.h); "" = no token (only with --insecure_dev).
  std::string analysis_token_key;
  // A PEM file of the CA that signed search-analysis's certificate: TLS to it, this server's own
  // --tls_cert / --tls_key as the client's certificate when set (mutual TLS); "" = plaintext.
  std::string analysis_tls_ca;
  absl::Duration time_resync = absl::Seconds(1);
  // Appendix A: a file of 32 random bytes, the master key of the sealed moves; "" = none.
  std::string seal_key_file;
  // Signed records (docs/RECORDS.md): the Ed25519 signing key (PEM PKCS#8 file) and the public
  // keys rotated out (a PEM file); "" = none.
  std::string record_signing_key;
  std::string record_public_keys;
};

// The arbitration flags (see flags.cc): --arbitration_replica_id, --arbitration_key_prefix,
// --arbitration_deadline_shards, --arbitration_timers, --arbitration_sweep_interval,
// --arbitration_sweep_grace, --arbitration_timer_workers, --arbitration_analysis_max_nodes,
// --arbitration_feed_retention, --arbitration_compact_moves, --arbitration_state_cache_games,
// --arbitration_engine_path, --arbitration_redis_pipeline_lanes, --arbitration_redis_async_flow,
// --seal_key_file, --record_signing_key, --record_public_keys; search-analysis apart:
// --analysis_target, --analysis_call_deadline,
// --analysis_advice_deadline, --analysis_token_key, --analysis_tls_ca.
ArbitrationHostOptions ArbitrationHostOptionsFromFlags();

class ArbitrationHost {
 public:
  // Opens the store and measures the time base (UNAVAILABLE if the store does not answer).
  static absl::StatusOr<std::unique_ptr<ArbitrationHost>> Create(
      const service::ServerConfig& config, service::ServiceEnv* env,
      ArbitrationHostOptions options);
  // The same without reaching the store (arbiterd): Connect does, before Start.
  static absl::StatusOr<std::unique_ptr<ArbitrationHost>> CreateUnconnected(
      const service::ServerConfig& config, service::ServiceEnv* env,
      ArbitrationHostOptions options);
  ~ArbitrationHost();

  // Measures the time base (UNAVAILABLE while the store does not answer); OK once measured.
  absl::Status Connect();
  // One round trip to the store (its clock): readiness follows it.
  absl::Status Ping() { return store_->NowMs().status(); }
  bool Transient(const absl::Status& failure) const {
    return service::StoreFailureIsTransient(failure);
  }

  service::HostedService hosted() {
    return {ArbitrationService::kName, service_.get(), service_->async_methods()};
  }
  arbitration::GameAuthority* authority() { return authority_.get(); }
  store::GameStore* store() { return store_.get(); }
  // The analyst the rulings ask: in this process, or search-analysis's client.
  arbitration::Analyst& analyst() { return *analyst_; }

  void Start();  // the deadline timers and the gauges' ticker
  // Stops them, then waits for the appends still in flight (their answers call into the
  // authority and the service) and refuses new ones: after Stop the host may be destroyed.
  // Call it after the server has stopped serving.
  void Stop();

 private:
  ArbitrationHost() = default;

  ArbitrationHostOptions options_;
  std::string store_spec_;  // for the log
  std::unique_ptr<store::GameStore> store_;
  // What the authority writes through: its asynchronous appends, counted until answered.
  std::unique_ptr<ledger::DrainingStore> appends_;
  ledger::MeasuredLater time_;
  std::unique_ptr<arbitration::Analyst> analyst_;
  std::unique_ptr<ArbitrationMetrics> metrics_;
  // Appendix A10: the authority's opener of the envelope (declared first: it outlives it).
  std::unique_ptr<arbitration::SealedMoves> sealed_moves_;
  std::unique_ptr<arbitration::GameAuthority> authority_;
  std::unique_ptr<arbitration::GameDeadlines> timers_;
  std::unique_ptr<ArbitrationService> service_;
  service::Ticker ticker_;  // the gauges
};

}  // namespace arbitration_service

#endif  // ARBITER_SERVICES_ARBITRATION_HOST_H_
