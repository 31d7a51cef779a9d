// What the services that answer about chess positions (rules validation, search analysis) share:
// moves as protos, the error of a bad move in a request's list, and perft's answer.
#ifndef ARBITER_SERVICES_CHESS_PROTO_H_
#define ARBITER_SERVICES_CHESS_PROTO_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "libs/base/status_macros.h"
#include "libs/chess/notation.h"
#include "libs/chess/perft.h"
#include "libs/chess/position.h"
#include "proto/arbiter/v1/common.pb.h"

namespace services {

// `move` in UCI, SAN and Appendix E notation; it must be legal in `pos`.
arbiter::v1::Move MoveProto(const chess::Position& pos, chess::Move move,
                            chess::Letters letters = chess::Letters::kEnglish);

// `status` (the failure to play moves[index], `move`) with "moves[<index>] <move>: " before its
// message, its code and payloads kept.
absl::Status MoveError(int index, absl::string_view move, const absl::Status& status);

// Perft from `pos` to `depth` into `resp`: its nodes and, with `divide` (depth >= 1), one
// resp->add_divide() entry per root move, filled by `fill(entry, move, nodes)`; `check` stops it
// (chess::Perft).
template <typename Response, typename Fill>
absl::Status AnswerPerft(const chess::Position& pos, int depth, bool divide,
                         const std::function<absl::Status()>& check, Response* resp, Fill fill) {
  if (!divide || depth < 1) {
    ASSIGN_OR_RETURN(std::uint64_t nodes, chess::Perft(pos, depth, check));
    resp->set_nodes(nodes);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(auto counts, chess::PerftDivide(pos, depth, check));
  std::uint64_t total = 0;
  for (const auto& [move, nodes] : counts) {
    fill(resp->add_divide(), move, nodes);
    total += nodes;
  }
  resp->set_nodes(total);
  return absl::OkStatus();
}

}  // namespace services

#endif  // ARBITER_SERVICES_CHESS_PROTO_H_
