#include "libs/service/flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, grpc_address, "127.0.0.1:7070", "host:port the gRPC server listens on");
ABSL_FLAG(std::string, metrics_address, "127.0.0.1:9090",
          "host:port of the Prometheus /metrics endpoint; 'none' for no endpoint");
ABSL_FLAG(std::string, services, "all",
          "comma-separated services this process hosts (e.g. rules_validation); 'all' = every one");
ABSL_FLAG(std::string, store, "memory",
          "game store: 'memory' or redis://[user@]host:port (user: a Redis ACL user, whose "
          "password --store_password_file gives)");
ABSL_FLAG(std::string, store_password_file, "",
          "file holding the Redis password (of the --store URL's user, or of the default user), "
          "read at start and trimmed; e.g. a mounted Kubernetes Secret");
ABSL_FLAG(int, store_min_replica_acks, 0,
          "Redis store: an append is acknowledged only once this many replicas have it (WAIT; "
          "0 = off, the single-Redis setup; 1 with Sentinel: libs/store/README.md, \"Failover\")");
ABSL_FLAG(absl::Duration, store_replica_ack_timeout, absl::Milliseconds(100),
          "Redis store: how long an append waits for --store_min_replica_acks replicas before it "
          "is reported UNAVAILABLE (the caller retries it)");
ABSL_FLAG(std::string, tls_cert, "", "PEM server certificate (turns on TLS with --tls_key)");
ABSL_FLAG(std::string, tls_key, "", "PEM server private key");
ABSL_FLAG(std::string, tls_ca, "", "PEM CA for client certificates (turns on mutual TLS)");
ABSL_FLAG(std::string, auth_keys, "",
          "JSON file of token verification keys (see libs/service/auth.h)");
ABSL_FLAG(
    bool, insecure_dev, false,
    "serve without authentication (every caller acts as an arbiter); for local development only");
ABSL_FLAG(std::string, log_level, "info", "debug, info, warning or error");
ABSL_FLAG(int, max_message_bytes, 4 << 20, "largest gRPC message accepted or sent");
ABSL_FLAG(absl::Duration, shutdown_grace, absl::Seconds(5),
          "on SIGTERM: how long health reports NOT_SERVING before the server stops accepting");
ABSL_FLAG(std::string, grpc_args, "",
          "extra integer gRPC server channel arguments, name=value,... (e.g. "
          "grpc.http2.bdp_probe=0)");
ABSL_FLAG(int, grpc_cq_threads, 1,
          "threads serving the hot unary methods (ValidateMove, LegalMoves, ConvertMove) from "
          "completion queues; 1 suits a small machine shared with its clients");
ABSL_FLAG(absl::Duration, drain_timeout, absl::Seconds(20), "how long in-flight calls may finish");
ABSL_FLAG(std::string, jwt_audience, "",
          "when set, tokens must carry this audience (\"aud\"); others are UNAUTHENTICATED");
ABSL_FLAG(std::string, jwt_issuer, "",
          "when set, tokens must carry this issuer (\"iss\"); others are UNAUTHENTICATED");
ABSL_FLAG(absl::Duration, jwt_max_lifetime, absl::Hours(24),
          "longest token accepted (exp - iat; exp - now without iat)");
ABSL_FLAG(absl::Duration, jwt_leeway, absl::Seconds(30),
          "clock skew forgiven on a token's exp, nbf and iat");
ABSL_FLAG(absl::Duration, auth_keys_reload, absl::Seconds(5),
          "how often the --auth_keys file is looked at for changes (rotation without a restart; "
          "SIGHUP re-reads it at once)");
ABSL_FLAG(absl::Duration, tls_reload, absl::Seconds(60),
          "how often the TLS certificate, key and CA files are re-read (whole seconds, >= 1s)");
ABSL_FLAG(bool, grpc_reflection, false, "serve gRPC reflection (grpcurl); off by default");
ABSL_FLAG(int, grpc_max_threads, 1000,
          "threads of the synchronous server at most (its unary calls each hold one while they "
          "run; streams hold none); calls beyond are RESOURCE_EXHAUSTED; 0 = unbounded");
ABSL_FLAG(absl::Duration, default_deadline, absl::Seconds(30),
          "deadline of unary calls arriving without one (or with a later one); streams excluded");
ABSL_FLAG(double, rate_limit_qps, 0,
          "calls per second per caller (token subject), RESOURCE_EXHAUSTED ERR_RATE_LIMITED "
          "beyond; 0 = no limit");
ABSL_FLAG(double, rate_limit_burst, 0, "burst of --rate_limit_qps (0 = twice the rate)");
ABSL_FLAG(int, max_streams_per_caller, 256,
          "open streams per caller (token subject), RESOURCE_EXHAUSTED ERR_TOO_MANY_STREAMS "
          "beyond; 0 = no limit");
ABSL_FLAG(int, max_streams, 20000,
          "open streams of the server in all (every method and caller), RESOURCE_EXHAUSTED "
          "ERR_TOO_MANY_STREAMS beyond; 0 = no limit");
ABSL_FLAG(int, max_calls_in_flight, 4096,
          "unary calls (and SubmitMoves messages) the server serves at once, of every method and "
          "caller; one beyond is refused RESOURCE_EXHAUSTED ERR_OVERLOADED before any work (an "
          "overloaded server refuses at once instead of queueing past the callers' deadlines); "
          "0 = no limit");
ABSL_FLAG(int, max_unauthenticated_streams, 1000,
          "open streams without a token (the health Watch, on both ports), RESOURCE_EXHAUSTED "
          "ERR_TOO_MANY_STREAMS beyond; 0 = no limit");

ABSL_FLAG(std::string, health_address, "",
          "host:port of a second, plaintext gRPC server that serves only grpc.health.v1.Health "
          "(the same statuses as --grpc_address), for probes that speak no TLS (the kubelet's); "
          "'' = none");
ABSL_FLAG(std::string, http_address, "",
          "host:port of the HTTP/JSON gateway: every RPC as POST /v1/{package.Service}/{Method} "
          "with the protobuf JSON mapping, forwarded to this server's gRPC services (the same "
          "auth, limits, metrics and error codes); plaintext, put TLS in front; '' = none");
ABSL_FLAG(std::string, console_address, "",
          "host:port of the arbiter's web console (arbiterd): its page at / and the HTTP/JSON API "
          "it calls (POST /v1/{package.Service}/{Method}) on one origin, with a strict "
          "Content-Security-Policy; plaintext, put TLS in front; '' = none");
ABSL_FLAG(absl::Duration, grpc_max_connection_age, absl::ZeroDuration(),
          "close client connections (GOAWAY) after this age, so that long-lived clients rebalance "
          "over new replicas; 0 = never");
ABSL_FLAG(absl::Duration, grpc_max_connection_age_grace, absl::Seconds(30),
          "after --grpc_max_connection_age: how long in-flight calls (and streams) may finish");

namespace service {

ServerConfig ConfigFromFlags() {
  ServerConfig c;
  c.grpc_address = absl::GetFlag(FLAGS_grpc_address);
  c.metrics_address = absl::GetFlag(FLAGS_metrics_address);
  c.services = absl::GetFlag(FLAGS_services);
  c.store = absl::GetFlag(FLAGS_store);
  // The password file travels in the store's URL as a parameter (the path, never the password;
  // store::ParseRedisUrl reads it when the store opens).
  if (std::string file = absl::GetFlag(FLAGS_store_password_file); !file.empty()) {
    absl::StrAppend(&c.store, absl::StrContains(c.store, "?") ? "&" : "?", "password_file=", file);
  }
  // So do the replica acknowledgements (store::ParseRedisUrl), when asked for.
  if (int acks = absl::GetFlag(FLAGS_store_min_replica_acks); acks != 0) {
    absl::StrAppend(&c.store, absl::StrContains(c.store, "?") ? "&" : "?",
                    "min_replica_acks=", acks, "&replica_ack_timeout=",
                    absl::ToInt64Milliseconds(absl::GetFlag(FLAGS_store_replica_ack_timeout)),
                    "ms");
  }
  c.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  c.tls_key = absl::GetFlag(FLAGS_tls_key);
  c.tls_ca = absl::GetFlag(FLAGS_tls_ca);
  c.auth_keys = absl::GetFlag(FLAGS_auth_keys);
  c.insecure_dev = absl::GetFlag(FLAGS_insecure_dev);
  c.log_level = absl::GetFlag(FLAGS_log_level);
  c.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  c.shutdown_grace = absl::GetFlag(FLAGS_shutdown_grace);
  c.drain_timeout = absl::GetFlag(FLAGS_drain_timeout);
  c.grpc_args = absl::GetFlag(FLAGS_grpc_args);
  c.cq_threads = absl::GetFlag(FLAGS_grpc_cq_threads);
  c.jwt_audience = absl::GetFlag(FLAGS_jwt_audience);
  c.jwt_issuer = absl::GetFlag(FLAGS_jwt_issuer);
  c.jwt_max_lifetime = absl::GetFlag(FLAGS_jwt_max_lifetime);
  c.jwt_leeway = absl::GetFlag(FLAGS_jwt_leeway);
  c.auth_keys_reload = absl::GetFlag(FLAGS_auth_keys_reload);
  c.tls_reload = absl::GetFlag(FLAGS_tls_reload);
  c.grpc_reflection = absl::GetFlag(FLAGS_grpc_reflection);
  c.grpc_max_threads = absl::GetFlag(FLAGS_grpc_max_threads);
  c.max_calls_in_flight = absl::GetFlag(FLAGS_max_calls_in_flight);
  c.default_deadline = absl::GetFlag(FLAGS_default_deadline);
  c.rate_limit_qps = absl::GetFlag(FLAGS_rate_limit_qps);
  c.rate_limit_burst = absl::GetFlag(FLAGS_rate_limit_burst);
  c.max_streams_per_caller = absl::GetFlag(FLAGS_max_streams_per_caller);
  c.max_streams = absl::GetFlag(FLAGS_max_streams);
  c.max_unauthenticated_streams = absl::GetFlag(FLAGS_max_unauthenticated_streams);
  c.health_address = absl::GetFlag(FLAGS_health_address);
  c.http_address = absl::GetFlag(FLAGS_http_address);
  c.console_address = absl::GetFlag(FLAGS_console_address);
  c.max_connection_age = absl::GetFlag(FLAGS_grpc_max_connection_age);
  c.max_connection_age_grace = absl::GetFlag(FLAGS_grpc_max_connection_age_grace);
  return c;
}

}  // namespace service
