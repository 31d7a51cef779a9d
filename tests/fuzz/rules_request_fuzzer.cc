// Fuzz target: the rules service's request handling in process (services/rules_validation). The
// first byte chooses the method, the rest is the request's serialized bytes as they come off the
// wire; what parses is handled as the service handles it (rules_service.cc: ValidateOne for
// ValidateMove, GameOf and FillStatus for GetStatus and ApplyMoves), through the same library
// calls. A move called legal must be legal and its answer must read back; every FEN the service
// would answer must read back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "libs/base/error.h"
#include "libs/chess/fen.h"
#include "libs/chess/game.h"
#include "libs/chess/notation.h"
#include "libs/laws/automatic_ending.h"
#include "libs/laws/proto_convert.h"
#include "proto/arbiter/v1/rules.pb.h"
#include "services/chess_proto.h"

namespace {

namespace v1 = arbiter::v1;

constexpr int kMaxMoves = 10000;  // RulesLimits::max_moves

absl::StatusOr<chess::Position> PositionOf(const v1::Position& p) {
  if (p.fen().empty()) return absl::InvalidArgumentError("position.fen is required");
  return chess::ParseFenOrStartpos(p.fen());
}

void ExpectFenReadsBack(const chess::Position& pos) {
  const std::string fen = chess::ToFen(pos);
  absl::StatusOr<chess::Position> back = chess::ParseFen(fen);
  if (!back.ok() || chess::ToFen(*back) != fen) std::abort();
}

// ValidateOne (rules_service.cc).
void ValidateMove(const v1::ValidateMoveRequest& req) {
  absl::StatusOr<chess::Position> pos = PositionOf(req.position());
  if (!pos.ok() || req.move().empty()) return;
  const chess::MoveText text = chess::SplitDrawOffer(req.move());
  absl::StatusOr<chess::Move> move = chess::ParseMove(*pos, text.move);
  if (!move.ok()) {
    if (base::ErrorCode(move.status()).empty()) std::abort();  // every refusal has its code
    return;
  }
  if (!pos->IsLegal(*move)) std::abort();
  const chess::Letters letters =
      req.letters() == v1::LETTERS_GERMAN ? chess::Letters::kGerman : chess::Letters::kEnglish;
  const v1::Move answer = services::MoveProto(*pos, *move, letters);
  absl::StatusOr<chess::Move> uci = chess::ParseMove(*pos, answer.uci());
  absl::StatusOr<chess::Move> san = chess::ParseMove(*pos, answer.san());
  if (!uci.ok() || *uci != *move || !san.ok() || *san != *move) std::abort();
  chess::Position after = *pos;
  after.PlayUnchecked(*move);
  ExpectFenReadsBack(after);
  (void)after.InCheck();
  (void)after.IsCheckmate();
}

// GameOf and FillStatus (rules_service.cc), for GetStatus and ApplyMoves.
void PlayHistory(const v1::Position& position,
                 const google::protobuf::RepeatedPtrField<std::string>& moves,
                 v1::Edition edition) {
  absl::StatusOr<chess::Position> start = PositionOf(position);
  if (!start.ok() || moves.size() > kMaxMoves) return;
  absl::StatusOr<laws::Edition> e = laws::EditionOf(edition);
  const laws::Edition ed = e.ok() ? *e : laws::Edition::kFide2023;
  chess::Game game(*start);
  for (int i = 0; i < moves.size(); ++i) {
    if (i > 0 && laws::EndingOf(game, ed).has_value()) return;  // ERR_GAME_OVER
    const chess::Position before = game.position();
    absl::StatusOr<chess::Move> m = chess::ParseMove(before, moves[i]);
    if (!m.ok()) {
      (void)services::MoveError(i, moves[i], m.status());
      return;
    }
    if (!game.Play(*m).ok()) return;
    (void)services::MoveProto(before, *m);
  }
  const chess::Position& pos = game.position();
  ExpectFenReadsBack(pos);
  (void)pos.IsStalemate();
  (void)pos.IsInsufficientMaterial();
  (void)game.ThreefoldClaim();
  (void)game.FiftyMoveClaim();
  (void)game.IsFivefoldRepetition();
  (void)game.IsSeventyFiveMoveRule();
  (void)laws::EndingOf(game, ed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      v1::ValidateMoveRequest req;
      if (req.ParseFromString(bytes)) ValidateMove(req);
      break;
    }
    case 1: {
      v1::GetStatusRequest req;
      if (req.ParseFromString(bytes)) PlayHistory(req.position(), req.moves(), req.edition());
      break;
    }
    case 2: {
      v1::ApplyMovesRequest req;
      if (req.ParseFromString(bytes))
        PlayHistory(req.position(), req.moves(), v1::EDITION_UNSPECIFIED);
      break;
    }
  }
  return 0;
}
