// HTTP/JSON beside gRPC (--http_address): every RPC of the services the server hosts as
// `POST /v1/{package.Service}/{Method}` with the protobuf JSON mapping, for browser-facing teams
// that cannot speak gRPC.
//
// Each request is forwarded over an in-process channel to the gRPC server itself (a generic call
// with the serialized request), so the token check, the policy table, rate limits, stream caps,
// deadlines, metrics and error codes are the gRPC server's, once; the gateway only translates.
// "Authorization: Bearer <token>" travels as the call's authorization metadata.
//
//   unary            request: one JSON object        reply: one JSON object (Content-Length)
//   server stream    request: one JSON object        reply: NDJSON, {"result": ...} per message
//   client/bidi      request: NDJSON, one per line   reply: NDJSON, as above
//
// A failed call is the HTTP status of its gRPC code (http_request.h) with the JSON of its
// google.rpc.Status (code, message, details with the google.rpc.ErrorInfo) as the body; a stream
// that fails after its first message ends with the line {"error": <that Status>}. Before any call:
// bad JSON 400 (INVALID_ARGUMENT ERR_BAD_REQUEST_JSON), no such method 404 (ERR_NO_SUCH_METHOD),
// a verb other than POST 405, no Content-Length 411, a body over the limit 413 (ERR_TOO_LARGE),
// a malformed request 400/414/431/501/505 (ERR_BAD_HTTP_REQUEST).
//
// One thread per connection, at most max_connections of them (503 beyond); a connection idle
// longer than idle_timeout, or whose head takes longer than head_timeout, is closed. A stream's
// client that goes away cancels its call.
#ifndef ARBITER_LIBS_SERVICE_HTTP_GATEWAY_H_
#define ARBITER_LIBS_SERVICE_HTTP_GATEWAY_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "libs/service/http_request.h"

namespace service {

// A file served as it is (the arbiter's console: its page, scripts and styles, embedded in the
// binary).
struct StaticFile {
  std::string path;  // "/index.html" ("/" serves it)
  std::string content_type;
  std::string body;
};

struct HttpGatewayOptions {
  std::string address;  // host:port (port 0: any free one)
  // Served with GET and HEAD at their paths beside the API (POST /v1/...); none: the API alone.
  std::vector<StaticFile> files;
  // Header lines ("Name: value\r\n" each) added to every answer: a site's security policy.
  std::string headers;
  http::Limits limits;
  int max_connections = 256;
  absl::Duration idle_timeout = absl::Seconds(60);
  absl::Duration head_timeout = absl::Seconds(10);
};

class HttpGateway {
 public:
  // Listens on options.address and forwards to `channel` (the server's in-process channel).
  // UNAVAILABLE ERR_BIND when the address cannot be bound, ERR_BAD_FLAG when it is no host:port.
  static absl::StatusOr<std::unique_ptr<HttpGateway>> Start(HttpGatewayOptions options,
                                                            std::shared_ptr<grpc::Channel> channel);
  ~HttpGateway();

  int port() const { return port_; }
  // Stops accepting, cancels the calls in flight, closes the connections and joins their threads.
  void Shutdown();

 private:
  struct Connection;
  HttpGateway(HttpGatewayOptions options, std::shared_ptr<grpc::Channel> channel)
      : options_(std::move(options)), channel_(std::move(channel)) {}
  void AcceptLoop();
  void Serve(std::shared_ptr<Connection> connection);
  // Answers one request; false when the connection must be closed after it.
  bool Handle(Connection& connection, http::Request& request, std::string& buffer);
  bool Forward(Connection& connection, const http::Request& request, const std::string& path);
  bool ServeFile(int fd, const http::Request& request);
  // SendError with options_.headers.
  bool Error(int fd, int http_status, const absl::Status& error, bool keep_alive,
             absl::string_view extra_headers = "");

  const HttpGatewayOptions options_;
  const std::shared_ptr<grpc::Channel> channel_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  std::atomic<bool> stopping_{false};
  absl::Mutex mu_;
  absl::flat_hash_set<std::shared_ptr<Connection>> connections_ ABSL_GUARDED_BY(mu_);
  int threads_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace service

#endif  // ARBITER_LIBS_SERVICE_HTTP_GATEWAY_H_
