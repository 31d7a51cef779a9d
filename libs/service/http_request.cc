#include "libs/service/http_request.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace service::http {
namespace {

Head Reject(int status, std::string reason) {
  Head h;
  h.state = Head::State::kRejected;
  h.http_status = status;
  h.reason = std::move(reason);
  return h;
}

// RFC 9110 5.6.2: the characters of a token (a method, a header's name).
bool IsTokenChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::string_view("!#$%&'*+-.^_`|~").find(c) != absl::string_view::npos;
}

bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

// RFC 9110 5.5: visible characters, spaces, tabs and obs-text; no control characters.
bool IsFieldValue(absl::string_view s) {
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7F) return false;
  }
  return true;
}

absl::string_view TrimSpaceAndTab(absl::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A bare CR or LF (one not in a CRLF pair) anywhere in `s`.
bool HasBareLineBreak(absl::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' && (i + 1 >= s.size() || s[i + 1] != '\n')) return true;
    if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r')) return true;
  }
  return false;
}

Head ParseRequestLine(absl::string_view line, const Limits& limits, Request* out) {
  std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty()) {
    return Reject(400, "the request line is not METHOD SP TARGET SP VERSION");
  }
  if (!IsToken(parts[0])) return Reject(400, "the method is not a token");
  if (parts[1].size() > limits.max_target_bytes) return Reject(414, "the target is too long");
  if (parts[1].front() != '/') return Reject(400, "the target is not an absolute path");
  for (char c : parts[1]) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F) return Reject(400, "the target has a character it may not have");
  }
  const absl::string_view version = parts[2];
  if (version == "HTTP/1.1") {
    out->minor_version = 1;
  } else if (version == "HTTP/1.0") {
    out->minor_version = 0;
  } else if (version.size() == 8 && absl::StartsWith(version, "HTTP/") &&
             absl::ascii_isdigit(static_cast<unsigned char>(version[5])) && version[6] == '.' &&
             absl::ascii_isdigit(static_cast<unsigned char>(version[7]))) {
    return Reject(505, "only HTTP/1.1 (and 1.0) is spoken here");
  } else {
    return Reject(400, "the version is not HTTP/x.y");
  }
  out->method = std::string(parts[0]);
  out->target = std::string(parts[1]);
  return Head{Head::State::kComplete};
}

}  // namespace

const std::string* Request::Header(absl::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (n == name) return &v;
  }
  return nullptr;
}

Head ParseHead(absl::string_view bytes, const Limits& limits, Request* out) {
  const size_t end = bytes.find("\r\n\r\n");
  const absl::string_view seen = end == absl::string_view::npos ? bytes : bytes.substr(0, end);
  // What has arrived is judged before the blank line does: a client that never sends one must
  // not hold the connection with a head it could not finish validly.
  if (HasBareLineBreak(seen.size() > 0 && seen.back() == '\r' ? seen.substr(0, seen.size() - 1)
                                                              : seen)) {
    return Reject(400, "lines must end in CRLF");
  }
  if (end == absl::string_view::npos) {
    if (bytes.size() > limits.max_head_bytes) {
      return Reject(431, "the request line and headers are too large");
    }
    return Head{};
  }
  if (end + 4 > limits.max_head_bytes) {
    return Reject(431, "the request line and headers are too large");
  }
  *out = Request{};
  std::vector<absl::string_view> lines = absl::StrSplit(seen, "\r\n");
  Head line = ParseRequestLine(lines[0], limits, out);
  if (line.state == Head::State::kRejected) return line;
  if (lines.size() - 1 > limits.max_headers) return Reject(431, "too many header lines");
  for (size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view l = lines[i];
    if (l.empty()) return Reject(400, "an empty header line");
    if (l.front() == ' ' || l.front() == '\t') {
      return Reject(400, "folded header lines are not accepted");
    }
    const size_t colon = l.find(':');
    if (colon == absl::string_view::npos) return Reject(400, "a header line without a colon");
    const absl::string_view name = l.substr(0, colon);
    // No whitespace between the name and the colon (RFC 9112 5.1): IsToken refuses it.
    if (!IsToken(name)) return Reject(400, "a header name is not a token");
    const absl::string_view value = TrimSpaceAndTab(l.substr(colon + 1));
    if (!IsFieldValue(value)) return Reject(400, "a header value has a control character");
    out->headers.emplace_back(absl::AsciiStrToLower(name), std::string(value));
  }
  if (out->Header("transfer-encoding") != nullptr) {
    return Reject(501, "request bodies are framed by Content-Length only (no Transfer-Encoding)");
  }
  for (const auto& [name, value] : out->headers) {
    if (name != "content-length") continue;
    uint64_t length = 0;
    if (value.empty() || value.size() > 15 ||
        value.find_first_not_of("0123456789") != std::string::npos ||
        !absl::SimpleAtoi(value, &length)) {
      return Reject(400, "Content-Length is not a decimal number");
    }
    if (out->content_length.has_value() && *out->content_length != length) {
      return Reject(400, "conflicting Content-Length headers");
    }
    out->content_length = length;
  }
  const std::string* connection = out->Header("connection");
  const bool close = connection != nullptr && absl::EqualsIgnoreCase(*connection, "close");
  out->keep_alive = out->minor_version == 1 && !close;
  Head h;
  h.state = Head::State::kComplete;
  h.head_bytes = end + 4;
  return h;
}

std::optional<std::string> GrpcPathOf(absl::string_view target) {
  if (!absl::ConsumePrefix(&target, "/v1/")) return std::nullopt;
  std::vector<absl::string_view> parts = absl::StrSplit(target, '/');
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) return std::nullopt;
  for (absl::string_view part : parts) {
    for (char c : part) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_') {
        return std::nullopt;
      }
    }
  }
  return absl::StrCat("/", parts[0], "/", parts[1]);
}

int HttpStatusOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::CANCELLED:
      return 499;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:  // UNKNOWN, INTERNAL, DATA_LOSS
      return 500;
  }
}

absl::string_view ReasonPhrase(int http_status) {
  switch (http_status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 499:
      return "Client Closed Request";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Internal Server Error";
  }
}

}  // namespace service::http
