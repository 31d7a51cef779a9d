// A refused move's reason (libs/chess) reaches the client through the service layer's status
// conversion (libs/service, which knows no chess) and comes back as the reason it was.
#include "gtest/gtest.h"
#include "libs/chess/position.h"
#include "libs/service/grpc_status.h"

namespace services {
namespace {

TEST(IllegalMoveStatusTest, IllegalMoveReasonTravels) {  // 3.1: a piece may not take its own
  chess::Position pos = chess::Position::Initial();
  absl::Status st = pos.Play(chess::Move(chess::kE1, chess::kE2));
  grpc::Status g = service::ToGrpcStatus(st);
  EXPECT_EQ(service::ErrorInfoOf(g).illegal_move_reason(), "OWN_PIECE_ON_TARGET");
  EXPECT_EQ(chess::IllegalReasonOf(service::FromGrpcStatus(g)),
            chess::IllegalMoveReason::kOwnPieceOnTarget);
}

}  // namespace
}  // namespace services
