#include "services/arbitration/host.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/credentials.h"
#include "libs/arbitration/move_codec.h"
#include "libs/base/error.h"
#include "libs/base/status_macros.h"
#include "libs/record/record.h"
#include "libs/service/errors.h"
#include "libs/service/log.h"
#include "libs/service/module.h"
#include "libs/service/server.h"
#include "libs/service/service_token.h"
#include "libs/service/store_opening.h"
#include "services/arbitration/remote_analyst.h"

namespace arbitration_service {

ledger::DeadlineSchedulerOptions SchedulerOptions(const DeadlineTimerOptions& timers,
                                                  const std::string& owner) {
  return {.owner = owner,
          .sweep_interval = timers.sweep_interval,
          .idle_sweep_interval = timers.sweep_interval,
          // More than the sweep interval: every deadline is seen by one sweep before it falls,
          // and a dead replica's is taken over sweep_grace after it fell.
          .peek_ahead = 2 * timers.sweep_interval,
          .sweep_grace = timers.sweep_grace,
          .lease = absl::Seconds(5) + timers.sweep_grace,
          .workers = std::max(1, timers.workers),
          .sweepers = 1,
          .max_claim = 64,
          .retry_after = absl::Milliseconds(250),
          .max_retry_after = absl::Seconds(5),
          .max_retries = 8};
}

namespace {

// The analyst: libs/analysis in this process, or (analysis_target) the search-analysis service,
// this process then starting no engine and running no search.
absl::StatusOr<std::unique_ptr<arbitration::Analyst>> MakeAnalyst(
    const service::ServerConfig& config, service::ServiceEnv* env,
    const ArbitrationHostOptions& options) {
  if (options.analysis_target.empty()) {
    return std::make_unique<arbitration::LocalAnalyst>(arbitration::LocalAnalystOptions{
        .max_nodes = options.analysis_max_nodes,
        .engine = options.engine_path.empty()
                      ? std::nullopt
                      : std::optional<analysis::EnginePoolOptions>(
                            analysis::EnginePoolOptions{.engine_path = options.engine_path})});
  }
  if (options.analysis_call_deadline <= absl::ZeroDuration() ||
      options.analysis_advice_deadline <= absl::ZeroDuration()) {
    return base::Error(service::kErrBadFlag,
                       "--analysis_call_deadline and --analysis_advice_deadline must be > 0");
  }
  RemoteAnalystOptions remote{.target = options.analysis_target,
                              .call_deadline = options.analysis_call_deadline,
                              .advice_deadline = options.analysis_advice_deadline,
                              .max_nodes = options.analysis_max_nodes};
  // The caller is authenticated as a service: its own short-lived tokens, signed with a key of
  // the keys file the server already reads.
  if (!options.analysis_token_key.empty()) {
    ASSIGN_OR_RETURN(std::shared_ptr<service::ServiceTokenSource> tokens,
                     service::ServiceTokenSource::Open({.keys_file = config.auth_keys,
                                                        .key_id = options.analysis_token_key,
                                                        .subject = options.replica_id,
                                                        .audience = config.jwt_audience,
                                                        .issuer = config.jwt_issuer}));
    remote.authorization = [tokens] { return tokens->Authorization(absl::Now()); };
  } else if (!config.insecure_dev) {
    return base::Error(service::kErrBadFlag,
                       "--analysis_target needs --analysis_token_key: arbitration calls "
                       "search-analysis as a service, with its own token");
  }
  if (!options.analysis_tls_ca.empty()) {
    grpc::SslCredentialsOptions tls;
    ASSIGN_OR_RETURN(tls.pem_root_certs,
                     service::ReadPem(options.analysis_tls_ca, "analysis_tls_ca"));
    if (!config.tls_cert.empty() && !config.tls_key.empty()) {
      ASSIGN_OR_RETURN(tls.pem_cert_chain, service::ReadPem(config.tls_cert, "tls_cert"));
      ASSIGN_OR_RETURN(tls.pem_private_key, service::ReadPem(config.tls_key, "tls_key"));
    }
    remote.credentials = grpc::SslCredentials(tls);
  }
  service::Log(service::LogLevel::kInfo, "arbitration asks search-analysis",
               {{"analysis_target", options.analysis_target},
                {"deadline", absl::FormatDuration(options.analysis_call_deadline)},
                {"token", options.analysis_token_key.empty() ? "none" : "service"},
                {"tls", options.analysis_tls_ca.empty() ? "off" : "on"}});
  return std::make_unique<RemoteAnalyst>(std::move(remote), &env->metrics());
}

// Signed records: the signing key and the public keys rotated out, read once at the start (a
// bad file stops it, naming the flag); none without --record_signing_key.
absl::StatusOr<std::shared_ptr<const arbitration::RecordSigner>> RecordSignerOf(
    const ArbitrationHostOptions& options) {
  auto bad = [](absl::string_view flag, const absl::Status& st) {
    return base::Error(service::kErrBadFlag, absl::StrCat(flag, ": ", st.message()));
  };
  if (options.record_signing_key.empty()) {
    if (!options.record_public_keys.empty()) {
      return base::Error(service::kErrBadFlag,
                         "--record_public_keys needs --record_signing_key: a server without a "
                         "signing key publishes no keys");
    }
    return nullptr;
  }
  absl::StatusOr<record::SigningKey> key = record::SigningKey::FromFile(options.record_signing_key);
  if (!key.ok()) return bad("--record_signing_key", key.status());
  record::KeyRing rotated_out;
  if (!options.record_public_keys.empty()) {
    absl::StatusOr<record::KeyRing> ring = record::KeyRing::FromFile(options.record_public_keys,
                                                                     /*may_be_empty=*/true);
    if (!ring.ok()) return bad("--record_public_keys", ring.status());
    rotated_out = *std::move(ring);
  }
  absl::StatusOr<arbitration::RecordSigner> signer =
      arbitration::RecordSigner::Create(*std::move(key), std::move(rotated_out));
  if (!signer.ok()) return bad("--record_public_keys", signer.status());
  return std::make_shared<const arbitration::RecordSigner>(*std::move(signer));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ArbitrationHost>> ArbitrationHost::Create(
    const service::ServerConfig& config, service::ServiceEnv* env, ArbitrationHostOptions options) {
  return service::CreateConnected<ArbitrationHost>(config, env, std::move(options));
}

absl::Status ArbitrationHost::Connect() {
  if (time_.get() != nullptr) return absl::OkStatus();
  // Before anything is set: a Redis without the store's functions is not connected (the clock
  // authority's host says why).
  RETURN_IF_ERROR(service::CheckStoreFunctions(store_.get()));
  // The time base is the store's clock, measured before serving: every replica (and the clock
  // authority) records instants on the same base.
  ASSIGN_OR_RETURN(std::unique_ptr<ledger::StoreTime> time,
                   ledger::StoreTime::Create(store_.get()));
  time_.Set(std::move(time));
  service::Log(service::LogLevel::kInfo, "arbitration ready",
               {{"replica", options_.replica_id},
                {"store", store_spec_},
                {"key_prefix", options_.redis_key_prefix},
                {"deadline_timers", options_.run_timers ? "on" : "off"}});
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ArbitrationHost>> ArbitrationHost::CreateUnconnected(
    const service::ServerConfig& config, service::ServiceEnv* env, ArbitrationHostOptions options) {
  if (options.redis_key_prefix.empty()) {
    return base::Error(service::kErrBadFlag,
                       "--arbitration_key_prefix must not be empty: the games would "
                       "share the clock authority's keys and deadline index");
  }
  if (options.state_cache_games < 1) {
    return base::Error(service::kErrBadFlag,
                       absl::StrCat("--arbitration_state_cache_games must be at least 1, not ",
                                    options.state_cache_games));
  }
  std::unique_ptr<ArbitrationHost> host(new ArbitrationHost());
  if (options.replica_id.empty()) {
    options.replica_id = absl::StrCat(service::DefaultReplicaId(), ":arbitration");
  }
  host->options_ = options;
  // The store is opened as the clock authority opens its own ("memory" makes a new in-memory
  // store: this service's alone), under the games' key prefix.
  ASSIGN_OR_RETURN(
      host->store_,
      service::OpenStore(config.store, {.deadline_shards = options.deadline_shards,
                                        .redis_pool_size = options.redis_pool_size,
                                        .redis_pipeline_lanes = options.redis_pipeline_lanes,
                                        .redis_async_flow = options.redis_async_flow,
                                        .redis_key_prefix = options.redis_key_prefix,
                                        .feed_retention = options.feed_retention,
                                        .event_codec = arbitration::CompactMoveCodec(),
                                        .compact_events = options.compact_moves,
                                        .store_metrics = env->metrics().registry().get()}));
  host->appends_ = std::make_unique<ledger::DrainingStore>(host->store_.get());
  ASSIGN_OR_RETURN(host->analyst_, MakeAnalyst(config, env, options));
  host->metrics_ = std::make_unique<ArbitrationMetrics>(*env->metrics().registry());
  host->authority_ = std::make_unique<arbitration::GameAuthority>(
      host->appends_.get(), &host->time_, *host->analyst_,
      // A move appends its record alone: the snapshot every 32 versions (a game's state is its
      // log's replay anyway; each snapshot is ~385 bytes of AOF with the command ids' filter,
      // 12 a move at 32 against 21 at 16, while an append then compares its command id with up
      // to 31 records instead of 15, at no measurable cost: libs/store/README.md), the flag
      // deadline as a bound that moves rarely rewrite.
      arbitration::AuthorityOptions{.owner = options.replica_id,
                                    .cache_size = static_cast<size_t>(options.state_cache_games),
                                    .snapshot_every = 32,
                                    .deadline_bounds = true});
  host->authority_->AddObserver(host->metrics_.get());
  if (options.run_timers) {
    ArbitrationMetrics* metrics = host->metrics_.get();
    host->timers_ = std::make_unique<arbitration::GameDeadlines>(
        host->authority_.get(), &host->time_, SchedulerOptions(options.timers, options.replica_id),
        ledger::DeadlineSchedulerHooks{
            .on_error =
                [metrics](const absl::Status& st) {
                  metrics->SchedulerError();
                  service::Log(
                      service::LogLevel::kWarning, "deadline check failed",
                      {{"code", base::ErrorCode(st)}, {"message", std::string(st.message())}});
                },
            .on_fired = [metrics](int n) { metrics->DeadlinesFired(n); }});
  }
  // Appendix A: the sealed moves' master key, read once at the start (a bad file stops it).
  if (!options.seal_key_file.empty()) {
    absl::StatusOr<seal::MasterKey> key = seal::MasterKey::FromFile(options.seal_key_file);
    if (!key.ok()) {
      return base::Error(service::kErrBadFlag,
                         absl::StrCat("--seal_key_file: ", key.status().message()));
    }
    options.service.seal_key = *std::move(key);
  }
  ASSIGN_OR_RETURN(options.service.record_signer, RecordSignerOf(options));
  // Appendix A10: a default that falls while both players are absent and the envelope is still
  // closed opens it (the deadline timers' path and any command), with the same key as
  // ResumeAdjournedGame. Without a key the envelope stays closed and both lose (6.7).
  host->sealed_moves_ = std::make_unique<arbitration::SealedMoves>(options.service.seal_key);
  host->authority_->SetEnvelopeOpener(
      [sealed = host->sealed_moves_.get()](absl::string_view game_id,
                                           const arbitration::GameState& game) {
        return sealed->Open(game_id, game);
      });
  host->service_ =
      std::make_unique<ArbitrationService>(env, host->authority_.get(), options.service);
  host->store_spec_ = config.store.substr(0, config.store.find('?'));
  return host;
}

ArbitrationHost::~ArbitrationHost() { Stop(); }

void ArbitrationHost::Start() {
  if (time_.get() == nullptr) return;  // not connected: ServeModules starts it after Connect
  time_.get()->StartResync(options_.time_resync);
  if (timers_ != nullptr) timers_->scheduler().Start();
  ticker_.Start(absl::Seconds(1), [this] {
    metrics_->Tick(analyst_->calls(), timers_ ? timers_->scheduler().tracked() : 0);
  });
}

void ArbitrationHost::Stop() {
  ticker_.Stop();
  if (timers_ != nullptr) timers_->scheduler().Stop();
  // The Redis store answers an append on its own thread, into the authority, its observers and
  // the service's reply: none of them may go before the answers have come.
  if (appends_ != nullptr) appends_->Drain();
}

}  // namespace arbitration_service
