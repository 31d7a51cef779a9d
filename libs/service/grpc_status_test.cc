#include "libs/service/grpc_status.h"

#include "absl/strings/cord.h"
#include "gtest/gtest.h"
#include "libs/base/error.h"
#include "libs/base/status_matchers.h"
#include "proto/google/rpc/error_details.pb.h"
#include "proto/google/rpc/status.pb.h"

namespace service {
namespace {

TEST(GrpcStatusTest, CanonicalCodesAndStableCodeRoundTrip) {
  struct Case {
    absl::Status in;
    grpc::StatusCode code;
  };
  for (const Case& c :
       {Case{base::InvalidArgument("ERR_BAD_FEN", "x"), grpc::StatusCode::INVALID_ARGUMENT},
        Case{base::FailedPrecondition("ERR_GAME_OVER", "x"), grpc::StatusCode::FAILED_PRECONDITION},
        Case{base::NotFound("ERR_GAME_NOT_FOUND", "x"), grpc::StatusCode::NOT_FOUND},
        Case{base::Aborted("ERR_VERSION_CONFLICT", "x"), grpc::StatusCode::ABORTED},
        Case{base::Unavailable("ERR_STORE_UNAVAILABLE", "x"), grpc::StatusCode::UNAVAILABLE}}) {
    grpc::Status g = ToGrpcStatus(c.in);
    EXPECT_EQ(g.error_code(), c.code);
    EXPECT_EQ(ErrorInfoOf(g).code(), base::ErrorCode(c.in));
    absl::Status back = FromGrpcStatus(g);
    EXPECT_EQ(back.code(), c.in.code());
    EXPECT_EQ(base::ErrorCode(back), base::ErrorCode(c.in));
  }
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

// The reason's name travels as libs/chess set it (services/illegal_move_status_test plays the
// move).
TEST(GrpcStatusTest, IllegalMoveReasonTravels) {
  absl::Status st = base::InvalidArgument("ERR_ILLEGAL_MOVE", "e1e2: own piece");
  st.SetPayload(base::kIllegalMoveReasonPayload, absl::Cord("OWN_PIECE_ON_TARGET"));
  grpc::Status g = ToGrpcStatus(st);
  EXPECT_EQ(ErrorInfoOf(g).illegal_move_reason(), "OWN_PIECE_ON_TARGET");
  EXPECT_EQ(FromGrpcStatus(g).GetPayload(base::kIllegalMoveReasonPayload),
            absl::Cord("OWN_PIECE_ON_TARGET"));
  EXPECT_EQ(ToErrorInfo(base::InvalidArgument("ERR_BAD_FEN", "x")).illegal_move_reason(), "");
}

// What any gRPC library reads (Python's rpc_status, Go's status.Details()): the details are a
// google.rpc.Status with the same code and message and one google.rpc.ErrorInfo whose reason is the
// stable code, in the domain "arbiter.v1".
TEST(GrpcStatusTest, DetailsAreTheStandardStatusWithErrorInfo) {
  absl::Status st = base::InvalidArgument("ERR_ILLEGAL_MOVE", "e1e2: own piece");
  st.SetPayload(base::kIllegalMoveReasonPayload, absl::Cord("OWN_PIECE_ON_TARGET"));
  grpc::Status g = ToGrpcStatus(st);
  google::rpc::Status rpc;
  ASSERT_TRUE(rpc.ParseFromString(g.error_details()));
  EXPECT_EQ(rpc.code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_EQ(rpc.message(), "e1e2: own piece");
  ASSERT_EQ(rpc.details_size(), 1);
  EXPECT_EQ(rpc.details(0).type_url(), "type.googleapis.com/google.rpc.ErrorInfo");
  google::rpc::ErrorInfo info;
  ASSERT_TRUE(rpc.details(0).UnpackTo(&info));
  EXPECT_EQ(info.reason(), "ERR_ILLEGAL_MOVE");
  EXPECT_EQ(info.domain(), "arbiter.v1");
  EXPECT_EQ(info.metadata().at("illegal_move_reason"), "OWN_PIECE_ON_TARGET");
  // A status without a stable code still names the generic one.
  ASSERT_TRUE(rpc.ParseFromString(ToGrpcStatus(absl::NotFoundError("gone")).error_details()));
  ASSERT_TRUE(rpc.details(0).UnpackTo(&info));
  EXPECT_EQ(info.reason(), "ERR_NOT_FOUND");
  EXPECT_TRUE(info.metadata().empty());
}

// An ErrorInfo of another domain (a proxy's, say) is not taken for Arbiter's code.
TEST(GrpcStatusTest, ForeignErrorInfoIsIgnored) {
  google::rpc::Status rpc;
  rpc.set_code(static_cast<int>(grpc::StatusCode::UNAVAILABLE));
  google::rpc::ErrorInfo foreign;
  foreign.set_reason("ERR_GAME_OVER");
  foreign.set_domain("proxy.example");
  rpc.add_details()->PackFrom(foreign);
  grpc::Status g(grpc::StatusCode::UNAVAILABLE, "down", rpc.SerializeAsString());
  EXPECT_EQ(ErrorInfoOf(g).code(), "");
  EXPECT_EQ(ErrorInfoOf(grpc::Status(grpc::StatusCode::UNAVAILABLE, "down", "\xff\xff")).code(),
            "");
}

// Messages quote their input: a status carries at most kMaxStatusMessageBytes of it (cut on a
// UTF-8 boundary), with its code and details intact.
TEST(GrpcStatusTest, LongMessagesAreCut) {
  const std::string move(100'000, 'x');
  grpc::Status g = ToGrpcStatus(base::InvalidArgument("ERR_BAD_SAN", "not a move: " + move));
  EXPECT_EQ(g.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LE(g.error_message().size(), kMaxStatusMessageBytes);
  EXPECT_EQ(g.error_message().substr(0, 14), "not a move: xx");
  EXPECT_EQ(g.error_message().substr(g.error_message().size() - 3), "...");
  EXPECT_EQ(ErrorInfoOf(g).code(), "ERR_BAD_SAN");
  EXPECT_LE(ErrorInfoOf(g).message().size(), kMaxStatusMessageBytes);
  EXPECT_LT(g.error_details().size(), 1024u);
  // Short messages are unchanged.
  EXPECT_EQ(ToGrpcStatus(base::InvalidArgument("ERR_BAD_SAN", "bad")).error_message(), "bad");
  // Never inside a UTF-8 character: "é" is two bytes.
  std::string accents;
  for (int i = 0; i < 400; ++i) accents += "\xC3\xA9";
  const std::string cut = BoundedStatusMessage("a" + accents);
  EXPECT_LE(cut.size(), kMaxStatusMessageBytes);
  const std::string body = cut.substr(0, cut.size() - 3);
  EXPECT_EQ((body.size() - 1) % 2, 0u);
  EXPECT_NE(static_cast<unsigned char>(body.back()), 0xC3);
}

}  // namespace
}  // namespace service
