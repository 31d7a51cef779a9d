#include "libs/service/grpc_status.h"

#include <optional>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"
#include "proto/google/rpc/error_details.pb.h"
#include "proto/google/rpc/status.pb.h"

namespace service {

std::string GrpcCodeName(int code) {
  static constexpr const char* kNames[] = {"OK",
                                           "CANCELLED",
                                           "UNKNOWN",
                                           "INVALID_ARGUMENT",
                                           "DEADLINE_EXCEEDED",
                                           "NOT_FOUND",
                                           "ALREADY_EXISTS",
                                           "PERMISSION_DENIED",
                                           "RESOURCE_EXHAUSTED",
                                           "FAILED_PRECONDITION",
                                           "ABORTED",
                                           "OUT_OF_RANGE",
                                           "UNIMPLEMENTED",
                                           "INTERNAL",
                                           "UNAVAILABLE",
                                           "DATA_LOSS",
                                           "UNAUTHENTICATED"};
  return code >= 0 && code <= 16 ? kNames[code] : std::to_string(code);
}

std::string BoundedStatusMessage(absl::string_view message) {
  if (message.size() <= kMaxStatusMessageBytes) return std::string(message);
  constexpr absl::string_view kEllipsis = "...";
  size_t cut = kMaxStatusMessageBytes - kEllipsis.size();
  // Back off to the start of a UTF-8 character (never inside one).
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) --cut;
  return absl::StrCat(message.substr(0, cut), kEllipsis);
}

arbiter::v1::ErrorInfo ToErrorInfo(const absl::Status& status) {
  arbiter::v1::ErrorInfo info;
  if (status.ok()) return info;
  info.set_code(base::ErrorCode(status));
  info.set_message(BoundedStatusMessage(status.message()));
  // The reason's name as libs/chess set it: this layer knows no chess.
  if (auto reason = status.GetPayload(base::kIllegalMoveReasonPayload); reason.has_value()) {
    info.set_illegal_move_reason(std::string(*reason));
  }
  return info;
}

google::rpc::Status ToRpcStatus(const absl::Status& status) {
  google::rpc::Status out;
  if (status.ok()) return out;
  out.set_code(static_cast<int>(status.code()));
  out.set_message(BoundedStatusMessage(status.message()));
  google::rpc::ErrorInfo info;
  info.set_reason(base::ErrorCode(status));
  info.set_domain(std::string(kErrorDomain));
  if (auto reason = status.GetPayload(base::kIllegalMoveReasonPayload); reason.has_value()) {
    (*info.mutable_metadata())[std::string(kIllegalMoveReasonKey)] = std::string(*reason);
  }
  out.add_details()->PackFrom(info);
  return out;
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      BoundedStatusMessage(status.message()),
                      ToRpcStatus(status).SerializeAsString());
}

arbiter::v1::ErrorInfo ErrorInfoOf(const grpc::Status& status) {
  arbiter::v1::ErrorInfo out;
  google::rpc::Status rpc;
  if (status.error_details().empty() || !rpc.ParseFromString(status.error_details())) return out;
  for (const google::protobuf::Any& detail : rpc.details()) {
    google::rpc::ErrorInfo info;
    if (!detail.Is<google::rpc::ErrorInfo>() || !detail.UnpackTo(&info) ||
        info.domain() != kErrorDomain) {
      continue;
    }
    out.set_code(info.reason());
    out.set_message(rpc.message());
    if (auto it = info.metadata().find(std::string(kIllegalMoveReasonKey));
        it != info.metadata().end()) {
      out.set_illegal_move_reason(it->second);
    }
    break;
  }
  return out;
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  arbiter::v1::ErrorInfo info = ErrorInfoOf(status);
  absl::StatusCode code = static_cast<absl::StatusCode>(status.error_code());
  if (info.code().empty()) return absl::Status(code, status.error_message());
  absl::Status out = base::Error(code, info.code(), status.error_message());
  if (!info.illegal_move_reason().empty()) {
    out.SetPayload(base::kIllegalMoveReasonPayload, absl::Cord(info.illegal_move_reason()));
  }
  return out;
}

}  // namespace service
