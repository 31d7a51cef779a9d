// The flags every Arbiter server takes, with the same names everywhere:
//   --grpc_address (127.0.0.1:7070)  --metrics_address (127.0.0.1:9090)  --services (all)
//   --store (memory | redis://[user@]host:port)  --store_password_file (the Redis password, read
//   at start: it reaches the store as the URL's ?password_file= parameter, a path, never the
//   secret)  --tls_cert --tls_key --tls_ca  --auth_keys
//   --insecure_dev (loopback only)  --log_level (info)  --max_message_bytes  --shutdown_grace
//   --drain_timeout  --grpc_args  --grpc_cq_threads
//   Tokens: --jwt_audience --jwt_issuer --jwt_max_lifetime (24h) --jwt_leeway (30s)
//   Rotation: --auth_keys_reload (5s) --tls_reload (60s)
//   Limits: --grpc_reflection (off) --grpc_max_threads (1000) --default_deadline (30s)
//           --rate_limit_qps (0 = off) --rate_limit_burst --max_streams_per_caller (256)
//           --max_streams (20000) --max_unauthenticated_streams (1000)
//           --max_calls_in_flight (4096 unary calls and SubmitMoves messages being served)
//   Operations: --health_address ('' = off; plaintext, grpc.health.v1 only, for the kubelet)
//           --http_address ('' = off; the HTTP/JSON gateway, http_gateway.h)
//           --console_address ('' = off; the arbiter's console, served by arbiterd)
//           --grpc_max_connection_age (0 = off) --grpc_max_connection_age_grace (30s)
#ifndef ARBITER_LIBS_SERVICE_FLAGS_H_
#define ARBITER_LIBS_SERVICE_FLAGS_H_

#include "libs/service/server.h"

namespace service {

// The configuration the parsed flags describe (call after absl::ParseCommandLine).
ServerConfig ConfigFromFlags();

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_FLAGS_H_
