#include "services/clock_authority/host.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/service/errors.h"
#include "libs/service/log.h"
#include "libs/service/module.h"

namespace clock_authority_service {

absl::StatusOr<std::unique_ptr<ClockAuthorityHost>> ClockAuthorityHost::Create(
    const service::ServerConfig& config, service::ServiceEnv* env, ClockHostOptions options) {
  return service::CreateConnected<ClockAuthorityHost>(config, env, std::move(options));
}

absl::Status ClockAuthorityHost::Connect() {
  if (time_.get() != nullptr) return absl::OkStatus();
  // Before anything is set: a Redis without the store's functions (libs/store/README.md,
  // "Functions") is not connected, and is checked again on the next try.
  RETURN_IF_ERROR(service::CheckStoreFunctions(backend_));
  // The time base is the store's clock: measured before serving, so a restarted replica reads
  // the same instants as the others.
  ASSIGN_OR_RETURN(std::unique_ptr<ledger::StoreTime> time,
                   ledger::StoreTime::Create(store_.get()));
  time_.Set(std::move(time));
  service::Log(service::LogLevel::kInfo, "clock authority ready",
               {{"replica", options_.replica_id},
                {"store", store_spec_},
                {"time_offset_us", absl::StrCat(time_.get()->offset_us())},
                {"time_uncertainty_us", absl::StrCat(time_.get()->uncertainty_us())},
                {"flag_scheduler", options_.run_scheduler ? "on" : "off"}});
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ClockAuthorityHost>> ClockAuthorityHost::CreateUnconnected(
    const service::ServerConfig& config, service::ServiceEnv* env, ClockHostOptions options) {
  if (options.service.max_watched_games < 1 ||
      options.service.max_watched_games > store::kMaxWatchedAtOnce) {
    return base::Error(
        service::kErrBadFlag,
        absl::StrCat("--clock_max_watched_games must be in [1, ", store::kMaxWatchedAtOnce,
                     "], not ", options.service.max_watched_games));
  }
  std::unique_ptr<ClockAuthorityHost> host(new ClockAuthorityHost());
  if (options.replica_id.empty()) options.replica_id = service::DefaultReplicaId();
  options.scheduler.owner = options.replica_id;
  host->options_ = options;
  options.store_metrics = env->metrics().registry().get();
  ASSIGN_OR_RETURN(std::unique_ptr<store::GameStore> raw,
                   service::OpenStore(config.store, options));
  host->backend_ = raw.get();
  host->store_ = std::make_unique<InstrumentedStore>(std::move(raw), *env->metrics().registry());
  host->store_spec_ = config.store.substr(0, config.store.find('?'));
  host->metrics_ = std::make_unique<ClockMetrics>(*env->metrics().registry());
  host->appends_ = std::make_unique<ledger::DrainingStore>(host->store_.get());
  host->authority_ = std::make_unique<clock_authority::ClockAuthority>(
      host->appends_.get(), &host->time_,
      clock_authority::AuthorityOptions{.owner = options.replica_id});
  host->authority_->AddObserver(host->metrics_.get());
  if (options.run_scheduler) {
    host->flags_ = std::make_unique<clock_authority::FlagDeadlines>(
        host->authority_.get(), options.scheduler, host->metrics_->SchedulerHooks());
  }
  host->service_ =
      std::make_unique<ClockAuthorityService>(env, host->authority_.get(), options.service);
  return host;
}

ClockAuthorityHost::~ClockAuthorityHost() { Stop(); }

void ClockAuthorityHost::Start() {
  if (time_.get() == nullptr) return;  // not connected: ServeModules starts it after Connect
  time_.get()->StartResync(options_.time_resync);
  if (flags_ != nullptr) flags_->scheduler().Start();
  ticker_.Start(absl::Seconds(1), [this, tick = 0]() mutable {
    metrics_->Tick(time_.NowMs(), flags_ ? flags_->scheduler().tracked() : 0,
                   time_.get()->uncertainty_us());
    // The deployment's live clocks: one read per shard, every 5 s.
    if (tick++ % 5 == 0) CountPendingDeadlines();
  });
}

void ClockAuthorityHost::CountPendingDeadlines() {
  std::int64_t total = 0;
  for (int shard = 0; shard < store_->NumDeadlineShards(); ++shard) {
    absl::StatusOr<std::int64_t> n = store_->CountDeadlines(shard);
    if (!n.ok()) return;  // counted as a store error; the gauge keeps its last value
    total += *n;
  }
  metrics_->SetPendingDeadlines(total);
}

void ClockAuthorityHost::Stop() {
  ticker_.Stop();
  if (flags_ != nullptr) flags_->scheduler().Stop();
  // The Redis store answers an append on its own thread, into the authority, its observers and
  // the service's reply: none of them may go before the answers have come.
  if (appends_ != nullptr) appends_->Drain();
}

}  // namespace clock_authority_service
