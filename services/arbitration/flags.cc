// The arbitration service's own flags (libs/service/flags.h has the flags every server takes,
// --store among them).
#include <string>

#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "services/arbitration/host.h"

ABSL_FLAG(std::string, arbitration_replica_id, "",
          "arbitration: this replica's unique name in deadline leases (default host:pid)");
ABSL_FLAG(std::string, arbitration_key_prefix, "arbiter:games:",
          "arbitration: the Redis key prefix of the games (never the clock authority's)");
ABSL_FLAG(int, arbitration_deadline_shards, store::kDefaultDeadlineShards,
          "arbitration: deadline index shards of the games; fixed for a deployment");
ABSL_FLAG(int64_t, arbitration_feed_retention, store::kFeedRetention,
          "arbitration: the entries each shard's feed keeps for WatchGames (about: Redis trims "
          "whole nodes); a position older is ERR_FEED_POSITION_EXPIRED; 0 = no feed");
ABSL_FLAG(bool, arbitration_compact_moves, true,
          "arbitration: a Redis store keeps each move in its compact form (about 12 bytes and "
          "the actor's name; libs/arbitration/move_codec.h); false while replicas of a release "
          "that cannot read it still run (reads expand it either way)");
ABSL_FLAG(int64_t, arbitration_state_cache_games, 100'000,
          "arbitration: games whose latest state this replica keeps (least recently used out); "
          "a command for a game beyond it reads and replays the game's log first. About 8 KB "
          "a game at ply 43, 12 KB at ply 80 (//libs/arbitration:rulings_benchmark): size it "
          "for the live games and the memory limit");
ABSL_FLAG(bool, arbitration_timers, true,
          "arbitration: fire flags and defaults (6.9, 6.7) from this process");
ABSL_FLAG(absl::Duration, arbitration_sweep_interval, absl::Milliseconds(500),
          "arbitration: how often the deadline index is swept for deadlines no timer fired");
ABSL_FLAG(absl::Duration, arbitration_sweep_grace, absl::Milliseconds(500),
          "arbitration: another replica's deadline is taken once due for longer than this");
ABSL_FLAG(int, arbitration_timer_workers, 4, "arbitration: concurrent deadline checks");
ABSL_FLAG(int, arbitration_redis_pipeline_lanes, 4,
          "arbitration: threads sending the moves' appends to Redis in batches (each waits for "
          "its batch's replies)");
ABSL_FLAG(bool, arbitration_redis_async_flow, true,
          "arbitration: write each move's append at once on one Redis connection whose replies "
          "one thread reads (libs/store/redis_client.h, \"the flow\"); false: the lanes only");
ABSL_FLAG(int64_t, arbitration_analysis_max_nodes, 200'000,
          "arbitration: the node limit of one search (dead position, 6.10)");
ABSL_FLAG(std::string, arbitration_engine_path, analysis::kDefaultEnginePath,
          "arbitration: the UCI engine (Stockfish) whose evaluation a 10.2 claim's advice for the "
          "arbiter includes, started at the first such claim; \"\" = none");
ABSL_FLAG(std::string, analysis_target, "",
          "arbitration: the search-analysis service that answers the questions needing search "
          "(6.10, 9.6, 1997 C4, 10.2 advice), a gRPC target such as "
          "dns:///arbiter-analysis:7070, balanced round-robin over its addresses; \"\" = in this "
          "process (the all-in-one)");
ABSL_FLAG(absl::Duration, analysis_call_deadline, absl::Seconds(2),
          "arbitration: the most one question to search-analysis may take, retries included; "
          "unanswered, a flag's ruling goes to the arbiter's review");
ABSL_FLAG(absl::Duration, analysis_advice_deadline, absl::Seconds(10),
          "arbitration: the most a 10.2 claim's advice from search-analysis may take");
ABSL_FLAG(std::string, analysis_token_key, "",
          "arbitration: the key id in --auth_keys that signs this service's own tokens (role "
          "service) to search-analysis; required with --analysis_target unless --insecure_dev");
ABSL_FLAG(std::string, analysis_tls_ca, "",
          "arbitration: the CA (PEM file) of search-analysis's certificate: TLS to it, with "
          "--tls_cert/--tls_key as the client certificate when set; \"\" = plaintext");

ABSL_FLAG(std::string, seal_key_file, "",
          "arbitration: a file of 32 random bytes, the master key the sealed moves of adjourned "
          "games are encrypted under (Appendix A; a Kubernetes Secret in production); \"\" = "
          "none: SealMove answers ERR_SEAL_KEY_MISSING");

ABSL_FLAG(std::string, record_signing_key, "",
          "arbitration: a PEM file (PKCS#8) of the Ed25519 key that signs the records of games "
          "that are over (GetSignedRecord, ArchiveGame; docs/RECORDS.md; a Kubernetes Secret in "
          "production; `arbiterctl record keygen` makes one); \"\" = records are not signed");
ABSL_FLAG(std::string, record_public_keys, "",
          "arbitration: a file of PEM public keys of records signed before a rotation, published "
          "with the signing key's by GetRecordKeys so that old records still verify; \"\" = "
          "the signing key's only");

namespace arbitration_service {

ArbitrationHostOptions ArbitrationHostOptionsFromFlags() {
  return {.replica_id = absl::GetFlag(FLAGS_arbitration_replica_id),
          .timers = {.sweep_interval = absl::GetFlag(FLAGS_arbitration_sweep_interval),
                     .sweep_grace = absl::GetFlag(FLAGS_arbitration_sweep_grace),
                     .workers = absl::GetFlag(FLAGS_arbitration_timer_workers)},
          .run_timers = absl::GetFlag(FLAGS_arbitration_timers),
          .deadline_shards = absl::GetFlag(FLAGS_arbitration_deadline_shards),
          .redis_pipeline_lanes = absl::GetFlag(FLAGS_arbitration_redis_pipeline_lanes),
          .redis_async_flow = absl::GetFlag(FLAGS_arbitration_redis_async_flow),
          .redis_key_prefix = absl::GetFlag(FLAGS_arbitration_key_prefix),
          .feed_retention = absl::GetFlag(FLAGS_arbitration_feed_retention),
          .compact_moves = absl::GetFlag(FLAGS_arbitration_compact_moves),
          .state_cache_games = absl::GetFlag(FLAGS_arbitration_state_cache_games),
          .analysis_max_nodes = absl::GetFlag(FLAGS_arbitration_analysis_max_nodes),
          .engine_path = absl::GetFlag(FLAGS_arbitration_engine_path),
          .analysis_target = absl::GetFlag(FLAGS_analysis_target),
          .analysis_call_deadline = absl::GetFlag(FLAGS_analysis_call_deadline),
          .analysis_advice_deadline = absl::GetFlag(FLAGS_analysis_advice_deadline),
          .analysis_token_key = absl::GetFlag(FLAGS_analysis_token_key),
          .analysis_tls_ca = absl::GetFlag(FLAGS_analysis_tls_ca),
          .seal_key_file = absl::GetFlag(FLAGS_seal_key_file),
          .record_signing_key = absl::GetFlag(FLAGS_record_signing_key),
          .record_public_keys = absl::GetFlag(FLAGS_record_public_keys)};
}

}  // namespace arbitration_service
