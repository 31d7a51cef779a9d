// The one place where absl::Status and grpc::Status meet. The canonical code maps one to one
// (malformed -> INVALID_ARGUMENT, not allowed now -> FAILED_PRECONDITION, unknown -> NOT_FOUND,
// lost a race -> ABORTED, backend down -> UNAVAILABLE); the stable error code (ERR_...) and the
// illegal-move reason travel as an arbiter.v1.ErrorInfo in the status details
// (grpc-status-details-bin), so clients match on codes and never parse messages.
#ifndef ARBITER_LIBS_SERVICE_GRPC_STATUS_H_
#define ARBITER_LIBS_SERVICE_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"
#include "proto/arbiter/v1/common.pb.h"

namespace service {

// Messages are cut to kMaxStatusMessageBytes (on a UTF-8 boundary, "..." appended): they may quote
// the caller's input, and a status must fit the client's metadata limit (8 KiB by default; beyond
// it the caller sees RESOURCE_EXHAUSTED instead of the error). The code and details are intact.
inline constexpr size_t kMaxStatusMessageBytes = 512;
std::string BoundedStatusMessage(absl::string_view message);
grpc::Status ToGrpcStatus(const absl::Status& status);
// The reverse, for clients: the stable code comes back as the payload base::ErrorCode reads.
absl::Status FromGrpcStatus(const grpc::Status& status);

// "OK", "INVALID_ARGUMENT", ... for a gRPC status code (its number otherwise).
std::string GrpcCodeName(int code);

// The ErrorInfo of a failed status (code, message cut as above, illegal-move reason).
arbiter::v1::ErrorInfo ToErrorInfo(const absl::Status& status);
// The ErrorInfo carried by a grpc::Status; empty when none.
arbiter::v1::ErrorInfo ErrorInfoOf(const grpc::Status& status);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_GRPC_STATUS_H_
