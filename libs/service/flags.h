// The flags every Arbiter server takes, with the same names everywhere:
//   --grpc_address (127.0.0.1:7070)  --metrics_address (127.0.0.1:9090)  --services (all)
//   --store (memory | redis://host:port)  --tls_cert --tls_key --tls_ca  --auth_keys
//   --insecure_dev  --log_level (info)  --max_message_bytes  --shutdown_grace  --drain_timeout
#ifndef ARBITER_LIBS_SERVICE_FLAGS_H_
#define ARBITER_LIBS_SERVICE_FLAGS_H_

#include "libs/service/server.h"

namespace service {

// The configuration the parsed flags describe (call after absl::ParseCommandLine).
ServerConfig ConfigFromFlags();

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_FLAGS_H_
