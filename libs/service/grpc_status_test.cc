#include "libs/service/grpc_status.h"

#include "absl/strings/cord.h"
#include "gtest/gtest.h"
#include "libs/base/error.h"
#include "libs/base/status_matchers.h"

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
