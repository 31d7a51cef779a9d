// The one place where absl::Status and grpc::Status meet. The canonical code maps one to one
// (malformed -> INVALID_ARGUMENT, not allowed now -> FAILED_PRECONDITION, unknown -> NOT_FOUND,
// lost a race -> ABORTED, backend down -> UNAVAILABLE); the status details
// (grpc-status-details-bin) are the standard google.rpc.Status every gRPC library reads, whose
// details hold one google.rpc.ErrorInfo (AIP-193): reason = the stable code (ERR_...), domain =
// "arbiter.v1", metadata "illegal_move_reason" for a refused move. Clients match on the reason and
// never parse messages.
#ifndef ARBITER_LIBS_SERVICE_GRPC_STATUS_H_
#define ARBITER_LIBS_SERVICE_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"
#include "proto/arbiter/v1/common.pb.h"
#include "proto/google/rpc/status.pb.h"

namespace service {

// Messages are cut to kMaxStatusMessageBytes (on a UTF-8 boundary, "..." appended): they may quote
// the caller's input, and a status must fit the client's metadata limit (8 KiB by default; beyond
// it the caller sees RESOURCE_EXHAUSTED instead of the error). The code and details are intact.
inline constexpr size_t kMaxStatusMessageBytes = 512;
std::string BoundedStatusMessage(absl::string_view message);

// The google.rpc.ErrorInfo's domain and the metadata key of an illegal move's reason.
inline constexpr absl::string_view kErrorDomain = "arbiter.v1";
inline constexpr absl::string_view kIllegalMoveReasonKey = "illegal_move_reason";

// The standard error model of a failed status (the message cut as above); empty for OK.
google::rpc::Status ToRpcStatus(const absl::Status& status);
grpc::Status ToGrpcStatus(const absl::Status& status);
// The reverse, for clients: the stable code comes back as the payload base::ErrorCode reads.
absl::Status FromGrpcStatus(const grpc::Status& status);

// "OK", "INVALID_ARGUMENT", ... for a gRPC status code (its number otherwise).
std::string GrpcCodeName(int code);

// The arbiter.v1.ErrorInfo of a failed status (code, message cut as above, illegal-move reason):
// the form replies carry in their own error fields (ValidateMove, SubmitMoves, ...).
arbiter::v1::ErrorInfo ToErrorInfo(const absl::Status& status);
// The same read back from a grpc::Status's google.rpc.Status details (its ErrorInfo of the domain
// "arbiter.v1"); empty when none.
arbiter::v1::ErrorInfo ErrorInfoOf(const grpc::Status& status);

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_GRPC_STATUS_H_
