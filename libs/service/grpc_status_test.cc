#include "libs/service/grpc_status.h"

#include "gtest/gtest.h"
#include "libs/base/error.h"
#include "libs/base/status_matchers.h"
#include "libs/chess/fen.h"
#include "libs/chess/position.h"

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

TEST(GrpcStatusTest, IllegalMoveReasonTravels) {
  chess::Position pos = chess::Position::Initial();
  absl::Status st = pos.Play(chess::Move(chess::kE1, chess::kE2));
  grpc::Status g = ToGrpcStatus(st);
  EXPECT_EQ(ErrorInfoOf(g).illegal_move_reason(), "OWN_PIECE_ON_TARGET");
  EXPECT_EQ(chess::IllegalReasonOf(FromGrpcStatus(g)), chess::IllegalMoveReason::kOwnPieceOnTarget);
}

}  // namespace
}  // namespace service
