// The main of a server binary (services/arbiterd, services/clock_authority): blocks the shutdown
// signals before any thread exists, parses the command line, reads the flags every server takes
// (flags.h), builds the modules `choose` names for that configuration (it may adjust it: a
// binary of one service fixes --services), and serves them until SIGTERM/SIGINT (ServeModules).
//
//   int main(int argc, char** argv) {
//     return service::RunServer(argc, argv, "arbiterd", "arbiterd: the Arbiter server. ...",
//                               [](service::ServerConfig& config) { return Factories(config); });
//   }
#ifndef ARBITER_LIBS_SERVICE_SERVER_MAIN_H_
#define ARBITER_LIBS_SERVICE_SERVER_MAIN_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "libs/service/module.h"
#include "libs/service/server.h"

namespace service {

// The factories of the modules to serve, in start order.
using ChooseModules =
    std::function<absl::StatusOr<std::vector<ModuleFactory>>(ServerConfig& config)>;

// The process's exit code: 0 once served and stopped; 2 on a failure, printed on stderr as
// "<program>: <ERR_CODE>: <message>".
int RunServer(int argc, char** argv, const char* program, const char* usage,
              const ChooseModules& choose);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_SERVER_MAIN_H_
