// Everything a process needs to host the clock authority, wired once for both binaries
// (services/clock_authority:clock_authority_server and services/arbiterd): the game store named
// by --store (memory, or redis://host:port), timed for metrics; the time base (the store's
// clock); the domain authority; the flag scheduler; the gRPC service; a ticker for gauges.
//
//   ASSIGN_OR_RETURN(auto host,
//                    ClockAuthorityHost::Create(config, env, ClockHostOptionsFromFlags()));
//   hosted.push_back(host->hosted());
//   host->Start();  // the flag scheduler
//   ... server->Wait(); host->Stop();
// (arbiterd hosts it through clock_authority_service::CreateModule, services/modules.h.)
#ifndef ARBITER_SERVICES_CLOCK_AUTHORITY_HOST_H_
#define ARBITER_SERVICES_CLOCK_AUTHORITY_HOST_H_

#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "libs/clock_authority/authority.h"
#include "libs/clock_authority/flag_deadlines.h"
#include "libs/ledger/deadline_scheduler.h"
#include "libs/ledger/draining_store.h"
#include "libs/ledger/time_source.h"
#include "libs/service/server.h"
#include "libs/service/store_opening.h"
#include "libs/service/ticker.h"
#include "libs/store/game_store.h"
#include "services/clock_authority/clock_metrics.h"
#include "services/clock_authority/clock_service.h"

namespace clock_authority_service {

// The store's opening (deadline_shards, redis_*, store_metrics: libs/service/store_opening.h),
// and the clock's own.
struct ClockHostOptions : service::StoreOpeningOptions {
  std::string replica_id;  // "" = hostname:pid
  ServiceOptions service;
  ledger::DeadlineSchedulerOptions scheduler;  // the flag scheduler (owner: replica_id)
  bool run_scheduler = true;
  absl::Duration time_resync = absl::Seconds(1);
};

// The clock flags (see flags.cc): --clock_replica_id, --clock_workers, --clock_max_watched_games,
// --flag_sweep_interval, --flag_peek_ahead, --flag_sweep_grace, --flag_lease, --flag_workers,
// --flag_scheduler,
// --deadline_shards, --redis_pool_size, --redis_pipeline_lanes, --redis_async_flow.
ClockHostOptions ClockHostOptionsFromFlags();

class ClockAuthorityHost {
 public:
  // Opens the store and measures the time base (UNAVAILABLE if the store does not answer).
  static absl::StatusOr<std::unique_ptr<ClockAuthorityHost>> Create(
      const service::ServerConfig& config, service::ServiceEnv* env, ClockHostOptions options);
  // The same without reaching the store (arbiterd): Connect does, before Start.
  static absl::StatusOr<std::unique_ptr<ClockAuthorityHost>> CreateUnconnected(
      const service::ServerConfig& config, service::ServiceEnv* env, ClockHostOptions options);
  ~ClockAuthorityHost();

  // Measures the time base (UNAVAILABLE while the store does not answer); OK once measured.
  absl::Status Connect();
  // One round trip to the store (its clock): readiness follows it.
  absl::Status Ping() { return store_->NowMs().status(); }
  bool Transient(const absl::Status& failure) const {
    return service::StoreFailureIsTransient(failure);
  }

  // What Server::Start takes: the service with its completion-queue methods.
  service::HostedService hosted() {
    return {ClockAuthorityService::kName, service_.get(), service_->async_methods()};
  }
  clock_authority::ClockAuthority* authority() { return authority_.get(); }
  store::GameStore* store() { return store_.get(); }
  const std::string& replica_id() const { return options_.replica_id; }

  void Start();  // the flag scheduler and the gauges' ticker
  // Stops them, then waits for the appends still in flight (their answers call into the
  // authority and the service) and refuses new ones: after Stop the host may be destroyed.
  // Call it after the server has stopped serving.
  void Stop();

 private:
  ClockAuthorityHost() = default;
  // Sets arbiter_clock_pending_deadlines from the store's index.
  void CountPendingDeadlines();

  ClockHostOptions options_;
  std::string store_spec_;  // for the log
  std::unique_ptr<store::GameStore> store_;
  store::GameStore* backend_ = nullptr;  // what store_ (instrumented) forwards to
  // What the authority writes through: its asynchronous appends, counted until answered.
  std::unique_ptr<ledger::DrainingStore> appends_;
  ledger::MeasuredLater time_;
  std::unique_ptr<ClockMetrics> metrics_;
  std::unique_ptr<clock_authority::ClockAuthority> authority_;
  std::unique_ptr<clock_authority::FlagDeadlines> flags_;
  std::unique_ptr<ClockAuthorityService> service_;
  service::Ticker ticker_;  // the gauges
};

}  // namespace clock_authority_service

#endif  // ARBITER_SERVICES_CLOCK_AUTHORITY_HOST_H_
