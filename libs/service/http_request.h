// The HTTP/1.1 side of the JSON gateway (http_gateway.h): a strict, bounded reader of a request's
// head, the route "POST /v1/{package.Service}/{Method}", and the standard mapping of gRPC codes to
// HTTP statuses. Everything here is pure (no sockets), so the hostile cases are unit-tested.
//
// Strict because the bytes come from anyone: lines end in CRLF only (a bare CR or LF is refused,
// as are folded header lines and whitespace before a header's colon: each is a way to make two
// parsers disagree on where a request ends), the head is bounded in bytes and lines, a body is
// framed by Content-Length alone (a Transfer-Encoding is refused: no chunked requests), and
// conflicting Content-Length headers are refused.
#ifndef ARBITER_LIBS_SERVICE_HTTP_REQUEST_H_
#define ARBITER_LIBS_SERVICE_HTTP_REQUEST_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace service::http {

struct Limits {
  size_t max_head_bytes = 16 * 1024;  // the request line and headers, CRLFs included
  size_t max_headers = 64;
  size_t max_target_bytes = 2048;
  size_t max_body_bytes = 4 << 20;  // the gateway sets it from --max_message_bytes
};

struct Request {
  std::string method;  // "POST"
  std::string target;  // "/v1/arbiter.v1.RulesValidation/ValidateMove"
  int minor_version = 1;
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case, in order
  std::optional<uint64_t> content_length;                    // none: no Content-Length header
  bool keep_alive = true;                                    // HTTP/1.1 without "Connection: close"
  std::string body;

  // The first header of that (lower-case) name, nullptr when none.
  const std::string* Header(absl::string_view name) const;
};

// What the bytes read so far make of a request's head.
struct Head {
  enum class State { kIncomplete, kComplete, kRejected };
  State state = State::kIncomplete;
  size_t head_bytes = 0;  // complete: the request line and headers with the blank line
  int http_status = 0;    // rejected: 400, 414, 431, 501 or 505
  std::string reason;     // rejected: why, for the error body
};

// Reads the head at the start of `bytes` into `*out` (the body is the caller's to read:
// content_length bytes after head_bytes). Incomplete until the blank line arrives, rejected at
// once when what has arrived can no longer become a valid head.
Head ParseHead(absl::string_view bytes, const Limits& limits, Request* out);

// "/v1/arbiter.v1.Arbitration/GetGame" -> "/arbiter.v1.Arbitration/GetGame" (the gRPC method
// path); nullopt for any other form (no query strings, no extra segments).
std::optional<std::string> GrpcPathOf(absl::string_view target);

// The standard mapping of a gRPC code to an HTTP status (google.rpc.Code's documentation):
// INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE 400; UNAUTHENTICATED 401; PERMISSION_DENIED
// 403; NOT_FOUND 404; ALREADY_EXISTS, ABORTED 409; RESOURCE_EXHAUSTED 429; CANCELLED 499;
// UNIMPLEMENTED 501; UNAVAILABLE 503; DEADLINE_EXCEEDED 504; the rest 500.
int HttpStatusOf(grpc::StatusCode code);
// "OK", "Bad Request", ... for the statuses this gateway sends.
absl::string_view ReasonPhrase(int http_status);

}  // namespace service::http

#endif  // ARBITER_LIBS_SERVICE_HTTP_REQUEST_H_
