#include "libs/service/flags.h"

#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, grpc_address, "127.0.0.1:7070", "host:port the gRPC server listens on");
ABSL_FLAG(std::string, metrics_address, "127.0.0.1:9090",
          "host:port of the Prometheus /metrics endpoint; 'none' for no endpoint");
ABSL_FLAG(std::string, services, "all",
          "comma-separated services this process hosts (e.g. rules_validation); 'all' = every one");
ABSL_FLAG(std::string, store, "memory", "game store: 'memory' or redis://host:port");
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

namespace service {

ServerConfig ConfigFromFlags() {
  ServerConfig c;
  c.grpc_address = absl::GetFlag(FLAGS_grpc_address);
  c.metrics_address = absl::GetFlag(FLAGS_metrics_address);
  c.services = absl::GetFlag(FLAGS_services);
  c.store = absl::GetFlag(FLAGS_store);
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
  return c;
}

}  // namespace service
