#include "libs/service/http_request.h"

#include <string>

#include "gtest/gtest.h"

namespace service::http {
namespace {

constexpr char kValid[] =
    "POST /v1/arbiter.v1.RulesValidation/ValidateMove HTTP/1.1\r\n"
    "Host: localhost\r\n"
    "Authorization: Bearer abc.def.ghi\r\n"
    "Content-Type: application/json\r\n"
    "Content-Length: 2\r\n"
    "\r\n"
    "{}";

Head Parse(const std::string& bytes, Request* out, const Limits& limits = {}) {
  return ParseHead(bytes, limits, out);
}

TEST(HttpRequestTest, ReadsAValidHead) {
  Request r;
  Head h = Parse(kValid, &r);
  ASSERT_EQ(h.state, Head::State::kComplete) << h.reason;
  EXPECT_EQ(h.head_bytes, std::string(kValid).size() - 2);  // the body follows
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/v1/arbiter.v1.RulesValidation/ValidateMove");
  ASSERT_NE(r.Header("authorization"), nullptr);  // names in lower case
  EXPECT_EQ(*r.Header("authorization"), "Bearer abc.def.ghi");
  EXPECT_EQ(r.content_length, 2u);
  EXPECT_TRUE(r.keep_alive);
}

TEST(HttpRequestTest, WaitsForTheBlankLineAndNoLonger) {
  const std::string valid = kValid;
  Request r;
  for (size_t cut : {size_t{0}, size_t{10}, valid.find("\r\n\r\n") + 3}) {
    EXPECT_EQ(Parse(valid.substr(0, cut), &r).state, Head::State::kIncomplete) << cut;
  }
  // A head that never ends is refused once it passes the limit, blank line or not.
  Limits small;
  small.max_head_bytes = 64;
  EXPECT_EQ(Parse("POST /v1/a.B/C HTTP/1.1\r\nX-Padding: " + std::string(100, 'x'), &r, small)
                .http_status,
            431);
  EXPECT_EQ(Parse(kValid, &r, small).http_status, 431);
}

// Each of these makes two HTTP parsers disagree on where a request ends, or is no HTTP/1.1.
TEST(HttpRequestTest, RefusesWhatIsNotStrictHttp) {
  struct Case {
    std::string bytes;
    int status;
  };
  for (const Case& c : {
           Case{"POST /v1/a.B/C HTTP/1.1\nHost: x\r\n\r\n", 400},               // bare LF
           Case{"POST /v1/a.B/C HTTP/1.1\r\nHost: x\rY: z\r\n\r\n", 400},       // bare CR
           Case{"POST /v1/a.B/C HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400},  // obs-fold
           Case{"POST /v1/a.B/C HTTP/1.1\r\nHost : x\r\n\r\n", 400},  // space before the colon
           Case{"POST /v1/a.B/C HTTP/1.1\r\nNoColon\r\n\r\n", 400},
           Case{"POST /v1/a.B/C HTTP/1.1\r\nX: a\x01z\r\n\r\n", 400},  // a control character
           Case{"POST  /v1/a.B/C HTTP/1.1\r\n\r\n", 400},              // two spaces
           Case{"POST v1/a.B/C HTTP/1.1\r\n\r\n", 400},                // not an absolute path
           Case{"POST /v1/a.B/C HTTP/2.0\r\n\r\n", 505},
           Case{"POST /v1/a.B/C FTP/1.1\r\n\r\n", 400},
           Case{"P(ST /v1/a.B/C HTTP/1.1\r\n\r\n", 400},
           Case{"POST /" + std::string(3000, 'a') + " HTTP/1.1\r\n\r\n", 414},
           Case{"POST /v1/a.B/C HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
           Case{"POST /v1/a.B/C HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", 400},
           Case{"POST /v1/a.B/C HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
           Case{"POST /v1/a.B/C HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n", 400},
           Case{"POST /v1/a.B/C HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400},
       }) {
    Request r;
    Head h = Parse(c.bytes, &r);
    EXPECT_EQ(h.state, Head::State::kRejected) << c.bytes.substr(0, 80);
    EXPECT_EQ(h.http_status, c.status) << c.bytes.substr(0, 80) << ": " << h.reason;
  }
  // The same length twice is one length.
  Request r;
  EXPECT_EQ(
      Parse("POST /v1/a.B/C HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n", &r).state,
      Head::State::kComplete);
  EXPECT_EQ(r.content_length, 2u);
}

TEST(HttpRequestTest, TooManyHeaderLines) {
  std::string bytes = "POST /v1/a.B/C HTTP/1.1\r\n";
  for (int i = 0; i < 65; ++i) bytes += "X-H: 1\r\n";
  Request r;
  EXPECT_EQ(Parse(bytes + "\r\n", &r).http_status, 431);
}

TEST(HttpRequestTest, ConnectionsCloseWhenAsked) {
  Request r;
  ASSERT_EQ(Parse("POST /v1/a.B/C HTTP/1.1\r\nConnection: close\r\n\r\n", &r).state,
            Head::State::kComplete);
  EXPECT_FALSE(r.keep_alive);
  EXPECT_FALSE(r.content_length.has_value());  // the gateway answers 411
  ASSERT_EQ(Parse("POST /v1/a.B/C HTTP/1.0\r\n\r\n", &r).state, Head::State::kComplete);
  EXPECT_FALSE(r.keep_alive);
}

TEST(HttpRequestTest, RoutesOnlyTheOneForm) {
  EXPECT_EQ(GrpcPathOf("/v1/arbiter.v1.Arbitration/GetGame"), "/arbiter.v1.Arbitration/GetGame");
  for (const char* bad : {"/v1/arbiter.v1.Arbitration", "/v1/arbiter.v1.Arbitration/GetGame/x",
                          "/v2/arbiter.v1.Arbitration/GetGame", "/v1//GetGame",
                          "/v1/arbiter.v1.Arbitration/GetGame?x=1", "/v1/a%2eB/C", "/"}) {
    EXPECT_FALSE(GrpcPathOf(bad).has_value()) << bad;
  }
}

TEST(HttpRequestTest, StandardStatusMapping) {
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::OK), 200);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::INVALID_ARGUMENT), 400);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::FAILED_PRECONDITION), 400);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::OUT_OF_RANGE), 400);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNAUTHENTICATED), 401);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::PERMISSION_DENIED), 403);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::NOT_FOUND), 404);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::ALREADY_EXISTS), 409);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::ABORTED), 409);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::RESOURCE_EXHAUSTED), 429);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::CANCELLED), 499);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNIMPLEMENTED), 501);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNAVAILABLE), 503);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::DEADLINE_EXCEEDED), 504);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::INTERNAL), 500);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::DATA_LOSS), 500);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNKNOWN), 500);
}

}  // namespace
}  // namespace service::http
