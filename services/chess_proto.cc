#include "services/chess_proto.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "libs/base/error.h"

namespace services {

arbiter::v1::Move MoveProto(const chess::Position& pos, chess::Move move, chess::Letters letters) {
  arbiter::v1::Move out;
  out.set_uci(chess::ToUci(move));
  out.set_san(chess::ToSan(pos, move));
  out.set_appendix_e(chess::ToSan(pos, move, chess::SanStyle::kAppendixE, letters));
  return out;
}

absl::Status MoveError(int index, absl::string_view move, const absl::Status& status) {
  absl::Status out = base::Error(status.code(), base::ErrorCode(status),
                                 absl::StrCat("moves[", index, "] ", move, ": ", status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& p) {
    if (url != base::kErrorCodePayload) out.SetPayload(url, p);
  });
  return out;
}

}  // namespace services
