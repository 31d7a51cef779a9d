#include "libs/service/http_gateway.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "libs/base/error.h"
#include "libs/base/errors.h"
#include "libs/service/errors.h"
#include "libs/service/grpc_status.h"
#include "proto/google/rpc/error_details.pb.h"
#include "proto/google/rpc/status.pb.h"

namespace service {
namespace {

using google::protobuf::Message;
using google::protobuf::MethodDescriptor;

constexpr absl::Duration kPoll = absl::Milliseconds(250);

enum class ReadResult { kData, kClosed, kTimeout, kStopping };

// Appends what the socket has to `buffer`, waiting until `deadline` at most.
ReadResult ReadSome(int fd, std::string& buffer, absl::Time deadline,
                    const std::atomic<bool>& stopping) {
  for (;;) {
    if (stopping.load()) return ReadResult::kStopping;
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return ReadResult::kTimeout;
    pollfd p{fd, POLLIN, 0};
    const int ready =
        poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(std::min(left, kPoll))));
    if (ready < 0 && errno != EINTR) return ReadResult::kClosed;
    if (ready <= 0) continue;
    char chunk[16 * 1024];
    const ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return ReadResult::kClosed;
    buffer.append(chunk, static_cast<size_t>(n));
    return ReadResult::kData;
  }
}

bool SendAll(int fd, absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // gone, or not reading for the send timeout
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Whether the client has closed its side (a stream's client that left): readable with nothing
// to read, or hung up.
bool PeerClosed(int fd) {
  pollfd p{fd, static_cast<short>(POLLIN | POLLRDHUP), 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLHUP | POLLERR | POLLRDHUP)) return true;
  char c;
  return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

std::string Json(const Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  if (!google::protobuf::util::MessageToJsonString(message, &out, options).ok()) return "{}";
  return out;
}

// The google.rpc.Status of a failed call: its details when the server sent them (every status
// Arbiter makes), else built from the code and message (gRPC's own: UNIMPLEMENTED, a deadline).
google::rpc::Status RpcStatusOf(const grpc::Status& status) {
  google::rpc::Status out;
  if (!status.error_details().empty() && out.ParseFromString(status.error_details())) return out;
  out = ToRpcStatus(
      absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message()));
  return out;
}

std::string Response(int http_status, absl::string_view content_type, absl::string_view body,
                     bool keep_alive, absl::string_view extra_headers = "") {
  return absl::StrCat("HTTP/1.1 ", http_status, " ", http::ReasonPhrase(http_status),
                      "\r\nContent-Type: ", content_type, "\r\nContent-Length: ", body.size(),
                      "\r\n", keep_alive ? "" : "Connection: close\r\n", extra_headers, "\r\n",
                      body);
}

// An error answered by the gateway itself, before any call: the same body as a call's.
bool SendError(int fd, int http_status, const absl::Status& error, bool keep_alive,
               absl::string_view extra_headers = "") {
  return SendAll(fd, Response(http_status, "application/json", Json(ToRpcStatus(error)), keep_alive,
                              extra_headers));
}

const MethodDescriptor* FindMethod(absl::string_view path) {
  // "/arbiter.v1.Arbitration/GetGame": the generated descriptors of what is linked.
  std::vector<absl::string_view> parts = absl::StrSplit(path.substr(1), '/');
  if (parts.size() != 2) return nullptr;
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(std::string(parts[0]));
  return service == nullptr ? nullptr : service->FindMethodByName(std::string(parts[1]));
}

// "/index.html?x=1" -> "/index.html"; "/" -> "/index.html".
std::string StaticPathOf(absl::string_view target) {
  const size_t query = target.find_first_of("?#");
  if (query != absl::string_view::npos) target = target.substr(0, query);
  if (target == "/") return "/index.html";
  return std::string(target);
}

bool IsPrintableAscii(absl::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
}

}  // namespace

struct HttpGateway::Connection {
  int fd = -1;
  absl::Mutex mu;
  grpc::ClientContext* call ABSL_GUARDED_BY(mu) = nullptr;  // the call in flight, to cancel
};

absl::StatusOr<std::unique_ptr<HttpGateway>> HttpGateway::Start(
    HttpGatewayOptions options, std::shared_ptr<grpc::Channel> channel) {
  const size_t colon = options.address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(options.address.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return base::Error(kErrBadFlag,
                       absl::StrCat("--http_address: ", options.address, " is not host:port"));
  }
  std::string host = options.address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return base::Error(kErrBadFlag,
                       absl::StrCat("--http_address: cannot resolve ", options.address));
  }
  std::unique_ptr<HttpGateway> gateway(new HttpGateway(std::move(options), std::move(channel)));
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 128) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return base::Error(
        kErrBind, absl::StrCat("--http_address: cannot listen on ", gateway->options_.address));
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  gateway->port_ =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  gateway->listen_fd_ = fd;
  gateway->acceptor_ = std::thread([g = gateway.get()] { g->AcceptLoop(); });
  return gateway;
}

HttpGateway::~HttpGateway() { Shutdown(); }

void HttpGateway::Shutdown() {
  if (stopping_.exchange(true)) return;
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) close(listen_fd_);
  absl::MutexLock lock(&mu_);
  for (const std::shared_ptr<Connection>& c : connections_) {
    absl::MutexLock call_lock(&c->mu);
    if (c->call != nullptr) c->call->TryCancel();
    shutdown(c->fd, SHUT_RDWR);
  }
  mu_.Await(absl::Condition(
      +[](int* threads) { return *threads == 0; }, &threads_));
}

void HttpGateway::AcceptLoop() {
  while (!stopping_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(kPoll))) <= 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    // A client that stops reading frees its thread after this long (its stream is cancelled).
    timeval send_timeout{30, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
    auto connection = std::make_shared<Connection>();
    connection->fd = fd;
    {
      absl::MutexLock lock(&mu_);
      if (threads_ >= options_.max_connections) {
        Error(fd, 503,
              base::Error(kErrTooManyStreams, "too many HTTP connections: try again later"), false);
        close(fd);
        continue;
      }
      connections_.insert(connection);
      ++threads_;
    }
    std::thread([this, connection] { Serve(connection); }).detach();
  }
}

void HttpGateway::Serve(std::shared_ptr<Connection> connection) {
  const int fd = connection->fd;
  std::string buffer;
  for (bool open = true; open;) {
    http::Request request;
    http::Head head;
    // Idle between requests for idle_timeout at most; a head, once begun, must be complete
    // within head_timeout (a client sending a byte at a time holds no thread for long).
    const absl::Time idle_until = absl::Now() + options_.idle_timeout;
    absl::Time head_until = absl::InfiniteFuture();
    for (;;) {
      head = http::ParseHead(buffer, options_.limits, &request);
      if (head.state != http::Head::State::kIncomplete) break;
      if (!buffer.empty() && head_until == absl::InfiniteFuture()) {
        head_until = absl::Now() + options_.head_timeout;
      }
      const ReadResult r = ReadSome(fd, buffer, std::min(idle_until, head_until), stopping_);
      if (r == ReadResult::kTimeout && !buffer.empty()) {
        Error(fd, 408,
              base::Error(kErrBadHttpRequest, "the request's head took too long to arrive"), false);
      }
      if (r != ReadResult::kData) break;
    }
    if (head.state == http::Head::State::kRejected) {
      Error(fd, head.http_status, base::Error(kErrBadHttpRequest, head.reason), false);
    }
    if (head.state != http::Head::State::kComplete) break;
    buffer.erase(0, head.head_bytes);
    open = Handle(*connection, request, buffer);
  }
  close(fd);
  absl::MutexLock lock(&mu_);
  connections_.erase(connection);
  --threads_;
}

bool HttpGateway::Handle(Connection& connection, http::Request& request, std::string& buffer) {
  const int fd = connection.fd;
  if (!options_.files.empty() && !absl::StartsWith(request.target, "/v1/")) {
    return ServeFile(fd, request);
  }
  // Answered without reading the body: the connection closes after the answer.
  std::optional<std::string> path = http::GrpcPathOf(request.target);
  const MethodDescriptor* method = path.has_value() ? FindMethod(*path) : nullptr;
  if (method == nullptr) {
    Error(fd, 404,
          base::Error(kErrNoSuchMethod, "no such method: POST /v1/{package.Service}/{Method}"),
          false);
    return false;
  }
  if (request.method != "POST") {
    Error(fd, 405, base::Error(kErrBadHttpRequest, "only POST is served"), false,
          "Allow: POST\r\n");
    return false;
  }
  if (!request.content_length.has_value()) {
    Error(fd, 411, base::Error(kErrBadHttpRequest, "Content-Length is required"), false);
    return false;
  }
  if (*request.content_length > options_.limits.max_body_bytes) {
    Error(fd, 413,
          base::Error(base::kErrTooLarge, absl::StrCat("the body is larger than ",
                                                       options_.limits.max_body_bytes, " bytes")),
          false);
    return false;
  }
  const size_t length = static_cast<size_t>(*request.content_length);
  // curl and others wait for this before a larger body (RFC 9110 10.1.1).
  if (const std::string* expect = request.Header("expect");
      expect != nullptr && absl::EqualsIgnoreCase(*expect, "100-continue") &&
      buffer.size() < length && !SendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n")) {
    return false;
  }
  const absl::Time body_until = absl::Now() + options_.idle_timeout;
  while (buffer.size() < length) {
    if (ReadSome(fd, buffer, body_until, stopping_) != ReadResult::kData) return false;
  }
  request.body = buffer.substr(0, length);
  buffer.erase(0, length);
  return Forward(connection, request, *path) && request.keep_alive;
}

bool HttpGateway::Forward(Connection& connection, const http::Request& request,
                          const std::string& path) {
  const int fd = connection.fd;
  const bool keep_alive = request.keep_alive;
  const MethodDescriptor* method = FindMethod(path);
  google::protobuf::MessageFactory* factory = google::protobuf::MessageFactory::generated_factory();
  const Message* request_type = factory->GetPrototype(method->input_type());
  const Message* reply_type = factory->GetPrototype(method->output_type());
  if (request_type == nullptr || reply_type == nullptr) {
    Error(fd, 404, base::Error(kErrNoSuchMethod, "no such method"), keep_alive);
    return keep_alive;
  }

  // The request: one JSON object, or one per line for a method that takes a stream.
  std::vector<absl::string_view> documents;
  if (method->client_streaming()) {
    for (absl::string_view line : absl::StrSplit(request.body, '\n')) {
      line = absl::StripAsciiWhitespace(line);
      if (!line.empty()) documents.push_back(line);
    }
  } else {
    absl::string_view body = absl::StripAsciiWhitespace(request.body);
    documents.push_back(body.empty() ? absl::string_view("{}") : body);  // no body: no fields
  }
  std::vector<std::string> wire;
  google::protobuf::util::JsonParseOptions parse;
  parse.ignore_unknown_fields = false;  // a misspelt field is an error, not silently nothing
  for (size_t i = 0; i < documents.size(); ++i) {
    std::unique_ptr<Message> message(request_type->New());
    auto parsed = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(documents[i].data(), documents[i].size()), message.get(),
        parse);
    if (!parsed.ok()) {
      Error(fd, 400,
            base::Error(kErrBadRequestJson,
                        absl::StrCat(
                            method->client_streaming() ? absl::StrCat("request ", i + 1, ": ") : "",
                            "not a ", method->input_type()->full_name(), ": ", parsed.ToString())),
            keep_alive);
      return keep_alive;
    }
    wire.push_back(message->SerializeAsString());
  }
  grpc::ClientContext context;
  if (const std::string* authorization = request.Header("authorization")) {
    if (!IsPrintableAscii(*authorization)) {
      Error(fd, 401, base::Error(kErrUnauthenticated, "a malformed Authorization header"),
            keep_alive);
      return keep_alive;
    }
    context.AddMetadata("authorization", *authorization);
  }

  // One generic call (the wire is a stream for every kind of method) with a read outstanding
  // while the requests are written: in process, a write completes only once the server has read
  // it, and a stream's server reads its next request only after its reply is taken.
  grpc::CompletionQueue queue;
  grpc::GenericStub stub(channel_);
  {
    absl::MutexLock lock(&connection.mu);
    connection.call = &context;
  }
  enum Op : intptr_t { kStart = 1, kWrite, kWritesDone, kRead, kFinish };
  auto await = [&](Op* op) -> bool {
    for (;;) {
      void* tag = nullptr;
      bool ok = false;
      const auto got = queue.AsyncNext(
          &tag, &ok, std::chrono::system_clock::now() + absl::ToChronoMilliseconds(kPoll));
      if (got == grpc::CompletionQueue::GOT_EVENT) {
        *op = static_cast<Op>(reinterpret_cast<intptr_t>(tag));
        return ok;
      }
      if (got == grpc::CompletionQueue::SHUTDOWN) return false;
      // The client left (or the server is stopping): the call is cancelled, not left to run.
      if (stopping_.load() || PeerClosed(fd)) context.TryCancel();
    }
  };
  auto tag = [](Op op) { return reinterpret_cast<void*>(static_cast<intptr_t>(op)); };
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&context, path, &queue);
  call->StartCall(tag(kStart));
  Op op = kStart;
  const bool started_call = await(&op);
  const bool streamed = method->server_streaming() || method->client_streaming();
  bool started = false;  // a stream's 200 and first lines sent
  bool client_gone = false;
  std::string unary_reply;
  size_t written = 0;
  grpc::ByteBuffer outgoing;  // the message being written (it must live until its write ends)
  grpc::ByteBuffer incoming;
  auto write_next = [&] {
    if (written < wire.size()) {
      grpc::Slice slice(wire[written]);
      outgoing = grpc::ByteBuffer(&slice, 1);
      call->Write(outgoing, tag(kWrite));
    } else {
      call->WritesDone(tag(kWritesDone));
    }
  };
  bool writing = started_call, reading = started_call;
  if (started_call) {
    write_next();
    call->Read(&incoming, tag(kRead));
  }
  while (writing || reading) {
    const bool ok = await(&op);
    if (op == kWrite) {
      ++written;
      if (ok) {
        write_next();
      } else {
        writing = false;  // the call is over: its status says why
      }
      continue;
    }
    if (op == kWritesDone) {
      writing = false;
      continue;
    }
    if (!ok) {
      reading = false;
      continue;
    }
    grpc::Slice slice;
    std::unique_ptr<Message> reply(reply_type->New());
    if (!incoming.DumpToSingleSlice(&slice).ok() ||
        !reply->ParseFromArray(slice.begin(), static_cast<int>(slice.size()))) {
      context.TryCancel();
    } else if (!streamed) {
      unary_reply = Json(*reply);
    } else {
      std::string out;
      if (!started) {
        // Close-delimited: the stream's length is not known, and it may never end (WatchGame).
        out = absl::StrCat(
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n",
            options_.headers, "\r\n");
        started = true;
      }
      absl::StrAppend(&out, "{\"result\":", Json(*reply), "}\n");
      if (!client_gone && !SendAll(fd, out)) {
        client_gone = true;
        context.TryCancel();
      }
    }
    call->Read(&incoming, tag(kRead));
  }
  grpc::Status status;
  call->Finish(&status, tag(kFinish));
  await(&op);
  {
    absl::MutexLock lock(&connection.mu);
    connection.call = nullptr;
  }
  queue.Shutdown();
  void* ignored_tag;
  for (bool ignored; queue.Next(&ignored_tag, &ignored);) {
  }
  if (started) {
    if (!status.ok() && !client_gone) {
      SendAll(fd, absl::StrCat("{\"error\":", Json(RpcStatusOf(status)), "}\n"));
    }
    return false;
  }
  if (!status.ok()) {
    return SendAll(fd, Response(http::HttpStatusOf(status.error_code()), "application/json",
                                Json(RpcStatusOf(status)), keep_alive, options_.headers)) &&
           keep_alive;
  }
  return SendAll(fd, Response(200, streamed ? "application/x-ndjson" : "application/json",
                              unary_reply, keep_alive, options_.headers)) &&
         keep_alive;
}

bool HttpGateway::Error(int fd, int http_status, const absl::Status& error, bool keep_alive,
                        absl::string_view extra_headers) {
  return SendError(fd, http_status, error, keep_alive,
                   absl::StrCat(extra_headers, options_.headers));
}

bool HttpGateway::ServeFile(int fd, const http::Request& request) {
  // A request with a body is not one for a file: the connection closes after the answer.
  const bool keep_alive = request.keep_alive && request.content_length.value_or(0) == 0;
  if (request.method != "GET" && request.method != "HEAD") {
    Error(fd, 405, base::Error(kErrBadHttpRequest, "only GET and HEAD are served here"), false,
          "Allow: GET, HEAD\r\n");
    return false;
  }
  const std::string path = StaticPathOf(request.target);
  const auto file = std::find_if(options_.files.begin(), options_.files.end(),
                                 [&](const StaticFile& f) { return f.path == path; });
  if (file == options_.files.end()) {
    return Error(fd, 404, base::Error(kErrNoSuchMethod, absl::StrCat("no such file: ", path)),
                 keep_alive) &&
           keep_alive;
  }
  std::string head =
      absl::StrCat("HTTP/1.1 200 OK\r\nContent-Type: ", file->content_type,
                   "\r\nContent-Length: ", file->body.size(), "\r\n",
                   keep_alive ? "" : "Connection: close\r\n", options_.headers, "\r\n");
  if (request.method == "GET") head.append(file->body);
  return SendAll(fd, head) && keep_alive;
}

}  // namespace service
