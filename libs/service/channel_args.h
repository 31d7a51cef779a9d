// Extra integer gRPC channel arguments from a flag, "name=value,name=value" (the servers'
// --grpc_args and tools/loadgen's), e.g. "grpc.http2.bdp_probe=0,grpc.enable_channelz=0".
#ifndef ARBITER_LIBS_SERVICE_CHANNEL_ARGS_H_
#define ARBITER_LIBS_SERVICE_CHANNEL_ARGS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace service {

// INVALID_ARGUMENT ERR_BAD_FLAG naming `flag` and the first item that is not name=integer.
absl::StatusOr<std::vector<std::pair<std::string, int>>> ParseIntChannelArgs(
    absl::string_view list, absl::string_view flag);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_CHANNEL_ARGS_H_
